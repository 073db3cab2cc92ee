/* SPDX-License-Identifier: Apache-2.0 */
/* bootstrap: how sure a difference between two sets of runs is, from the
 * runs alone (doc/design.md "Comparing runs").
 *
 * A campaign's unit of evidence is the run: each run gives one value of a
 * statistic (its p99, say), and two arms are compared by the median of
 * their runs' values. The interval around the difference of two medians is
 * found by resampling runs, never pooled samples: each resample draws, with
 * replacement, as many runs from each side as it has, and every statistic
 * is taken from the same drawn runs.
 *
 * The draws are deterministic: one splitmix64 generator seeded with the
 * user's seed; per resample, A's indices and then B's, each index
 * (next() * n) >> 64 in 128-bit arithmetic. Anyone can redraw them (the
 * test does, in Python). The interval is the percentile interval: of the
 * R resampled differences sorted, the values at 0-based ranks
 * floor(R (1 - c) / 2) and R - 1 minus that, for confidence c.
 * Pure functions; no global state.
 */
#ifndef EV_BOOTSTRAP_H
#define EV_BOOTSTRAP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"

struct ev_rng {
	uint64_t state;
};

/* splitmix64 (Steele, Lea and Flood 2014): the next 64 bits. */
uint64_t ev_rng_next(struct ev_rng *g);

/* A uniform index below n (n > 0): (next() * n) >> 64. */
size_t ev_rng_below(struct ev_rng *g, size_t n);

/* The median of n values (n > 0): the middle one, or the mean of the two
 * middle ones. v is reordered (selected, not sorted). */
double ev_median(double *v, size_t n);

/* The interval of one statistic. ratio_defined is 0 when some resample's
 * median of A was 0 (no ratio to take). */
struct ev_bootstrap_interval {
	double diff_lo, diff_hi;     /* of median(B) - median(A) */
	double ratio_lo, ratio_hi;   /* of median(B) / median(A) */
	int ratio_defined;
};

/* Resample the runs of two sides: a[s][i] is statistic s of A's run i
 * (na runs, na > 0), b likewise (nb > 0), nstats statistics; resamples
 * (> 0) resamples from seed at confidence (0 < confidence < 1). out gets
 * nstats intervals. stop (may be NULL) is polled between resamples.
 * @return EV_OK; EV_INTERRUPTED when *stop became set; EV_ERROR when out
 * of memory. */
ev_status ev_bootstrap_runs(const double *const *a, size_t na, const double *const *b, size_t nb, size_t nstats,
			    uint64_t resamples, uint64_t seed, double confidence, struct ev_bootstrap_interval *out,
			    volatile sig_atomic_t *stop, struct ev_error *err);

#endif
