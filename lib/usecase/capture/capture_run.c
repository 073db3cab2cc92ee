/* SPDX-License-Identifier: Apache-2.0 */
/* capture_run: every run of a plan in its order (capture_run.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/usecase/capture/parts.h"
#include "lib/process/launch.h"
#include "lib/process/netns.h"
#include "lib/process/pin_check.h"
#include "lib/process/policy.h"
#include "lib/process/sources.h"
#include "lib/campaign/policy_read.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/lease.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/tree.h"
#include "lib/core/sha256.h"
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

void ev_capture_note(const struct capture_session *c, const char *fmt, ...)
{
	if (!c->in->on_note)
		return;
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	c->in->on_note(c->in->ctx, text);
}

/* A line of the campaign's progress, formatted, to the caller's on_run. */
static void progress_line(const struct capture_session *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void progress_line(const struct capture_session *c, const char *fmt, ...)
{
	if (!c->in->on_run)
		return;
	char text[EV_ERROR_TEXT_MAX + 512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	c->in->on_run(c->in->ctx, text);
}

/* What the plan needs that this process may not do: refused, or (with
 * --degrade) recorded. */
static ev_status check_rights(struct capture_session *c, struct ev_error *err)
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
static ev_status check_link(struct capture_session *c, json_t *receipt, struct ev_error *err)
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
static ev_status check_all_binaries(struct capture_session *c, json_t *receipt, struct ev_error *err)
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
static ev_status check_sources(struct capture_session *c, json_t *receipt, struct ev_error *err)
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

/* Create the campaign directory, or recognise it as this plan's. */

/* A directory capture makes or resumes into, as capture made it: a
 * directory, not a symbolic link (that would send every run, created and
 * chowned as root, wherever it points), owned by whoever runs capture. */
static ev_status own_directory(const char *path, struct ev_error *err)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return ev_error_errno(err, errno, "%s: cannot stat", path);
	if (!S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_REFUSED, "%s: %s, not a directory; refused: capture never follows a link in a "
				    "campaign (move it away and run again)", path, ev_input_kind((unsigned)sb.st_mode));
	if (sb.st_uid != geteuid())
		return ev_error_set(err, EV_REFUSED, "%s: owned by uid %u, not by uid %u who runs capture; refused: not a "
				    "directory this capture made", path, (unsigned)sb.st_uid, (unsigned)geteuid());
	return EV_OK;
}

static ev_status open_campaign(struct capture_session *c, int *resumed, struct ev_error *err)
{
	char path[PATH_MAX + 32];
	struct stat sb;
	*resumed = 0;
	if (ev_path_join(path, sizeof path, c->in->dir, "plan.json") != 0)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
	if (stat(c->in->dir, &sb) == 0) {
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		if (!S_ISDIR(sb.st_mode))
			return ev_error_set(err, EV_REFUSED, "%s: exists and is not a directory", c->in->dir);
		if (access(path, F_OK) != 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s: exists and holds no plan.json: not a campaign to resume; choose a new "
					    "directory", c->in->dir);
		ev_status st = ev_sha256_path(path, d, NULL, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(d, hex);
		if (strcmp(hex, c->plan.sha256) != 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s: holds the campaign of another plan (its plan.json has SHA-256 %s, %s has "
					    "%s); a campaign's plan cannot change: choose a new directory", c->in->dir, hex,
					    c->in->plan_path, c->plan.sha256);
		*resumed = 1;
	} else {
		if (errno != ENOENT)
			return ev_error_errno(err, errno, "%s", c->in->dir);
		if (mkdir(c->in->dir, 0755) != 0)
			return ev_error_errno(err, errno, "%s: cannot create the campaign directory", c->in->dir);
		char *bytes = NULL;
		size_t len = 0;
		ev_status st = ev_file_read_all(c->in->plan_path, EV_JSON_MAX_BYTES, &bytes, &len, err);
		if (st == EV_OK)
			st = ev_publish_bytes(path, bytes, len, 0644, err);
		free(bytes);
		if (st != EV_OK)
			return st;
	}
	static const char *const subs[] = {"runs", "interrupted"};
	for (int i = 0; i < 2; i++) {
		if (ev_path_join(path, sizeof path, c->in->dir, subs[i]) != 0)
			return ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return ev_error_errno(err, errno, "%s: cannot create", path);
		ev_status st = own_directory(path, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

/* A run done in an earlier session: its run.json's verdict. @return 1
 * when it exists (summary set), 0 when the run is to be made, -1 on an
 * error (err set). A directory without run.json was cut short: it is
 * moved to interrupted/ (kept, never deleted). */
static int earlier_run(struct capture_session *c, const struct ev_plan_run *r, json_t **summary,
		       struct ev_error *err)
{
	char runs[PATH_MAX], dir[PATH_MAX], rec[PATH_MAX];
	if (ev_path_join(runs, sizeof runs, c->in->dir, "runs") != 0 || ev_path_join(dir, sizeof dir, runs, r->name) != 0 ||
	    ev_path_join(rec, sizeof rec, dir, EV_RUN_FILENAME) != 0) {
		ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
		return -1;
	}
	struct stat sb;
	if (lstat(dir, &sb) != 0)
		return 0;
	if (own_directory(dir, err) != EV_OK)
		return -1;
	if (access(rec, F_OK) == 0) {
		struct ev_run run;
		uint8_t d[EV_SHA256_LEN];
		if (ev_run_load(rec, EV_JSON_REQUIRE_CANONICAL, &run, d, err) != EV_OK)
			return -1;
		const char *result = ev_run_string(&run, "result");
		*summary = json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s}", "order_index", (json_int_t)r->index,
				     "name", r->name, "arm", r->arm->name, "cell", r->cell->name, "repeat",
				     (int)r->repeat, "result", result ? result : "unknown", "session", "earlier");
		const char *failure = ev_run_string(&run, "failure");
		if (failure)
			json_object_set_new(*summary, "failure", json_string(failure));
		ev_run_free(&run);
		return 1;
	}
	for (int n = 1; n < 1000; n++) {
		char aside[PATH_MAX], name[EV_PLAN_RUN_NAME_MAX + 16], sub[PATH_MAX];
		snprintf(name, sizeof name, "%s.%d", r->name, n);
		if (ev_path_join(sub, sizeof sub, c->in->dir, "interrupted") != 0 || ev_path_join(aside, sizeof aside, sub, name) != 0) {
			ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
			return -1;
		}
		if (renameat2(AT_FDCWD, dir, AT_FDCWD, aside, RENAME_NOREPLACE) == 0) {
			ev_capture_note(c, "%s was cut short in an earlier session: kept as %s, run again",
					r->name, aside + strlen(c->in->dir) + 1);
			return 0;
		}
		if (errno != EEXIST) {
			ev_error_errno(err, errno, "%s: cannot move the interrupted run aside", dir);
			return -1;
		}
	}
	ev_error_set(err, EV_ERROR, "%s: too many interrupted copies", dir);
	return -1;
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
static ev_status take_lease(struct capture_session *c, struct ev_lease *l, struct ev_error *err)
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
static ev_status pin_controller(struct capture_session *c, struct ev_error *err)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (size_t i = 0; i < c->plan.ncontroller; i++)
		CPU_SET(c->plan.controller_cpus[i], &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return ev_error_errno(err, errno, "cannot pin capture to its controller CPUs");
	return EV_OK;
}

static void collect_cpus(struct capture_session *c)
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

static ev_status write_policy(struct capture_session *c, json_t *receipt, struct ev_error *err)
{
	json_t *doc = ev_policy_snapshot(c->cpus, c->ncpus);
	json_object_set_new(doc, "format", json_string(EV_POLICY_FORMAT));
	json_object_set_new(doc, "host", json_string(c->host));
	json_object_set_new(doc, "boot_id", json_string(c->boot_id));
	char *bytes = NULL, path[PATH_MAX + 32];
	size_t len = 0;
	ev_status st = ev_json_dump(doc, &bytes, &len, err);
	json_decref(doc);
	if (st == EV_OK)
		st = ev_publish_fresh(c->in->dir, "policy", "json", bytes, len, 0644, path, sizeof path, err);
	if (st == EV_OK) {
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		ev_sha256_buffer(bytes, len, d, err);
		ev_sha256_hex(d, hex);
		ev_receipt_add_output(receipt, "policy", path, hex, err);
	}
	free(bytes);
	return st;
}

struct session {
	struct capture_session *c;
	json_t *receipt, *runs, *arms;
	struct ev_plan_run *order;
	size_t n;
	unsigned ok, failed, earlier, not_run, this_session;
};

/* The arm's runs; PM QoS held around them when asked. @return EV_OK, or
 * an error that stops the campaign; *stop when the plan says to stop. */
static ev_status run_arm(struct session *ss, size_t first, size_t last, int *stop, struct ev_error *err)
{
	struct capture_session *c = ss->c;
	const struct ev_plan_arm *arm = ss->order[first].arm;
	json_t *done[EV_PLAN_MAX_RUNS] = {0};
	size_t todo = 0;
	for (size_t i = first; i < last; i++) {
		int e = earlier_run(c, &ss->order[i], &done[i - first], err);
		if (e < 0) {
			for (size_t k = 0; k < i - first; k++)
				json_decref(done[k]);
			return err->status;
		}
		todo += e == 0;
	}
	json_t *arm_json = json_pack("{s:s}", "name", arm->name);
	struct ev_pmqos_hold hold = {-1, 0};
	c->pmqos_held = 0;
	if (arm->pm_qos && todo && c->pmqos_ok && !*stop) {
		int32_t effective;
		ev_status st = ev_pmqos_hold(arm->cpu_dma_latency, &hold, &effective, err);
		if (st != EV_OK) {
			json_decref(arm_json);
			for (size_t i = 0; i < last - first; i++)
				json_decref(done[i]);
			return st;
		}
		c->pmqos_held = 1;
		json_object_set_new(arm_json, "cpu_dma_latency",
				    json_pack("{s:i, s:i}", "requested_us", arm->cpu_dma_latency,
					      "effective_during_us", effective));
		progress_line(c, "arm %s: holding %s at %d us (read back %d)", arm->name, EV_PMQOS_DEVICE,
			      (int)arm->cpu_dma_latency, (int)effective);
	}
	ev_status st = EV_OK;
	for (size_t i = first; i < last; i++) {
		const struct ev_plan_run *r = &ss->order[i];
		json_t *summary = done[i - first];
		if (summary) {
			ss->earlier++;
			if (strcmp(json_string_value(json_object_get(summary, "result")), "ok") != 0)
				ss->failed++;
		} else if (*stop) {
			summary = json_pack("{s:I, s:s, s:s, s:s, s:i, s:s}", "order_index", (json_int_t)r->index,
					    "name", r->name, "arm", r->arm->name, "cell", r->cell->name, "repeat",
					    (int)r->repeat, "result", "not-run");
			ss->not_run++;
		} else {
			double t0 = ev_launch_monotonic();
			enum run_result res = ev_capture_run_one(c, r, &summary, err);
			if (res == RUN_INTERRUPTED) { /* nothing is claimed for it */
				char why[EV_ERROR_TEXT_MAX];
				snprintf(why, sizeof why, "%s", err->text[0] ? err->text : "interrupted");
				json_decref(summary);
				ev_error_clear(err);
				st = ev_error_set(err, EV_ERROR, "%s: %s; run capture again to resume", r->name, why);
				break;
			}
			progress_line(c, "[%zu/%zu] %s: %s (%.1f s)%s%s", r->index, ss->n, r->name,
				      res == RUN_OK ? "ok" : res == RUN_TIMEOUT ? "TIMEOUT" : "FAILED", ev_launch_monotonic() - t0,
				      res == RUN_OK ? "" : ": ", res == RUN_OK ? "" : err->text);
			ss->this_session++;
			if (res == RUN_OK) {
				ss->ok++;
			} else {
				ss->failed++;
				*stop = c->plan.stop_on_failure;
			}
			ev_error_clear(err);
			json_object_set_new(summary, "session", json_string("this"));
		}
		json_array_append_new(ss->runs, summary);
		done[i - first] = NULL;
	}
	for (size_t i = 0; i < last - first; i++)
		json_decref(done[i]);
	if (hold.fd >= 0) {
		ev_pmqos_release(&hold);
		c->pmqos_held = 0;
		int32_t after;
		int e = ev_pmqos_read(&after);
		json_t *pm = json_object_get(arm_json, "cpu_dma_latency");
		if (e)
			json_object_set_new(pm, "after_release", json_string(strerror(e)));
		else
			json_object_set_new(pm, "after_release_us", json_integer(after));
		progress_line(c, "arm %s: released %s (now %d us)", arm->name, EV_PMQOS_DEVICE, e ? -1 : (int)after);
	} else if (arm->pm_qos) {
		json_object_set_new(arm_json, "cpu_dma_latency",
				    json_pack("{s:i, s:b}", "requested_us", arm->cpu_dma_latency, "held", 0));
	}
	json_array_append_new(ss->arms, arm_json);
	return st;
}

/* Every regular file a run left besides run.json, hashed into the
 * receipt's outputs as "runs/RUN/PATH": a program that keeps no raw
 * series has only its printed numbers, and they are pinned here, at the
 * moment they were written, so that audit catches an edit without a
 * seal. Links and other kinds are left to seal, which refuses them. */
static ev_status pin_run_files(json_t *receipt, const char *run_dir, const char *run_name,
			       volatile sig_atomic_t *interrupted, struct ev_error *err)
{
	struct ev_tree tree = {.rootfd = -1};
	struct ev_error ignored;
	ev_error_clear(&ignored);
	ev_status st = ev_tree_scan(run_dir, &tree, NULL, NULL, &ignored);
	for (size_t i = 0; st == EV_OK && i < tree.count; i++) {
		const struct ev_member *m = &tree.entries[i].m;
		if (m->type != EV_MEMBER_FILE || strcmp(m->path, EV_RUN_FILENAME) == 0 || tree.entries[i].name_problem)
			continue;
		char name[PATH_MAX], path[PATH_MAX];
		if ((size_t)snprintf(name, sizeof name, "runs/%s/%s", run_name, m->path) >= sizeof name ||
		    ev_path_join(path, sizeof path, run_dir, m->path) != 0)
			continue;
		int fd = ev_tree_open_member(&tree, m->path);
		if (fd < 0) {
			st = ev_error_errno(err, errno, "%s: cannot read it to pin it in the capture receipt", path);
			break;
		}
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		st = ev_sha256_fd_until(fd, path, d, NULL, interrupted, err);
		close(fd);
		if (st == EV_OK) {
			ev_sha256_hex(d, hex);
			st = ev_receipt_add_output(receipt, name, path, hex, err);
		}
	}
	ev_tree_free(&tree);
	return st;
}

static ev_status run_campaign(struct capture_session *c, json_t *receipt, char *receipt_path, size_t cap,
			      int *all_ok, struct ev_error *err)
{
	static struct ev_plan_run order[EV_PLAN_MAX_RUNS];
	struct session ss = {.c = c, .receipt = receipt,
			     .runs = json_array(), .arms = json_array(), .order = order};
	ss.n = ev_plan_schedule(&c->plan, order, EV_PLAN_MAX_RUNS);
	int stop = 0;
	ev_status st = EV_OK;
	for (size_t first = 0; first < ss.n && st == EV_OK;) {
		size_t last = first;
		while (last < ss.n && order[last].arm == order[first].arm)
			last++;
		st = run_arm(&ss, first, last, &stop, err);
		first = last;
	}
	if (st != EV_OK) {
		json_decref(ss.runs);
		json_decref(ss.arms);
		return st;
	}
	size_t i;
	json_t *run;
	json_array_foreach(ss.runs, i, run) {
		const char *result = json_string_value(json_object_get(run, "result"));
		const char *failure = json_string_value(json_object_get(run, "failure"));
		char name[EV_PLAN_RUN_NAME_MAX + 8], path[PATH_MAX + EV_PLAN_RUN_NAME_MAX + 16];
		snprintf(name, sizeof name, "run %s", json_string_value(json_object_get(run, "name")));
		ev_receipt_add_check(receipt, name, strcmp(result, "ok") == 0, failure ? failure : result, err);
		char rel[EV_PLAN_RUN_NAME_MAX + 32];
		snprintf(rel, sizeof rel, "runs/%s/run.json", json_string_value(json_object_get(run, "name")));
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		struct ev_error ignored;
		ev_error_clear(&ignored);
		if (ev_path_join(path, sizeof path, c->in->dir, rel) == 0 && ev_sha256_path(path, d, NULL, &ignored) == EV_OK) {
			ev_sha256_hex(d, hex);
			ev_receipt_add_output(receipt, name + 4, path, hex, err);
			path[strlen(path) - strlen("/" EV_RUN_FILENAME)] = 0;
			if ((st = pin_run_files(receipt, path, name + 4, c->in->interrupted, err)) != EV_OK)
				break;
		}
	}
	if (st != EV_OK) {
		json_decref(ss.runs);
		json_decref(ss.arms);
		return st;
	}
	json_t *cpus = json_array();
	for (size_t k = 0; k < c->plan.ncontroller; k++)
		json_array_append_new(cpus, json_integer(c->plan.controller_cpus[k]));
	ev_receipt_set_fact(receipt, "campaign", json_string(c->plan.name), err);
	ev_receipt_set_fact(receipt, "plan_sha256", json_string(c->plan.sha256), err);
	ev_receipt_set_fact(receipt, "order", json_string(c->plan.balanced ? "balanced" : "listed"), err);
	ev_receipt_set_fact(receipt, "runs", ss.runs, err);
	ev_receipt_set_fact(receipt, "arms", ss.arms, err);
	ev_receipt_set_fact(receipt, "controller_cpus", cpus, err);
	ev_receipt_set_fact(receipt, "controller", ev_plan_controller_json(&c->plan), err);
	ev_receipt_set_fact(receipt, "degraded", json_incref(c->degraded), err);
	ev_receipt_set_fact(receipt, "lease", json_incref(c->lease), err);
	ev_receipt_set_fact(receipt, "counts",
			    json_pack("{s:I, s:I, s:I, s:I}", "this_session", (json_int_t)ss.this_session,
				      "earlier", (json_int_t)ss.earlier, "failed", (json_int_t)ss.failed,
				      "not_run", (json_int_t)ss.not_run), err);
	/* what this receipt's pass means, and what capture cannot vouch for */
	json_t *not = json_pack("[s]", "what the programs measured and printed (audit campaign judges it)");
	size_t k;
	json_t *d;
	json_array_foreach(c->degraded, k, d) {
		char text[600];
		snprintf(text, sizeof text, "degraded: %s", json_string_value(d) ?: "");
		json_array_append_new(not, json_string(text));
	}
	for (k = 0; k < c->plan.nshared; k++) {
		char text[200];
		snprintf(text, sizeof text, "a side alone on its CPU: the controller shared CPU %d with a measured side "
			 "(\"controller_shares\": true)", c->plan.shared_cpus[k]);
		json_array_append_new(not, json_string(text));
	}
	ev_receipt_set_fact(receipt, "coverage",
			    json_pack("{s:[s, s, s, s], s:o}", "recomputed",
				      "every program and launcher hashed before its run (inputs binary PATH)",
				      "each side started fresh on its CPUs, its affinity and credentials read back (run.json)",
				      "each run's result from its processes' exits and stops",
				      "every file each run left hashed as written (outputs runs/RUN/PATH)",
				      "not_checked", not),
			    err);
	if ((st = ev_receipt_finish_signed(receipt, c->in->sign_key, err)) == EV_OK)
		st = ev_receipt_write_fresh(receipt, c->in->dir, "receipt-capture", receipt_path, cap, err);
	*all_ok = ss.failed == 0 && ss.not_run == 0;
	return st;
}

/* The session's steps in order; whatever it made is released by the
 * caller (session_free). */
static ev_status run_session(struct capture_session *c, struct ev_lease *lease, struct ev_error *err)
{
	struct ev_capture_run *o = c->in;
	int resumed = 0;
	ev_status st = ev_campaign_plan_load(o->plan_path, &c->plan, err);
	if (st == EV_OK)
		st = check_rights(c, err);
	if (st == EV_OK)
		st = ev_credentials_resolve(&c->plan, c->cred, err);
	if (st == EV_OK) {
		collect_cpus(c);
		st = take_lease(c, lease, err);
	}
	if (st == EV_OK && gethostname(c->host, sizeof c->host) != 0)
		snprintf(c->host, sizeof c->host, "unknown");
	if (st == EV_OK)
		st = ev_proc_boot_id(c->boot_id, err);
	json_t *receipt = NULL;
	if (st == EV_OK && !(receipt = ev_receipt_new("capture", "capture", o->invocation, err)))
		st = err->status;
	if (st == EV_OK)
		st = ev_receipt_add_input(receipt, "plan", o->plan_path, c->plan.sha256, err);
	if (st == EV_OK)
		st = check_all_binaries(c, receipt, err);
	if (st == EV_OK)
		st = check_sources(c, receipt, err);
	if (st == EV_OK)
		st = check_link(c, receipt, err);
	if (st == EV_OK)
		st = pin_controller(c, err);
	if (st == EV_OK) /* the last moment nothing is yet written */
		st = ev_capture_grade_ahead(c, err);
	if (st == EV_OK)
		st = open_campaign(c, &resumed, err);
	if (st == EV_OK) {
		if (resumed)
			progress_line(c, "resuming the campaign in %s", o->dir);
		st = write_policy(c, receipt, err);
	}
	if (st == EV_OK && c->host_ns_fd >= 0)
		st = ev_link_keeper_start(&c->keeper, err);
	if (st == EV_OK)
		st = run_campaign(c, receipt, o->receipt_path, sizeof o->receipt_path, &o->all_ok, err);
	ev_link_keeper_stop(&c->keeper);
	if (st == EV_OK)
		o->receipt = json_incref(receipt);
	json_decref(receipt);
	return st;
}

ev_status ev_capture_run(struct ev_capture_run *o, struct ev_error *err)
{
	/* the plan holds up to 64 cells and 1024 CPUs: kept off the stack */
	struct capture_session *c = calloc(1, sizeof *c);
	struct ev_lease *lease = calloc(1, sizeof *lease);
	o->receipt = NULL;
	o->receipt_path[0] = '\0';
	o->all_ok = 0;
	if (!c || !lease) {
		free(c);
		free(lease);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	c->in = o;
	c->degraded = json_array();
	c->host_ns_fd = -1;
	c->keeper = (struct ev_link_keeper){-1, -1};
	ev_status st = run_session(c, lease, err);
	if (c->host_ns_fd >= 0)
		close(c->host_ns_fd);
	ev_lease_release(lease);
	json_decref(c->lease);
	json_decref(c->degraded);
	json_decref(c->sources);
	ev_campaign_plan_free(&c->plan);
	free(lease);
	free(c);
	return st;
}
