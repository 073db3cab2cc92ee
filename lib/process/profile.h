/* SPDX-License-Identifier: Apache-2.0 */
/* profile: perf record beside a profiled side (doc/formats.md "Profiled
 * runs").
 *
 * perf, pinned like any program, is attached by PID to the side's process
 * before it execs, so that the whole program is sampled and the PID perf
 * records is the native's. It writes RUN/profile/SIDE/perf.data with no
 * build-id cache (-N: the cache would hard-link the pinned binaries and
 * change their ctime). When the side has ended (or the run is over)
 * capture stops perf with SIGINT; perf's exit is accepted when it is 0
 * after its target ended, or 130 after capture's SIGINT; any other end,
 * one before its target's, or one capture did not ask for, fails the run.
 * Then perf report --stats counts the samples and lost events, kept in
 * RUN/profile/SIDE/stats.txt.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_PROFILE_H
#define EV_PROFILE_H

#include <limits.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/status.h"

struct ev_profiler {
	int active;
	int side;                   /* EV_PLAN_SENDER or EV_PLAN_PEER */
	pid_t pid, target;          /* perf's; the side's */
	char dir[PATH_MAX];         /* RUN/profile/SIDE */
	char event[64];             /* the event used */
	char fallback[200];         /* why it is not the one asked for ("" when it is) */
	json_t *argv;
	int requested;              /* capture sent SIGINT */
	struct timespec requested_at;
	int target_ended;           /* the side had ended when perf was stopped or ended */
	int reaped, status;
};

/* The event to use for wanted: "cycles" becomes "cpu-clock" when this
 * machine gives no cycle counter (a VM), why says so. */
void ev_profile_event(const char *wanted, char *event, size_t cap, char *why, size_t why_cap);

/* Start perf on target (the side's process, before it execs) and wait
 * until it has attached. @return EV_OK or EV_ERROR naming what failed (its
 * stderr is RUN/profile/SIDE/perf.stderr). */
ev_status ev_profile_start(struct ev_profiler *p, const char *perf, const struct ev_plan_profile *pp, int side,
				pid_t target, const char *run_dir, struct ev_error *err);

/* The side has ended (target_ended) or the run is over: SIGINT to perf. */
void ev_profile_stop(struct ev_profiler *p, int target_ended);

/* Wait for perf (then SIGKILL), judge its end, count its samples. The
 * record for run.json; failure gets a sentence when the run must fail,
 * and mark one when the profile is not whole (lost samples, an unreadable
 * perf.data). */
json_t *ev_profile_finish(struct ev_profiler *p, const char *perf, char *failure, size_t fcap, char *mark,
			       size_t mcap);

#endif
