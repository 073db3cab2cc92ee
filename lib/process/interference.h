/* SPDX-License-Identifier: Apache-2.0 */
/* interference: what can stall a measured CPU that no setting shows:
 * firmware (SMIs), heat and power limits (throttling, the effective
 * frequency), a hypervisor (steal), the host's memory (swapping,
 * compaction) and its contention (pressure stall information). Read from
 * the controller's CPU before the peer starts and after the sender ends,
 * never during the run: reading an MSR through /dev/cpu/N/msr interrupts
 * CPU N, which is harmless only while nothing is measured there.
 *
 * A counter the host lacks (no msr module, a VM without thermal sysfs, a
 * kernel without PSI) is the string "unavailable: PATH: REASON", never
 * left out, so a grade can say it is unknown and why. doc/formats.md
 * "Interference" lists each counter, its source and what it can miss.
 * Only lib/process and capture's use cases include this.
 */
#ifndef EV_INTERFERENCE_H
#define EV_INTERFERENCE_H

#include <stddef.h>

#include <jansson.h>

/* MSRs read per CPU (Intel SDM vol. 4): SMI count since reset, and the
 * actual and maximum (base) performance clocks, which tick only in C0. */
#define EV_MSR_SMI_COUNT 0x34
#define EV_MSR_MPERF 0xe7
#define EV_MSR_APERF 0xe8

/* One snapshot, for the CPUs in cpus (n; duplicates read once):
 * {"monotonic_ns", "ticks_per_second",
 *  "cpus": {"N": {"smi", "aperf", "mperf", "thermal_throttle": {FILE: count},
 *                 "stat": {user, nice, system, idle, iowait, irq, softirq, steal},
 *                 "softirqs": {LABEL: count}}},
 *  "vmstat": {KEY: count}, "pressure": {"cpu"|"memory"|"io": {"some_total_us", "full_total_us"}},
 *  "rapl": {ZONE: {"name", "energy_uj"}}}
 * Every value a count or "unavailable: ...". A new reference. */
json_t *ev_interference_snapshot(const int *cpus, size_t n);

/* What a session's host is, once per capture, added to policy: "microcode",
 * "vulnerabilities" ({NAME: the kernel's sentence}), "randomize_va_space",
 * "perf_event_max_sample_rate", "bios" ({"vendor", "version", "date"}),
 * "hypervisor" (null on bare metal, else {"cpuid": its signature, or
 * "unavailable: ..."}). */
void ev_interference_platform(json_t *policy);

#endif
