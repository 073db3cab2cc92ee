#include "config.h"
#include "capture/plan.h"

#include <inttypes.h>
#include <limits.h>
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
#define NAME_MAX_LEN 40
#define DMA_LATENCY_MAX 2000000000

static ev_status refuse(struct ev_error *err, const char *plan, const char *where, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static ev_status refuse(struct ev_error *err, const char *plan, const char *where, const char *fmt,
			...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return ev_error_set(err, EV_REFUSED, "%s: %s: %s", plan, where, what);
}

/* Every key of obj is one of allowed (NULL-terminated). */
static ev_status only_keys(const json_t *obj, const char *const *allowed, const char *plan,
			   const char *where, struct ev_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		int known = 0;
		for (const char *const *a = allowed; *a && !known; a++)
			known = strcmp(*a, key) == 0;
		if (!known) {
			char list[512] = "";
			for (const char *const *a = allowed; *a; a++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 a == allowed ? "" : ", ", *a);
			return refuse(err, plan, where, "unknown key \"%s\" (expected one of: %s)", key, list);
		}
	}
	return EV_OK;
}

/* An optional unsigned integer in [min, max]. */
static ev_status get_count(const json_t *obj, const char *key, uint64_t def, uint64_t min,
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
		return refuse(err, plan, where, "\"%s\": expected an integer from %" PRIu64 " to %" PRIu64,
			      key, min, max);
	*out = (uint64_t)json_integer_value(v);
	return EV_OK;
}

static int valid_name(const char *s)
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

static ev_status get_name(const json_t *obj, const char *key, const char **out, const char *plan,
			  const char *where, struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_string(v) || !valid_name(json_string_value(v)))
		return refuse(err, plan, where,
			      "\"%s\": expected a name of 1 to %d letters, digits, '_', '.' or '-'", key,
			      NAME_MAX_LEN);
	*out = json_string_value(v);
	return EV_OK;
}

static const char *const variables[] = {"peer_addr", "sender_addr", "port", "warmups", "measured",
					"run_dir", "cell", "arm", "repeat", NULL};

/* Each {variable} in s is known; {out:NAME} names one of outputs. */
static ev_status check_template(const char *s, const json_t *outputs, const char *plan,
				const char *where, struct ev_error *err)
{
	for (const char *p = s; (p = strchr(p, '{')) != NULL;) {
		if (p[1] == '{') {
			p += 2;
			continue;
		}
		const char *close = strchr(p, '}');
		if (!close)
			return refuse(err, plan, where, "\"%s\": a '{' without its '}' (write {{ for a '{')", s);
		size_t n = (size_t)(close - p - 1);
		int known = 0;
		if (n > 4 && strncmp(p + 1, "out:", 4) == 0) {
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(n - 4), p + 5);
			if (!outputs || !json_object_get(outputs, name))
				return refuse(err, plan, where, "\"%s\": {out:%s} names no output of this side", s,
					      name);
			known = 1;
		}
		for (const char *const *v = variables; *v && !known; v++)
			known = strlen(*v) == n && strncmp(*v, p + 1, n) == 0;
		if (!known)
			return refuse(err, plan, where,
				      "\"%s\": unknown variable {%.*s} (known: peer_addr, sender_addr, port, "
				      "warmups, measured, run_dir, cell, arm, repeat, out:NAME)", s, (int)n, p + 1);
		if (strncmp(p + 1, "run_dir", 7) == 0 && strstr(close, ".."))
			return refuse(err, plan, where, "\"%s\": a path that leaves the run directory", s);
		p = close + 1;
	}
	return EV_OK;
}

static ev_status get_strings(const json_t *side, const char *key, int required, json_t **out,
			     const json_t *outputs, const char *plan, const char *where,
			     struct ev_error *err)
{
	json_t *a = json_object_get(side, key);
	*out = NULL;
	if (!a && !required)
		return EV_OK;
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > PLAN_MAX_ARGS)
		return refuse(err, plan, where, "\"%s\": expected a list of 1 to %d strings", key, PLAN_MAX_ARGS);
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return refuse(err, plan, where, "\"%s\"[%zu]: expected a string", key, i);
		ev_status st = check_template(json_string_value(v), outputs, plan, where, err);
		if (st != EV_OK)
			return st;
	}
	const char *program = json_string_value(json_array_get(a, 0));
	if (program[0] != '/')
		return refuse(err, plan, where,
			      "\"%s\"[0]: \"%s\": expected an absolute path (a program is pinned by its path)",
			      key, program);
	*out = a;
	return EV_OK;
}

