/* SPDX-License-Identifier: Apache-2.0 */
/* run_record: what one run records, run.json (doc/formats.md "Runs and
 * their processes") and observe/tcp.json, written last and atomically
 * from the run's state. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/usecase/capture/run_state.h"
#include "lib/process/netns.h"
#include "lib/process/pin_check.h"
#include "lib/process/policy.h"
#include "lib/campaign/run.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"

static json_t *timespec_json(const struct timespec *t)
{
	char text[64];
	struct tm tm;
	gmtime_r(&t->tv_sec, &tm);
	size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(text + n, sizeof text - n, ".%09ldZ", t->tv_nsec);
	return json_string(text);
}

static json_t *strings_json(char **v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *exit_json(const struct ev_side_proc *p)
{
	if (!p->exited)
		return json_null();
	if (WIFEXITED(p->status))
		return json_pack("{s:i}", "code", WEXITSTATUS(p->status));
	return json_pack("{s:i, s:s}", "signal", WTERMSIG(p->status), "name", strsignal(WTERMSIG(p->status)));
}

/* How the side was to end, whether capture asked it to, and how it did. */
static json_t *stop_json(struct run_state *s, int k)
{
	const struct ev_plan_stop *stop = &s->r->cell->side[k].stop;
	const struct ev_side_proc *p = &s->side[k];
	static const char *const hows[] = {"exit", "stdin", "signal"};
	json_t *o = json_pack("{s:s}", "how", hows[k == EV_PLAN_PEER ? stop->how : EV_PLAN_STOP_EXIT]);
	if (k == EV_PLAN_PEER) {
		if (stop->how == EV_PLAN_STOP_STDIN)
			json_object_set_new(o, "line", json_string(stop->line));
		if (stop->how == EV_PLAN_STOP_SIGNAL)
			json_object_set_new(o, "signal", json_string(ev_plan_signal_name(stop->signal)));
		json_object_set_new(o, "grace_ms", json_integer((json_int_t)stop->grace_ms));
		json_object_set_new(o, "requested", s->stop_requested ? timespec_json(&s->stop_real) : json_null());
		if (s->stop_errno)
			json_object_set_new(o, "request_failed", json_string(strerror(s->stop_errno)));
	}
	const char *ended = !p->exited || p->exec_mono <= 0 ? NULL
			    : s->killed[k]                 ? "killed"
			    : k == EV_PLAN_PEER && s->stop_requested ? "stopped"
								  : "exited";
	json_object_set_new(o, "ended", ended ? json_string(ended) : json_null());
	return o;
}

static json_t *process_json(struct run_state *s, int k)
{
	struct ev_side_proc *p = &s->side[k];
	const struct ev_plan_side *ps = &s->r->cell->side[k];
	uint64_t start = 0;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:i}", "role", ps->role, "argv", strings_json(p->argv),
			      "env", strings_json(s->env[k]), "cwd", s->work[k], "cpu", ps->cpu);
	json_object_set_new(o, "credentials", json_pack("{s:o, s:o}", "declared", ev_credentials_json(s->cred[k]),
							 "seen", s->seen_cred[k] ? json_incref(s->seen_cred[k]) : json_null()));
	if (s->inputs[k])
		json_object_set(o, "inputs", s->inputs[k]);
	if (p->pid > 0) {
		json_object_set_new(o, "pid", json_integer(p->pid));
		if (s->before[k] && json_object_get(s->before[k], "start_ticks"))
			start = (uint64_t)json_integer_value(json_object_get(s->before[k], "start_ticks"));
		json_object_set_new(o, "start_ticks", json_integer((json_int_t)start));
		json_object_set_new(o, "affinity", json_pack("{s:s, s:b}", "read_back", s->pinned_found[k],
							     "exact", s->pinned_ok[k]));
		json_object_set_new(o, "netns_inode", json_integer((json_int_t)s->netns_inode[k]));
		json_object_set_new(o, "exit", exit_json(p));
		json_object_set_new(o, "stop", stop_json(s, k));
		if (s->profile[k])
			json_object_set(o, "profile", s->profile[k]);
		if (p->exec_mono > 0)
			json_object_set_new(o, "wall",
					    json_pack("{s:o, s:o, s:o}", "exec", timespec_json(&p->exec_real), "end",
						      p->exited ? timespec_json(&p->end_real) : json_null(), "seconds",
						      ev_json_decimal_of(p->exited ? p->end_mono - p->exec_mono : 0.0, 9)));
	}
	json_t *bins = json_array();
	for (int b = 0; b < s->nbins[k]; b++) {
		json_t *bin = ev_pins_json(&s->bins[k][b]);
		json_t *source = json_object_get(s->c->sources, s->bins[k][b].path);
		if (source)
			json_object_set(bin, "source", source);
		json_array_append_new(bins, bin);
	}
	json_object_set_new(o, "binaries", bins);
	char out[64], errs[64];
	snprintf(out, sizeof out, "native/%s.stdout", ps->role);
	snprintf(errs, sizeof errs, "native/%s.stderr", ps->role);
	json_object_set_new(o, "stdout", json_string(out));
	json_object_set_new(o, "stderr", json_string(errs));
	if (ps->outputs)
		json_object_set(o, "outputs", ps->outputs);
	json_object_set_new(o, "before", s->before[k] ? json_incref(s->before[k]) : json_null());
	json_object_set_new(o, "after", s->after[k] ? json_incref(s->after[k]) : json_null());
	return o;
}

