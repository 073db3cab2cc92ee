/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <sched.h>
#include "lib/campaign/plan_check.h"
#include "lib/campaign/grade.h"
#include "lib/campaign/plan_check_parts.h"

#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/campaign/run.h"
#include "lib/core/json.h"
#include "lib/core/path.h"

#define DEFAULT_PORT 11001
#define DEFAULT_TIMEOUT_S 600
#define DEFAULT_INTERVAL_MS 100
#define DMA_LATENCY_MAX 2000000000

static ev_status load_cells(struct ev_campaign_plan *p, const char *path, long ncpus, struct ev_error *err)
{
	static const char *const keys[] = {"name", "description", "sender", "peer", NULL};
	json_t *cells = json_object_get(p->doc, "cells");
	if (!json_is_array(cells) || json_array_size(cells) == 0 || json_array_size(cells) > EV_PLAN_MAX_CELLS)
		return ev_plan_refuse(err, path, "cells", "expected a list of 1 to %d cells", EV_PLAN_MAX_CELLS);
	size_t i;
	json_t *c;
	json_array_foreach(cells, i, c) {
		struct ev_plan_cell *cell = &p->cells[i];
		char where[64];
		snprintf(where, sizeof where, "cells[%zu]", i);
		if (!json_is_object(c))
			return ev_plan_refuse(err, path, where, "expected an object");
		ev_status st = ev_plan_only_keys(c, keys, path, where, err);
		if (st == EV_OK)
			st = ev_plan_get_name(c, "name", &cell->name, path, where, err);
		if (st != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->cells[k].name, cell->name) == 0)
				return ev_plan_refuse(err, path, where, "cell name \"%s\" is used twice", cell->name);
		json_t *d = json_object_get(c, "description");
		cell->description = json_is_string(d) ? json_string_value(d) : "";
		for (int r = 0; r < 2; r++)
			if ((st = ev_plan_load_side(c, r, &cell->side[r], ncpus, path, cell->name, err)) != EV_OK)
				return st;
		for (int r = 0; r < 2; r++)
			if (!cell->side[r].user) {
				cell->side[r].user = p->user;
				cell->side[r].group = p->group;
			}
		if (cell->side[EV_PLAN_SENDER].cpu == cell->side[EV_PLAN_PEER].cpu)
			return ev_plan_refuse(err, path, where, "sender and peer are both on CPU %d; each needs its own",
				      cell->side[EV_PLAN_SENDER].cpu);
		p->ncells++;
	}
	return EV_OK;
}

static ev_status load_arms(struct ev_campaign_plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"name", "cpu_dma_latency", NULL};
	json_t *arms = json_object_get(p->doc, "arms");
	if (!arms) {
		p->arms[0] = (struct ev_plan_arm){.name = "baseline"};
		p->narms = 1;
		return EV_OK;
	}
	if (!json_is_array(arms) || json_array_size(arms) == 0 || json_array_size(arms) > EV_PLAN_MAX_ARMS)
		return ev_plan_refuse(err, path, "arms", "expected a list of 1 to %d arms", EV_PLAN_MAX_ARMS);
	size_t i;
	json_t *a;
	json_array_foreach(arms, i, a) {
		struct ev_plan_arm *arm = &p->arms[i];
		char where[64];
		snprintf(where, sizeof where, "arms[%zu]", i);
		if (!json_is_object(a))
			return ev_plan_refuse(err, path, where, "expected an object");
		ev_status st = ev_plan_only_keys(a, keys, path, where, err);
		if (st == EV_OK)
			st = ev_plan_get_name(a, "name", &arm->name, path, where, err);
		if (st != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->arms[k].name, arm->name) == 0)
				return ev_plan_refuse(err, path, where, "arm name \"%s\" is used twice", arm->name);
		if (json_object_get(a, "cpu_dma_latency")) {
			uint64_t v;
			if ((st = ev_plan_get_count(a, "cpu_dma_latency", 0, 0, DMA_LATENCY_MAX, &v, path, where, err)) != EV_OK)
				return st;
			arm->pm_qos = 1;
			arm->cpu_dma_latency = (int32_t)v;
		}
		p->narms++;
	}
	return EV_OK;
}

static int valid_ifname(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 0 && n < 16 && !strchr(s, '/') && !strpbrk(s, " \t\n:") && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0;
}

/* "namespaces": "none", "veth", or "link" with "link": {"sender": IFACE,
 * "peer": IFACE, "mtu": N}, two interfaces of capture's namespace. */