static ev_status load_outputs(json_t *side, json_t **out, const char *plan, const char *where,
			      struct ev_error *err)
{
	json_t *o = json_object_get(side, "outputs");
	*out = NULL;
	if (!o)
		return EV_OK;
	if (!json_is_object(o))
		return refuse(err, plan, where, "\"outputs\": expected an object of name: relative path");
	const char *name;
	json_t *v;
	json_object_foreach(o, name, v) {
		const char *path = json_string_value(v);
		const char *problem = path ? ev_path_problem(path, strlen(path)) : "is not a string";
		if (!valid_name(name))
			return refuse(err, plan, where, "output \"%s\": not a valid name", name);
		if (problem)
			return refuse(err, plan, where,
				      "output \"%s\": \"%s\" %s (an output is a path inside the run directory)",
				      name, path ? path : "", problem);
		if (strcmp(path, PLAN_WORK_SENDER) == 0 || strcmp(path, PLAN_WORK_PEER) == 0)
			return refuse(err, plan, where,
				      "output \"%s\": \"%s\" is a side's working directory (write outputs inside it)",
				      name, path);
		if (strcmp(path, EV_RUN_FILENAME) == 0 || strncmp(path, "native/", 7) == 0 ||
		    strcmp(path, "native") == 0 || strncmp(path, "observe/", 8) == 0 ||
		    strcmp(path, "observe") == 0)
			return refuse(err, plan, where,
				      "output \"%s\": \"%s\" is capture's own (run.json, native/, observe/)", name,
				      path);
	}
	*out = o;
	return EV_OK;
}

static const struct {
	const char *name;
	int sig;
} stop_signals[] = {
	{"TERM", SIGTERM}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"QUIT", SIGQUIT}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
};

const char *capture_plan_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
		if (stop_signals[i].sig == sig)
			return stop_signals[i].name;
	return "?";
}

/* "stop" (the peer's), or the older "after_sender": "wait" is
 * {"how": "exit"}, "terminate" is {"how": "signal", "signal": "TERM",
 * "grace_ms": 2000}. */
static ev_status load_stop(const json_t *side, int role, struct plan_stop *stop, const char *plan,
			   const char *where, struct ev_error *err)
{
	static const char *const keys[] = {"how", "line", "signal", "grace_ms", NULL};
	json_t *after = json_object_get(side, "after_sender"), *o = json_object_get(side, "stop");
	*stop = (struct plan_stop){.how = PLAN_STOP_EXIT, .grace_ms = PLAN_STOP_GRACE_MS};
	if ((after || o) && role != PLAN_PEER)
		return refuse(err, plan, where, "\"%s\": only for the peer (the sender ends the run by exiting, "
			      "within timeout_seconds)", after ? "after_sender" : "stop");
	if (after && o)
		return refuse(err, plan, where, "\"after_sender\" and \"stop\" both given: keep \"stop\"");
	if (after) {
		const char *a = json_string_value(after);
		if (!a || (strcmp(a, "wait") != 0 && strcmp(a, "terminate") != 0))
			return refuse(err, plan, where, "\"after_sender\": expected \"wait\" or \"terminate\"");
		if (strcmp(a, "terminate") == 0)
			*stop = (struct plan_stop){.how = PLAN_STOP_SIGNAL, .signal = SIGTERM, .grace_ms = 2000};
		return EV_OK;
	}
	if (!o)
		return EV_OK;
	ev_status st;
	const char *how = json_string_value(json_object_get(o, "how"));
	if (!json_is_object(o))
		return refuse(err, plan, where, "\"stop\": expected an object such as {\"how\": \"stdin\", \"line\": \"q\"}");
	if ((st = only_keys(o, keys, plan, where, err)) != EV_OK)
		return st;
	if (!how || (strcmp(how, "exit") != 0 && strcmp(how, "stdin") != 0 && strcmp(how, "signal") != 0))
		return refuse(err, plan, where, "\"stop\": \"how\": expected \"exit\", \"stdin\" or \"signal\"");
	stop->how = how[0] == 'e' ? PLAN_STOP_EXIT : how[1] == 't' ? PLAN_STOP_STDIN : PLAN_STOP_SIGNAL;
	json_t *line = json_object_get(o, "line"), *sig = json_object_get(o, "signal");
	if (line && stop->how != PLAN_STOP_STDIN)
		return refuse(err, plan, where, "\"stop\": \"line\" is for \"how\": \"stdin\"");
	if (sig && stop->how != PLAN_STOP_SIGNAL)
		return refuse(err, plan, where, "\"stop\": \"signal\" is for \"how\": \"signal\"");
	if (stop->how == PLAN_STOP_STDIN) {
		const char *l = json_string_value(line);
		if (!l || strlen(l) > PLAN_STOP_LINE_MAX || strchr(l, '\n'))
			return refuse(err, plan, where, "\"stop\": \"line\": expected the line to write, without its "
				      "newline, at most %d bytes", PLAN_STOP_LINE_MAX);
		stop->line = l;
	}
	if (stop->how == PLAN_STOP_SIGNAL) {
		const char *name = json_string_value(sig);
		if (name && strncmp(name, "SIG", 3) == 0)
			name += 3;
		for (size_t i = 0; name && i < sizeof stop_signals / sizeof *stop_signals; i++)
			if (strcmp(name, stop_signals[i].name) == 0)
				stop->signal = stop_signals[i].sig;
		if (!stop->signal)
			return refuse(err, plan, where, "\"stop\": \"signal\": expected one of TERM, INT, HUP, QUIT, "
				      "USR1, USR2");
	}
	return get_count(o, "grace_ms", PLAN_STOP_GRACE_MS, 1, 600000, &stop->grace_ms, plan, where, err);
}

