/* SPDX-License-Identifier: Apache-2.0 */
/* bootstrap: percentile intervals over resampled runs (bootstrap.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats/bootstrap.h"

uint64_t ev_rng_next(struct ev_rng *g)
{
	uint64_t z = (g->state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

size_t ev_rng_below(struct ev_rng *g, size_t n)
{
	return (size_t)(((unsigned __int128)ev_rng_next(g) * n) >> 64);
}

/* The k-th smallest of v[0..n-1] (v reordered): Hoare's selection, which
 * stops at equal keys, so that the many ties of resampled medians keep it
 * linear; a full sort of a million resamples would not notice a signal
 * for a second. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

double ev_median(double *v, size_t n)
{
	/* selected, not sorted: a resample's median is taken 12 times R */
	size_t k = n / 2;
	double upper = select_kth(v, n, k), lower = v[0];
	if (n % 2)
		return upper;
	for (size_t i = 1; i < k; i++) /* everything before k is at most upper */
		lower = v[i] > lower ? v[i] : lower;
	return (lower + upper) / 2;
}

ev_status ev_bootstrap_runs(const double *const *a, size_t na, const double *const *b, size_t nb, size_t nstats,
			    uint64_t resamples, uint64_t seed, double confidence, struct ev_bootstrap_interval *out,
			    volatile sig_atomic_t *stop, struct ev_error *err)
{
	size_t *ia = malloc(na * sizeof *ia), *ib = malloc(nb * sizeof *ib);
	double *scratch = malloc((na > nb ? na : nb) * sizeof *scratch);
	double *diff = calloc(nstats * resamples, sizeof *diff), *ratio = calloc(nstats * resamples, sizeof *ratio);
	int *zero = calloc(nstats, sizeof *zero);
	ev_status st = EV_OK;
	if (!ia || !ib || !scratch || !diff || !ratio || !zero) {
		st = ev_error_set(err, EV_ERROR, "out of memory for %llu resamples of %zu statistics",
				  (unsigned long long)resamples, nstats);
		goto out;
	}
	struct ev_rng g = {seed};
	for (uint64_t r = 0; r < resamples; r++) {
		if (stop && *stop) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal while resampling");
			goto out;
		}
		for (size_t i = 0; i < na; i++)
			ia[i] = ev_rng_below(&g, na);
		for (size_t i = 0; i < nb; i++)
			ib[i] = ev_rng_below(&g, nb);
		for (size_t s = 0; s < nstats; s++) {
			for (size_t i = 0; i < na; i++)
				scratch[i] = a[s][ia[i]];
			double ma = ev_median(scratch, na);
			for (size_t i = 0; i < nb; i++)
				scratch[i] = b[s][ib[i]];
			double mb = ev_median(scratch, nb);
			diff[s * resamples + r] = mb - ma;
			if (ma == 0)
				zero[s] = 1;
			else
				ratio[s * resamples + r] = mb / ma;
		}
	}
	size_t lo = (size_t)floor((double)resamples * (1 - confidence) / 2), hi = (size_t)resamples - 1 - lo;
	for (size_t s = 0; s < nstats; s++) {
		double *d = diff + s * resamples, *q = ratio + s * resamples;
		if (stop && *stop) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal while resampling");
			goto out;
		}
		out[s].diff_lo = select_kth(d, resamples, lo);
		out[s].diff_hi = select_kth(d, resamples, hi);
		out[s].ratio_defined = !zero[s];
		if (!zero[s]) {
			out[s].ratio_lo = select_kth(q, resamples, lo);
			out[s].ratio_hi = select_kth(q, resamples, hi);
		} else {
			out[s].ratio_lo = out[s].ratio_hi = 0;
		}
	}
out:
	free(ia);
	free(ib);
	free(scratch);
	free(diff);
	free(ratio);
	free(zero);
	return st;
}
