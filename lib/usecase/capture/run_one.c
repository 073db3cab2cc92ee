/* SPDX-License-Identifier: Apache-2.0 */
/* One run of a campaign: a fresh pair of processes, pinned, in their
 * namespaces, observed, stopped as declared; run_record.c writes what it
 * recorded. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/usecase/capture/parts.h"
#include "lib/process/credentials.h"
#include "lib/process/launch.h"
#include "lib/process/netns.h"
#include "lib/process/observe.h"
#include "lib/process/clocks.h"
#include "lib/process/interference.h"
#include "lib/process/observers.h"
#include "lib/process/pin_check.h"
#include "lib/process/policy.h"
#include "lib/usecase/capture/run_state.h"
#include "lib/process/workdir.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"

#define READY_TIMEOUT_S 30.0
#define KILL_GRACE_S 2.0
#define BASE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

void ev_capture_run_fail(struct run_state *s, enum run_result result, const char *fmt, ...)
{
	if (s->result != RUN_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->failure, sizeof s->failure, fmt, ap);
	va_end(ap);
	s->result = result;
}

static ev_status prepare_dirs(struct run_state *s, struct ev_error *err)
{
	if (mkdir(s->dir, 0755) != 0)
		return ev_error_errno(err, errno, "%s: cannot create the run directory", s->dir);
	char sub[PATH_MAX];
	static const char *const subs[] = {"native", "observe"};
	for (int i = 0; i < 2; i++) {
		if (ev_path_join(sub, sizeof sub, s->dir, subs[i]) != 0)
			return ev_error_set(err, EV_REFUSED, "%s: path too long", s->dir);
		if (mkdir(sub, 0755) != 0)
			return ev_error_errno(err, errno, "%s: cannot create", sub);
	}
	return EV_OK;
}

static ev_status build_env(struct run_state *s, int k, const struct ev_plan_vars *vars, struct ev_error *err)
{
	const struct ev_plan_side *side = &s->r->cell->side[k];
	size_t n = 0;
	const char *home = getenv("HOME");
	char buf[PATH_MAX + 16];
	snprintf(buf, sizeof buf, "PATH=%s", BASE_PATH);
	s->env[k][n++] = strdup(buf);
	/* a side that runs as a user of its own has that user's home */
	if (s->cred[k]->user[0] && s->cred[k]->home[0])
		home = s->cred[k]->home;
	snprintf(buf, sizeof buf, "HOME=%s", home ? home : "/");
	s->env[k][n++] = strdup(buf);
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)side->env, key, v) {
		if (n == ENV_MAX)
			return ev_error_set(err, EV_REFUSED, "cell %s %s: more than %d environment variables",
					    s->r->cell->name, side->role, ENV_MAX - 2);
		/* a value may hold {variables}: expand it as a one-word argv */
		struct ev_plan_side one = {.argv = json_pack("[s]", json_string_value(v)), .outputs = side->outputs};
		char **out = NULL;
		ev_status st = ev_plan_expand(&one, vars, &out, err);
		json_decref(one.argv);
		if (st != EV_OK)
			return st;
		/* a plan's value replaces the base one of the same name */
		size_t klen = strlen(key), i;
		for (i = 0; i < n; i++)
			if (strncmp(s->env[k][i], key, klen) == 0 && s->env[k][i][klen] == '=')
				break;
		char *entry = malloc(klen + strlen(out[0]) + 2);
		if (entry)
			sprintf(entry, "%s=%s", key, out[0]);
		ev_plan_argv_free(out);
		if (i < n)
			free(s->env[k][i]);
		s->env[k][i] = entry;
		if (i == n)
			n++;
	}
	for (size_t i = 0; i < n; i++)
		if (!s->env[k][i])
			return ev_error_set(err, EV_ERROR, "out of memory");
	s->env[k][n] = NULL;
	return EV_OK;
}