static ev_status load_namespaces(struct ev_campaign_plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"sender", "peer", "mtu", NULL};
	json_t *v = json_object_get(p->doc, "namespaces"), *link = json_object_get(p->doc, "link");
	const char *s = v ? json_string_value(v) : "none";
	if (!s || (strcmp(s, "none") != 0 && strcmp(s, "veth") != 0 && strcmp(s, "link") != 0))
		return ev_plan_refuse(err, path, "plan", "\"namespaces\": expected \"none\", \"veth\" or \"link\"");
	p->namespaces = s;
	p->netns = strcmp(s, "none") != 0;
	p->link = strcmp(s, "link") == 0;
	if (!p->link) {
		if (link)
			return ev_plan_refuse(err, path, "link", "given, and \"namespaces\" is \"%s\" (a link is for \"namespaces\": \"link\")", s);
		return EV_OK;
	}
	ev_status st;
	if (!json_is_object(link))
		return ev_plan_refuse(err, path, "link", "required by \"namespaces\": \"link\": {\"sender\": IFACE, \"peer\": IFACE}");
	if ((st = ev_plan_only_keys(link, keys, path, "link", err)) != EV_OK)
		return st;
	for (int k = 0; k < 2; k++) {
		const char *role = k == EV_PLAN_SENDER ? "sender" : "peer";
		const char *name = json_string_value(json_object_get(link, role));
		if (!valid_ifname(name))
			return ev_plan_refuse(err, path, "link", "\"%s\": expected an interface name of 1 to 15 bytes", role);
		p->link_if[k] = name;
	}
	if (strcmp(p->link_if[0], p->link_if[1]) == 0)
		return ev_plan_refuse(err, path, "link", "sender and peer are both %s: a link has two ends", p->link_if[0]);
	return ev_plan_get_count(link, "mtu", 0, 68, 65535, &p->link_mtu, path, "link", err);
}