const char *ev_capture_run_result_name(enum run_result r)
{
	switch (r) {
	case RUN_OK: return "ok";
	case RUN_FAILED: return "failed";
	case RUN_TIMEOUT: return "timeout";
	default: return "interrupted";
	}
}

ev_status ev_capture_run_record(struct run_state *s, struct ev_error *err)
{
	struct capture_session *c = s->c;
	const struct ev_plan_run *r = s->r;
	json_t *procs = json_array();
	/* the peer first: it was started first */
	json_array_append_new(procs, process_json(s, EV_PLAN_PEER));
	json_array_append_new(procs, process_json(s, EV_PLAN_SENDER));
	json_t *dma;
	if (s->dma_err) {
		char text[160];
		snprintf(text, sizeof text, "unavailable: %s: %s", EV_PMQOS_DEVICE, strerror(s->dma_err));
		dma = json_pack("{s:s}", "observed", text);
	} else {
		dma = json_pack("{s:i}", "observed_us", s->dma_observed);
	}
	if (r->arm->pm_qos)
		json_object_set_new(dma, "requested_us", json_integer(r->arm->cpu_dma_latency));
	json_object_set_new(dma, "held", json_boolean(r->arm->pm_qos && c->pmqos_held));
	json_t *net = json_pack("{s:s}", "topology", c->plan.netns && c->netns_ok ? c->plan.namespaces : "none");
	for (int k = 0; k < 2 && c->plan.netns && c->netns_ok; k++) {
		json_t *end = json_pack("{s:s, s:s}", "interface", s->side[k].ifname, "address", s->side[k].addr);
		if (c->plan.link) {
			json_object_set_new(end, "link", ev_netns_link_json(&c->link[k]));
			json_object_set_new(end, "mtu_during", json_integer(c->plan.link_mtu ? (int)c->plan.link_mtu : c->link[k].mtu));
			json_object_set_new(end, "returned", s->link_returned[k][0] ? json_string(s->link_returned[k]) : json_null());
		}
		json_object_set_new(net, k == EV_PLAN_SENDER ? "sender" : "peer", end);
	}
	for (int k = 0; k < (c->plan.netns && c->netns_ok ? 2 : 1); k++)
		if (s->links_before[k] || s->links_after[k])
			json_object_set_new(net, k == EV_PLAN_SENDER ? "sender_links" : "peer_links",
					    json_pack("{s:o, s:o}", "before",
						      s->links_before[k] ? json_incref(s->links_before[k]) : json_null(),
						      "after",
						      s->links_after[k] ? json_incref(s->links_after[k]) : json_null()));
	s->doc = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o}",
			   "format", EV_RUN_FORMAT, "campaign", c->plan.name, "plan_sha256", c->plan.sha256,
			   "name", r->name, "order_index", (json_int_t)r->index, "arm", r->arm->name, "cell",
			   r->cell->name, "repeat", (int)r->repeat, "boot_id", c->boot_id, "host", c->host,
			   "processes", procs, "cpu_dma_latency", dma, "network", net, "degraded",
			   json_incref(c->degraded));
	json_object_set_new(s->doc, "result", json_string(ev_capture_run_result_name(s->result)));
	json_object_set_new(s->doc, "controller", ev_plan_controller_json(&c->plan));
	if (c->lease)
		json_object_set(s->doc, "lease", c->lease);
	if (s->result != RUN_OK)
		json_object_set_new(s->doc, "failure", json_string(s->failure));
	json_object_set_new(s->doc, "counts",
			    json_pack("{s:I, s:I}", "warmups", (json_int_t)c->plan.warmups, "measured",
				      (json_int_t)c->plan.measured));
	json_object_set_new(s->doc, "cpus",
			    json_pack("{s:o, s:o}", "before", s->cpus_before ? json_incref(s->cpus_before) : json_null(),
				      "after", s->cpus_after ? json_incref(s->cpus_after) : json_null()));
	json_object_set_new(s->doc, "interference",
			    json_pack("{s:O?, s:O?}", "before", s->interference_before, "after", s->interference_after));
	json_object_set_new(s->doc, "clocks",
			    json_pack("{s:O?, s:O?}", "before", s->clocks_before, "after", s->clocks_after));
	if (s->tcp)
		json_object_set_new(s->doc, "tcp_samples", json_string("observe/tcp.json"));
	json_t *observers = s->observing ? ev_observers_json(&s->obs) : NULL;
	if (observers)
		json_object_set_new(s->doc, "observers", observers);
	if (s->nfiles) {
		json_t *files = json_array();
		for (size_t f = 0; f < s->nfiles; f++)
			json_array_append_new(files, ev_pins_json(&s->files[f]));
		json_object_set_new(s->doc, "pinned_files", files);
	}

	char path[PATH_MAX];
	ev_status st = EV_OK;
	if (s->tcp) {
		json_object_set_new(s->tcp, "format", json_string("evidence-tcp-samples/1"));
		if (ev_path_join(path, sizeof path, s->dir, "observe/tcp.json") != 0)
			st = ev_error_set(err, EV_ERROR, "%s: path too long", s->dir);
		else
			st = ev_publish_json(path, s->tcp, err);
	}
	if (st == EV_OK)
		st = ev_run_publish(s->dir, s->doc, err);
	return st;
}