/* Check the side's program and launcher against the plan's pins. */
static ev_status check_binaries(struct run_state *s, int k, struct ev_error *err)
{
	const struct ev_plan_side *side = &s->r->cell->side[k];
	const char *paths[2] = {json_string_value(json_array_get(side->argv, 0)),
				side->launcher ? json_string_value(json_array_get(side->launcher, 0)) : NULL};
	for (int b = 0; b < 2 && paths[b]; b++) {
		ev_status st = ev_pin_check(s->c->plan.pins, paths[b], &s->bins[k][b], err);
		if (st != EV_OK)
			return st;
		s->nbins[k] = b + 1;
	}
	return EV_OK;
}

/* Every other file the plan pins (configs, a launcher's profile, a
 * helper's input), checked before the launch exactly as the programs. */
static ev_status check_pinned_files(struct run_state *s, struct ev_error *err)
{
	const json_t *pins = s->c->plan.pins;
	const char *path;
	json_t *v;
	s->nfiles = 0;
	if (!json_object_size(pins))
		return EV_OK;
	if (!(s->files = calloc(json_object_size(pins), sizeof *s->files)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_object_foreach((json_t *)pins, path, v) {
		if (ev_plan_runs_program(&s->c->plan, path))
			continue;
		ev_status st = ev_pin_check(pins, path, &s->files[s->nfiles], err);
		if (st != EV_OK)
			return ev_error_wrap(err, "pinned file");
		s->nfiles++;
	}
	return EV_OK;
}

static int open_native(struct run_state *s, const char *role, const char *stream)
{
	char path[PATH_MAX], name[64];
	snprintf(name, sizeof name, "native/%s.%s", role, stream);
	if (ev_path_join(path, sizeof path, s->dir, name) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

/* Read back where the kernel lets the process run: exactly its CPU? */
static void verify_pinning(struct run_state *s, int k)
{
	struct ev_side_proc *p = &s->side[k];
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(p->pid, sizeof set, &set) != 0) {
		snprintf(s->pinned_found[k], sizeof s->pinned_found[k], "unreadable: %s", strerror(errno));
		return;
	}
	char *w = s->pinned_found[k];
	size_t left = sizeof s->pinned_found[k];
	w[0] = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && left > 8; cpu++)
		if (CPU_ISSET(cpu, &set)) {
			int n = snprintf(w, left, "%s%d", w == s->pinned_found[k] ? "" : ",", cpu);
			w += n;
			left -= (size_t)n;
		}
	s->pinned_ok[k] = CPU_COUNT(&set) == 1 && CPU_ISSET(p->cpu, &set);
}

/* The process's snapshot, with its start time (its name in this boot). */
static json_t *snapshot(pid_t pid)
{
	json_t *o = ev_observe_process(pid);
	uint64_t ticks;
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_proc_start_ticks(pid, &ticks, &err) == EV_OK)
		json_object_set_new(o, "start_ticks", json_integer((json_int_t)ticks));
	return o;
}

/* "its stop (stdin \"q\")", for a failure sentence. */
static void describe_stop(const struct ev_plan_stop *stop, char *out, size_t cap)
{
	if (stop->how == EV_PLAN_STOP_STDIN)
		snprintf(out, cap, "its stop (\"%s\" on stdin)", stop->line);
	else if (stop->how == EV_PLAN_STOP_SIGNAL)
		snprintf(out, cap, "its stop (SIG%s)", ev_plan_signal_name(stop->signal));
	else
		snprintf(out, cap, "the sender ended (it was to exit by itself)");
}

/* The sender is done: ask the peer to end, as the plan says. */
static void request_stop(struct run_state *s)
{
	const struct ev_plan_stop *stop = &s->r->cell->side[EV_PLAN_PEER].stop;
	if (stop->how == EV_PLAN_STOP_EXIT)
		return;
	clock_gettime(CLOCK_REALTIME, &s->stop_real);
	s->stop_requested = 1;
	if (stop->how == EV_PLAN_STOP_STDIN)
		s->stop_errno = ev_launch_write_stdin(&s->side[EV_PLAN_PEER], stop->line);
	else
		ev_launch_kill(&s->side[EV_PLAN_PEER], stop->signal);
}

/* Whom the side runs as, read from /proc once it runs: the ids and
 * capabilities the plan asked for, or the run fails. */
static void check_credentials(struct run_state *s, int k)
{
	const struct ev_side_cred *want = s->cred[k];
	json_t *seen = s->seen_cred[k] = ev_observe_credentials(s->side[k].pid);
	if (!want->drop)
		return;
	int ok = json_is_object(seen);
	static const char *const ids[] = {"uid", "gid"};
	for (int i = 0; i < 2 && ok; i++) {
		size_t n;
		json_t *v;
		json_t *a = json_object_get(seen, ids[i]);
		ok = json_array_size(a) == 4;
		json_array_foreach(a, n, v)
			ok &= json_integer_value(v) == (json_int_t)(i == 0 ? want->uid : want->gid);
	}
	static const char *const caps[] = {"cap_inh", "cap_prm", "cap_eff", "cap_amb", "cap_bnd"};
	for (int i = 0; i < 5 && ok && want->uid != 0; i++) {
		const char *v = json_string_value(json_object_get(seen, caps[i]));
		ok = v && strspn(v, "0") == strlen(v);
	}
	if (!ok) {
		char *text = json_dumps(seen, JSON_COMPACT);
		ev_capture_run_fail(s, RUN_FAILED, "%s: runs as %s (uid %u, gid %u) by the plan, and /proc shows %s", s->side[k].role,
			 want->user, (unsigned)want->uid, (unsigned)want->gid, text ? text : "nothing readable");
		free(text);
	}
}

/* Topology "link": the keeper holds the namespaces before the two ends
 * go into them, so that they come back whatever happens to capture. */
static ev_status move_links_in(struct run_state *s, struct ev_error *err)
{
	struct capture_session *c = s->c;
	const char *names[2] = {c->link[0].name, c->link[1].name};
	int mtu[2] = {c->link[0].mtu, c->link[1].mtu};
	ev_status st = ev_link_keeper_hold(&c->keeper, s->route_fd, names, mtu, c->host_ns_fd, err);
	if (st != EV_OK)
		return st;
	s->links_held = 1;
	for (int k = 0; k < 2 && st == EV_OK; k++)
		if ((st = ev_netns_link_move_in(&c->link[k], s->side[k].pid, (int)c->plan.link_mtu, err)) == EV_OK)
			s->link_out[k] = 1;
	return st;
}

/* The two ends back in capture's namespace, with their MTU; then the
 * keeper lets go. */
static void return_links(struct run_state *s, struct ev_error *err)
{
	struct capture_session *c = s->c;
	for (int k = 0; k < 2; k++) {
		if (!s->link_out[k])
			continue;
		int e = ev_netns_link_move_out(s->route_fd[k], c->link[k].name, c->host_ns_fd, c->link[k].mtu);
		if (e == 0 && if_nametoindex(c->link[k].name) == 0)
			e = ENODEV;
		if (e) {
			snprintf(s->link_returned[k], sizeof s->link_returned[k], "not returned: %s", strerror(e));
			ev_capture_run_fail(s, RUN_FAILED, "interface %s: cannot return it to capture's network namespace: %s",
				 c->link[k].name, strerror(e));
		} else {
			snprintf(s->link_returned[k], sizeof s->link_returned[k], "returned");
		}
	}
	if (s->links_held && ev_link_keeper_release(&c->keeper, err) != EV_OK)
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
	s->links_held = 0;
}

/* Is side k profiled in this run? Only its first repeats when the plan
 * says so: the others stay the measurement. */
static int profiled(const struct run_state *s, int k)
{
	const struct ev_plan_profile *pp = &s->r->cell->side[k].profile;
	return pp->on && (pp->runs == 0 || s->r->repeat <= pp->runs);
}

/* perf attached to side k before it execs. */
static int start_profile(struct run_state *s, int k, struct ev_error *err)
{
	if (!profiled(s, k))
		return 0;
	if (ev_profile_start(&s->prof[k], s->c->plan.perf, &s->r->cell->side[k].profile, k, s->side[k].pid, s->dir,
				  err) != EV_OK) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return -1;
	}
	return 0;
}

