/* SPDX-License-Identifier: Apache-2.0 */
/* grade_interference: a run's interference conditions (SMIs, throttling,
 * effective frequency, steal, swapping, pressure), from the counters
 * capture read before and after it (run.json "interference",
 * lib/process/interference), under rules that state them (grade.h).
 * Rules written before these conditions existed leave them out, and are
 * graded exactly as they were: no verdict at all, not even "not graded". */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"

/* The two snapshots of a run. Ahead of a run (capture's grade ahead) both
 * are the one snapshot taken then: a condition then says only whether
 * its counters can be read on this host. */
struct around {
	const json_t *before, *after;
};

static const char no_counters[] =
	"run.json records no interference counters before and after the run (captured by a capture that did not read them)";

#define COUNTER_MAX ((__int128)1 << 60)

/* A snapshot's value by a path of up to four keys (NULL ends it); where
 * the path meets a string ("unavailable: ..."), that string. */
static const json_t *at(const json_t *snap, const char *k1, const char *k2, const char *k3, const char *k4)
{
	const char *keys[] = {k1, k2, k3, k4};
	for (int i = 0; i < 4 && keys[i] && !json_is_string(snap); i++)
		snap = json_object_get(snap, keys[i]);
	return snap;
}

/* A counter before and after, by its path: 1 with *d set, or 0 with *why
 * the recorded reason ("unavailable: ...") or "not recorded". */
static int delta(const struct around *a, const char *k1, const char *k2, const char *k3, const char *k4, int64_t *d,
		 const char **why)
{
	const json_t *v[2] = {at(a->before, k1, k2, k3, k4), at(a->after, k1, k2, k3, k4)};
	for (int i = 0; i < 2; i++)
		if (!json_is_integer(v[i])) {
			*why = json_is_string(v[i]) ? json_string_value(v[i]) : "not recorded";
			return 0;
		}
	/* a stranger's run.json may hold any integers: a difference past
	 * 2^60 is no counter's */
	__int128 x = (__int128)json_integer_value(v[1]) - json_integer_value(v[0]);
	if (x > COUNTER_MAX || x < -COUNTER_MAX) {
		*why = "a difference no counter makes (edited?)";
		return 0;
	}
	*d = (int64_t)x;
	return 1;
}

/* The first measured CPU from cpu on, its key in a snapshot's "cpus" in
 * key; -1 when there is none. */
static int next_side(const struct ev_grade_cpus *c, int cpu, char key[16])
{
	for (; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &c->sides)) {
			snprintf(key, 16, "%d", cpu);
			return cpu;
		}
	return -1;
}

/* Whether rules state the condition at all; when stated null, the verdict
 * "not graded" is appended and 0 returned. */
static const json_t *stated(const json_t *rules, const char *condition, json_t *out)
{
	if (!json_object_get(rules, condition))
		return NULL;
	const json_t *r = ev_grade_rule(rules, condition);
	if (!r)
		ev_grade_not_graded(condition, out);
	return r;
}

/* Opens the verdict; 0 (verdict closed, unknown) when run.json has no counters. */
static int open_on(struct verdict *v, const char *condition, const struct around *a, json_t *out)
{
	ev_grade_open(v, condition);
	if (json_is_object(a->before) && json_is_object(a->after))
		return 1;
	ev_grade_note(v, UNKNOWN, "%s", no_counters);
	ev_grade_close(v, out);
	return 0;
}

static void smi(const json_t *rules, const struct around *a, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *bound = stated(rules, "smi", out);
	struct verdict v;
	if (!bound || !open_on(&v, "smi", a, out))
		return;
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		int64_t d;
		const char *why;
		if (!delta(a, "cpus", key, "smi", NULL, &d, &why))
			ev_grade_note(&v, UNKNOWN, "CPU %d (%s): no SMI count (%s)", cpu, ev_grade_whose(c, cpu), why);
		else if (d > json_integer_value(bound))
			ev_grade_note(&v, FAIL, "CPU %d (%s) took %" PRId64 " SMI%s during the run (MSR 0x34; bound %" JSON_INTEGER_FORMAT ")",
				      cpu, ev_grade_whose(c, cpu), d, d == 1 ? "" : "s", json_integer_value(bound));
	}
	ev_grade_close(&v, out);
}

