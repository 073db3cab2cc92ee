/* SPDX-License-Identifier: Apache-2.0 */
/* grade: whether a campaign's numbers are timing-grade ("quiet") or only
 * diagnostic, and why, computed from what capture recorded (run.json,
 * policy.json) under declared, versioned rules (evidence-grades/1,
 * doc/formats.md "Grades").
 *
 * A condition is met ("pass"), not met ("fail"), or cannot be told from
 * what was recorded ("unknown": a field absent, or recorded as
 * "unavailable: ..."). A run is quiet when every condition its rules
 * grade is met; unknown is never quiet. Each verdict carries sentences
 * that name its evidence: the CPU and whose it is, the IRQ, the count and
 * the bound, the field and the file it came from.
 *
 * Verdicts are JSON objects {"condition", "verdict", "evidence": [...]}
 * appended to an array the caller owns, in the order of the rules' keys
 * (ev_grade_conditions), so two graders of the same evidence write the
 * same bytes. No global state.
 */
#ifndef EV_GRADE_H
#define EV_GRADE_H

#include <sched.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/campaign/plan.h"
#include "lib/campaign/policy_read.h"
#include "lib/campaign/run.h"
#include "lib/core/status.h"

#define EV_GRADES_FORMAT "evidence-grades/1"

/* Every condition a rule set grades, in the order verdicts come in;
 * NULL-terminated. Each is also the rule's key. */
extern const char *const ev_grade_conditions[];

/* The shipped default rules ("evidence-default", version 2), a new
 * reference: what common lab practice calls quiet (doc/formats.md). */
json_t *ev_grades_default(void);

/* rules against the format: an object with "format" evidence-grades/1,
 * "name" (1-40 of A-Za-z0-9_.-), "version" (an integer from 1),
 * "require" ("quiet" or "any") and every condition's key with a value of
 * its type or null (not graded), where the conditions added later
 * (interference: smi ... pressure) may be left out by rules written
 * before them; no other key. display names the
 * document in refusals. @return EV_OK, or EV_USAGE naming the key, what
 * was expected and what was found. */
ev_status ev_grades_check(const json_t *rules, const char *display, struct ev_error *err);

/* The CPUs a grade is about. */
struct ev_grade_cpus {
	cpu_set_t sides;           /* each measured side's CPU */
	cpu_set_t controller;      /* capture's and its observers' (and perf's) */
	int have_sides, have_controller; /* recorded at all */
	char whose[64][24];        /* "the sender's", "the peer's", for CPUs 0-63; "a side's" beyond */
};

/* The CPUs of one run, from its processes (role, cpu) and controller. */
void ev_grade_run_cpus(const struct ev_run *run, struct ev_grade_cpus *out);

/* The host's conditions (isolation, SMT siblings, CPU frequency, THP,
 * NUMA balancing, clocksource, device IRQ affinity, watchdog), from one
 * policy snapshot (policy_name names it in evidence; NULL: none was
 * recorded, and each is unknown), for cpus; appended to out. */
void ev_grade_policy(const json_t *rules, const struct ev_policy *policy, const char *policy_name,
		     const struct ev_grade_cpus *cpus, json_t *out);

/* The run's conditions (lease, controller, profiler, live observers,
 * PM QoS as its arm in plan declares (plan may be NULL: unknown), the
 * interrupt counters and the natives' involuntary context switches
 * across the run), appended to out. */
void ev_grade_run(const json_t *rules, const struct ev_plan *plan, const struct ev_run *run, json_t *out);

/* The interference conditions (SMIs, thermal throttling, effective
 * frequency, steal on each measured CPU; the host's swapping and pressure)
 * from interference ({"before", "after"}: run.json's, which ev_grade_run
 * passes; ahead of a run, one snapshot as both, and then each says only
 * whether its counters can be read here), appended to out; each only when
 * rules state it (rules older than these conditions grade as before). */
void ev_grade_interference(const json_t *rules, const json_t *interference, const struct ev_grade_cpus *c,
			   json_t *out);

/* The run's condition "clocks" (its host's clock synchronised within the
 * rules' {"within_ns": N} before and after it), appended to out; only
 * when rules state it. Called by ev_grade_run. */
void ev_grade_clocks(const json_t *rules, const struct ev_run *run, json_t *out);

/* One run's interference in figures, for its row in a summary: "smi"
 * (SMIs on its measured CPUs), "thermal_throttle" (throttle counts),
 * "effective_frequency_pct" (the lowest measured CPU's APERF/MPERF),
 * "steal_ms", "swapped_pages" (the host's), "pressure_per_mille"
 * ({"cpu", "memory", "io"}: the host's "some" stall over the run's span),
 * each null when not recorded, and "marked": what disturbed the run
 * ("SMI", "throttled", "steal", "swapping"). A new reference. */
json_t *ev_grade_interference_figures(const json_t *interference, const struct ev_grade_cpus *c);

/* What a plan alone rules out, before anything runs: a profiled side, an
 * observer that samples during the run. Appended to out. */
void ev_grade_plan(const json_t *rules, const json_t *plan, json_t *out);

/* verdicts (an array as above) with each condition once: the worst of
 * its verdicts (fail, then unknown, then pass) and every distinct
 * sentence, in order. A new reference. */
json_t *ev_grade_merge(const json_t *verdicts);

/* "quiet" when every verdict is pass, else "diagnostic". */
const char *ev_grade_of(const json_t *verdicts);

#endif
