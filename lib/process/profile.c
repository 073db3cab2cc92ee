/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/process/launch.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"

#define ATTACH_TIMEOUT_S 10.0
#define FLUSH_TIMEOUT_S 10.0

extern char **environ;

void ev_profile_event(const char *wanted, char *event, size_t cap, char *why, size_t why_cap)
{
	snprintf(event, cap, "%s", wanted);
	why[0] = 0;
	if (strcmp(wanted, "cycles") != 0)
		return;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.size = sizeof attr;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		return;
	}
	snprintf(why, why_cap, "cycles: no hardware counter here (%s): cpu-clock used", strerror(errno));
	snprintf(event, cap, "cpu-clock");
}

/* perf holds a perf_event descriptor: it has attached. */
static int attached(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d))) {
		char fd_path[400], link[64];
		snprintf(fd_path, sizeof fd_path, "%s/%s", path, e->d_name);
		ssize_t n = readlink(fd_path, link, sizeof link - 1);
		found = n > 0 && (link[n] = 0, strcmp(link, "anon_inode:[perf_event]") == 0);
	}
	closedir(d);
	return found;
}

static int spawn_to(char **argv, const char *out, const char *err_path, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	/* perf is stopped with SIGINT (ev_profile_stop): it must not
	 * inherit the ignored SIGINT of a capture started in a script's
	 * background, nor its mask */
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t none, reset;
	sigemptyset(&none);
	sigemptyset(&reset);
	sigaddset(&reset, SIGINT);
	sigaddset(&reset, SIGTERM);
	sigaddset(&reset, SIGHUP);
	sigaddset(&reset, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &reset);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	static char *const envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	/* program: the plan's ("perf"), pinned and checked by pin_check before the first run */
	int e = posix_spawn(pid, argv[0], &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

ev_status ev_profile_start(struct ev_profiler *p, const char *perf, const struct ev_plan_profile *pp, int side,
				pid_t target, const char *run_dir, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	p->side = side;
	p->target = target;
	p->pid = -1;
	char rel[64];
	snprintf(rel, sizeof rel, "profile/%s", side == EV_PLAN_SENDER ? "sender" : "peer");
	char top[PATH_MAX];
	if (ev_path_join(top, sizeof top, run_dir, "profile") != 0 || ev_path_join(p->dir, sizeof p->dir, run_dir, rel) != 0)
		return ev_error_set(err, EV_ERROR, "%s: path too long", run_dir);
	if ((mkdir(top, 0755) != 0 && errno != EEXIST) || mkdir(p->dir, 0755) != 0)
		return ev_error_errno(err, errno, "%s: cannot create", p->dir);
	ev_profile_event(pp->event, p->event, sizeof p->event, p->fallback, sizeof p->fallback);
	char data[PATH_MAX + 16], out[PATH_MAX + 16], errs[PATH_MAX + 16], rate[32], pid_text[24];
	snprintf(data, sizeof data, "%s/perf.data", p->dir);
	snprintf(out, sizeof out, "%s/perf.stdout", p->dir);
	snprintf(errs, sizeof errs, "%s/perf.stderr", p->dir);
	snprintf(rate, sizeof rate, "%llu", (unsigned long long)(pp->frequency ? pp->frequency : pp->period));
	snprintf(pid_text, sizeof pid_text, "%d", (int)target);
	char *argv[16];
	int n = 0;
	argv[n++] = (char *)perf;
	argv[n++] = "record";
	argv[n++] = "-e";
	argv[n++] = p->event;
	argv[n++] = pp->frequency ? "-F" : "-c";
	argv[n++] = rate;
	if (pp->call_graph)
		argv[n++] = "-g";
	argv[n++] = "-N"; /* no build-id cache: it would hard-link the pinned binaries */
	argv[n++] = "-p";
	argv[n++] = pid_text;
	argv[n++] = "-o";
	argv[n++] = data;
	argv[n] = NULL;
	p->argv = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(p->argv, json_string(argv[i]));
	int e = spawn_to(argv, out, errs, &p->pid);
	if (e)
		return ev_error_errno(err, e, "cannot start %s", perf);
	p->active = 1;
	double until = ev_launch_monotonic() + ATTACH_TIMEOUT_S;
	while (!attached(p->pid)) {
		int status;
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->reaped = 1;
			p->status = status;
			return ev_error_set(err, EV_ERROR, "perf ended before it attached to the %s (its stderr: %s/perf.stderr)",
					    side == EV_PLAN_SENDER ? "sender" : "peer", rel);
		}
		if (ev_launch_monotonic() > until)
			return ev_error_set(err, EV_ERROR, "perf did not attach to the %s within %.0f s (its stderr: %s/perf.stderr)",
					    side == EV_PLAN_SENDER ? "sender" : "peer", ATTACH_TIMEOUT_S, rel);
		struct timespec tick = {0, 5 * 1000 * 1000};
		nanosleep(&tick, NULL);
	}
	return EV_OK;
}

void ev_profile_stop(struct ev_profiler *p, int target_ended)
{
	if (!p->active || p->reaped || p->requested)
		return;
	int status;
	if (waitpid(p->pid, &status, WNOHANG) == p->pid) { /* it ended before being asked */
		p->reaped = 1;
		p->status = status;
		p->target_ended = target_ended;
		return;
	}
	p->target_ended = target_ended;
	p->requested = 1;
	clock_gettime(CLOCK_REALTIME, &p->requested_at);
	kill(p->pid, SIGINT);
}

/* "SAMPLE events: N" and "LOST events: N" (or LOST_SAMPLES) of perf
 * report --stats. @return 0 when the counts were read. */
static int read_stats(const char *path, long long *samples, long long *lost)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	int found = 0;
	*samples = *lost = 0;
	while (fgets(line, sizeof line, f)) {
		char name[64];
		long long v;
		if (sscanf(line, " %63[A-Z_] events: %lld", name, &v) != 2)
			continue;
		if (strcmp(name, "SAMPLE") == 0) {
			*samples = v;
			found = 1;
		} else if (strcmp(name, "LOST") == 0 || strcmp(name, "LOST_SAMPLES") == 0) {
			*lost += v;
		} else if (strcmp(name, "TOTAL") == 0) {
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

json_t *ev_profile_finish(struct ev_profiler *p, const char *perf, char *failure, size_t fcap, char *mark,
			       size_t mcap)
{
	failure[0] = mark[0] = 0;
	if (!p->active)
		return NULL;
	const char *side = p->side == EV_PLAN_SENDER ? "sender" : "peer";
	if (!p->reaped) {
		double until = ev_launch_monotonic() + FLUSH_TIMEOUT_S;
		int status;
		while (waitpid(p->pid, &status, WNOHANG) != p->pid) {
			if (ev_launch_monotonic() > until) {
				kill(p->pid, SIGKILL);
				waitpid(p->pid, &status, 0);
				snprintf(failure, fcap, "perf (profiling the %s) did not end within %.0f s of its SIGINT; killed",
					 side, FLUSH_TIMEOUT_S);
				break;
			}
			struct timespec tick = {0, 10 * 1000 * 1000};
			nanosleep(&tick, NULL);
		}
		p->reaped = 1;
		p->status = status;
	}
	int code = WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1;
	json_t *end;
	if (WIFEXITED(p->status))
		end = json_pack("{s:i}", "code", code);
	else
		end = json_pack("{s:i}", "signal", WTERMSIG(p->status));
	if (!failure[0]) {
		int sigint = code == 130 || (WIFSIGNALED(p->status) && WTERMSIG(p->status) == SIGINT);
		if (sigint && p->requested)
			; /* its SIGINT end (exit 130, or the signal itself): asked for */
		else if (code == 0 && p->target_ended)
			; /* its target ended, and so did it */
		else if (code == 0 || sigint)
			snprintf(failure, fcap, "perf (profiling the %s) ended while the %s still ran, and capture had not "
				 "stopped it", side, side);
		else if (code > 0)
			snprintf(failure, fcap, "perf (profiling the %s) exited with status %d (its stderr: profile/%s/perf.stderr)",
				 side, code, side);
		else
			snprintf(failure, fcap, "perf (profiling the %s) was killed by signal %d, which capture had not sent", side,
				 WTERMSIG(p->status));
	}
	char data[PATH_MAX + 16], stats[PATH_MAX + 16], errs[PATH_MAX + 16];
	snprintf(data, sizeof data, "%s/perf.data", p->dir);
	snprintf(stats, sizeof stats, "%s/stats.txt", p->dir);
	snprintf(errs, sizeof errs, "%s/report.stderr", p->dir);
	char *argv[] = {(char *)perf, "report", "--stats", "-i", data, NULL};
	pid_t rp;
	long long samples = -1, lost = -1;
	int status = 0;
	if (spawn_to(argv, stats, errs, &rp) == 0 && waitpid(rp, &status, 0) == rp && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 && read_stats(stats, &samples, &lost) == 0) {
		if (lost > 0)
			snprintf(mark, mcap, "perf lost %lld events: the profile is not whole", lost);
		else if (samples == 0)
			snprintf(mark, mcap, "perf wrote no sample");
	} else {
		snprintf(mark, mcap, "perf.data unreadable: perf report --stats failed (profile/%s/report.stderr)", side);
	}
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1] = "";
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_sha256_path(data, d, NULL, &err) == EV_OK)
		ev_sha256_hex(d, hex);
	else if (!mark[0])
		snprintf(mark, mcap, "perf.data unreadable: %s", err.text);
	char when[64] = "";
	if (p->requested) {
		struct tm tm;
		gmtime_r(&p->requested_at.tv_sec, &tm);
		size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(when + n, sizeof when - n, ".%09ldZ", p->requested_at.tv_nsec);
	}
	char rel[64];
	snprintf(rel, sizeof rel, "profile/%s/perf.data", side);
	json_t *o = json_pack("{s:s, s:o, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o}", "perf_data", rel, "sha256",
			      hex[0] ? json_string(hex) : json_null(), "event", p->event, "fallback",
			      p->fallback[0] ? json_string(p->fallback) : json_null(), "pid", (int)p->target, "argv",
			      json_incref(p->argv), "stopped", p->requested ? json_string(when) : json_null(), "exit", end,
			      "samples", samples >= 0 ? json_integer(samples) : json_null(), "lost",
			      lost >= 0 ? json_integer(lost) : json_null());
	json_object_set_new(o, "mark", mark[0] ? json_string(mark) : json_null());
	json_decref(p->argv);
	p->argv = NULL;
	p->active = 0;
	return o;
}