static void thermal_throttle(const json_t *rules, const struct around *a, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *bound = stated(rules, "thermal_throttle", out);
	struct verdict v;
	if (!bound || !open_on(&v, "thermal_throttle", a, out))
		return;
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		const json_t *after = at(a->after, "cpus", key, "thermal_throttle", NULL);
		if (!json_is_object(after) || json_object_size(after) == 0) {
			ev_grade_note(&v, UNKNOWN, "CPU %d (%s): no throttle counts (%s)", cpu, ev_grade_whose(c, cpu),
				      json_is_string(after) ? json_string_value(after) : "not recorded");
			continue;
		}
		const char *file;
		json_t *x;
		json_object_foreach((json_t *)after, file, x) {
			int64_t d;
			const char *why;
			if (!delta(a, "cpus", key, "thermal_throttle", file, &d, &why))
				ev_grade_note(&v, UNKNOWN, "CPU %d (%s): %s not recorded before and after the run (%s)", cpu,
					      ev_grade_whose(c, cpu), file, why);
			else if (d > json_integer_value(bound))
				ev_grade_note(&v, FAIL, "CPU %d (%s): %s rose by %" PRId64 " during the run (bound %" JSON_INTEGER_FORMAT ")",
					      cpu, ev_grade_whose(c, cpu), file, d, json_integer_value(bound));
		}
	}
	ev_grade_close(&v, out);
}

static void effective_frequency(const json_t *rules, const struct around *a, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *range = stated(rules, "effective_frequency", out);
	struct verdict v;
	if (!range || !open_on(&v, "effective_frequency", a, out))
		return;
	json_int_t lo = json_integer_value(json_object_get(range, "min_pct"));
	json_int_t hi = json_integer_value(json_object_get(range, "max_pct"));
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		int64_t da, dm;
		const char *why;
		if (!delta(a, "cpus", key, "aperf", NULL, &da, &why) || !delta(a, "cpus", key, "mperf", NULL, &dm, &why))
			ev_grade_note(&v, UNKNOWN, "CPU %d (%s): no APERF and MPERF counts (%s)", cpu, ev_grade_whose(c, cpu), why);
		else if (a->before == a->after)
			continue; /* ahead of a run: the counters can be read */
		else if (dm <= 0 || da < 0)
			ev_grade_note(&v, UNKNOWN, "CPU %d (%s): MPERF did not advance during the run (APERF +%" PRId64 ", MPERF %+" PRId64 ")",
				      cpu, ev_grade_whose(c, cpu), da, dm);
		else {
			/* percent of the base frequency while running, rounded down */
			int64_t pct = (int64_t)((__int128)da * 100 / dm);
			if (pct < lo || pct > hi)
				ev_grade_note(&v, FAIL, "CPU %d (%s) ran at %" PRId64 "%% of its base frequency during the run (APERF/MPERF; the rules allow %" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT "%%)",
					      cpu, ev_grade_whose(c, cpu), pct, lo, hi);
		}
	}
	ev_grade_close(&v, out);
}

static void steal(const json_t *rules, const struct around *a, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *bound = stated(rules, "steal", out);
	struct verdict v;
	if (!bound || !open_on(&v, "steal", a, out))
		return;
	json_int_t hz = json_integer_value(json_object_get(a->after, "ticks_per_second"));
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		int64_t d;
		const char *why;
		if (!delta(a, "cpus", key, "stat", "steal", &d, &why))
			ev_grade_note(&v, UNKNOWN, "CPU %d (%s): no steal time (/proc/stat: %s)", cpu, ev_grade_whose(c, cpu), why);
		else if (d > json_integer_value(bound))
			ev_grade_note(&v, FAIL, "CPU %d (%s) had %" PRId64 " tick%s (%" PRId64 " ms) stolen by the hypervisor during the run (/proc/stat steal; bound %" JSON_INTEGER_FORMAT ")",
				      cpu, ev_grade_whose(c, cpu), d, d == 1 ? "" : "s", hz > 0 ? (int64_t)((__int128)d * 1000 / hz) : 0,
				      json_integer_value(bound));
	}
	ev_grade_close(&v, out);
}

