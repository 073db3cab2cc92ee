/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <string.h>

#include "lib/campaign/plan.h"
#include "lib/core/json.h"

ev_status ev_plan_load(const char *path, struct ev_plan *plan, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err)
{
	plan->doc = NULL;
	return ev_json_load(path, EV_PLAN_FORMAT, 0, &plan->doc, sha256, NULL, NULL, err);
}

const char *ev_plan_name(const struct ev_plan *plan)
{
	return plan ? json_string_value(json_object_get(plan->doc, "name")) : NULL;
}

size_t ev_plan_cell_count(const struct ev_plan *plan)
{
	return plan ? json_array_size(json_object_get(plan->doc, "cells")) : 0;
}

const char *ev_plan_cell_name(const struct ev_plan *plan, size_t i)
{
	return plan ? json_string_value(json_object_get(json_array_get(json_object_get(plan->doc, "cells"), i), "name"))
		    : NULL;
}

int ev_plan_arm_pm_qos(const struct ev_plan *plan, const char *arm, long long *us)
{
	if (!plan || !arm)
		return -1;
	const json_t *arms = json_object_get(plan->doc, "arms");
	if (!arms)
		return strcmp(arm, "baseline") == 0 ? 0 : -1;
	size_t i;
	json_t *a;
	json_array_foreach(arms, i, a) {
		const char *name = json_string_value(json_object_get(a, "name"));
		if (!name || strcmp(name, arm) != 0)
			continue;
		const json_t *q = json_object_get(a, "cpu_dma_latency");
		if (!json_is_integer(q))
			return 0;
		*us = json_integer_value(q);
		return 1;
	}
	return -1;
}

const json_t *ev_plan_grades(const struct ev_plan *plan)
{
	return plan ? json_object_get(plan->doc, "grades") : NULL;
}

void ev_plan_free(struct ev_plan *plan)
{
	json_decref(plan->doc);
	plan->doc = NULL;
}
