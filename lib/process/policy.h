/* SPDX-License-Identifier: Apache-2.0 */
/* policy: the OS settings that change latency, read once per capture
 * session (kernel command line and its isolation parameters; per CPU the
 * governor, driver, energy-performance preference, frequency limits and
 * SMT siblings; turbo/boost, intel_pstate limits, SMT state; the tuned
 * profile and its contents; every interrupt row of the campaign's CPUs
 * with the IRQs' affinities; NUMA balancing, watchdogs, clocksource,
 * transparent huge pages, the current /dev/cpu_dma_latency),
 * and the PM QoS hold of an arm. What cannot be read is recorded as
 * "unavailable: REASON".
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_POLICY_H
#define EV_POLICY_H

#include <stdint.h>

#include <jansson.h>

#include "lib/core/status.h"

#define EV_PMQOS_DEVICE "/dev/cpu_dma_latency"

/* The snapshot, for the CPUs a campaign uses (n of them). */
json_t *ev_policy_snapshot(const int *cpus, size_t n);

/* The effective CPU latency constraint now (microseconds). @return 0, or
 * a positive errno. */
int ev_pmqos_read(int32_t *value);

/* Hold a constraint: the device stays open, with value written, until
 * ev_pmqos_release. *effective gets the value read back. @return EV_OK or
 * EV_ERROR naming the device and the reason. */
struct ev_pmqos_hold {
	int fd;
	int32_t value;
};
ev_status ev_pmqos_hold(int32_t value, struct ev_pmqos_hold *h, int32_t *effective, struct ev_error *err);
void ev_pmqos_release(struct ev_pmqos_hold *h);

/* Can this process hold a constraint? @return 0, or a positive errno. */
int ev_pmqos_probe(void);

#endif