/* Each perf stopped (at once when the run was interrupted), judged and
 * counted. */
static void finish_profiles(struct run_state *s)
{
	for (int k = 0; k < 2; k++) {
		struct ev_profiler *p = &s->prof[k];
		if (!p->active)
			continue;
		if (s->result == RUN_INTERRUPTED && !p->reaped)
			kill(p->pid, SIGKILL);
		else
			ev_profile_stop(p, s->side[k].exited);
		char failure[512], mark[256];
		s->profile[k] = ev_profile_finish(p, s->c->plan.perf, failure, sizeof failure, mark, sizeof mark);
		if (failure[0] && s->result != RUN_INTERRUPTED)
			ev_capture_run_fail(s, RUN_FAILED, "%s", failure);
		if (mark[0])
			ev_capture_note(s->c, "%s: %s profile: %s", s->r->name, s->side[k].role, mark);
	}
}

/* Launch, watch and end the pair. Failures go into s (fail_run).
 * Kept whole: the pair's life from launch to reaping: made in order
 * (namespaces, links, sockets, observers), watched until the sender ends,
 * the peer stopped as the plan says, whatever still runs killed; every
 * failure is recorded in s and goes on along the one path to that end. */
static void run_pair(struct run_state *s, struct ev_error *err)
{
	struct capture_session *c = s->c;
	const struct ev_campaign_plan *plan = &c->plan;
	const struct ev_plan_side *peer = &s->r->cell->side[EV_PLAN_PEER];
	int own_netns = plan->netns && c->netns_ok; /* veth or link: a namespace per side */
	struct ev_side_proc *sp = &s->side[EV_PLAN_SENDER], *pp = &s->side[EV_PLAN_PEER];
	for (int k = EV_PLAN_PEER; k >= EV_PLAN_SENDER; k--)
		if (ev_launch_start(&s->side[k], err) != EV_OK) {
			ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
			return;
		}
	/* Sockets inside the namespaces: the counters can be read after the
	 * processes are gone, and the namespaces (and a link moved into them)
	 * stay until these close. */
	for (int k = 0; k < 2; k++) {
		if (k == 1 && !own_netns) {
			s->route_fd[1] = s->diag_fd[1] = -1;
			break;
		}
		if (ev_netns_sockets(own_netns ? s->side[k].pid : 0, &s->route_fd[k], &s->diag_fd[k], err) != EV_OK) {
			ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
			return;
		}
		s->netns_inode[k] = ev_netns_inode(s->side[k].pid);
	}
	if (own_netns && plan->link && move_links_in(s, err) != EV_OK) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return;
	}
	if (own_netns && !plan->link && ev_netns_veth_create(EV_NETNS_SENDER_IF, sp->pid, EV_NETNS_PEER_IF, pp->pid, err) != EV_OK) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return;
	}
	if (own_netns && (ev_launch_configure(pp, err) != EV_OK || ev_launch_configure(sp, err) != EV_OK)) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return;
	}
	for (int k = 0; k < (own_netns ? 2 : 1); k++)
		s->links_before[k] = ev_netns_link_stats(s->route_fd[k], err);
	struct ev_observer_target targets[2];
	for (int k = 0; k < 2; k++) {
		char ns[64];
		snprintf(ns, sizeof ns, "/proc/%d/ns/net", (int)s->side[k].pid);
		s->ns_fd[k] = own_netns ? open(ns, O_RDONLY | O_CLOEXEC) : -1;
		targets[k] = (struct ev_observer_target){s->ns_fd[k], own_netns ? s->side[k].ifname : "lo", (long)s->side[k].pid};
	}
	ev_observers_init(&s->obs, plan, s->dir, targets, ev_launch_monotonic());
	s->observing = 1;
	ev_observers_run(&s->obs, "before");
	if (!own_netns)
		s->netns_inode[1] = ev_netns_inode(s->side[1].pid);
	s->cpus_before = ev_observe_cpus(c->cpus, c->ncpus);
	s->interference_before = ev_interference_snapshot(c->cpus, c->ncpus);
	s->clocks_before = ev_clocks_snapshot();
	s->dma_err = ev_pmqos_read(&s->dma_observed);

	double deadline = ev_launch_monotonic() + (double)plan->timeout_s;
	if (start_profile(s, EV_PLAN_PEER, err) != 0)
		return;
	if (ev_launch_exec(pp, err) != EV_OK) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return;
	}
	s->before[EV_PLAN_PEER] = snapshot(pp->pid);
	verify_pinning(s, EV_PLAN_PEER);
	check_credentials(s, EV_PLAN_PEER);
	/* The peer is ready when it listens (or after a fixed delay). */
	double ready_by = ev_launch_monotonic() + READY_TIMEOUT_S;
	if (peer->ready_delay_ms) {
		struct timespec d = {(time_t)(peer->ready_delay_ms / 1000), (long)(peer->ready_delay_ms % 1000) * 1000000};
		nanosleep(&d, NULL);
	}
	while (peer->ready_port && !ev_launch_listening(pp->pid, (unsigned)peer->ready_port)) {
		struct timespec tick = {0, 5 * 1000 * 1000};
		if (ev_launch_wait_any(pp, 1, ev_launch_monotonic()) == 0) {
			ev_capture_run_fail(s, RUN_FAILED, "peer exited before it listened on port %" PRIu64, peer->ready_port);
			return;
		}
		if (*s->c->in->interrupted) {
			ev_capture_run_fail(s, RUN_INTERRUPTED, "interrupted");
			return;
		}
		if (ev_launch_monotonic() > ready_by) {
			ev_capture_run_fail(s, RUN_FAILED, "peer did not listen on port %" PRIu64 " within %.0f s",
				 peer->ready_port, READY_TIMEOUT_S);
			return;
		}
		nanosleep(&tick, NULL);
	}
	if (start_profile(s, EV_PLAN_SENDER, err) != 0)
		return;
	if (ev_launch_exec(sp, err) != EV_OK) {
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
		return;
	}
	s->before[EV_PLAN_SENDER] = snapshot(sp->pid);
	verify_pinning(s, EV_PLAN_SENDER);
	check_credentials(s, EV_PLAN_SENDER);
	for (int k = 0; k < 2; k++)
		if (!s->pinned_ok[k])
			ev_capture_run_fail(s, RUN_FAILED, "%s: pinned to CPU %d, but the kernel lets it run on %s",
				 s->side[k].role, s->side[k].cpu, s->pinned_found[k]);
	struct ev_sampler sampler;
	pid_t pids[2] = {sp->pid, pp->pid};
	int diag[2] = {s->diag_fd[0], own_netns ? s->diag_fd[1] : s->diag_fd[0]};
	int sampling = ev_sampler_start(&sampler, pids, diag, plan->interval_ms, err) == EV_OK;
	if (ev_observers_start(&s->obs, plan->interval_ms, err) != EV_OK)
		ev_capture_run_fail(s, RUN_FAILED, "%s", err->text);
	int observed_after = 0;

	/* Wait for the sender; then the peer is stopped as the plan says. */
	const struct ev_plan_stop *stop = &peer->stop;
	double peer_by = 0;
	while (!sp->exited || !pp->exited) {
		double until = !sp->exited ? deadline : peer_by;
		int who = ev_launch_wait_any(s->side, 2, until);
		if (who == -2) {
			ev_capture_run_fail(s, RUN_INTERRUPTED, "interrupted by a signal");
			break;
		}
		if (who == -1 && !sp->exited) {
			ev_capture_run_fail(s, RUN_TIMEOUT, "the sender did not finish within %" PRIu64 " s (timeout_seconds)",
				 plan->timeout_s);
			break;
		}
		if (who == -1) { /* the peer outlived its grace */
			char how[EV_PLAN_STOP_LINE_MAX + 64];
			describe_stop(stop, how, sizeof how);
			ev_capture_run_fail(s, RUN_FAILED, "peer still running %.3g s after %s; killed", (double)stop->grace_ms / 1000,
				 how);
			break;
		}
		struct ev_side_proc *p = &s->side[who];
		s->after[who] = snapshot(p->pid);
		ev_profile_stop(&s->prof[who], 1);
		if (who == EV_PLAN_SENDER) { /* the peer's stack is still there */
			ev_observers_stop(&s->obs);
			ev_observers_run(&s->obs, "after");
			observed_after = 1;
		}
		if (who == EV_PLAN_SENDER && !pp->exited) {
			request_stop(s);
			peer_by = ev_launch_monotonic() + (double)stop->grace_ms / 1000;
		}
		/* a death by signal is a stop only when capture sent that signal */
		int requested_signal = who == EV_PLAN_PEER && stop->how == EV_PLAN_STOP_SIGNAL && s->stop_requested &&
				       WIFSIGNALED(p->status) && WTERMSIG(p->status) == stop->signal;
		if (!requested_signal && !(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0)) {
			if (WIFEXITED(p->status))
				ev_capture_run_fail(s, RUN_FAILED, "%s exited with status %d (its stderr: native/%s.stderr)",
					 p->role, WEXITSTATUS(p->status), p->role);
			else
				ev_capture_run_fail(s, RUN_FAILED, "%s was killed by signal %d (%s)%s", p->role,
					 WTERMSIG(p->status), strsignal(WTERMSIG(p->status)),
					 who == EV_PLAN_PEER && stop->how == EV_PLAN_STOP_SIGNAL && !s->stop_requested
						 ? ", which capture had not sent"
						 : "");
		}
	}
	/* Whatever still runs now is stopped: the run is over. */
	for (int k = 0; k < 2; k++)
		if (!s->side[k].exited) {
			ev_launch_kill(&s->side[k], SIGKILL);
			s->killed[k] = 1;
			ev_launch_wait_any(&s->side[k], 1, ev_launch_monotonic() + KILL_GRACE_S);
		}
	finish_profiles(s);
	ev_observers_stop(&s->obs);
	if (!observed_after && s->result != RUN_INTERRUPTED)
		ev_observers_run(&s->obs, "after");
	if (sampling)
		s->tcp = ev_sampler_stop(&sampler);
	for (int k = 0; k < 2; k++)
		ev_launch_reap(&s->side[k]);
}

