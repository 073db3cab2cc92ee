/* SPDX-License-Identifier: Apache-2.0 */
/* policy_read: a capture session's OS policy snapshot (policy.json,
 * evidence-policy/1, doc/formats.md "OS policy") as those who judge a
 * campaign read it: the host, its kernel and isolation, each campaign
 * CPU's frequency policy and SMT siblings, turbo, every interrupt row,
 * and the host's other knobs. capture writes it (lib/process/policy); this
 * is its one reader. A value capture could not read is the string
 * "unavailable: PATH: REASON" (ev_policy_unavailable). Accessors never
 * fail: what is absent or mistyped gives NULL (or -1), and the caller
 * says what that means.
 *
 * A struct ev_policy owns its document; free with ev_policy_free. No
 * global state. */
#ifndef EV_POLICY_READ_H
#define EV_POLICY_READ_H

#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_POLICY_FORMAT "evidence-policy/1"

struct ev_policy {
	json_t *doc;
};

/* Read path (JSON, "format" evidence-policy/1); sha256 (may be NULL) gets
 * the digest of its bytes. */
ev_status ev_policy_load(const char *path, struct ev_policy *policy, uint8_t sha256[EV_SHA256_LEN],
			 struct ev_error *err);

void ev_policy_free(struct ev_policy *policy);

/* A top-level value as recorded ("clocksource", "turbo", "isolation",
 * ...), for a summary to show as it is; NULL when absent. */
const json_t *ev_policy_value(const struct ev_policy *policy, const char *key);

/* A top-level string ("host", "cpu_model", "os", "clocksource",
 * "transparent_hugepage", "numa_balancing", "watchdog_cpumask", ...), or
 * NULL when absent or not a string. */
const char *ev_policy_text(const struct ev_policy *policy, const char *key);

/* kernel.release or kernel.version, or NULL. */
const char *ev_policy_kernel(const struct ev_policy *policy, const char *which);

/* isolation.PARAM (isolcpus, nohz_full, rcu_nocbs, irqaffinity) of the
 * kernel command line: 1 with *value its text, 0 when the command line
 * has none, -1 when the snapshot does not record it. */
int ev_policy_isolation(const struct ev_policy *policy, const char *param, const char **value);

/* cpus.CPU.FIELD (governor, energy_performance_preference, smt_siblings,
 * ...): the value as recorded (NULL when absent), or as a string (NULL
 * when absent or not a string). */
const json_t *ev_policy_cpu_value(const struct ev_policy *policy, const char *cpu, const char *field);
const char *ev_policy_cpu(const struct ev_policy *policy, int cpu, const char *field);

/* The campaign CPUs recorded ("cpus": CPU -> fields), or NULL. */
const json_t *ev_policy_cpus(const struct ev_policy *policy);

/* Turbo: 1 on, 0 off (intel_pstate_no_turbo 1, or cpufreq_boost 0), -1
 * when neither is recorded as 0 or 1; *raw (may be NULL) gets what was
 * recorded. */
int ev_policy_turbo(const struct ev_policy *policy, const char **raw);

/* Every per-CPU row of /proc/interrupts by label, or NULL. */
const json_t *ev_policy_interrupts(const struct ev_policy *policy);

/* A device IRQ row's affinity (its effective_affinity_list, else its
 * smp_affinity_list; an unreadable one is skipped), or NULL; its
 * description as /proc/interrupts pads it, or NULL. */
const char *ev_policy_irq_affinity(const json_t *row);
const char *ev_policy_irq_description(const json_t *row);

/* 1 when value says capture could not read it ("unavailable: ..."). */
int ev_policy_unavailable(const char *value);

#endif