static void swapping(const json_t *rules, const struct around *a, json_t *out)
{
	const json_t *bound = stated(rules, "swapping", out);
	struct verdict v;
	if (!bound || !open_on(&v, "swapping", a, out))
		return;
	int64_t in, outp;
	const char *why;
	if (!delta(a, "vmstat", "pswpin", NULL, NULL, &in, &why) || !delta(a, "vmstat", "pswpout", NULL, NULL, &outp, &why))
		ev_grade_note(&v, UNKNOWN, "no swap counts (/proc/vmstat pswpin, pswpout: %s)", why);
	else if (in + outp > json_integer_value(bound))
		ev_grade_note(&v, FAIL, "the host swapped %" PRId64 " page%s in and %" PRId64 " out during the run (/proc/vmstat; bound %" JSON_INTEGER_FORMAT " pages)",
			      in, in == 1 ? "" : "s", outp, json_integer_value(bound));
	ev_grade_close(&v, out);
}

static void pressure(const json_t *rules, const struct around *a, json_t *out)
{
	const json_t *bounds = stated(rules, "pressure", out);
	struct verdict v;
	if (!bounds || !open_on(&v, "pressure", a, out))
		return;
	int64_t span_ns;
	const char *why;
	int timed = delta(a, "monotonic_ns", NULL, NULL, NULL, &span_ns, &why) && span_ns > 0;
	static const char *const resources[] = {"cpu", "memory", "io"};
	for (int r = 0; r < 3; r++) {
		const json_t *bound = json_object_get(bounds, resources[r]);
		if (!bound)
			continue;
		int64_t d;
		if (a->before == a->after) {
			if (!delta(a, "pressure", resources[r], "some_total_us", NULL, &d, &why))
				ev_grade_note(&v, UNKNOWN, "no %s pressure (%s)", resources[r], why);
		} else if (!timed)
			ev_grade_note(&v, UNKNOWN, "the run's span is not recorded (interference monotonic_ns)");
		else if (!delta(a, "pressure", resources[r], "some_total_us", NULL, &d, &why))
			ev_grade_note(&v, UNKNOWN, "no %s pressure (%s)", resources[r], why);
		else {
			int64_t permille = (int64_t)((__int128)d * 1000000 / span_ns);
			if (permille > json_integer_value(bound)) {
				char stalled[32], span[32];
				ev_grade_group_digits(d / 1000, stalled, sizeof stalled);
				ev_grade_group_digits(span_ns / 1000000, span, sizeof span);
				ev_grade_note(&v, FAIL, "the host's %s pressure: some task stalled %s ms of the run's %s ms (%" PRId64 " per mille; bound %" JSON_INTEGER_FORMAT "; PSI is per host, not per CPU)",
					      resources[r], stalled, span, permille, json_integer_value(bound));
			}
		}
	}
	ev_grade_close(&v, out);
}

void ev_grade_interference(const json_t *rules, const json_t *interference, const struct ev_grade_cpus *c, json_t *out)
{
	struct around a = {json_object_get(interference, "before"), json_object_get(interference, "after")};
	smi(rules, &a, c, out);
	thermal_throttle(rules, &a, c, out);
	effective_frequency(rules, &a, c, out);
	steal(rules, &a, c, out);
	swapping(rules, &a, out);
	pressure(rules, &a, out);
}

/* The sum over the measured CPUs of one counter's rise, or null when any
 * is not recorded. */