static void cleanup(struct run_state *s)
{
	free(s->files);
	s->files = NULL;
	for (int k = 0; k < 2; k++) {
		struct ev_side_proc *p = &s->side[k];
		if (p->pid > 0 && !p->reaped) {
			ev_launch_kill(p, SIGKILL);
			ev_launch_reap(p);
		}
		if (p->out_fd >= 0)
			close(p->out_fd);
		if (p->err_fd >= 0)
			close(p->err_fd);
		if (p->ctl >= 0)
			close(p->ctl);
		if (p->report >= 0)
			close(p->report);
		ev_plan_argv_free(p->argv);
		for (size_t i = 0; s->env[k][i]; i++)
			free(s->env[k][i]);
		if (s->route_fd[k] >= 0)
			close(s->route_fd[k]);
		if (s->diag_fd[k] >= 0)
			close(s->diag_fd[k]);
		json_decref(s->before[k]);
		json_decref(s->after[k]);
		json_decref(s->links_before[k]);
		json_decref(s->links_after[k]);
		json_decref(s->inputs[k]);
		json_decref(s->seen_cred[k]);
		json_decref(s->profile[k]);
		if (s->prof[k].active && !s->prof[k].reaped) { /* an early return: perf must not outlive the run */
			kill(s->prof[k].pid, SIGKILL);
			waitpid(s->prof[k].pid, NULL, 0);
		}
		json_decref(s->prof[k].argv);
		if (s->ns_fd[k] >= 0)
			close(s->ns_fd[k]);
	}
	if (s->observing)
		ev_observers_free(&s->obs);
	json_decref(s->cpus_before);
	json_decref(s->cpus_after);
	json_decref(s->interference_before);
	json_decref(s->interference_after);
	json_decref(s->clocks_before);
	json_decref(s->clocks_after);
	json_decref(s->tcp);
	json_decref(s->doc);
}

