/* SPDX-License-Identifier: Apache-2.0 */
/* before_runs: what capture_run holds a plan and this host to before
 * anything runs or is written: this process's rights, every pinned file,
 * the sources, the link's ends, the CPUs' lease and capture's own CPUs
 * (parts.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/usecase/capture/parts.h"
#include "lib/process/pin_check.h"
#include "lib/process/policy.h"
#include "lib/process/sources.h"
#include "lib/receipt/receipt_read.h"

/* Can this process unshare a network namespace? @return 0 or an errno. */
static int probe_netns(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) == 0 ? 0 : errno);
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return errno ? errno : ECHILD;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
}

static void degrade(struct capture_session *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void degrade(struct capture_session *c, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	json_array_append_new(c->degraded, json_string(text));
	ev_capture_note(c, "degraded: %s", text);
}

/* What the plan needs that this process may not do: refused, or (with
 * --degrade) recorded. */
ev_status ev_capture_check_rights(struct capture_session *c, struct ev_error *err)
{
	int e;
	c->netns_ok = 0;
	if (c->plan.netns) {
		if ((e = probe_netns()) == 0)
			c->netns_ok = 1;
		else
			snprintf(c->netns_why, sizeof c->netns_why, "unshare(CLONE_NEWNET): %s", strerror(e));
	}
	int pm = 0;
	for (size_t i = 0; i < c->plan.narms; i++)
		pm |= c->plan.arms[i].pm_qos;
	c->pmqos_ok = 0;
	if (pm) {
		if ((e = ev_pmqos_probe()) == 0)
			c->pmqos_ok = 1;
		else
			snprintf(c->pmqos_why, sizeof c->pmqos_why, "%s: %s", EV_PMQOS_DEVICE, strerror(e));
	}
	if (!c->in->degrade) {
		if (c->plan.netns && !c->netns_ok)
			return ev_error_set(err, EV_REFUSED,
					    "%s: the plan asks for network namespaces (\"namespaces\": \"%s\"), and "
					    "this process cannot make them (%s); run capture as root, or pass --degrade "
					    "to run both sides in this namespace and record that",
					    c->in->plan_path, c->plan.namespaces, c->netns_why);
		if (pm && !c->pmqos_ok)
			return ev_error_set(err, EV_REFUSED,
					    "%s: an arm asks to hold cpu_dma_latency, and this process cannot (%s); run "
					    "capture as root, or pass --degrade to run the arm without it and record that",
					    c->in->plan_path, c->pmqos_why);
		return EV_OK;
	}
	if (c->plan.netns && !c->netns_ok)
		degrade(c, "namespaces: %s asked for, not made (%s); both sides ran in capture's network "
			   "namespace over loopback", c->plan.namespaces, c->netns_why);
	if (pm && !c->pmqos_ok)
		degrade(c, "pm_qos: cpu_dma_latency asked for, not held (%s)", c->pmqos_why);
	return EV_OK;
}

/* Topology "link": both ends are interfaces of this namespace now; their
 * MTU and driver are what the runs record and restore. */
ev_status ev_capture_check_link(struct capture_session *c, json_t *receipt, struct ev_error *err)
{
	if (!c->plan.link || !c->netns_ok)
		return EV_OK;
	for (int k = 0; k < 2; k++)
		if (ev_netns_link_inspect(c->plan.link_if[k], &c->link[k], err) != EV_OK)
			return ev_error_wrap(err, "%s: link: %s", c->in->plan_path, k == EV_PLAN_SENDER ? "sender" : "peer");
	if ((c->host_ns_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return ev_error_errno(err, errno, "/proc/thread-self/ns/net: cannot open capture's network namespace");
	json_t *fact = json_object();
	for (int k = 0; k < 2; k++)
		json_object_set_new(fact, k == EV_PLAN_SENDER ? "sender" : "peer", ev_netns_link_json(&c->link[k]));
	return ev_receipt_set_fact(receipt, "link", fact, err);
}

/* "binary PATH" in the receipt's inputs, once however many sides run it. */
static void add_binary_input(json_t *receipt, const char *path, const char *sha256, struct ev_error *err)
{
	char name[4200];
	snprintf(name, sizeof name, "binary %s", path);
	size_t n;
	json_t *in;
	json_array_foreach(ev_receipt_inputs(receipt), n, in)
		if (strcmp(json_string_value(json_object_get(in, "name")), name) == 0)
			return;
	ev_receipt_add_input(receipt, name, path, sha256, err);
}

/* Every program and launcher of every cell, and every observer, before
 * anything runs. */
ev_status ev_capture_check_binaries(struct capture_session *c, json_t *receipt, struct ev_error *err)
{
	for (size_t i = 0; i < c->plan.ncells; i++)
		for (int k = 0; k < 2; k++) {
			const struct ev_plan_side *s = &c->plan.cells[i].side[k];
			const char *paths[2] = {json_string_value(json_array_get(s->argv, 0)),
						s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL};
			for (int b = 0; b < 2 && paths[b]; b++) {
				struct ev_pinned_binary pb;
				ev_status st = ev_pin_check(c->plan.pins, paths[b], &pb, err);
				if (st != EV_OK)
					return ev_error_wrap(err, "cell %s %s", c->plan.cells[i].name, s->role);
				add_binary_input(receipt, paths[b], pb.sha256, err);
			}
		}
	for (size_t i = 0; i < c->plan.nobservers + (c->plan.perf != NULL); i++) {
		int observer = i < c->plan.nobservers;
		const char *prog = observer ? json_string_value(json_array_get(c->plan.observers[i].argv, 0)) : c->plan.perf;
		struct ev_pinned_binary pb;
		if (ev_pin_check(c->plan.pins, prog, &pb, err) != EV_OK)
			return observer ? ev_error_wrap(err, "observer %s", c->plan.observers[i].name) : ev_error_wrap(err, "perf");
		add_binary_input(receipt, prog, pb.sha256, err);
	}
	/* every input a side copies, which must be pinned */
	for (size_t i = 0; i < c->plan.ncells; i++)
		for (int k = 0; k < 2; k++) {
			const char *name;
			json_t *from;
			json_object_foreach(c->plan.cells[i].side[k].inputs, name, from) {
				struct ev_pinned_binary pb;
				if (ev_pin_check(c->plan.pins, json_string_value(from), &pb, err) != EV_OK)
					return ev_error_wrap(err, "cell %s %s input %s", c->plan.cells[i].name,
							     c->plan.cells[i].side[k].role, name);
			}
		}
	/* and every other pinned file, as the runs will check it */
	const char *path;
	json_t *v;
	json_object_foreach(c->plan.pins, path, v) {
		if (ev_plan_runs_program(&c->plan, path))
			continue;
		struct ev_pinned_binary pb;
		ev_status st = ev_pin_check(c->plan.pins, path, &pb, err);
		if (st != EV_OK)
			return ev_error_wrap(err, "pinned file");
		char name[4200];
		snprintf(name, sizeof name, "pinned file %s", path);
		ev_receipt_add_input(receipt, name, path, pb.sha256, err);
	}
	return EV_OK;
}

/* The repositories the binaries were built from, before anything runs:
 * an input each (the repository's path and tree), and a fact. */
ev_status ev_capture_check_sources(struct capture_session *c, json_t *receipt, struct ev_error *err)
{
	ev_status st = ev_sources_read(c->plan.sources, c->in->allow_dirty, &c->sources, err);
	if (st != EV_OK)
		return st;
	json_t *facts = json_object();
	const char *program;
	json_t *src;
	json_object_foreach(c->sources, program, src) {
		char name[4200];
		snprintf(name, sizeof name, "source of %s", program);
		ev_receipt_add_input(receipt, name, json_string_value(json_object_get(src, "repository")), NULL, err);
		json_t *inputs = json_object_get(receipt, "inputs");
		json_object_set(json_array_get(inputs, json_array_size(inputs) - 1), "git_tree",
				json_object_get(src, "tree"));
		json_t *fact = json_deep_copy(src);
		json_object_del(fact, "repository"); /* a path: host-specific, it is in inputs */
		json_object_set_new(facts, program, fact);
		if (!json_is_true(json_object_get(src, "clean")))
			ev_capture_note(c, "warning: source of %s: %s has %lld uncommitted changes; recorded as dirty "
					"(--allow-dirty)", program, json_string_value(json_object_get(src, "repository")),
				(long long)json_integer_value(json_object_get(src, "changes")));
	}
	return ev_receipt_set_fact(receipt, "sources", facts, err);
}

static void say_waiting(void *ctx, const char *why)
{
	const struct capture_session *c = ctx;
	if (c->in->on_waiting)
		c->in->on_waiting(c->in->ctx, why);
}

/* Every CPU the campaign uses, exclusively, for the whole campaign. A
 * registry this process cannot use is refused, or recorded with
 * --degrade. */
ev_status ev_capture_take_lease(struct capture_session *c, struct ev_lease *l, struct ev_error *err)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	for (size_t i = 0; i < c->ncpus; i++)
		CPU_SET(c->cpus[i], &cpus);
	char command[2 * PATH_MAX + 32], list[256];
	snprintf(command, sizeof command, "capture run %s -o %s", c->in->plan_path, c->in->dir);
	ev_cpulist_format(&cpus, list, sizeof list);
	ev_status st = ev_lease_take(l, &cpus, EV_LEASE_EXCLUSIVE, (enum ev_lease_priority)c->in->priority, c->in->wait, command,
				     c->in->interrupted, say_waiting, c, err);
	if (st == EV_OK) {
		c->lease = ev_lease_json(l);
		return EV_OK;
	}
	if (st == EV_REFUSED) {
		char why[EV_ERROR_TEXT_MAX];
		snprintf(why, sizeof why, "%s", err->text);
		ev_error_clear(err);
		return ev_error_set(err, EV_REFUSED, "%s: CPUs %s are not free: %s; pass --wait to queue for them",
				    c->in->plan_path, list, why);
	}
	if (st == EV_INTERRUPTED || !c->in->degrade)
		return st == EV_INTERRUPTED ? st
					    : ev_error_wrap(err, "%s: cannot lease CPUs %s (pass --degrade to run without "
								 "a lease and record that)", c->in->plan_path, list);
	degrade(c, "leases: CPUs %s not leased (%s); other work may have run on them", list, err->text);
	ev_error_clear(err);
	c->lease = json_pack("{s:s}", "not_taken", json_string_value(json_array_get(c->degraded,
										      json_array_size(c->degraded) - 1)));
	return EV_OK;
}

/* Pin capture (and the threads it starts) to the controller CPUs. */
ev_status ev_capture_pin_controller(struct capture_session *c, struct ev_error *err)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (size_t i = 0; i < c->plan.ncontroller; i++)
		CPU_SET(c->plan.controller_cpus[i], &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return ev_error_errno(err, errno, "cannot pin capture to its controller CPUs");
	return EV_OK;
}

void ev_capture_collect_cpus(struct capture_session *c)
{
	c->ncpus = 0;
	int seen[EV_PLAN_MAX_CPUS] = {0};
	for (size_t i = 0; i < c->plan.ncontroller; i++)
		if (!seen[c->plan.controller_cpus[i]]++)
			c->cpus[c->ncpus++] = c->plan.controller_cpus[i];
	for (size_t i = 0; i < c->plan.ncells; i++)
		for (int k = 0; k < 2; k++)
			if (c->plan.cells[i].side[k].cpu < EV_PLAN_MAX_CPUS && !seen[c->plan.cells[i].side[k].cpu]++)
				c->cpus[c->ncpus++] = c->plan.cells[i].side[k].cpu;
}

