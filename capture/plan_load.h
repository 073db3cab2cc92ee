/* SPDX-License-Identifier: Apache-2.0 */
/* plan_load: the parts of a plan that plan.c (the top level, arms,
 * cells and sources) has loaded by plan_side.c (each side) and
 * plan_observers.c (the observers); the fields all three read are
 * plan_fields.h's. Only capture/plan*.c include this. */
#ifndef CAPTURE_PLAN_LOAD_H
#define CAPTURE_PLAN_LOAD_H

#include <stdint.h>

#include <jansson.h>

#include "capture/plan.h"
#include "capture/plan_fields.h"
#include "lib/core/status.h"

/* Side role (PLAN_SENDER or PLAN_PEER) of cell into s. */
ev_status capture_plan_load_side(json_t *cell, int role, struct plan_side *s, long ncpus, const char *plan,
				 const char *cell_name, struct ev_error *err);

/* "observers" into p. */
ev_status capture_plan_load_observers(struct plan *p, const char *path, struct ev_error *err);

#endif
