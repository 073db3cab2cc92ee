/* SPDX-License-Identifier: Apache-2.0 */
/* plan: a campaign's plan (plan.json, evidence-plan/1, doc/formats.md
 * "Campaign plan"), the one code that reads a plan file, and what those
 * who judge a campaign read of it: its name, its arms and what PM QoS
 * each declares, its cells in order, its grading rules. capture holds
 * what this read to every rule before anything runs (lib/campaign/
 * plan_check); these accessors, for audit, trust nothing and never fail
 * on an absent or mistyped field: each says what it returns then, and
 * the caller says what that means.
 *
 * A struct ev_plan owns its document; free with ev_plan_free. No global
 * state. */
#ifndef EV_PLAN_H
#define EV_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_PLAN_FORMAT "evidence-plan/1"

struct ev_plan {
	json_t *doc;
};

/* Read path (JSON, "format" evidence-plan/1); sha256 (may be NULL) gets
 * the digest of its bytes. */
ev_status ev_plan_load(const char *path, struct ev_plan *plan, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err);

/* "name", or NULL. */
const char *ev_plan_name(const struct ev_plan *plan);

/* How many cells "cells" lists, and the name of the i-th (NULL when it
 * has none). */
size_t ev_plan_cell_count(const struct ev_plan *plan);
const char *ev_plan_cell_name(const struct ev_plan *plan, size_t i);

/* What arm declares of PM QoS: 1 with *us its cpu_dma_latency, 0 when it
 * declares none (a plan without "arms" has one, baseline, holding
 * nothing), -1 when the plan has no such arm (or plan is NULL). */
int ev_plan_arm_pm_qos(const struct ev_plan *plan, const char *arm, long long *us);

/* "grades": the grading rules the plan pins (lib/campaign/grade), or NULL. */
const json_t *ev_plan_grades(const struct ev_plan *plan);

void ev_plan_free(struct ev_plan *plan);

#endif