/* "inputs": files capture copies into the side's working directory
 * before the launch, each from a pinned absolute path. */
static ev_status load_inputs(const json_t *side, struct plan_side *s, const char *plan, const char *where,
			     struct ev_error *err)
{
	json_t *o = json_object_get(side, "inputs");
	if (!o)
		return EV_OK;
	if (!json_is_object(o) || json_object_size(o) == 0)
		return refuse(err, plan, where, "\"inputs\": expected an object of name: absolute path of a pinned file");
	const char *name;
	json_t *v;
	json_object_foreach(o, name, v) {
		const char *from = json_string_value(v);
		const char *problem = ev_path_problem(name, strlen(name));
		if (problem)
			return refuse(err, plan, where, "input \"%s\": %s (an input is a path inside the side's "
				      "working directory)", name, problem);
		if (!from || from[0] != '/')
			return refuse(err, plan, where, "input \"%s\": expected the absolute path of the file to copy", name);
		const char *out;
		json_t *ov;
		char inside[PATH_MAX];
		snprintf(inside, sizeof inside, "%s/%s", s->work, name);
		json_object_foreach(s->outputs, out, ov)
			if (strcmp(json_string_value(ov), inside) == 0)
				return refuse(err, plan, where, "input \"%s\" is also output \"%s\"", name, out);
	}
	s->inputs = o;
	return EV_OK;
}

/* A user or group name as the system's databases hold it. */
static ev_status get_account(const json_t *obj, const char *key, const char **out, const char *plan,
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
		return refuse(err, plan, where, "\"%s\": expected a %s name (1 to 32 letters, digits, '_', '.' or '-')",
			      key, key);
	*out = name;
	return EV_OK;
}

