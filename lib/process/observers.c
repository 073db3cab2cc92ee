/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/observers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/process/launch.h"
#include "lib/core/stop.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"

static const char *side_name(int k)
{
	return k == EV_PLAN_SENDER ? "sender" : "peer";
}

void ev_observers_init(struct ev_observers *o, const struct ev_campaign_plan *plan, const char *run_dir,
			    const struct ev_observer_target side[2], double t0)
{
	memset(o, 0, sizeof *o);
	o->plan = plan;
	o->run_dir = run_dir;
	o->side[0] = side[0];
	o->side[1] = side[1];
	o->t0 = t0;
	pthread_mutex_init(&o->lock, NULL);
	if (!plan->nobservers)
		return;
	o->records = json_array();
	for (size_t i = 0; i < plan->nobservers; i++)
		for (int k = 0; k < 2; k++) {
			const struct ev_plan_observer *ob = &plan->observers[i];
			if (!ob->sides[k])
				continue;
			char **argv = NULL;
			struct ev_error ignored;
			ev_error_clear(&ignored);
			json_t *args = json_array();
			if (ev_plan_observer_argv(ob, side[k].iface, k, side[k].pid, &argv, &ignored) == EV_OK)
				for (size_t a = 0; argv[a]; a++)
					json_array_append_new(args, json_string(argv[a]));
			ev_plan_argv_free(argv);
			json_t *rec = json_pack("{s:s, s:s, s:s, s:o, s:[]}", "name", ob->name, "side", side_name(k), "format",
						ob->format, "argv", args, "outputs");
			if (ob->optional) /* a run it missed is a named gap, not a failure */
				json_object_set_new(rec, "optional", json_true());
			json_array_append_new(o->records, rec);
		}
}

/* mkdir -p of observe/NAME/SIDE below the run directory. */
static int make_dir(const char *run_dir, const char *name, int k, char *out, size_t cap)
{
	char rel[256];
	snprintf(rel, sizeof rel, "observe/%s", name);
	if (ev_path_join(out, cap, run_dir, rel) != 0 || (mkdir(out, 0755) != 0 && errno != EEXIST))
		return -1;
	snprintf(rel, sizeof rel, "observe/%s/%s", name, side_name(k));
	if (ev_path_join(out, cap, run_dir, rel) != 0 || (mkdir(out, 0755) != 0 && errno != EEXIST))
		return -1;
	return 0;
}

static json_t *file_sha256(const char *path)
{
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_sha256_path(path, d, NULL, &err) != EV_OK)
		return json_string(err.text);
	ev_sha256_hex(d, hex);
	return json_string(hex);
}

/* Wait for pid (its pidfd) until the deadline or an interruption. @return
 * its wait status, or -1 when it was killed for either. */
