/* SPDX-License-Identifier: Apache-2.0 */
/* plan_fields: what every file that loads a plan reads its fields with
 * (plan_fields.c; it stands below plan_check.c, plan_side.c and
 * plan_observers.c and calls none of them). Each refusal names the plan
 * file, where in it, and what was expected. Only those files include
 * this. */
#ifndef EV_PLAN_FIELDS_H
#define EV_PLAN_FIELDS_H

#include <stdint.h>

#include <jansson.h>

#include "lib/core/status.h"

/* "PLAN: WHERE: WHAT" as EV_REFUSED. */
ev_status ev_plan_refuse(struct ev_error *err, const char *plan, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Every key of obj is one of allowed (NULL-terminated). */
ev_status ev_plan_only_keys(const json_t *obj, const char *const *allowed, const char *plan, const char *where,
				 struct ev_error *err);

/* An optional unsigned integer in [min, max], def when absent. */
ev_status ev_plan_get_count(const json_t *obj, const char *key, uint64_t def, uint64_t min, uint64_t max,
				 uint64_t *out, const char *plan, const char *where, struct ev_error *err);

/* 1 to 40 of A-Za-z0-9_.- (not starting with '-'). */
int ev_plan_valid_name(const char *s);

/* A required name under key. */
ev_status ev_plan_get_name(const json_t *obj, const char *key, const char **out, const char *plan,
				const char *where, struct ev_error *err);

/* An optional user or group name under key (*out NULL when absent). */
ev_status ev_plan_get_account(const json_t *obj, const char *key, const char **out, const char *plan,
				   const char *where, struct ev_error *err);

#endif
