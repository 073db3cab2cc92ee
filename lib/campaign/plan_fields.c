/* SPDX-License-Identifier: Apache-2.0 */
/* plan_fields: the plan's fields as every part of the loader reads them
 * (plan.c, plan_side.c, plan_observers.c all stand on this file; it
 * calls none of them): a refusal naming the plan, where and what, the
 * keys allowed, a count in its range, a name, an account; and an argv
 * made from a plan freed. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/plan_fields.h"
#include "lib/core/json.h"

#define NAME_MAX_LEN 40

ev_status ev_plan_refuse(struct ev_error *err, const char *plan, const char *where, const char *fmt,
			...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return ev_error_set(err, EV_REFUSED, "%s: %s: %s", plan, where, what);
}

ev_status ev_plan_only_keys(const json_t *obj, const char *const *allowed, const char *plan,
			   const char *where, struct ev_error *err)
{
	const char *key = ev_json_unknown_key(obj, allowed);
	if (!key)
		return EV_OK;
	char list[512] = "";
	for (const char *const *a = allowed; *a; a++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
	return ev_plan_refuse(err, plan, where, "unknown key \"%s\" (expected one of: %s)", key, list);
}

/* An optional unsigned integer in [min, max]. */
ev_status ev_plan_get_count(const json_t *obj, const char *key, uint64_t def, uint64_t min,
			   uint64_t max, uint64_t *out, const char *plan, const char *where,
			   struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		*out = def;
		return EV_OK;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min ||
	    (uint64_t)json_integer_value(v) > max)
		return ev_plan_refuse(err, plan, where, "\"%s\": expected an integer from %" PRIu64 " to %" PRIu64,
			      key, min, max);
	*out = (uint64_t)json_integer_value(v);
	return EV_OK;
}

int ev_plan_valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > NAME_MAX_LEN)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.' || (*p == '-' && p != s)))
			return 0;
	return 1;
}

ev_status ev_plan_get_name(const json_t *obj, const char *key, const char **out, const char *plan,
			  const char *where, struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_string(v) || !ev_plan_valid_name(json_string_value(v)))
		return ev_plan_refuse(err, plan, where,
			      "\"%s\": expected a name of 1 to %d letters, digits, '_', '.' or '-'", key,
			      NAME_MAX_LEN);
	*out = json_string_value(v);
	return EV_OK;
}

/* A user or group name as the system's databases hold it. */
ev_status ev_plan_get_account(const json_t *obj, const char *key, const char **out, const char *plan,
			     const char *where, struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v)
		return EV_OK;
	const char *name = json_string_value(v);
	size_t n = name ? strlen(name) : 0;
	int ok = n > 0 && n <= 32 && name[0] != '-';
	for (size_t i = 0; ok && i < n; i++)
		ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		     (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' || name[i] == '.';
	if (!ok)
		return ev_plan_refuse(err, plan, where, "\"%s\": expected a %s name (1 to 32 letters, digits, '_', '.' or '-')",
			      key, key);
	*out = name;
	return EV_OK;
}

void ev_plan_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
