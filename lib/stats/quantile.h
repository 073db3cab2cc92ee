/* SPDX-License-Identifier: Apache-2.0 */
/* quantile: order statistics of a latency series, exactly, by a named rule.
 *
 * A quantile is named by its rule (doc/design.md "Quantiles"); for N sorted
 * values x[0..N-1] and p in [0, 1]:
 *   nearest-rank   x[r-1], r = ceil(p N), at least 1
 *   floor-index    x[floor(p N)], at most N-1 (llfix's benchmark)
 *   round-half-up  x[r-1], r = floor(p N + 1/2), at least 1 (sockperf,
 *                  HdrHistogram)
 *   linear         x[j] + g (x[j+1] - x[j]), j + g = p (N - 1) (numpy's
 *                  default)
 * p is read from its decimal text ("99.9" percent is 999/1000) and every
 * rank is computed in integer arithmetic, so no rank is off by one at
 * N = 1000 or 5000 where p N is a whole number that a double misses.
 *
 * The values are selected in place (the array is reordered, never
 * copied): memory stays the series' own. Pure functions; no state.
 */
#ifndef EV_QUANTILE_H
#define EV_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

enum ev_qrule { EV_QRULE_NEAREST_RANK, EV_QRULE_FLOOR_INDEX, EV_QRULE_ROUND_HALF_UP, EV_QRULE_LINEAR };
#define EV_QRULE_COUNT 4

/* "nearest-rank", ... and back. @return -1 when unknown. */
const char *ev_qrule_name(enum ev_qrule rule);
int ev_qrule_parse(const char *name);

/* A probability as an exact fraction num/den (den a power of ten). */
struct ev_prob {
	uint64_t num, den;
};

/* Read a percentage ("50", "99.9", "99.999", "100"): at most 9 decimals,
 * 0 to 100. @return 0, or -1 when it is not one. */
int ev_prob_parse_percent(const char *text, struct ev_prob *out);

/* The percentage as the shortest text that reads back ("99.9"). */
void ev_prob_format(struct ev_prob p, char *out, size_t cap);

/* The 0-based index (or, for linear, the lower index) the rule takes
 * for p of n values, and for linear the weight of the next value as an
 * exact fraction *g_num / *g_den (0 for the others). n >= 1. */
uint64_t ev_quantile_index(enum ev_qrule rule, struct ev_prob p, uint64_t n, uint64_t *g_num,
			   uint64_t *g_den);

/* Everything a series' summary needs, in one pass: count, exact sum,
 * minimum, maximum. The pass ends early, m incomplete, when the process's
 * stop flag (lib/core/stop) is set: the caller looks at it after. */
struct ev_moments {
	uint64_t n, min, max;
	unsigned __int128 sum;
};
void ev_moments_of(const uint64_t *v, size_t n, struct ev_moments *m);

/* The mean as a double (the exact sum divided once). */
double ev_moments_mean(const struct ev_moments *m);

/* Select in place: afterwards, for each index in want (nwant of them,
 * any order, each < n), v[index] holds the value a full sort would put
 * there. v is reordered. */
void ev_select_many(uint64_t *v, size_t n, const uint64_t *want, size_t nwant);

/* The values at the 0-based ranks (k of them, each < n) of v as a full
 * sort would place them, into out, without reordering v: a histogram over
 * logarithmic buckets (the exponent and 8 more bits) narrows each rank to
 * a range of values, ranges still heavy are narrowed again with finer
 * buckets, and the values in the final ranges (at most n/8 of them, or a
 * range of one value) are gathered and selected. A few passes over v,
 * read only. @return 0; -1 when memory for the scratch is lacking
 * (then nothing is written); -2 when the process's stop flag
 * (lib/core/stop) was set during a pass (nothing written). */
int ev_order_stats(const uint64_t *v, size_t n, const uint64_t *ranks, size_t k, uint64_t *out);

/* The quantile of v (n values, selected in place as needed; call after
 * ev_select_many with this quantile's indices, or let it select). */
double ev_quantile(uint64_t *v, size_t n, enum ev_qrule rule, struct ev_prob p);

#endif