static ev_status load_side(json_t *cell, int role, struct plan_side *s, long ncpus,
			   const char *plan, const char *cell_name, struct ev_error *err)
{
	static const char *const keys[] = {"argv", "launcher", "env", "cpu", "outputs", "ready",
					   "after_sender", "stop", "inputs", "user", "group", NULL};
	char where[128];
	s->role = role == PLAN_SENDER ? "sender" : "peer";
	snprintf(where, sizeof where, "cell %s %s", cell_name, s->role);
	json_t *side = json_object_get(cell, s->role);
	if (!json_is_object(side))
		return refuse(err, plan, where, "expected an object with argv and cpu");
	ev_status st = only_keys(side, keys, plan, where, err);
	if (st == EV_OK)
		st = load_outputs(side, &s->outputs, plan, where, err);
	if (st == EV_OK)
		st = get_strings(side, "argv", 1, &s->argv, s->outputs, plan, where, err);
	if (st == EV_OK)
		st = get_strings(side, "launcher", 0, &s->launcher, s->outputs, plan, where, err);
	if (st != EV_OK)
		return st;
	json_t *env = json_object_get(side, "env");
	if (env) {
		const char *k;
		json_t *v;
		if (!json_is_object(env))
			return refuse(err, plan, where, "\"env\": expected an object of NAME: value");
		json_object_foreach(env, k, v) {
			if (!json_is_string(v) || !*k || strchr(k, '='))
				return refuse(err, plan, where, "\"env\": \"%s\": expected NAME: \"value\"", k);
			if ((st = check_template(json_string_value(v), s->outputs, plan, where, err)) != EV_OK)
				return st;
		}
		s->env = env;
	}
	uint64_t cpu;
	if (!json_object_get(side, "cpu"))
		return refuse(err, plan, where, "\"cpu\": required (each process is pinned to its own CPU)");
	if ((st = get_count(side, "cpu", 0, 0, (uint64_t)ncpus - 1, &cpu, plan, where, err)) != EV_OK)
		return st;
	s->cpu = (int)cpu;
	s->work = role == PLAN_SENDER ? PLAN_WORK_SENDER : PLAN_WORK_PEER;
	if ((st = load_stop(side, role, &s->stop, plan, where, err)) != EV_OK ||
	    (st = load_inputs(side, s, plan, where, err)) != EV_OK ||
	    (st = get_account(side, "user", &s->user, plan, where, err)) != EV_OK ||
	    (st = get_account(side, "group", &s->group, plan, where, err)) != EV_OK)
		return st;
	if (s->group && !s->user)
		return refuse(err, plan, where, "\"group\": given without \"user\" (name whom the side runs as)");
	json_t *ready = json_object_get(side, "ready");
	if (ready) {
		static const char *const rkeys[] = {"tcp_listen", "delay_ms", NULL};
		if (role != PLAN_PEER)
			return refuse(err, plan, where, "\"ready\": only a peer is waited for");
		if (!json_is_object(ready) || json_object_size(ready) != 1)
			return refuse(err, plan, where,
				      "\"ready\": expected {\"tcp_listen\": PORT} or {\"delay_ms\": N}");
		if ((st = only_keys(ready, rkeys, plan, where, err)) != EV_OK ||
		    (st = get_count(ready, "tcp_listen", 0, 1, 65535, &s->ready_port, plan, where, err)) != EV_OK ||
		    (st = get_count(ready, "delay_ms", 0, 1, 600000, &s->ready_delay_ms, plan, where, err)) != EV_OK)
			return st;
	}
	return EV_OK;
}

static ev_status load_cells(struct plan *p, const char *path, long ncpus, struct ev_error *err)
{
	static const char *const keys[] = {"name", "description", "sender", "peer", NULL};
	json_t *cells = json_object_get(p->doc, "cells");
	if (!json_is_array(cells) || json_array_size(cells) == 0 || json_array_size(cells) > PLAN_MAX_CELLS)
		return refuse(err, path, "cells", "expected a list of 1 to %d cells", PLAN_MAX_CELLS);
	size_t i;
	json_t *c;
	json_array_foreach(cells, i, c) {
		struct plan_cell *cell = &p->cells[i];
		char where[64];
		snprintf(where, sizeof where, "cells[%zu]", i);
		if (!json_is_object(c))
			return refuse(err, path, where, "expected an object");
		ev_status st = only_keys(c, keys, path, where, err);
		if (st == EV_OK)
			st = get_name(c, "name", &cell->name, path, where, err);
		if (st != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->cells[k].name, cell->name) == 0)
				return refuse(err, path, where, "cell name \"%s\" is used twice", cell->name);
		json_t *d = json_object_get(c, "description");
		cell->description = json_is_string(d) ? json_string_value(d) : "";
		for (int r = 0; r < 2; r++)
			if ((st = load_side(c, r, &cell->side[r], ncpus, path, cell->name, err)) != EV_OK)
				return st;
		for (int r = 0; r < 2; r++)
			if (!cell->side[r].user) {
				cell->side[r].user = p->user;
				cell->side[r].group = p->group;
			}
		if (cell->side[PLAN_SENDER].cpu == cell->side[PLAN_PEER].cpu)
			return refuse(err, path, where, "sender and peer are both on CPU %d; each needs its own",
				      cell->side[PLAN_SENDER].cpu);
		p->ncells++;
	}
	return EV_OK;
}

