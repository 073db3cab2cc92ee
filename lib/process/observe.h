/* SPDX-License-Identifier: Apache-2.0 */
/* observe: what capture records around and during a run, as JSON.
 *
 * Snapshots taken before and after: a process's faults, CPU time and
 * context switches (/proc/PID/stat, /proc/PID/status) and its scheduler
 * statistics (/proc/PID/schedstat); per CPU, cpuidle usage and time by
 * state name; NMI and LOC interrupts by CPU, the columns mapped from the
 * header of /proc/interrupts. A value that cannot be read is recorded as
 * "unavailable: REASON", never left out silently.
 *
 * During a run, a sampler thread (on capture's own, controller CPUs) reads
 * the pair's TCP sockets every interval through sock_diag.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this.
 */
#ifndef EV_OBSERVE_H
#define EV_OBSERVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "lib/core/status.h"

/* /proc/PID/stat, status and schedstat of a running (or exited, not yet
 * reaped) process. */
json_t *ev_observe_process(pid_t pid);

/* Whom pid runs as, from /proc/PID/status: "uid" and "gid" (real,
 * effective, saved, filesystem), "groups", the capability sets "cap_inh",
 * "cap_prm", "cap_eff", "cap_bnd", "cap_amb" (hex, as the kernel prints
 * them) and "no_new_privs"; or "unavailable: ...". */
json_t *ev_observe_credentials(pid_t pid);

/* cpuidle states of each CPU in cpus (n of them), and the interrupt
 * counts of the same CPUs (ev_observe_interrupts without details). */
json_t *ev_observe_cpus(const int *cpus, size_t n);

/* The CPU of each column of a per-CPU table's header ("  CPU0  CPU1",
 * /proc/interrupts and /proc/softirqs, where an offline CPU has no
 * column): up to max into column; @return how many. */
size_t ev_observe_cpu_columns(const char *header, int *column, size_t max);

/* Every per-CPU row of /proc/interrupts, by its label ("0", "NMI", "LOC",
 * ...): the counts of the CPUs in cpus (n), the columns mapped from the
 * header. With details, {"counts", "description"} and, for a device's
 * IRQ, its smp_affinity_list and effective_affinity_list. */
json_t *ev_observe_interrupts(const int *cpus, size_t n, int details);

/* The sampler: every interval_ms, the TCP sockets that the processes
 * (pids, up to 2) hold, read through diag_fds (one per namespace; the same
 * fd twice when they share one). */
struct ev_sampler {
	pthread_t thread;
	int running;
	atomic_int stop;
	pid_t pids[2];
	int diag_fds[2];
	uint64_t interval_ms;
	double t0;                /* CLOCK_MONOTONIC seconds at start */
	json_t *samples;          /* [{"t_ms": .., "sockets": [...]}, ...] */
	uint64_t failures;
	char first_failure[EV_ERROR_TEXT_MAX];
	pthread_mutex_t lock;
};

ev_status ev_sampler_start(struct ev_sampler *s, const pid_t pids[2], const int diag_fds[2],
			uint64_t interval_ms, struct ev_error *err);
/* Stop, join, and hand over the samples (a new reference). */
json_t *ev_sampler_stop(struct ev_sampler *s);

#endif
