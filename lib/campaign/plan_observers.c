/* SPDX-License-Identifier: Apache-2.0 */
/* plan_observers: the plan's observer programs, loaded strictly, and
 * their argv for one side. */
#include "config.h"
#include "lib/campaign/plan_check_parts.h"

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/run.h"
#include "lib/core/path.h"

/* Each {word} of an observer's argument is one it knows. */
static ev_status check_observer_template(const char *s, const char *plan, const char *where, struct ev_error *err)
{
	for (const char *p = s; (p = strchr(p, '{')) != NULL;) {
		if (p[1] == '{') {
			p += 2;
			continue;
		}
		const char *close = strchr(p, '}');
		size_t n = close ? (size_t)(close - p - 1) : 0;
		if (!close || !((n == 5 && strncmp(p + 1, "iface", 5) == 0) || (n == 4 && strncmp(p + 1, "side", 4) == 0) ||
				(n == 3 && strncmp(p + 1, "pid", 3) == 0)))
			return ev_plan_refuse(err, plan, where, "\"%s\": an observer knows {iface}, {side} and {pid} ({{ for a '{')", s);
		p = close + 1;
	}
	return EV_OK;
}

/* "observers": [{"name", "argv", "sides", "when", "format", "optional"}]. */
ev_status ev_plan_load_observers(struct ev_campaign_plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"name", "argv", "sides", "when", "format", "optional", NULL};
	json_t *list = json_object_get(p->doc, "observers");
	if (!list)
		return EV_OK;
	if (!json_is_array(list) || json_array_size(list) > EV_PLAN_MAX_OBSERVERS)
		return ev_plan_refuse(err, path, "observers", "expected a list of at most %d observers", EV_PLAN_MAX_OBSERVERS);
	size_t i;
	json_t *o;
	json_array_foreach(list, i, o) {
		struct ev_plan_observer *ob = &p->observers[i];
		char where[64];
		snprintf(where, sizeof where, "observers[%zu]", i);
		ev_status st;
		if (!json_is_object(o))
			return ev_plan_refuse(err, path, where, "expected an object with name and argv");
		if ((st = ev_plan_only_keys(o, keys, path, where, err)) != EV_OK || (st = ev_plan_get_name(o, "name", &ob->name, path, where, err)) != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->observers[k].name, ob->name) == 0)
				return ev_plan_refuse(err, path, where, "observer name \"%s\" is used twice", ob->name);
		json_t *argv = json_object_get(o, "argv");
		if (!json_is_array(argv) || json_array_size(argv) == 0 || json_array_size(argv) > EV_PLAN_MAX_ARGS)
			return ev_plan_refuse(err, path, where, "\"argv\": expected a list of 1 to %d strings", EV_PLAN_MAX_ARGS);
		size_t a;
		json_t *v;
		json_array_foreach(argv, a, v) {
			if (!json_is_string(v))
				return ev_plan_refuse(err, path, where, "\"argv\"[%zu]: expected a string", a);
			if ((st = check_observer_template(json_string_value(v), path, where, err)) != EV_OK)
				return st;
		}
		if (json_string_value(json_array_get(argv, 0))[0] != '/')
			return ev_plan_refuse(err, path, where, "\"argv\"[0]: expected an absolute path (a program is pinned by its path)");
		ob->argv = argv;
		json_t *sides = json_object_get(o, "sides"), *when = json_object_get(o, "when");
		ob->sides[0] = ob->sides[1] = !sides;
		json_array_foreach(sides, a, v) {
			const char *side = json_string_value(v);
			int k = side && strcmp(side, "sender") == 0 ? EV_PLAN_SENDER : side && strcmp(side, "peer") == 0 ? EV_PLAN_PEER : -1;
			if (k < 0)
				return ev_plan_refuse(err, path, where, "\"sides\": expected a list of \"sender\" and \"peer\"");
			ob->sides[k] = 1;
		}
		if (sides && (!json_is_array(sides) || !(ob->sides[0] || ob->sides[1])))
			return ev_plan_refuse(err, path, where, "\"sides\": expected a list of \"sender\" and \"peer\"");
		ob->before = ob->during = ob->after = !when;
		json_array_foreach(when, a, v) {
			const char *w = json_string_value(v);
			int *flag = !w ? NULL : strcmp(w, "before") == 0 ? &ob->before : strcmp(w, "during") == 0 ? &ob->during
								    : strcmp(w, "after") == 0 ? &ob->after : NULL;
			if (!flag)
				return ev_plan_refuse(err, path, where, "\"when\": expected a list of \"before\", \"during\" and \"after\"");
			*flag = 1;
		}
		if (when && (!json_is_array(when) || !(ob->before || ob->during || ob->after)))
			return ev_plan_refuse(err, path, where, "\"when\": expected a list of \"before\", \"during\" and \"after\"");
		json_t *format = json_object_get(o, "format");
		ob->format = format ? json_string_value(format) : "text";
		if (!ob->format || (strcmp(ob->format, "text") != 0 && strcmp(ob->format, "onload") != 0))
			return ev_plan_refuse(err, path, where, "\"format\": expected \"text\" or \"onload\"");
		json_t *optional = json_object_get(o, "optional");
		if (optional && !json_is_boolean(optional))
			return ev_plan_refuse(err, path, where, "\"optional\": expected true or false");
		ob->optional = json_is_true(optional);
		p->nobservers++;
	}
	return EV_OK;
}

ev_status ev_plan_observer_argv(const struct ev_plan_observer *o, const char *iface, int side, long pid,
				     char ***out, struct ev_error *err)
{
	size_t n = json_array_size(o->argv);
	char **argv = calloc(n + 1, sizeof *argv);
	if (!argv)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(o->argv, i));
		char buf[8192];
		size_t w = 0;
		for (const char *p = s; *p && w < sizeof buf - 64;) {
			if (p[0] == '{' && p[1] == '{') {
				buf[w++] = '{';
				p += 2;
			} else if (strncmp(p, "{iface}", 7) == 0) {
				w += (size_t)snprintf(buf + w, sizeof buf - w, "%s", iface);
				p += 7;
			} else if (strncmp(p, "{side}", 6) == 0) {
				w += (size_t)snprintf(buf + w, sizeof buf - w, "%s", side == EV_PLAN_SENDER ? "sender" : "peer");
				p += 6;
			} else if (strncmp(p, "{pid}", 5) == 0) {
				w += (size_t)snprintf(buf + w, sizeof buf - w, "%ld", pid);
				p += 5;
			} else {
				buf[w++] = *p++;
			}
			if (w >= sizeof buf)
				w = sizeof buf - 1;
		}
		buf[w] = 0;
		if (!(argv[i] = strdup(buf))) {
			ev_plan_argv_free(argv);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
	}
	*out = argv;
	return EV_OK;
}

