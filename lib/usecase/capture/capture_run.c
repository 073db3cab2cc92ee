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
#include "lib/process/policy.h"
#include "lib/campaign/policy_read.h"
#include "lib/campaign/registration.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/archive/tree.h"

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
		int e = ev_capture_earlier_run(c, &ss->order[i], &done[i - first], err);
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
			if (c->in->on_starting)
				c->in->on_starting(c->in->ctx, r->name);
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
		ev_meter_advance(c->in->meter, 0, 1);
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
	ev_meter_goal(c->in->meter, 0, ss.n);
	int stop = 0;
	ev_status st = EV_OK;
	for (size_t first = 0; first < ss.n && st == EV_OK;) {
		size_t last = first;
		while (last < ss.n && order[last].arm == order[first].arm)
			last++;
		st = run_arm(&ss, first, last, &stop, err);
		first = last;
	}
	c->tally = (struct ev_session_tally){ss.this_session, ss.ok, ss.failed, ss.earlier, ss.not_run};
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

/* The registration given, held to this plan; refused when one is
 * required and none given. */
static ev_status check_registration(struct capture_session *c, struct ev_error *err)
{
	const struct ev_capture_run *o = c->in;
	if (!o->registration)
		return o->require_registration
			       ? ev_error_set(err, EV_REFUSED, "%s: no registration given (--registration REG.json); "
					      "--require-registration refuses a plan run without one: capture register "
					      "makes it, before the first run", o->plan_path)
			       : EV_OK;
	json_t *reg = NULL;
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_registration_load(o->registration, &reg, digest, err);
	if (st != EV_OK)
		return st;
	const char *registered = ev_registration_plan_sha256(reg);
	if (strcmp(registered, c->plan.sha256) != 0)
		st = ev_error_set(err, EV_REFUSED, "%s: registers the plan whose bytes hash to %s; %s hashes to %s: "
				  "register this plan (capture register), or run the one registered",
				  o->registration, registered, o->plan_path, c->plan.sha256);
	c->registration_quiet = strcmp(ev_registration_require(reg), "quiet") == 0;
	ev_sha256_hex(digest, c->registration_sha256);
	json_decref(reg);
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
		st = check_registration(c, err);
	if (st == EV_OK)
		st = ev_capture_check_rights(c, err);
	if (st == EV_OK)
		st = ev_credentials_resolve(&c->plan, c->cred, err);
	if (st == EV_OK) {
		ev_capture_collect_cpus(c);
		st = ev_capture_take_lease(c, lease, err);
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
	if (st == EV_OK && c->registration_sha256[0])
		st = ev_receipt_add_input(receipt, "registration", o->registration, c->registration_sha256, err);
	if (st == EV_OK)
		st = ev_capture_check_binaries(c, receipt, err);
	if (st == EV_OK)
		st = ev_capture_check_sources(c, receipt, err);
	if (st == EV_OK)
		st = ev_capture_check_link(c, receipt, err);
	if (st == EV_OK)
		st = ev_capture_pin_controller(c, err);
	if (st == EV_OK) /* the last moment nothing is yet written */
		st = ev_capture_grade_ahead(c, err);
	if (st == EV_OK)
		st = ev_capture_open_campaign(c, &resumed, err);
	if (st == EV_OK)
		st = ev_capture_keep_registration(c, err);
	if (st == EV_OK) {
		if (resumed)
			progress_line(c, "resuming the campaign in %s", o->dir);
		st = write_policy(c, receipt, err);
	}
	if (st == EV_OK && c->host_ns_fd >= 0)
		st = ev_link_keeper_start(&c->keeper, err);
	if (st == EV_OK)
		st = ev_capture_session_begin(c, err);
	if (st == EV_OK)
		st = run_campaign(c, receipt, o->receipt_path, sizeof o->receipt_path, &o->all_ok, err);
	ev_link_keeper_stop(&c->keeper);
	if (c->session_start) {
		struct ev_error ended;
		ev_error_clear(&ended);
		if (ev_capture_session_end(c, st, err, &ended) != EV_OK) {
			if (st == EV_OK)
				st = ev_error_set(err, ended.status, "the campaign ran (its receipt %s), but its session's end "
						  "is not on the record: %s", o->receipt_path, ended.text);
			else
				ev_capture_note(c, "the session's end is not on the record: %s", ended.text);
		}
		json_decref(c->session_start);
	}
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