static json_t *over_sides(const struct around *a, const struct ev_grade_cpus *c, const char *k3, const char *k4,
			  int64_t *sum)
{
	*sum = 0;
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		int64_t d;
		const char *why;
		if (!delta(a, "cpus", key, k3, k4, &d, &why) || d > INT64_MAX / CPU_SETSIZE || d < INT64_MIN / CPU_SETSIZE)
			return json_null();
		*sum += d; /* at most CPU_SETSIZE terms, each within a CPU_SETSIZE-th of the range */
	}
	return c->have_sides ? json_integer((json_int_t)*sum) : json_null();
}

json_t *ev_grade_interference_figures(const json_t *interference, const struct ev_grade_cpus *c)
{
	struct around a = {json_object_get(interference, "before"), json_object_get(interference, "after")};
	json_t *marked = json_array();
	int64_t n, d, dm;
	const char *why;
	json_t *smis = over_sides(&a, c, "smi", NULL, &n);
	if (json_is_integer(smis) && n > 0)
		json_array_append_new(marked, json_string("SMI"));
	/* throttle counts: every *_count file of every measured CPU */
	json_t *throttle = json_null();
	int64_t throttled = 0;
	int whole = c->have_sides;
	char key[16];
	for (int cpu = next_side(c, 0, key); cpu >= 0 && whole; cpu = next_side(c, cpu + 1, key)) {
		const json_t *files = at(a.after, "cpus", key, "thermal_throttle", NULL);
		const char *file;
		json_t *x;
		whole = json_is_object(files) && json_object_size(files) > 0;
		json_object_foreach((json_t *)files, file, x) {
			if (!delta(&a, "cpus", key, "thermal_throttle", file, &d, &why))
				whole = 0;
			else
				throttled += d;
		}
	}
	if (whole) {
		throttle = json_integer((json_int_t)throttled);
		if (throttled > 0)
			json_array_append_new(marked, json_string("throttled"));
	}
	/* the lowest effective frequency of a measured CPU */
	json_t *frequency = json_null();
	for (int cpu = next_side(c, 0, key); cpu >= 0; cpu = next_side(c, cpu + 1, key)) {
		if (!delta(&a, "cpus", key, "aperf", NULL, &d, &why) ||
		    !delta(&a, "cpus", key, "mperf", NULL, &dm, &why) || dm <= 0 || d < 0)
			continue;
		int64_t pct = (int64_t)((__int128)d * 100 / dm);
		if (json_is_null(frequency) || pct < json_integer_value(frequency)) {
			json_decref(frequency);
			frequency = json_integer((json_int_t)pct);
		}
	}
	json_t *steal = over_sides(&a, c, "stat", "steal", &n);
	json_int_t hz = json_integer_value(json_object_get(a.after, "ticks_per_second"));
	if (json_is_integer(steal)) {
		json_decref(steal);
		steal = hz > 0 ? json_integer((json_int_t)((__int128)n * 1000 / hz)) : json_null();
		if (n > 0)
			json_array_append_new(marked, json_string("steal"));
	}
	json_t *swapped = json_null();
	if (delta(&a, "vmstat", "pswpin", NULL, NULL, &n, &why) && delta(&a, "vmstat", "pswpout", NULL, NULL, &d, &why)) {
		swapped = json_integer((json_int_t)(n + d));
		if (n + d > 0)
			json_array_append_new(marked, json_string("swapping"));
	}
	json_t *psi = json_object();
	int64_t span;
	int timed = delta(&a, "monotonic_ns", NULL, NULL, NULL, &span, &why) && span > 0;
	static const char *const resources[] = {"cpu", "memory", "io"};
	for (int r = 0; r < 3; r++)
		json_object_set_new(psi, resources[r],
				    timed && delta(&a, "pressure", resources[r], "some_total_us", NULL, &d, &why)
					    ? json_integer((json_int_t)((__int128)d * 1000000 / span))
					    : json_null());
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "smi", smis, "thermal_throttle", throttle,
			 "effective_frequency_pct", frequency, "steal_ms", steal, "swapped_pages", swapped,
			 "pressure_per_mille", psi, "marked", marked);
}
