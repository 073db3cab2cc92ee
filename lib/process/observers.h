/* SPDX-License-Identifier: Apache-2.0 */
/* observers: the plan's observer programs (ethtool -S, onload_stackdump,
 * a vendor's tool), run by capture in a side's network namespace before
 * the run (once the namespaces are made, before the peer starts), during
 * it (every interval, from a thread on the controller CPUs, one pass
 * after the other) and after it (once the sender has exited, before the
 * peer is stopped). Each invocation's stdout and stderr are kept under
 * observe/NAME/SIDE/ (before.txt, during-0001.txt, ..., after.txt, and
 * .stderr beside each) and hashed into run.json; one that outlives
 * EV_OBSERVER_TIMEOUT_S is killed and recorded so. Observers run as capture
 * does, with PATH alone in their environment and the run directory as
 * their working directory.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_OBSERVERS_H
#define EV_OBSERVERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/status.h"

#define EV_OBSERVER_TIMEOUT_S 10.0

struct ev_observer_target {
	int ns_fd;          /* the side's network namespace (-1: capture's own) */
	const char *iface;  /* {iface} */
	long pid;           /* {pid} */
};

struct ev_observers {
	const struct ev_campaign_plan *plan;
	const char *run_dir;
	struct ev_observer_target side[2];
	double t0;                   /* CLOCK_MONOTONIC seconds: t_ms counts from here */
	json_t *records;             /* one per observer and side: name, side, format, argv, outputs */
	unsigned during;             /* passes made during the run */
	uint64_t interval_ms;
	pthread_t thread;
	int running;
	atomic_int stop;
	pthread_mutex_t lock;
};

/* Nothing runs yet; records are made for every observer and side. */
void ev_observers_init(struct ev_observers *o, const struct ev_campaign_plan *plan, const char *run_dir,
			    const struct ev_observer_target side[2], double t0);

/* Run every observer declared for when ("before" or "after"), each side in
 * turn, and wait for each. */
void ev_observers_run(struct ev_observers *o, const char *when);

/* Every interval_ms, one "during" pass, until ev_observers_stop. */
ev_status ev_observers_start(struct ev_observers *o, uint64_t interval_ms, struct ev_error *err);
void ev_observers_stop(struct ev_observers *o);

/* The records (a new reference), or NULL when the plan has no observers. */
json_t *ev_observers_json(struct ev_observers *o);

void ev_observers_free(struct ev_observers *o);

#endif