static ev_status load_arms(struct plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"name", "cpu_dma_latency", NULL};
	json_t *arms = json_object_get(p->doc, "arms");
	if (!arms) {
		p->arms[0] = (struct plan_arm){.name = "baseline"};
		p->narms = 1;
		return EV_OK;
	}
	if (!json_is_array(arms) || json_array_size(arms) == 0 || json_array_size(arms) > PLAN_MAX_ARMS)
		return refuse(err, path, "arms", "expected a list of 1 to %d arms", PLAN_MAX_ARMS);
	size_t i;
	json_t *a;
	json_array_foreach(arms, i, a) {
		struct plan_arm *arm = &p->arms[i];
		char where[64];
		snprintf(where, sizeof where, "arms[%zu]", i);
		if (!json_is_object(a))
			return refuse(err, path, where, "expected an object");
		ev_status st = only_keys(a, keys, path, where, err);
		if (st == EV_OK)
			st = get_name(a, "name", &arm->name, path, where, err);
		if (st != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->arms[k].name, arm->name) == 0)
				return refuse(err, path, where, "arm name \"%s\" is used twice", arm->name);
		if (json_object_get(a, "cpu_dma_latency")) {
			uint64_t v;
			if ((st = get_count(a, "cpu_dma_latency", 0, 0, DMA_LATENCY_MAX, &v, path, where, err)) != EV_OK)
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
static ev_status load_namespaces(struct plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"sender", "peer", "mtu", NULL};
	json_t *v = json_object_get(p->doc, "namespaces"), *link = json_object_get(p->doc, "link");
	const char *s = v ? json_string_value(v) : "none";
	if (!s || (strcmp(s, "none") != 0 && strcmp(s, "veth") != 0 && strcmp(s, "link") != 0))
		return refuse(err, path, "plan", "\"namespaces\": expected \"none\", \"veth\" or \"link\"");
	p->namespaces = s;
	p->netns = strcmp(s, "none") != 0;
	p->link = strcmp(s, "link") == 0;
	if (!p->link) {
		if (link)
			return refuse(err, path, "link", "given, and \"namespaces\" is \"%s\" (a link is for \"namespaces\": \"link\")", s);
		return EV_OK;
	}
	ev_status st;
	if (!json_is_object(link))
		return refuse(err, path, "link", "required by \"namespaces\": \"link\": {\"sender\": IFACE, \"peer\": IFACE}");
	if ((st = only_keys(link, keys, path, "link", err)) != EV_OK)
		return st;
	for (int k = 0; k < 2; k++) {
		const char *role = k == PLAN_SENDER ? "sender" : "peer";
		const char *name = json_string_value(json_object_get(link, role));
		if (!valid_ifname(name))
			return refuse(err, path, "link", "\"%s\": expected an interface name of 1 to 15 bytes", role);
		p->link_if[k] = name;
	}
	if (strcmp(p->link_if[0], p->link_if[1]) == 0)
		return refuse(err, path, "link", "sender and peer are both %s: a link has two ends", p->link_if[0]);
	return get_count(link, "mtu", 0, 68, 65535, &p->link_mtu, path, "link", err);
}