enum run_result ev_capture_run_one(struct capture_session *c, const struct ev_plan_run *r, json_t **summary,
			struct ev_error *err)
{
	struct run_state s = {.c = c, .r = r, .route_fd = {-1, -1}, .diag_fd = {-1, -1}, .ns_fd = {-1, -1}};
	const struct ev_campaign_plan *plan = &c->plan;
	int own_netns = plan->netns && c->netns_ok; /* veth or link: a namespace per side */
	char runs[PATH_MAX];
	if (ev_path_join(runs, sizeof runs, c->in->dir, "runs") != 0 || ev_path_join(s.dir, sizeof s.dir, runs, r->name) != 0) {
		ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
		*summary = NULL;
		return RUN_INTERRUPTED;
	}
	for (int k = 0; k < 2; k++)
		s.side[k] = (struct ev_side_proc){.role = k == EV_PLAN_SENDER ? "sender" : "peer", .pid = -1,
					       .pidfd = -1, .ctl = -1, .report = -1, .out_fd = -1, .stdin_r = -1, .stdin_w = -1,
					       .err_fd = -1, .cpu = r->cell->side[k].cpu};
	struct ev_plan_vars vars = {
		.peer_addr = own_netns ? EV_NETNS_PEER_ADDR : "127.0.0.1",
		.sender_addr = own_netns ? EV_NETNS_SENDER_ADDR : "127.0.0.1",
		.run_dir = s.dir, .cell = r->cell->name, .arm = r->arm->name,
		.port = plan->port, .warmups = plan->warmups, .measured = plan->measured, .repeat = r->repeat,
	};
	if (prepare_dirs(&s, err) != EV_OK) /* nothing can be recorded there: stop */
		ev_capture_run_fail(&s, RUN_INTERRUPTED, "%s", err->text);
	if (s.result == RUN_OK && check_pinned_files(&s, err) != EV_OK)
		ev_capture_run_fail(&s, RUN_FAILED, "refused before launch: %s", err->text);
	size_t cell = (size_t)(r->cell - plan->cells);
	for (int k = 0; k < 2; k++) {
		s.cred[k] = &c->cred[cell][k];
		if (ev_path_join(s.work[k], sizeof s.work[k], s.dir, r->cell->side[k].work) != 0)
			ev_capture_run_fail(&s, RUN_INTERRUPTED, "%s: path too long", s.dir);
	}
	for (int k = 0; k < 2 && s.result == RUN_OK; k++)
		if (ev_workdir_prepare(s.dir, &r->cell->side[k], s.cred[k], plan->pins, &s.inputs[k], err) != EV_OK)
			ev_capture_run_fail(&s, RUN_FAILED, "refused before launch: %s", err->text);
	for (int k = 0; k < 2 && s.result == RUN_OK; k++) {
		struct ev_side_proc *p = &s.side[k];
		if (check_binaries(&s, k, err) != EV_OK || ev_plan_expand(&r->cell->side[k], &vars, &p->argv, err) != EV_OK ||
		    build_env(&s, k, &vars, err) != EV_OK) {
			ev_capture_run_fail(&s, RUN_FAILED, "refused before launch: %s", err->text);
			break;
		}
		p->envp = s.env[k];
		p->cwd = s.work[k];
		p->stdin_pipe = k == EV_PLAN_PEER && r->cell->side[k].stop.how == EV_PLAN_STOP_STDIN;
		p->drop = s.cred[k]->drop;
		p->uid = s.cred[k]->uid;
		p->gid = s.cred[k]->gid;
		p->groups = s.cred[k]->groups;
		p->ngroups = s.cred[k]->ngroups;
		p->unshare_net = own_netns;
		p->ifname = plan->link ? plan->link_if[k] : k == EV_PLAN_SENDER ? EV_NETNS_SENDER_IF : EV_NETNS_PEER_IF;
		p->addr = k == EV_PLAN_SENDER ? EV_NETNS_SENDER_ADDR : EV_NETNS_PEER_ADDR;
		if ((p->out_fd = open_native(&s, p->role, "stdout")) < 0 ||
		    (p->err_fd = open_native(&s, p->role, "stderr")) < 0)
			ev_capture_run_fail(&s, RUN_FAILED, "%s/native: cannot create the %s's output files: %s", s.dir,
				 p->role, strerror(errno));
	}
	if (s.result == RUN_OK)
		run_pair(&s, err);
	/* after: the counters of what is left, and whether the binaries
	 * that were checked are still the files that ran */
	for (int k = 0; k < 2; k++)
		if (s.route_fd[k] >= 0)
			s.links_after[k] = ev_netns_link_stats(s.route_fd[k], err);
	return_links(&s, err);
	if (s.cpus_before) {
		s.cpus_after = ev_observe_cpus(c->cpus, c->ncpus);
		s.interference_after = ev_interference_snapshot(c->cpus, c->ncpus);
		s.clocks_after = ev_clocks_snapshot();
	}
	for (int k = 0; k < 2; k++)
		for (int b = 0; b < s.nbins[k] && s.side[k].exec_mono > 0; b++)
			if (!ev_pins_unchanged(&s.bins[k][b]))
				ev_capture_run_fail(&s, RUN_FAILED, "%s changed while the run started: what ran is not what was checked",
					 s.bins[k][b].path);
	for (size_t f = 0; f < s.nfiles && s.side[EV_PLAN_SENDER].exec_mono > 0; f++)
		if (!ev_pins_unchanged(&s.files[f]))
			ev_capture_run_fail(&s, RUN_FAILED, "%s changed during the run: what the run read is not what was checked",
				 s.files[f].path);
	enum run_result result = s.result;
	if (result != RUN_INTERRUPTED) {
		ev_error_clear(err);
		/* the record says why; err says it again for the summary line */
		if (ev_capture_run_record(&s, err) != EV_OK) {
			char why[EV_ERROR_TEXT_MAX];
			snprintf(why, sizeof why, "%s", err->text);
			ev_error_clear(err);
			ev_error_set(err, EV_ERROR, "%s: cannot record the run: %s", r->name, why);
			result = RUN_INTERRUPTED; /* no record: as if it never ran */
		}
	}
	*summary = json_pack("{s:I, s:s, s:s, s:s, s:i, s:s}", "order_index", (json_int_t)r->index, "name",
			     r->name, "arm", r->arm->name, "cell", r->cell->name, "repeat", (int)r->repeat,
			     "result", ev_capture_run_result_name(s.result));
	if (s.result != RUN_OK) {
		json_object_set_new(*summary, "failure", json_string(s.failure));
		if (err->status == EV_OK)
			ev_error_set(err, EV_MISMATCH, "%s", s.failure);
	}
	cleanup(&s);
	return result;
}
