/* SPDX-License-Identifier: Apache-2.0 */
/* changepoint: E-divisive means with a permutation test (changepoint.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats/bootstrap.h"
#include "lib/stats/changepoint.h"

/* Column prefix sums of the distances: P[r * n + j] = sum over i < r of
 * |v[i] - v[j]|, for r in [0, n] and j in [0, n); so every sum over a
 * block of rows costs one subtraction. */
static void prefix_sums(const double *v, size_t n, double *P)
{
	for (size_t j = 0; j < n; j++)
		P[j] = 0;
	for (size_t r = 1; r <= n; r++)
		for (size_t j = 0; j < n; j++)
			P[r * n + j] = P[(r - 1) * n + j] + fabs(v[r - 1] - v[j]);
}

/* The best split of the segment [s, e): over every t and every end k
 * (t - s >= m, k - t >= m, k <= e), A = [s, t) and B = [t, k), the
 * largest Q; its t (0 when no split is allowed). O((e - s)^2) with P. */
static size_t best_split(const double *P, size_t n, size_t s, size_t e, size_t m, double *q_out)
{
	size_t best = 0;
	double best_q = -INFINITY, within_a = 0;
	*q_out = -INFINITY;
	if (e - s < 2 * m)
		return 0;
#define COL(lo, hi, j) (P[(hi) * n + (j)] - P[(lo) * n + (j)]) /* sum over rows [lo, hi) of column j */
	for (size_t t = s + 1; t + m <= e; t++) {
		within_a += COL(s, t - 1, t - 1); /* x[t-1] joins A = [s, t) */
		if (t - s < m)
			continue;
		double a = (double)(t - s), between = 0, within_b = 0;
		for (size_t k = t + 1; k <= e; k++) { /* x[k-1] joins B = [t, k) */
			between += COL(s, t, k - 1);
			within_b += COL(t, k - 1, k - 1);
			if (k - t < m)
				continue;
			double b = (double)(k - t);
			double q = a * b / (a + b) *
				   (2 * between / (a * b) - (a >= 2 ? within_a / (a * (a - 1) / 2) : 0) -
				    (b >= 2 ? within_b / (b * (b - 1) / 2) : 0));
			if (q > best_q) {
				best_q = q;
				best = t;
			}
		}
	}
#undef COL
	*q_out = best_q;
	return best;
}

/* The segments' best candidate: its segment (in *seg), split and Q. */
static size_t best_of_segments(const double *P, size_t n, const size_t *bounds, size_t nseg, size_t m, size_t *seg,
			       double *q_out)
{
	size_t best = 0;
	*q_out = -INFINITY;
	for (size_t k = 0; k < nseg; k++) {
		double q;
		size_t t = best_split(P, n, bounds[k], bounds[k + 1], m, &q);
		if (t && q > *q_out) {
			*q_out = q;
			best = t;
			if (seg)
				*seg = k;
		}
	}
	return best;
}

static int by_index(const void *a, const void *b)
{
	const struct ev_changepoint *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

ev_status ev_changepoints(const double *x, size_t n, const struct ev_changepoint_options *o,
			  struct ev_changepoint *out, size_t cap, size_t *nout, volatile sig_atomic_t *stop,
			  struct ev_error *err)
{
	*nout = 0;
	if (!o->min_segment || !(o->alpha > 0 && o->alpha < 1) || !o->permutations)
		return ev_error_set(err, EV_USAGE, "change points: the minimum segment must be at least 1, alpha between 0 "
				    "and 1, and at least one permutation");
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return ev_error_set(err, EV_USAGE, "change points: value %zu is not a finite number", i);
	/* bounds: the segments' starts, then n; at most n + 1 of them */
	if (n > EV_CHANGEPOINT_MAX)
		return ev_error_set(err, EV_USAGE, "change points: %zu values; at most %d are searched", n, EV_CHANGEPOINT_MAX);
	size_t *bounds = malloc((n + 2) * sizeof *bounds), nseg = 1;
	double *shuffled = malloc((n ? n : 1) * sizeof *shuffled);
	double *P = malloc((n + 1) * (n ? n : 1) * sizeof *P), *Pr = malloc((n + 1) * (n ? n : 1) * sizeof *Pr);
	if (!bounds || !shuffled || !P || !Pr) {
		free(bounds), free(shuffled), free(P), free(Pr);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	prefix_sums(x, n, P);
	bounds[0] = 0;
	bounds[1] = n;
	struct ev_rng g = {o->seed};
	ev_status st = EV_OK;
	while (*nout < cap) {
		size_t seg = 0;
		double q;
		size_t t = best_of_segments(P, n, bounds, nseg, o->min_segment, &seg, &q);
		if (!t)
			break;
		uint64_t as_large = 0;
		for (uint64_t r = 0; r < o->permutations; r++) {
			if (stop && *stop) {
				st = ev_error_set(err, EV_INTERRUPTED, "stopped by a signal");
				break;
			}
			memcpy(shuffled, x, n * sizeof *x);
			for (size_t k = 0; k < nseg; k++)
				for (size_t i = bounds[k + 1] - 1; i > bounds[k]; i--) {
					size_t j = bounds[k] + ev_rng_below(&g, i - bounds[k] + 1);
					double keep = shuffled[i];
					shuffled[i] = shuffled[j];
					shuffled[j] = keep;
				}
			double qr;
			prefix_sums(shuffled, n, Pr);
			best_of_segments(Pr, n, bounds, nseg, o->min_segment, NULL, &qr);
			as_large += qr >= q;
		}
		if (st != EV_OK)
			break;
		double p = (double)(1 + as_large) / (double)(o->permutations + 1);
		if (p > o->alpha)
			break;
		out[*nout] = (struct ev_changepoint){.index = t, .q = q, .p_value = p, .order = *nout};
		(*nout)++;
		memmove(&bounds[seg + 2], &bounds[seg + 1], (nseg - seg) * sizeof *bounds);
		bounds[seg + 1] = t;
		nseg++;
	}
	free(bounds);
	free(shuffled);
	free(P);
	free(Pr);
	if (st == EV_OK && *nout > 1)
		qsort(out, *nout, sizeof *out, by_index);
	return st;
}