static int wait_bounded(pid_t pid, double deadline, int *why_killed)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;
	*why_killed = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		double left = deadline - ev_launch_monotonic();
		if (left <= 0 || ev_stop_requested()) {
			*why_killed = left <= 0 ? 1 : 2;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		struct pollfd p = {pidfd, POLLIN, 0};
		if (pidfd < 0 || poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1) < 0) {
			struct timespec tick = {0, 10 * 1000 * 1000};
			nanosleep(&tick, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return status;
}

/* One invocation of observer i for side k; its outputs appended to rec. */
static void invoke(struct ev_observers *o, size_t i, int k, const char *when, unsigned seq, json_t *rec)
{
	const struct ev_plan_observer *ob = &o->plan->observers[i];
	char dir[PATH_MAX], out[PATH_MAX + 64], errs[PATH_MAX + 64], file[32];
	double t = ev_launch_monotonic();
	if (strcmp(when, "during") == 0)
		snprintf(file, sizeof file, "during-%04u", seq);
	else
		snprintf(file, sizeof file, "%s", when);
	json_t *entry = json_pack("{s:s, s:I}", "when", when, "t_ms", (json_int_t)((t - o->t0) * 1000));
	json_array_append_new(json_object_get(rec, "outputs"), entry);
	if (make_dir(o->run_dir, ob->name, k, dir, sizeof dir) != 0) {
		json_object_set_new(entry, "failure", json_string(strerror(errno)));
		return;
	}
	snprintf(out, sizeof out, "%s/%s.txt", dir, file);
	snprintf(errs, sizeof errs, "%s/%s.stderr", dir, file);
	char **argv = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	int ofd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int efd = open(errs, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid = -1;
	if (ofd >= 0 && efd >= 0 && null >= 0 &&
	    ev_plan_observer_argv(ob, o->side[k].iface, k, o->side[k].pid, &argv, &err) == EV_OK) {
		static char *const envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
		int ns = o->side[k].ns_fd;
		pid = fork();
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
			if ((ns >= 0 && setns(ns, CLONE_NEWNET) != 0) || dup2(null, 0) < 0 || dup2(ofd, 1) < 0 ||
			    dup2(efd, 2) < 0 || chdir(o->run_dir) != 0)
				_exit(126);
			/* program: the plan's (an observer), pinned and checked by pin_check before the first run */
			execve(argv[0], argv, envp);
			_exit(127);
		}
	}
	int e = errno;
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	if (null >= 0)
		close(null);
	ev_plan_argv_free(argv);
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "observe/%s/%s/%s.txt", ob->name, side_name(k), file);
	json_object_set_new(entry, "stdout", json_string(rel));
	snprintf(rel, sizeof rel, "observe/%s/%s/%s.stderr", ob->name, side_name(k), file);
	json_object_set_new(entry, "stderr", json_string(rel));
	if (pid < 0) {
		json_object_set_new(entry, "failure", json_string(err.text[0] ? err.text : strerror(e)));
		return;
	}
	int killed;
	int status = wait_bounded(pid, t + EV_OBSERVER_TIMEOUT_S, &killed);
	if (killed)
		json_object_set_new(entry, "failure", json_string(killed == 1 ? "killed: still running after 10 s"
									 : "killed: capture was interrupted"));
	else if (WIFEXITED(status))
		json_object_set_new(entry, "exit", json_pack("{s:i}", "code", WEXITSTATUS(status)));
	else
		json_object_set_new(entry, "exit", json_pack("{s:i}", "signal", WTERMSIG(status)));
	json_object_set_new(entry, "sha256", file_sha256(out));
	json_object_set_new(entry, "stderr_sha256", file_sha256(errs));
}

/* Every observer declared for when, every side it watches. */
static void pass(struct ev_observers *o, const char *when, unsigned seq)
{
	size_t r = 0;
	for (size_t i = 0; i < o->plan->nobservers; i++) {
		const struct ev_plan_observer *ob = &o->plan->observers[i];
		int wanted = strcmp(when, "before") == 0 ? ob->before : strcmp(when, "during") == 0 ? ob->during : ob->after;
		for (int k = 0; k < 2; k++) {
			if (!ob->sides[k])
				continue;
			json_t *rec = json_array_get(o->records, r++);
			if (wanted && !ev_stop_requested()) {
				pthread_mutex_lock(&o->lock);
				invoke(o, i, k, when, seq, rec);
				pthread_mutex_unlock(&o->lock);
			}
		}
	}
}

void ev_observers_run(struct ev_observers *o, const char *when)
{
	if (o->records)
		pass(o, when, 0);
}

static void *during_main(void *arg)
{
	struct ev_observers *o = arg;
	while (!atomic_load(&o->stop)) {
		/* an interval between the end of one pass and the next: a slow
		 * observer is never run twice at once */
		double until = ev_launch_monotonic() + (double)o->interval_ms / 1000;
		while (!atomic_load(&o->stop) && ev_launch_monotonic() < until) {
			struct timespec tick = {0, 5 * 1000 * 1000};
			nanosleep(&tick, NULL);
		}
		if (atomic_load(&o->stop))
			break;
		pass(o, "during", ++o->during);
	}
	return NULL;
}

ev_status ev_observers_start(struct ev_observers *o, uint64_t interval_ms, struct ev_error *err)
{
	int has_during = 0;
	for (size_t i = 0; i < o->plan->nobservers; i++)
		has_during |= o->plan->observers[i].during;
	if (!o->records || !has_during)
		return EV_OK;
	o->interval_ms = interval_ms;
	atomic_store(&o->stop, 0);
	int e = pthread_create(&o->thread, NULL, during_main, o);
	if (e)
		return ev_error_errno(err, e, "cannot start the observers' thread");
	o->running = 1;
	return EV_OK;
}

void ev_observers_stop(struct ev_observers *o)
{
	if (!o->running)
		return;
	atomic_store(&o->stop, 1);
	pthread_join(o->thread, NULL);
	o->running = 0;
}

json_t *ev_observers_json(struct ev_observers *o)
{
	return o->records ? json_incref(o->records) : NULL;
}

void ev_observers_free(struct ev_observers *o)
{
	ev_observers_stop(o);
	json_decref(o->records);
	o->records = NULL;
	pthread_mutex_destroy(&o->lock);
}