static ev_status load_top(struct ev_campaign_plan *p, const char *path, long ncpus, struct ev_error *err)
{
	static const char *const keys[] = {"format", "name", "description", "warmups", "measured",
					   "repeats", "order", "namespaces", "port", "timeout_seconds",
					   "on_failure", "controller_cpus", "controller_shares", "observe", "pins", "sources",
					   "user", "group", "link", "observers", "perf", "arms", "cells", "grades", NULL};
	json_t *d = p->doc;
	ev_status st = ev_plan_only_keys(d, keys, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_name(d, "name", &p->name, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_account(d, "user", &p->user, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_account(d, "group", &p->group, path, "plan", err);
	if (st == EV_OK && p->group && !p->user)
		st = ev_plan_refuse(err, path, "plan", "\"group\": given without \"user\" (name whom the sides run as)");
	if (st == EV_OK)
		st = ev_plan_get_count(d, "warmups", 1000, 0, (uint64_t)1 << 32, &p->warmups, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_count(d, "measured", 1000000, 1, (uint64_t)1 << 32, &p->measured, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_count(d, "repeats", 1, 1, 1000, &p->repeats, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_count(d, "port", DEFAULT_PORT, 1, 65535, &p->port, path, "plan", err);
	if (st == EV_OK)
		st = ev_plan_get_count(d, "timeout_seconds", DEFAULT_TIMEOUT_S, 1, 86400, &p->timeout_s, path, "plan", err);
	if (st != EV_OK)
		return st;
	struct {
		const char *key, *a, *b;
		int *flag;
	} choices[] = {
		{"order", "listed", "balanced", &p->balanced},
		{"on_failure", "continue", "stop", &p->stop_on_failure},
	};
	for (size_t i = 0; i < sizeof choices / sizeof *choices; i++) {
		json_t *v = json_object_get(d, choices[i].key);
		const char *s = json_string_value(v);
		if (v && (!s || (strcmp(s, choices[i].a) != 0 && strcmp(s, choices[i].b) != 0)))
			return ev_plan_refuse(err, path, "plan", "\"%s\": expected \"%s\" or \"%s\"", choices[i].key,
				      choices[i].a, choices[i].b);
		*choices[i].flag = s && strcmp(s, choices[i].b) == 0;
	}
	if (!json_object_get(d, "order"))
		p->balanced = 1;
	if ((st = load_namespaces(p, path, err)) != EV_OK)
		return st;
	json_t *observe = json_object_get(d, "observe");
	static const char *const okeys[] = {"interval_ms", NULL};
	if (observe && (!json_is_object(observe) ||
			(st = ev_plan_only_keys(observe, okeys, path, "observe", err)) != EV_OK))
		return st != EV_OK ? st : ev_plan_refuse(err, path, "observe", "expected {\"interval_ms\": N}");
	if ((st = ev_plan_get_count(observe ? observe : d, "interval_ms", DEFAULT_INTERVAL_MS, 10, 60000,
			    &p->interval_ms, path, "observe", err)) != EV_OK)
		return st;
	json_t *cpus = json_object_get(d, "controller_cpus"), *shares = json_object_get(d, "controller_shares");
	if (shares && !json_is_boolean(shares))
		return ev_plan_refuse(err, path, "plan", "\"controller_shares\": expected true or false");
	p->controller_shares = json_is_true(shares);
	if (!cpus) {
		p->controller_default = 1; /* chosen once the sides' CPUs are known (controller_apart) */
	} else {
		if (!json_is_array(cpus) || json_array_size(cpus) == 0 || json_array_size(cpus) > EV_PLAN_MAX_CPUS)
			return ev_plan_refuse(err, path, "plan", "\"controller_cpus\": expected a list of CPU numbers");
		size_t i;
		json_t *c;
		json_array_foreach(cpus, i, c) {
			if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) >= ncpus)
				return ev_plan_refuse(err, path, "plan", "\"controller_cpus\"[%zu]: expected a CPU from 0 to %ld", i,
					      ncpus - 1);
			p->controller_cpus[p->ncontroller++] = (int)json_integer_value(c);
		}
	}
	json_t *pins = json_object_get(d, "pins");
	if (pins) {
		const char *k;
		json_t *v;
		if (!json_is_object(pins))
			return ev_plan_refuse(err, path, "pins", "expected an object of absolute path: SHA-256");
		json_object_foreach(pins, k, v) {
			if (k[0] != '/')
				return ev_plan_refuse(err, path, "pins", "\"%s\": expected an absolute path", k);
			if (!json_is_string(v) || !ev_sha256_hex_valid(json_string_value(v)))
				return ev_plan_refuse(err, path, "pins", "\"%s\": expected 64 lowercase hex digits", k);
		}
		p->pins = pins;
	}
	return EV_OK;
}

/* "sources": a program or launcher of some side, built from a repository
 * named by an absolute path. Checked once the cells are known. */
static ev_status load_sources(struct ev_campaign_plan *p, const char *path, struct ev_error *err)
{
	json_t *sources = json_object_get(p->doc, "sources");
	if (!sources)
		return EV_OK;
	if (!json_is_object(sources))
		return ev_plan_refuse(err, path, "sources", "expected an object of program path: repository path");
	const char *prog;
	json_t *v;
	json_object_foreach(sources, prog, v) {
		const char *repo = json_string_value(v);
		if (!repo || repo[0] != '/')
			return ev_plan_refuse(err, path, "sources", "\"%s\": expected the repository's absolute path", prog);
		int used = 0;
		for (size_t i = 0; i < p->ncells && !used; i++)
			for (int k = 0; k < 2 && !used; k++) {
				const struct ev_plan_side *s = &p->cells[i].side[k];
				used = strcmp(prog, json_string_value(json_array_get(s->argv, 0))) == 0 ||
				       (s->launcher && strcmp(prog, json_string_value(json_array_get(s->launcher, 0))) == 0);
			}
		if (!used)
			return ev_plan_refuse(err, path, "sources",
				      "\"%s\": no side runs this program or launcher (a source names a binary the plan runs)",
				      prog);
	}
	p->sources = sources;
	return EV_OK;
}

/* "perf": the pinned program that profiles, required when a side is
 * profiled. */
static ev_status load_perf(struct ev_campaign_plan *p, const char *path, struct ev_error *err)
{
	json_t *v = json_object_get(p->doc, "perf");
	int profiled = 0;
	for (size_t i = 0; i < p->ncells; i++)
		profiled |= p->cells[i].side[0].profile.on || p->cells[i].side[1].profile.on;
	if (v && (!json_is_string(v) || json_string_value(v)[0] != '/'))
		return ev_plan_refuse(err, path, "plan", "\"perf\": expected perf's absolute path (it is pinned as a program)");
	if (profiled && !v)
		return ev_plan_refuse(err, path, "plan", "a side is profiled: name perf's absolute path (\"perf\": \"/usr/bin/perf\")");
	p->perf = v ? json_string_value(v) : NULL;
	return EV_OK;
}

/* Is cpu a side's in some cell? The first such cell and side into *cell, *side. */
static int side_cpu(const struct ev_campaign_plan *p, int cpu, const char **cell, const char **side)
{
	for (size_t i = 0; i < p->ncells; i++)
		for (int k = 0; k < 2; k++)
			if (p->cells[i].side[k].cpu == cpu) {
				*cell = p->cells[i].name;
				*side = k == EV_PLAN_SENDER ? "sender" : "peer";
				return 1;
			}
	return 0;
}

/* The controller (capture itself, its observers) runs apart from the
 * measured sides: a default controller CPU is the lowest no side uses; a
 * controller CPU that is a side's is refused unless the plan says
 * "controller_shares": true, and then the shared CPUs are recorded. */
static ev_status controller_apart(struct ev_campaign_plan *p, const char *path, long ncpus, struct ev_error *err)
{
	const char *cell, *side;
	if (p->controller_default) {
		int chosen = 0;
		for (long c = 0; c < ncpus && c < CPU_SETSIZE; c++)
			if (!side_cpu(p, (int)c, &cell, &side)) {
				chosen = (int)c;
				break;
			}
		p->controller_cpus[0] = chosen;
		p->ncontroller = 1;
	}
	p->nshared = 0;
	for (size_t i = 0; i < p->ncontroller; i++) {
		int cpu = p->controller_cpus[i];
		if (!side_cpu(p, cpu, &cell, &side))
			continue;
		if (!p->controller_shares)
			return ev_plan_refuse(err, path, "plan",
						   "the controller's CPU %d is also cell %s's %s CPU: capture and its observers "
						   "would run beside a measured side (%s); give \"controller_cpus\" that no side "
						   "uses, or say \"controller_shares\": true to run so and have it recorded",
						   cpu, cell, side,
						   p->controller_default ? "every CPU is a side's, and none is left for it" :
									  "\"controller_cpus\"");
		p->shared_cpus[p->nshared++] = cpu;
	}
	return EV_OK;
}

json_t *ev_plan_controller_json(const struct ev_campaign_plan *p)
{
	json_t *cpus = json_array(), *shared = json_array();
	for (size_t i = 0; i < p->ncontroller; i++)
		json_array_append_new(cpus, json_integer(p->controller_cpus[i]));
	for (size_t i = 0; i < p->nshared; i++)
		json_array_append_new(shared, json_integer(p->shared_cpus[i]));
	return json_pack("{s:o, s:s, s:o}", "cpus", cpus, "chosen", p->controller_default ? "default" : "plan",
			 "shared_with_sides", shared);
}

ev_status ev_campaign_plan_load(const char *path, struct ev_campaign_plan *p, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	uint8_t digest[EV_SHA256_LEN];
	struct ev_plan read;
	ev_status st = ev_plan_load(path, &read, digest, err);
	if (st != EV_OK)
		return st;
	p->doc = read.doc; /* now the checked plan's */
	ev_sha256_hex(digest, p->sha256);
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	if ((st = load_top(p, path, ncpus, err)) == EV_OK && (st = load_arms(p, path, err)) == EV_OK)
		st = load_cells(p, path, ncpus, err);
	if (st == EV_OK)
		st = controller_apart(p, path, ncpus, err);
	if (st == EV_OK)
		st = load_sources(p, path, err);
	if (st == EV_OK)
		st = ev_plan_load_observers(p, path, err);
	if (st == EV_OK)
		st = load_perf(p, path, err);
	if (st == EV_OK && json_object_get(p->doc, "grades")) {
		char display[PATH_MAX + 16];
		snprintf(display, sizeof display, "%s: \"grades\"", path);
		st = ev_grades_check(json_object_get(p->doc, "grades"), display, err);
	}
	if (st == EV_OK && p->ncells * p->narms * p->repeats > EV_PLAN_MAX_RUNS)
		st = ev_plan_refuse(err, path, "plan", "%zu cells x %zu arms x %" PRIu64 " repeats: more than %d runs",
			    p->ncells, p->narms, p->repeats, EV_PLAN_MAX_RUNS);
	if (st != EV_OK)
		ev_campaign_plan_free(p);
	return st;
}

void ev_campaign_plan_free(struct ev_campaign_plan *p)
{
	json_decref(p->doc);
	p->doc = NULL;
}

size_t ev_plan_schedule(const struct ev_campaign_plan *p, struct ev_plan_run *runs, size_t cap)
{
	size_t n = 0, total = p->ncells * p->narms * p->repeats;
	int width = total >= 1000 ? 4 : 3;
	for (size_t a = 0; a < p->narms; a++)
		for (unsigned pass = 0; pass < p->repeats; pass++)
			for (size_t k = 0; k < p->ncells && n < cap; k++) {
				int backward = p->balanced && pass % 2 == 1;
				const struct ev_plan_cell *cell = &p->cells[backward ? p->ncells - 1 - k : k];
				struct ev_plan_run *r = &runs[n++];
				r->index = n;
				r->arm = &p->arms[a];
				r->cell = cell;
				r->repeat = pass + 1;
				snprintf(r->name, sizeof r->name, "%0*zu-%s-%s-%u", width, r->index, r->arm->name,
					 cell->name, r->repeat);
			}
	return n;
}

const char *ev_plan_output(const struct ev_plan_side *side, const char *name)
{
	return side->outputs ? json_string_value(json_object_get(side->outputs, name)) : NULL;
}

/* s with its {variables} replaced, malloc'd. */
static char *expand(const char *s, const struct ev_plan_side *side, const struct ev_plan_vars *v)
{
	size_t cap = strlen(s) + 256, n = 0;
	char *out = malloc(cap);
	for (const char *p = s; out && *p;) {
		char piece[4200];
		const char *add = piece;
		size_t len;
		if (p[0] == '{' && p[1] == '{') {
			add = "{";
			len = 1;
			p += 2;
		} else if (p[0] == '{') {
			const char *close = strchr(p, '}');
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
			p = close + 1;
			if (strncmp(name, "out:", 4) == 0)
				snprintf(piece, sizeof piece, "%s/%s", v->run_dir, ev_plan_output(side, name + 4));
			else if (!strcmp(name, "peer_addr")) snprintf(piece, sizeof piece, "%s", v->peer_addr);
			else if (!strcmp(name, "sender_addr")) snprintf(piece, sizeof piece, "%s", v->sender_addr);
			else if (!strcmp(name, "port")) snprintf(piece, sizeof piece, "%" PRIu64, v->port);
			else if (!strcmp(name, "warmups")) snprintf(piece, sizeof piece, "%" PRIu64, v->warmups);
			else if (!strcmp(name, "measured")) snprintf(piece, sizeof piece, "%" PRIu64, v->measured);
			else if (!strcmp(name, "repeat")) snprintf(piece, sizeof piece, "%" PRIu64, v->repeat);
			else if (!strcmp(name, "run_dir")) snprintf(piece, sizeof piece, "%s", v->run_dir);
			else if (!strcmp(name, "cell")) snprintf(piece, sizeof piece, "%s", v->cell);
			else if (!strcmp(name, "arm")) snprintf(piece, sizeof piece, "%s", v->arm);
			else piece[0] = 0; /* not reached: ev_campaign_plan_load knows every name */
			len = strlen(piece);
		} else {
			const char *next = strchr(p, '{');
			len = next ? (size_t)(next - p) : strlen(p);
			add = p;
			p += len;
		}
		if (n + len + 1 > cap) {
			char *bigger = realloc(out, (cap = (n + len + 1) * 2));
			if (!bigger) {
				free(out);
				return NULL;
			}
			out = bigger;
		}
		memcpy(out + n, add, len);
		n += len;
	}
	if (out)
		out[n] = 0;
	return out;
}

ev_status ev_plan_expand(const struct ev_plan_side *side, const struct ev_plan_vars *v, char ***out,
		      struct ev_error *err)
{
	size_t nl = side->launcher ? json_array_size(side->launcher) : 0;
	size_t na = json_array_size(side->argv);
	char **argv = calloc(nl + na + 1, sizeof *argv);
	if (!argv)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < nl + na; i++) {
		json_t *t = i < nl ? json_array_get(side->launcher, i) : json_array_get(side->argv, i - nl);
		if (!(argv[i] = expand(json_string_value(t), side, v))) {
			ev_plan_argv_free(argv);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
	}
	*out = argv;
	return EV_OK;
}

int ev_plan_is_input(const struct ev_campaign_plan *p, const char *path)
{
	for (size_t i = 0; i < p->ncells; i++)
		for (int k = 0; k < 2; k++) {
			const char *name;
			json_t *v;
			json_object_foreach(p->cells[i].side[k].inputs, name, v)
				if (strcmp(json_string_value(v), path) == 0)
					return 1;
		}
	return 0;
}

int ev_plan_runs_program(const struct ev_campaign_plan *p, const char *path)
{
	if (p->perf && strcmp(p->perf, path) == 0)
		return 1;
	for (size_t i = 0; i < p->nobservers; i++)
		if (strcmp(json_string_value(json_array_get(p->observers[i].argv, 0)), path) == 0)
			return 1;
	for (size_t i = 0; i < p->ncells; i++)
		for (int k = 0; k < 2; k++) {
			const struct ev_plan_side *s = &p->cells[i].side[k];
			const char *prog = json_string_value(json_array_get(s->argv, 0));
			const char *launcher = s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL;
			if ((prog && strcmp(prog, path) == 0) || (launcher && strcmp(launcher, path) == 0))
				return 1;
		}
	return 0;
}