static ev_status load_top(struct plan *p, const char *path, long ncpus, struct ev_error *err)
{
	static const char *const keys[] = {"format", "name", "description", "warmups", "measured",
					   "repeats", "order", "namespaces", "port", "timeout_seconds",
					   "on_failure", "controller_cpus", "observe", "pins", "sources",
					   "user", "group", "link", "observers", "arms", "cells", NULL};
	json_t *d = p->doc;
	ev_status st = only_keys(d, keys, path, "plan", err);
	if (st == EV_OK)
		st = get_name(d, "name", &p->name, path, "plan", err);
	if (st == EV_OK)
		st = get_account(d, "user", &p->user, path, "plan", err);
	if (st == EV_OK)
		st = get_account(d, "group", &p->group, path, "plan", err);
	if (st == EV_OK && p->group && !p->user)
		st = refuse(err, path, "plan", "\"group\": given without \"user\" (name whom the sides run as)");
	if (st == EV_OK)
		st = get_count(d, "warmups", 1000, 0, (uint64_t)1 << 32, &p->warmups, path, "plan", err);
	if (st == EV_OK)
		st = get_count(d, "measured", 1000000, 1, (uint64_t)1 << 32, &p->measured, path, "plan", err);
	if (st == EV_OK)
		st = get_count(d, "repeats", 1, 1, 1000, &p->repeats, path, "plan", err);
	if (st == EV_OK)
		st = get_count(d, "port", DEFAULT_PORT, 1, 65535, &p->port, path, "plan", err);
	if (st == EV_OK)
		st = get_count(d, "timeout_seconds", DEFAULT_TIMEOUT_S, 1, 86400, &p->timeout_s, path, "plan", err);
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
			return refuse(err, path, "plan", "\"%s\": expected \"%s\" or \"%s\"", choices[i].key,
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
			(st = only_keys(observe, okeys, path, "observe", err)) != EV_OK))
		return st != EV_OK ? st : refuse(err, path, "observe", "expected {\"interval_ms\": N}");
	if ((st = get_count(observe ? observe : d, "interval_ms", DEFAULT_INTERVAL_MS, 10, 60000,
			    &p->interval_ms, path, "observe", err)) != EV_OK)
		return st;
	json_t *cpus = json_object_get(d, "controller_cpus");
	if (!cpus) {
		p->controller_cpus[0] = 0;
		p->ncontroller = 1;
	} else {
		if (!json_is_array(cpus) || json_array_size(cpus) == 0 || json_array_size(cpus) > PLAN_MAX_CPUS)
			return refuse(err, path, "plan", "\"controller_cpus\": expected a list of CPU numbers");
		size_t i;
		json_t *c;
		json_array_foreach(cpus, i, c) {
			if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) >= ncpus)
				return refuse(err, path, "plan", "\"controller_cpus\"[%zu]: expected a CPU from 0 to %ld", i,
					      ncpus - 1);
			p->controller_cpus[p->ncontroller++] = (int)json_integer_value(c);
		}
	}
	json_t *pins = json_object_get(d, "pins");
	if (pins) {
		const char *k;
		json_t *v;
		if (!json_is_object(pins))
			return refuse(err, path, "pins", "expected an object of absolute path: SHA-256");
		json_object_foreach(pins, k, v) {
			if (k[0] != '/')
				return refuse(err, path, "pins", "\"%s\": expected an absolute path", k);
			if (!json_is_string(v) || !ev_sha256_hex_valid(json_string_value(v)))
				return refuse(err, path, "pins", "\"%s\": expected 64 lowercase hex digits", k);
		}
		p->pins = pins;
	}
	return EV_OK;
}

/* "sources": a program or launcher of some side, built from a repository
 * named by an absolute path. Checked once the cells are known. */
static ev_status load_sources(struct plan *p, const char *path, struct ev_error *err)
{
	json_t *sources = json_object_get(p->doc, "sources");
	if (!sources)
		return EV_OK;
	if (!json_is_object(sources))
		return refuse(err, path, "sources", "expected an object of program path: repository path");
	const char *prog;
	json_t *v;
	json_object_foreach(sources, prog, v) {
		const char *repo = json_string_value(v);
		if (!repo || repo[0] != '/')
			return refuse(err, path, "sources", "\"%s\": expected the repository's absolute path", prog);
		int used = 0;
		for (size_t i = 0; i < p->ncells && !used; i++)
			for (int k = 0; k < 2 && !used; k++) {
				const struct plan_side *s = &p->cells[i].side[k];
				used = strcmp(prog, json_string_value(json_array_get(s->argv, 0))) == 0 ||
				       (s->launcher && strcmp(prog, json_string_value(json_array_get(s->launcher, 0))) == 0);
			}
		if (!used)
			return refuse(err, path, "sources",
				      "\"%s\": no side runs this program or launcher (a source names a binary the plan runs)",
				      prog);
	}
	p->sources = sources;
	return EV_OK;
}

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
			return refuse(err, plan, where, "\"%s\": an observer knows {iface}, {side} and {pid} ({{ for a '{')", s);
		p = close + 1;
	}
	return EV_OK;
}

