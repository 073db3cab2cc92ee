/* SPDX-License-Identifier: Apache-2.0 */
/* run_state: one run while it is made (run_one.c launches, watches and
 * ends the pair; run_record.c writes what it recorded). Only
 * capture/run_one.c and capture/run_record.c include this. */
#ifndef EV_CAPTURE_RUN_STATE_H
#define EV_CAPTURE_RUN_STATE_H

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "lib/usecase/capture/parts.h"
#include "lib/process/credentials.h"
#include "lib/process/launch.h"
#include "lib/process/observers.h"
#include "lib/process/pin_check.h"
#include "lib/process/profile.h"

#define ENV_MAX 96

struct run_state {
	struct capture_session *c;
	const struct ev_plan_run *r;
	char dir[PATH_MAX];
	struct ev_side_proc side[2];           /* EV_PLAN_SENDER, EV_PLAN_PEER */
	const struct ev_side_cred *cred[2];
	char work[2][PATH_MAX];             /* each side's working directory */
	json_t *inputs[2], *seen_cred[2];
	int killed[2];                      /* capture SIGKILLed it */
	int stop_requested;                 /* the peer's stop was sent */
	struct timespec stop_real;
	int stop_errno;                     /* writing the stop line failed */
	int links_held, link_out[2];        /* topology "link": the keeper holds; each end is out */
	int ns_fd[2];                       /* the sides' network namespaces, for the observers */
	struct ev_observers obs;
	int observing;
	struct ev_profiler prof[2];            /* perf beside a profiled side */
	json_t *profile[2];                 /* its record */
	char link_returned[2][128];
	struct ev_pinned_binary bins[2][2];    /* [side][program, launcher] */
	int nbins[2];
	struct ev_pinned_binary *files;        /* the plan's other pinned files */
	size_t nfiles;
	char *env[2][ENV_MAX + 1];
	int route_fd[2], diag_fd[2];
	uint64_t netns_inode[2];
	json_t *doc;                        /* run.json */
	json_t *before[2], *after[2], *links_before[2], *links_after[2];
	json_t *cpus_before, *cpus_after, *tcp;
	json_t *interference_before, *interference_after; /* lib/process/interference, around the run */
	json_t *clocks_before, *clocks_after;             /* lib/process/clocks, around the run */
	enum run_result result;
	char failure[1024];
	int pinned_ok[2];
	char pinned_found[2][64];
	int32_t dma_observed;
	int dma_err;
};

/* The first failure is the one reported: later ones are dropped. */
void ev_capture_run_fail(struct run_state *s, enum run_result result, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "ok", "failed", "timeout" or "interrupted". */
const char *ev_capture_run_result_name(enum run_result r);

/* Publish observe/tcp.json (when sampled) and run.json (last, never
 * replacing one). @return EV_OK or the error. */
ev_status ev_capture_run_record(struct run_state *s, struct ev_error *err);

#endif
