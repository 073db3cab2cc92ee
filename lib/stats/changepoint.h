/* SPDX-License-Identifier: Apache-2.0 */
/* changepoint: where a series of values (a statistic's campaign medians,
 * oldest first) changes its distribution, by E-divisive means (Matteson
 * and James 2014, "A nonparametric approach for multiple change point
 * analysis of multivariate data"; with alpha = 1, as MongoDB's and Apache
 * Otava's signal processing use it), found one at a time and each kept only
 * when a permutation test says it is not noise.
 *
 * The method, exactly (doc/formats.md, "History"):
 *  - For a segment x[s..e), a split t and an end k (t - s >= m, k - t >=
 *    m, k <= e, m the minimum segment length), with A = x[s..t) of a
 *    values and B = x[t..k) of b values:
 *        Q(t) = a b / (a + b) * (2/(a b) sum|A_i - B_j|
 *                                - sum_{i<j}|A_i - A_j| / C(a, 2)
 *                                - sum_{i<j}|B_i - B_j| / C(b, 2))
 *    (a within term is 0 for a segment of one value). The segment's
 *    candidate is the t of its largest Q over every t and k (the first t,
 *    then the first k, on a tie): the end k lets a change that comes and
 *    goes (up at 10, down at 20) be found, as in the paper.
 *  - The candidate of all segments with the largest Q is tested: R times,
 *    the values of every segment are shuffled within it (Fisher-Yates,
 *    drawing j = ev_rng_below(i + 1) for i from the end, segment by segment
 *    in order, from one splitmix64 seeded with the seed), and the largest
 *    candidate Q of the shuffled series taken. p = (1 + #{shuffled >= Q}) /
 *    (R + 1). When p <= alpha the split is kept and the search goes on over
 *    the new segments; else it stops.
 *    A test stops once p can only exceed alpha (its split is refused
 *    whatever the remaining shuffles say); the shuffles are drawn in
 *    order and evaluated on every core.
 * So the same values, options and seed give the same change points and
 * p-values, bit for bit. On a series without a change, the first test
 * keeps a split with probability at most alpha.
 *
 * Pure functions; no global state.
 */
#ifndef EV_CHANGEPOINT_H
#define EV_CHANGEPOINT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"

#define EV_CHANGEPOINT_MAX 4096 /* values searched at most: each permutation costs n^2 steps */

struct ev_changepoint_options {
	size_t min_segment;    /* m >= 1: the fewest values on each side of a change */
	double alpha;          /* 0 < alpha < 1: the largest p-value kept */
	uint64_t permutations; /* R >= 1 */
	uint64_t seed;
};

struct ev_changepoint {
	size_t index;   /* the first value of the new segment */
	double q;       /* its statistic Q */
	double p_value;
	size_t order;   /* 0 for the first change found, 1 for the next... */
};

/* The change points of x[0..n), sorted by index, into out (cap entries;
 * *nout of them). stop (may be NULL) is polled between permutations.
 * @return EV_OK; EV_USAGE for options out of range; EV_INTERRUPTED; EV_ERROR
 * when out of memory. */
ev_status ev_changepoints(const double *x, size_t n, const struct ev_changepoint_options *o,
			  struct ev_changepoint *out, size_t cap, size_t *nout, volatile sig_atomic_t *stop,
			  struct ev_error *err);

#endif
