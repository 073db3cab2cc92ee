/* SPDX-License-Identifier: Apache-2.0 */
/* hgrm: a series' exact distribution, and HdrHistogram's percentile
 * distribution text (".hgrm") of it, the file HdrHistogram's plotter and
 * its users' scripts read (doc/formats.md "HdrHistogram export").
 *
 * The layout is that of HdrHistogram's outputPercentileDistribution
 * (Java, the reference), with 5 reporting ticks per half distance:
 *     "%12s %14s %10s %14s\n\n" Value, Percentile, TotalCount, 1/(1-Percentile)
 *     "%12.Df %2.12f %10d %14.2f\n" per reported percentile level
 *     "%12.Df %2.12f %10d\n" the last line, at percentile 1
 *     "#[Mean    = %12.Df, StdDeviation   = %12.Df]\n"
 *     "#[Max     = %12.Df, Total count    = %12d]\n"
 *     "#[Buckets = %12d, SubBuckets     = %12d]\n"
 * The levels are HdrHistogram's: from 0, in steps of 100 / (5 * 2^(k+1))
 * percent while the level is below 100 (1 - 2^-(k+1)), each reported at
 * the first value whose cumulative count reaches it, with that count; then
 * the maximum at 100%. Here every value is exact (no bucket holds two
 * values), so Buckets and SubBuckets are 0. Pure functions; no state.
 */
#ifndef EV_HGRM_H
#define EV_HGRM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Distinct values in increasing order, with how many samples hold each. */
struct ev_distribution {
	uint64_t *value, *count;
	size_t n;        /* distinct values */
	uint64_t total;  /* samples */
};

/* The distribution of n samples (v is not changed): one copy of v sorted
 * in place (radix, no second buffer), then shrunk to its distinct values.
 * stop (may be NULL) is looked at between slices and buckets.
 * @return 0; -1 when out of memory; -2 when stop was set (out empty). */
int ev_distribution_of(const uint64_t *v, size_t n, struct ev_distribution *out, const volatile sig_atomic_t *stop);

/* a and b together (HdrHistogram's add). @return 0, or -1. */
int ev_distribution_merge(const struct ev_distribution *a, const struct ev_distribution *b,
			  struct ev_distribution *out);

void ev_distribution_free(struct ev_distribution *d);

/* The .hgrm text of d (total > 0), values divided by scale and printed
 * with decimals digits after the point: a malloc'd NUL-terminated buffer
 * of *len bytes, or NULL when out of memory. */
char *ev_hgrm_text(const struct ev_distribution *d, double scale, int decimals, size_t *len);

#endif