/* "observers": [{"name", "argv", "sides", "when", "format"}]. */
static ev_status load_observers(struct plan *p, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"name", "argv", "sides", "when", "format", NULL};
	json_t *list = json_object_get(p->doc, "observers");
	if (!list)
		return EV_OK;
	if (!json_is_array(list) || json_array_size(list) > PLAN_MAX_OBSERVERS)
		return refuse(err, path, "observers", "expected a list of at most %d observers", PLAN_MAX_OBSERVERS);
	size_t i;
	json_t *o;
	json_array_foreach(list, i, o) {
		struct plan_observer *ob = &p->observers[i];
		char where[64];
		snprintf(where, sizeof where, "observers[%zu]", i);
		ev_status st;
		if (!json_is_object(o))
			return refuse(err, path, where, "expected an object with name and argv");
		if ((st = only_keys(o, keys, path, where, err)) != EV_OK || (st = get_name(o, "name", &ob->name, path, where, err)) != EV_OK)
			return st;
		for (size_t k = 0; k < i; k++)
			if (strcmp(p->observers[k].name, ob->name) == 0)
				return refuse(err, path, where, "observer name \"%s\" is used twice", ob->name);
		json_t *argv = json_object_get(o, "argv");
		if (!json_is_array(argv) || json_array_size(argv) == 0 || json_array_size(argv) > PLAN_MAX_ARGS)
			return refuse(err, path, where, "\"argv\": expected a list of 1 to %d strings", PLAN_MAX_ARGS);
		size_t a;
		json_t *v;
		json_array_foreach(argv, a, v) {
			if (!json_is_string(v))
				return refuse(err, path, where, "\"argv\"[%zu]: expected a string", a);
			if ((st = check_observer_template(json_string_value(v), path, where, err)) != EV_OK)
				return st;
		}
		if (json_string_value(json_array_get(argv, 0))[0] != '/')
			return refuse(err, path, where, "\"argv\"[0]: expected an absolute path (a program is pinned by its path)");
		ob->argv = argv;
		json_t *sides = json_object_get(o, "sides"), *when = json_object_get(o, "when");
		ob->sides[0] = ob->sides[1] = !sides;
		json_array_foreach(sides, a, v) {
			const char *side = json_string_value(v);
			int k = side && strcmp(side, "sender") == 0 ? PLAN_SENDER : side && strcmp(side, "peer") == 0 ? PLAN_PEER : -1;
			if (k < 0)
				return refuse(err, path, where, "\"sides\": expected a list of \"sender\" and \"peer\"");
			ob->sides[k] = 1;
		}
		if (sides && (!json_is_array(sides) || !(ob->sides[0] || ob->sides[1])))
			return refuse(err, path, where, "\"sides\": expected a list of \"sender\" and \"peer\"");
		ob->before = ob->during = ob->after = !when;
		json_array_foreach(when, a, v) {
			const char *w = json_string_value(v);
			int *flag = !w ? NULL : strcmp(w, "before") == 0 ? &ob->before : strcmp(w, "during") == 0 ? &ob->during
								    : strcmp(w, "after") == 0 ? &ob->after : NULL;
			if (!flag)
				return refuse(err, path, where, "\"when\": expected a list of \"before\", \"during\" and \"after\"");
			*flag = 1;
		}
		if (when && (!json_is_array(when) || !(ob->before || ob->during || ob->after)))
			return refuse(err, path, where, "\"when\": expected a list of \"before\", \"during\" and \"after\"");
		json_t *format = json_object_get(o, "format");
		ob->format = format ? json_string_value(format) : "text";
		if (!ob->format || (strcmp(ob->format, "text") != 0 && strcmp(ob->format, "onload") != 0))
			return refuse(err, path, where, "\"format\": expected \"text\" or \"onload\"");
		p->nobservers++;
	}
	return EV_OK;
}

ev_status capture_plan_observer_argv(const struct plan_observer *o, const char *iface, int side, long pid,
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
				w += (size_t)snprintf(buf + w, sizeof buf - w, "%s", side == PLAN_SENDER ? "sender" : "peer");
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
			capture_plan_argv_free(argv);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
	}
	*out = argv;
	return EV_OK;
}

