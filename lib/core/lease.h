/* SPDX-License-Identifier: Apache-2.0 */
/* lease: CPUs leased host-wide, so that a capture never shares its CPUs
 * with other work and other work never starts on a capture's CPUs.
 *
 * The registry is a directory (EV_LEASE_DIR, from configure; the
 * environment's EVIDENCE_LEASE_DIR replaces it), made sticky and
 * world-writable like /tmp on first use. Each CPU has a lock file,
 * cpu-N.lock; a lease is a flock on the lock file of each of its CPUs,
 * exclusive (capture) or shared (seal, audit, replicate in the shared
 * pool), so the kernel releases it when its holder dies, whatever killed
 * it. A holder describes itself in holders/PID-START.json (PID, start
 * time, command, since, mode, CPUs); a file whose process is gone is
 * stale and ignored.
 *
 * Waiting is a queue: a waiter's ticket is queue/P-SECONDS.NANOSECONDS-PID
 * (P 0 for high, 1 for normal priority; the names sort in the order
 * served), holding its wanted CPUs, flocked by the waiter so that a dead
 * waiter's ticket is seen and removed. A request, waiting or not, is
 * served only when no live ticket before its own wants one of its CPUs.
 *
 * The pools: isolated CPUs (for captures) and shared CPUs (for other
 * work) come from a host file (EV_POOLS_FILE, or EVIDENCE_POOLS), lines
 * "isolated LIST" and "shared LIST" ('#' comments); without it, isolated
 * is the kernel's isolcpus and nohz_full lists and shared the other
 * online CPUs (all of them when that leaves none). No global state. */
#ifndef EV_LEASE_H
#define EV_LEASE_H

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <jansson.h>

#include "lib/core/status.h"

#define EV_LEASE_DIR_ENV "EVIDENCE_LEASE_DIR"
#define EV_POOLS_ENV "EVIDENCE_POOLS"

struct ev_pools {
	cpu_set_t isolated, shared;
	char source[PATH_MAX + 64]; /* "PATH", or "kernel: isolcpus=..., nohz_full=..." */
};

/* The pools of this host. @return EV_OK, or EV_REFUSED naming the line of
 * the host file that cannot be read. */
ev_status ev_pools_load(struct ev_pools *p, struct ev_error *err);

/* "0-3,8" into set. @return 0, or -1 when text is not a CPU list. */
int ev_cpulist_parse(const char *text, cpu_set_t *set);

/* set as "0-3,8" into out. */
void ev_cpulist_format(const cpu_set_t *set, char *out, size_t cap);

enum ev_lease_mode { EV_LEASE_EXCLUSIVE, EV_LEASE_SHARED };
enum ev_lease_priority { EV_LEASE_HIGH, EV_LEASE_NORMAL };

struct ev_lease {
	char dir[PATH_MAX];
	cpu_set_t cpus;
	enum ev_lease_mode mode;
	enum ev_lease_priority priority;
	int fds[CPU_SETSIZE];       /* the lock files held (-1: none) */
	char holder[PATH_MAX + 64]; /* holders/PID-START.json */
	struct timespec since;
	double waited_s;
	int held;
};

/* What waiting looks like to a caller: called once when the request must
 * wait, with a sentence naming what it waits for. */
typedef void (*ev_lease_wait_fn)(void *ctx, const char *why);

/* The registry's directory: the environment's, else configure's. */
const char *ev_lease_dir(void);

/* Take a lease on cpus for command (shown to others). With wait, queue
 * until it can be had (each half a second: stop checked, then the queue
 * and the locks); without, refuse at once. @return EV_OK (l->held);
 * EV_REFUSED naming a CPU and its holder or the waiter before; EV_ERROR
 * when the registry cannot be used (err names it and why);
 * EV_INTERRUPTED once *stop is set. Release with ev_lease_release (an
 * exit releases it too). */
ev_status ev_lease_take(struct ev_lease *l, const cpu_set_t *cpus, enum ev_lease_mode mode,
			enum ev_lease_priority priority, int wait, const char *command,
			volatile sig_atomic_t *stop, ev_lease_wait_fn waiting, void *ctx, struct ev_error *err);

void ev_lease_release(struct ev_lease *l);

/* The lease as run.json records it: dir, mode, priority, cpus, since,
 * waited_seconds. */
json_t *ev_lease_json(const struct ev_lease *l);

/* Every live holder and waiter of the registry at dir:
 * {"holders": [{pid, start_ticks, command, since, mode, cpus}],
 *  "waiting": [{pid, priority, since, mode, cpus}]}, or NULL (err set). */
json_t *ev_lease_list(const char *dir, struct ev_error *err);

#endif
