/* SPDX-License-Identifier: Apache-2.0 */
/* plan_check_parts: the parts of a plan that plan_check.c (the top level,
 * arms, cells and sources) has loaded by plan_side.c (each side) and
 * plan_observers.c (the observers); the fields all three read are
 * plan_fields.h's. Only those files include this. */
#ifndef EV_PLAN_CHECK_PARTS_H
#define EV_PLAN_CHECK_PARTS_H

#include <stdint.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/campaign/plan_fields.h"
#include "lib/core/status.h"

/* Side role (EV_PLAN_SENDER or EV_PLAN_PEER) of cell into s. */
ev_status ev_plan_load_side(json_t *cell, int role, struct ev_plan_side *s, long ncpus, const char *plan,
				 const char *cell_name, struct ev_error *err);

/* "observers" into p. */
ev_status ev_plan_load_observers(struct ev_campaign_plan *p, const char *path, struct ev_error *err);

#endif