ev_status capture_plan_load(const char *path, struct plan *p, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_json_load(path, PLAN_FORMAT, 0, &p->doc, digest, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(digest, p->sha256);
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	if ((st = load_top(p, path, ncpus, err)) == EV_OK && (st = load_arms(p, path, err)) == EV_OK)
		st = load_cells(p, path, ncpus, err);
	if (st == EV_OK)
		st = load_sources(p, path, err);
	if (st == EV_OK)
		st = load_observers(p, path, err);
	if (st == EV_OK && p->ncells * p->narms * p->repeats > PLAN_MAX_RUNS)
		st = refuse(err, path, "plan", "%zu cells x %zu arms x %" PRIu64 " repeats: more than %d runs",
			    p->ncells, p->narms, p->repeats, PLAN_MAX_RUNS);
	if (st != EV_OK)
		capture_plan_free(p);
	return st;
}

void capture_plan_free(struct plan *p)
{
	json_decref(p->doc);
	p->doc = NULL;
}

size_t capture_plan_schedule(const struct plan *p, struct plan_run *runs, size_t cap)
{
	size_t n = 0, total = p->ncells * p->narms * p->repeats;
	int width = total >= 1000 ? 4 : 3;
	for (size_t a = 0; a < p->narms; a++)
		for (unsigned pass = 0; pass < p->repeats; pass++)
			for (size_t k = 0; k < p->ncells && n < cap; k++) {
				int backward = p->balanced && pass % 2 == 1;
				const struct plan_cell *cell = &p->cells[backward ? p->ncells - 1 - k : k];
				struct plan_run *r = &runs[n++];
				r->index = n;
				r->arm = &p->arms[a];
				r->cell = cell;
				r->repeat = pass + 1;
				snprintf(r->name, sizeof r->name, "%0*zu-%s-%s-%u", width, r->index, r->arm->name,
					 cell->name, r->repeat);
			}
	return n;
}

const char *capture_plan_output(const struct plan_side *side, const char *name)
{
	return side->outputs ? json_string_value(json_object_get(side->outputs, name)) : NULL;
}

/* s with its {variables} replaced, malloc'd. */
static char *expand(const char *s, const struct plan_side *side, const struct plan_vars *v)
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
				snprintf(piece, sizeof piece, "%s/%s", v->run_dir, capture_plan_output(side, name + 4));
			else if (!strcmp(name, "peer_addr")) snprintf(piece, sizeof piece, "%s", v->peer_addr);
			else if (!strcmp(name, "sender_addr")) snprintf(piece, sizeof piece, "%s", v->sender_addr);
			else if (!strcmp(name, "port")) snprintf(piece, sizeof piece, "%" PRIu64, v->port);
			else if (!strcmp(name, "warmups")) snprintf(piece, sizeof piece, "%" PRIu64, v->warmups);
			else if (!strcmp(name, "measured")) snprintf(piece, sizeof piece, "%" PRIu64, v->measured);
			else if (!strcmp(name, "repeat")) snprintf(piece, sizeof piece, "%" PRIu64, v->repeat);
			else if (!strcmp(name, "run_dir")) snprintf(piece, sizeof piece, "%s", v->run_dir);
			else if (!strcmp(name, "cell")) snprintf(piece, sizeof piece, "%s", v->cell);
			else if (!strcmp(name, "arm")) snprintf(piece, sizeof piece, "%s", v->arm);
			else piece[0] = 0; /* not reached: capture_plan_load knows every name */
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

ev_status capture_plan_expand(const struct plan_side *side, const struct plan_vars *v, char ***out,
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
			capture_plan_argv_free(argv);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
	}
	*out = argv;
	return EV_OK;
}

void capture_plan_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int capture_plan_is_input(const struct plan *p, const char *path)
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

int capture_plan_runs_program(const struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->nobservers; i++)
		if (strcmp(json_string_value(json_array_get(p->observers[i].argv, 0)), path) == 0)
			return 1;
	for (size_t i = 0; i < p->ncells; i++)
		for (int k = 0; k < 2; k++) {
			const struct plan_side *s = &p->cells[i].side[k];
			const char *prog = json_string_value(json_array_get(s->argv, 0));
			const char *launcher = s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL;
			if ((prog && strcmp(prog, path) == 0) || (launcher && strcmp(launcher, path) == 0))
				return 1;
		}
	return 0;
}
