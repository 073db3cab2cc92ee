/* SPDX-License-Identifier: Apache-2.0 */
/* bootstrap: the generator is splitmix64 (its published first outputs for
 * seed 0); medians of odd and even counts; an interval that any seed must
 * give (runs of 100, 110, 120 against 80, 90: median(B) - median(A) spans
 * -40 to -10, and every resample's extremes are likely enough to be its
 * 2.5% and 97.5% points); medians by selection agree with a full sort; the same seed draws the same interval and,
 * over few resamples, another seed another; a zero median leaves the ratio undefined; a stop
 * is obeyed. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "lib/stats/bootstrap.h"

static void intervals(const double *a, size_t na, const double *b, size_t nb, uint64_t resamples, uint64_t seed,
		      struct ev_bootstrap_interval *out)
{
	const double *as[1] = {a}, *bs[1] = {b};
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_bootstrap_runs(as, na, bs, nb, 1, resamples, seed, 0.95, out, NULL, &err), EV_OK);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	struct ev_rng g = {0};
	CHECK(ev_rng_next(&g) == 0xe220a8397b1dcdafu);
	CHECK(ev_rng_next(&g) == 0x6e789e6aa1b965f4u);
	CHECK(ev_rng_next(&g) == 0x06c45d188009454fu);
	size_t seen[3] = {0};
	for (int i = 0; i < 3000; i++)
		seen[ev_rng_below(&g, 3)]++;
	CHECK(seen[0] > 900 && seen[1] > 900 && seen[2] > 900);

	double odd[] = {9, 1, 5}, even[] = {10, 1, 4, 7};
	CHECK(ev_median(odd, 3) == 5);
	CHECK(ev_median(even, 4) == 5.5);
	/* selection against a full sort: ties, runs, every length to 64 */
	int agree = 1;
	for (int trial = 0; trial < 2000; trial++) {
		size_t n = 1 + (size_t)(trial % 64);
		double v[64], sorted[64];
		for (size_t i = 0; i < n; i++)
			v[i] = sorted[i] = (double)ev_rng_below(&g, trial % 3 ? 10 : 1000);
		qsort(sorted, n, sizeof *sorted, by_value);
		double want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		agree &= ev_median(v, n) == want;
	}
	CHECK(agree);

	double a[] = {110, 100, 120}, b[] = {90, 80};
	struct ev_bootstrap_interval iv, again, other;
	intervals(a, 3, b, 2, 10000, 1, &iv);
	CHECK(iv.diff_lo == -40 && iv.diff_hi == -10);
	CHECK(iv.ratio_defined && fabs(iv.ratio_lo - 80.0 / 120) < 1e-12 && fabs(iv.ratio_hi - 0.9) < 1e-12);
	intervals(a, 3, b, 2, 10000, 12345, &other);
	CHECK(other.diff_lo == -40 && other.diff_hi == -10);

	double wa[] = {100, 103, 111, 118, 120, 131, 140}, wb[] = {95, 99, 104, 112, 125, 133};
	/* few resamples, so that the seed shows in the interval's ends */
	intervals(wa, 7, wb, 6, 40, 7, &iv);
	intervals(wa, 7, wb, 6, 40, 7, &again);
	intervals(wa, 7, wb, 6, 40, 8, &other);
	CHECK(iv.diff_lo == again.diff_lo && iv.diff_hi == again.diff_hi);
	CHECK(iv.diff_lo < 0 && iv.diff_hi > 0);
	CHECK(iv.diff_lo != other.diff_lo || iv.diff_hi != other.diff_hi || iv.ratio_lo != other.ratio_lo ||
	      iv.ratio_hi != other.ratio_hi);

	double za[] = {0, 4}, zb[] = {3, 5};
	intervals(za, 2, zb, 2, 10000, 1, &iv);
	CHECK(!iv.ratio_defined);
	CHECK(iv.diff_lo == -1 && iv.diff_hi == 5);

	volatile sig_atomic_t stop = 1;
	const double *as[1] = {wa}, *bs[1] = {wb};
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_bootstrap_runs(as, 7, bs, 6, 1, 10, 1, 0.95, &iv, &stop, &err), EV_INTERRUPTED);
	return check_exit("test_bootstrap_resamples_runs_from_its_seed");
}
