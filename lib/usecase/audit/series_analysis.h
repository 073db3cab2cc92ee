/* SPDX-License-Identifier: Apache-2.0 */
/* series_analysis: what an audit recomputes from one run's raw series,
 * shared by the audit of a series (lib/usecase/audit/audit_series) and audit
 * campaign.
 *
 * Every order statistic of a series is found at once by histogram, the
 * samples read only (lib/stats/quantile.h), so the series keeps its own order
 * for what depends on it (the time series of a plot, the journal-page
 * cohorts). Nothing is rescaled: values are in the series' own ticks.
 */
#ifndef EV_SERIES_ANALYSIS_H
#define EV_SERIES_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/stats/nativestats.h"
#include "lib/stats/quantile.h"
#include "lib/stats/hgrm.h"
#include "lib/stats/series.h"
#include "lib/core/status.h"

#define EV_ANALYSIS_MAX_QUANTILES 64

/* A quantile asked for, by rule. */
struct ev_wanted {
	enum ev_qrule rule;
	struct ev_prob p;
	int given;                    /* index set by the caller, not by the rule */
	uint64_t index, g_num, g_den; /* filled by analysis_plan */
	double value;                 /* filled by ev_analysis_select */
	uint64_t lo, hi;              /* the order statistics value blends: value = lo + (hi - lo) g */
};

/* The order statistics of a series: fill want[] (at most
 * EV_ANALYSIS_MAX_QUANTILES + 1 of them) with their indices and values, all
 * found at once by histogram, v read only (reordered only when memory for
 * the histogram's scratch is lacking). */
void ev_analysis_select(uint64_t *v, size_t n, const struct ev_distribution *sorted, struct ev_wanted *want,
			   size_t nwant);

/* The series' moments (count, exact sum, min, max) as JSON, with mean
 * (the exact sum over the count, a decimal string of 9 digits). */
json_t *ev_analysis_moments_json(const struct ev_moments *m);

/* A selected quantile for canonical JSON: an integer, or for a blend of
 * two order statistics (linear) its exact value as a decimal string. */
json_t *ev_analysis_quantile_json(const struct ev_wanted *w);

/* Which clock sockperf ran on, from the evidence (the run's argv, or the
 * user's word): on its TSC clock (the default) a latency rebuilt from its
 * log may be 1 ns off its own; on its monotonic clock (--no-rdtsc) never.
 * Unknown: no tolerance, and a 1-ns difference says what to state. */
enum ev_sockperf_clock { EV_SOCKPERF_CLOCK_UNKNOWN, EV_SOCKPERF_CLOCK_TSC, EV_SOCKPERF_CLOCK_MONOTONIC };

const char *ev_analysis_sockperf_clock_name(enum ev_sockperf_clock c);

/* Compare each statistic the native report states with its recomputation
 * from s (whose samples may be reordered): a JSON array of {name, rule,
 * native, recomputed, verdict[, why]} and, in *differ, how many differ or
 * are missing. Verdicts:
 *   "equal"          the same text, or the same integer or double
 *   "differs"        anything else
 *   "missing"        a statistic the tool always prints is not there
 *   "not compared"   this series cannot give it (another unit, empty), why
 *   "not recomputable"  a printed fact no series shows (the report's notes)
 *   "equal at sockperf's double rank"  its rank (int)(0.5 + p N) in double
 *   "equal within the TSC conversion"  only when clock is TSC, and only in
 *                    the direction its per-timestamp truncation moves a
 *                    value: an order statistic rebuilt from the log is its
 *                    own or 1 ns above; a mean, deviation or duration
 *                    within 1 ns either side.
 * Exact everywhere else. */
json_t *ev_analysis_compare_native(const struct ev_native *nat, struct ev_series *s,
				     const struct ev_distribution *sorted, const struct ev_moments *m,
				enum ev_sockperf_clock clock, unsigned *differ);

/* The rows of what a report lacks ("missing") and of what it prints that
 * no series shows ("not recomputable"), appended to rows. @return how many
 * are missing (each a failure). */
size_t ev_analysis_native_rest(const struct ev_native *nat, json_t *rows);

/* The coverage of rows (ev_analysis_compare_native's) in words, into out:
 * "recomputed 13 of 14 printed statistics (not recomputable: RunTime)". */
void ev_analysis_native_coverage(const json_t *rows, char *out, size_t cap);

/* Pacing from a scheduler-delay series (in the same ticks) and the rate
 * asked: the deadlines rebuilt, calls, achieved rate, delay quantiles
 * (nearest-rank), the true maximum, the deadlines missed and re-anchored.
 * d is reordered. */
json_t *ev_analysis_pacing(struct ev_series *d, uint64_t rate, uint64_t *missed_out);

/* The journal-page cohorts of a run: page[k] is 1 when measured call k's
 * record made the first write to a new page of the journal. For the
 * labels as they are and displaced by 1, 8 and 128 records: each cohort's
 * calls, its calls above threshold and their share, its p99
 * (nearest-rank). v is the series in its own order (not reordered). */
json_t *ev_analysis_cohorts(const uint64_t *v, size_t n, const uint8_t *page, uint64_t threshold);

/* The page labels of the measured calls from the sender's llfix journal
 * (dir): warmups orders after the Logon, then n measured ones. *labels is
 * malloc'd (n bytes). @return EV_OK; EV_MISMATCH with err saying why the
 * journal does not line up with the series (without naming dir); EV_ERROR
 * on I/O. */
ev_status ev_analysis_page_labels(const char *dir, uint64_t warmups, size_t n, uint64_t page_size,
			       uint8_t **labels, struct ev_error *err);

#endif
