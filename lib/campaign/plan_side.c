/* SPDX-License-Identifier: Apache-2.0 */
/* plan_side: one side of a cell, loaded strictly: its argv, launcher,
 * environment, CPU, outputs, inputs, user and (the peer) readiness and
 * stop. */
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
			return ev_plan_refuse(err, plan, where, "\"%s\": a '{' without its '}' (write {{ for a '{')", s);
		size_t n = (size_t)(close - p - 1);
		int known = 0;
		if (n > 4 && strncmp(p + 1, "out:", 4) == 0) {
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)(n - 4), p + 5);
			if (!outputs || !json_object_get(outputs, name))
				return ev_plan_refuse(err, plan, where, "\"%s\": {out:%s} names no output of this side", s,
					      name);
			known = 1;
		}
		for (const char *const *v = variables; *v && !known; v++)
			known = strlen(*v) == n && strncmp(*v, p + 1, n) == 0;
		if (!known)
			return ev_plan_refuse(err, plan, where,
				      "\"%s\": unknown variable {%.*s} (known: peer_addr, sender_addr, port, "
				      "warmups, measured, run_dir, cell, arm, repeat, out:NAME)", s, (int)n, p + 1);
		if (strncmp(p + 1, "run_dir", 7) == 0 && strstr(close, ".."))
			return ev_plan_refuse(err, plan, where, "\"%s\": a path that leaves the run directory", s);
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
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > EV_PLAN_MAX_ARGS)
		return ev_plan_refuse(err, plan, where, "\"%s\": expected a list of 1 to %d strings", key, EV_PLAN_MAX_ARGS);
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return ev_plan_refuse(err, plan, where, "\"%s\"[%zu]: expected a string", key, i);
		ev_status st = check_template(json_string_value(v), outputs, plan, where, err);
		if (st != EV_OK)
			return st;
	}
	const char *program = json_string_value(json_array_get(a, 0));
	if (program[0] != '/')
		return ev_plan_refuse(err, plan, where,
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
		return ev_plan_refuse(err, plan, where, "\"outputs\": expected an object of name: relative path");
	const char *name;
	json_t *v;
	json_object_foreach(o, name, v) {
		const char *path = json_string_value(v);
		const char *problem = path ? ev_path_problem(path, strlen(path)) : "is not a string";
		if (!ev_plan_valid_name(name))
			return ev_plan_refuse(err, plan, where, "output \"%s\": not a valid name", name);
		if (problem)
			return ev_plan_refuse(err, plan, where,
				      "output \"%s\": \"%s\" %s (an output is a path inside the run directory)",
				      name, path ? path : "", problem);
		if (strcmp(path, EV_PLAN_WORK_SENDER) == 0 || strcmp(path, EV_PLAN_WORK_PEER) == 0)
			return ev_plan_refuse(err, plan, where,
				      "output \"%s\": \"%s\" is a side's working directory (write outputs inside it)",
				      name, path);
		if (strcmp(path, EV_RUN_FILENAME) == 0 || strncmp(path, "native/", 7) == 0 ||
		    strcmp(path, "native") == 0 || strncmp(path, "observe/", 8) == 0 ||
		    strcmp(path, "observe") == 0)
			return ev_plan_refuse(err, plan, where,
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

const char *ev_plan_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
		if (stop_signals[i].sig == sig)
			return stop_signals[i].name;
	return "?";
}

/* "stop" (the peer's), or the older "after_sender": "wait" is
 * {"how": "exit"}, "terminate" is {"how": "signal", "signal": "TERM",
 * "grace_ms": 2000}. */
static ev_status load_stop(const json_t *side, int role, struct ev_plan_stop *stop, const char *plan,
			   const char *where, struct ev_error *err)
{
	static const char *const keys[] = {"how", "line", "signal", "grace_ms", NULL};
	json_t *after = json_object_get(side, "after_sender"), *o = json_object_get(side, "stop");
	*stop = (struct ev_plan_stop){.how = EV_PLAN_STOP_EXIT, .grace_ms = EV_PLAN_STOP_GRACE_MS};
	if ((after || o) && role != EV_PLAN_PEER)
		return ev_plan_refuse(err, plan, where, "\"%s\": only for the peer (the sender ends the run by exiting, "
			      "within timeout_seconds)", after ? "after_sender" : "stop");
	if (after && o)
		return ev_plan_refuse(err, plan, where, "\"after_sender\" and \"stop\" both given: keep \"stop\"");
	if (after) {
		const char *a = json_string_value(after);
		if (!a || (strcmp(a, "wait") != 0 && strcmp(a, "terminate") != 0))
			return ev_plan_refuse(err, plan, where, "\"after_sender\": expected \"wait\" or \"terminate\"");
		if (strcmp(a, "terminate") == 0)
			*stop = (struct ev_plan_stop){.how = EV_PLAN_STOP_SIGNAL, .signal = SIGTERM, .grace_ms = 2000};
		return EV_OK;
	}
	if (!o)
		return EV_OK;
	ev_status st;
	const char *how = json_string_value(json_object_get(o, "how"));
	if (!json_is_object(o))
		return ev_plan_refuse(err, plan, where, "\"stop\": expected an object such as {\"how\": \"stdin\", \"line\": \"q\"}");
	if ((st = ev_plan_only_keys(o, keys, plan, where, err)) != EV_OK)
		return st;
	if (!how || (strcmp(how, "exit") != 0 && strcmp(how, "stdin") != 0 && strcmp(how, "signal") != 0))
		return ev_plan_refuse(err, plan, where, "\"stop\": \"how\": expected \"exit\", \"stdin\" or \"signal\"");
	stop->how = how[0] == 'e' ? EV_PLAN_STOP_EXIT : how[1] == 't' ? EV_PLAN_STOP_STDIN : EV_PLAN_STOP_SIGNAL;
	json_t *line = json_object_get(o, "line"), *sig = json_object_get(o, "signal");
	if (line && stop->how != EV_PLAN_STOP_STDIN)
		return ev_plan_refuse(err, plan, where, "\"stop\": \"line\" is for \"how\": \"stdin\"");
	if (sig && stop->how != EV_PLAN_STOP_SIGNAL)
		return ev_plan_refuse(err, plan, where, "\"stop\": \"signal\" is for \"how\": \"signal\"");
	if (stop->how == EV_PLAN_STOP_STDIN) {
		const char *l = json_string_value(line);
		if (!l || strlen(l) > EV_PLAN_STOP_LINE_MAX || strchr(l, '\n'))
			return ev_plan_refuse(err, plan, where, "\"stop\": \"line\": expected the line to write, without its "
				      "newline, at most %d bytes", EV_PLAN_STOP_LINE_MAX);
		stop->line = l;
	}
	if (stop->how == EV_PLAN_STOP_SIGNAL) {
		const char *name = json_string_value(sig);
		if (name && strncmp(name, "SIG", 3) == 0)
			name += 3;
		for (size_t i = 0; name && i < sizeof stop_signals / sizeof *stop_signals; i++)
			if (strcmp(name, stop_signals[i].name) == 0)
				stop->signal = stop_signals[i].sig;
		if (!stop->signal)
			return ev_plan_refuse(err, plan, where, "\"stop\": \"signal\": expected one of TERM, INT, HUP, QUIT, "
				      "USR1, USR2");
	}
	return ev_plan_get_count(o, "grace_ms", EV_PLAN_STOP_GRACE_MS, 1, 600000, &stop->grace_ms, plan, where, err);
}

/* "inputs": files capture copies into the side's working directory
 * before the launch, each from a pinned absolute path. */
static ev_status load_inputs(const json_t *side, struct ev_plan_side *s, const char *plan, const char *where,
			     struct ev_error *err)
{
	json_t *o = json_object_get(side, "inputs");
	if (!o)
		return EV_OK;
	if (!json_is_object(o) || json_object_size(o) == 0)
		return ev_plan_refuse(err, plan, where, "\"inputs\": expected an object of name: absolute path of a pinned file");
	const char *name;
	json_t *v;
	json_object_foreach(o, name, v) {
		const char *from = json_string_value(v);
		const char *problem = ev_path_problem(name, strlen(name));
		if (problem)
			return ev_plan_refuse(err, plan, where, "input \"%s\": %s (an input is a path inside the side's "
				      "working directory)", name, problem);
		if (!from || from[0] != '/')
			return ev_plan_refuse(err, plan, where, "input \"%s\": expected the absolute path of the file to copy", name);
		const char *out;
		json_t *ov;
		char inside[PATH_MAX];
		snprintf(inside, sizeof inside, "%s/%s", s->work, name);
		json_object_foreach(s->outputs, out, ov)
			if (strcmp(json_string_value(ov), inside) == 0)
				return ev_plan_refuse(err, plan, where, "input \"%s\" is also output \"%s\"", name, out);
	}
	s->inputs = o;
	return EV_OK;
}

/* "profile": {"event", "frequency" | "period", "call_graph", "runs"}. */
static ev_status load_profile(const json_t *side, struct ev_plan_profile *p, const char *plan, const char *where,
			      struct ev_error *err)
{
	static const char *const keys[] = {"event", "frequency", "period", "call_graph", "runs", NULL};
	json_t *o = json_object_get(side, "profile");
	memset(p, 0, sizeof *p);
	if (!o)
		return EV_OK;
	ev_status st;
	if (!json_is_object(o))
		return ev_plan_refuse(err, plan, where, "\"profile\": expected an object such as {\"event\": \"cycles\"}");
	if ((st = ev_plan_only_keys(o, keys, plan, where, err)) != EV_OK)
		return st;
	p->on = 1;
	json_t *event = json_object_get(o, "event");
	p->event = event ? json_string_value(event) : "cycles";
	int ok = p->event && *p->event && strlen(p->event) < 64;
	for (const char *c = p->event; ok && *c; c++)
		ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_-:.=/", *c);
	if (!ok)
		return ev_plan_refuse(err, plan, where, "\"profile\": \"event\": expected a perf event name such as cycles or cpu-clock");
	if (json_object_get(o, "frequency") && json_object_get(o, "period"))
		return ev_plan_refuse(err, plan, where, "\"profile\": \"frequency\" or \"period\", not both");
	if ((st = ev_plan_get_count(o, "frequency", json_object_get(o, "period") ? 0 : 999, 1, 100000, &p->frequency,
					 plan, where, err)) != EV_OK ||
	    (st = ev_plan_get_count(o, "period", 0, 1, (uint64_t)1 << 40, &p->period, plan, where, err)) != EV_OK)
		return st;
	json_t *cg = json_object_get(o, "call_graph");
	if (cg && !json_is_boolean(cg))
		return ev_plan_refuse(err, plan, where, "\"profile\": \"call_graph\": expected true or false");
	p->call_graph = json_is_true(cg);
	json_t *runs = json_object_get(o, "runs");
	if (runs && !(json_is_string(runs) && strcmp(json_string_value(runs), "all") == 0))
		return ev_plan_get_count(o, "runs", 0, 1, 1000, &p->runs, plan, where, err);
	return EV_OK;
}

ev_status ev_plan_load_side(json_t *cell, int role, struct ev_plan_side *s, long ncpus,
			   const char *plan, const char *cell_name, struct ev_error *err)
{
	static const char *const keys[] = {"argv", "launcher", "env", "cpu", "outputs", "ready",
					   "after_sender", "stop", "inputs", "user", "group", "profile", NULL};
	char where[128];
	s->role = role == EV_PLAN_SENDER ? "sender" : "peer";
	snprintf(where, sizeof where, "cell %s %s", cell_name, s->role);
	json_t *side = json_object_get(cell, s->role);
	if (!json_is_object(side))
		return ev_plan_refuse(err, plan, where, "expected an object with argv and cpu");
	ev_status st = ev_plan_only_keys(side, keys, plan, where, err);
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
			return ev_plan_refuse(err, plan, where, "\"env\": expected an object of NAME: value");
		json_object_foreach(env, k, v) {
			if (!json_is_string(v) || !*k || strchr(k, '='))
				return ev_plan_refuse(err, plan, where, "\"env\": \"%s\": expected NAME: \"value\"", k);
			if ((st = check_template(json_string_value(v), s->outputs, plan, where, err)) != EV_OK)
				return st;
		}
		s->env = env;
	}
	uint64_t cpu;
	if (!json_object_get(side, "cpu"))
		return ev_plan_refuse(err, plan, where, "\"cpu\": required (each process is pinned to its own CPU)");
	if ((st = ev_plan_get_count(side, "cpu", 0, 0, (uint64_t)ncpus - 1, &cpu, plan, where, err)) != EV_OK)
		return st;
	s->cpu = (int)cpu;
	s->work = role == EV_PLAN_SENDER ? EV_PLAN_WORK_SENDER : EV_PLAN_WORK_PEER;
	if ((st = load_stop(side, role, &s->stop, plan, where, err)) != EV_OK ||
	    (st = load_inputs(side, s, plan, where, err)) != EV_OK ||
	    (st = ev_plan_get_account(side, "user", &s->user, plan, where, err)) != EV_OK ||
	    (st = ev_plan_get_account(side, "group", &s->group, plan, where, err)) != EV_OK)
		return st;
	if ((st = load_profile(side, &s->profile, plan, where, err)) != EV_OK)
		return st;
	if (s->group && !s->user)
		return ev_plan_refuse(err, plan, where, "\"group\": given without \"user\" (name whom the side runs as)");
	json_t *ready = json_object_get(side, "ready");
	if (ready) {
		static const char *const rkeys[] = {"tcp_listen", "delay_ms", NULL};
		if (role != EV_PLAN_PEER)
			return ev_plan_refuse(err, plan, where, "\"ready\": only a peer is waited for");
		if (!json_is_object(ready) || json_object_size(ready) != 1)
			return ev_plan_refuse(err, plan, where,
				      "\"ready\": expected {\"tcp_listen\": PORT} or {\"delay_ms\": N}");
		if ((st = ev_plan_only_keys(ready, rkeys, plan, where, err)) != EV_OK ||
		    (st = ev_plan_get_count(ready, "tcp_listen", 0, 1, 65535, &s->ready_port, plan, where, err)) != EV_OK ||
		    (st = ev_plan_get_count(ready, "delay_ms", 0, 1, 600000, &s->ready_delay_ms, plan, where, err)) != EV_OK)
			return st;
	}
	return EV_OK;
}

