/* SPDX-License-Identifier: Apache-2.0 */
/* changepoint: E-divisive means with a permutation test (changepoint.h). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/stats/bootstrap.h"
#include "lib/stats/changepoint.h"

/* What one search keeps besides the series: vectors of its length, never
 * a matrix (at the cap of 4,096 values an n^2 table of prefix sums was
 * 134 MB, written again for every permutation). */
struct scratch {
	double *from_start; /* [j]: sum over i in [s, t) of |x_i - x_j|, for the split t at hand */
	double *before;     /* [j]: sum over i in [s, j) of |x_i - x_j| */
	double *inv;        /* [c]: 1 / c, for c = a + b */
	double *inv_pairs;  /* [b]: 1 / C(b, 2), 0 for b < 2 (a within term of one value is 0) */
};

/* sums[j] += |v - x[j]| for j in [from, to): four at a time, which the
 * compiler turns into vector instructions at -O2 (a plain loop of unknown
 * length it leaves scalar, and this is half of every permutation). */
static void add_distances(double *restrict sums, const double *restrict x, double v, size_t from, size_t to)
{
	size_t j = from;
	for (; j + 4 <= to; j += 4) {
		sums[j] += fabs(v - x[j]);
		sums[j + 1] += fabs(v - x[j + 1]);
		sums[j + 2] += fabs(v - x[j + 2]);
		sums[j + 3] += fabs(v - x[j + 3]);
	}
	for (; j < to; j++)
		sums[j] += fabs(v - x[j]);
}

/* The best split of the segment [s, e) of x: over every t and every end
 * k (t - s >= m, k - t >= m, k <= e), A = [s, t) and B = [t, k), the
 * largest Q; its t (0 when no split is allowed). O((e - s)^2) time, O(e
 * - s) memory: the sums over A grow with t, those over B with k, each by
 * one value's distances. */
static size_t best_split(const double *x, size_t s, size_t e, size_t m, const struct scratch *w, double *q_out)
{
	size_t best = 0;
	double best_q = -INFINITY, within_a = 0;
	double *R = w->from_start, *D = w->before;
	*q_out = -INFINITY;
	if (e - s < 2 * m)
		return 0;
	for (size_t j = s; j < e; j++)
		D[j] = R[j] = 0;
	for (size_t i = s; i < e; i++) /* by rows: each column its own sum, so the loop runs wide */
		add_distances(D, x, x[i], i + 1, e);
	for (size_t t = s + 1; t + m <= e; t++) {
		double joins = x[t - 1]; /* x[t-1] joins A = [s, t) */
		within_a += R[t - 1];
		add_distances(R, x, joins, t, e);
		if (t - s < m)
			continue;
		double a = (double)(t - s), between = 0, within_b = 0, wa = within_a * w->inv_pairs[t - s];
		for (size_t k = t + 1; k <= e; k++) { /* x[k-1] joins B = [t, k) */
			double r = R[k - 1];
			between += r;
			within_b += D[k - 1] - r;
			if (k - t < m)
				continue;
			double b = (double)(k - t), inv = w->inv[k - s];
			/* a b / (a + b) (2 between / (a b) - wa - wb), without a division */
			double q = 2 * between * inv - a * b * inv * (wa + within_b * w->inv_pairs[k - t]);
			if (q > best_q) {
				best_q = q;
				best = t;
			}
		}
	}
	*q_out = best_q;
	return best;
}

/* The segments' best candidate: its segment (in *seg), split and Q. */
static size_t best_of_segments(const double *x, const size_t *bounds, size_t nseg, size_t m, const struct scratch *w,
			       size_t *seg, double *q_out)
{
	size_t best = 0;
	*q_out = -INFINITY;
	for (size_t k = 0; k < nseg; k++) {
		double q;
		size_t t = best_split(x, bounds[k], bounds[k + 1], m, w, &q);
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

/* Permutations are drawn in batches, in order, from the one generator,
 * and evaluated on every core: the same draws as one at a time, so the
 * same p-values bit for bit. */
#define PER_WORKER 4 /* shuffles a worker takes per batch: few, since a refused split stops early */
#define MAX_WORKERS 8
#define BATCH (PER_WORKER * MAX_WORKERS)
#define THREADED_FROM 256 /* fewer values: a thread costs more than it saves */

struct worker {
	const double *shuffles; /* count series of n values */
	size_t n, count, first, step;
	const size_t *bounds;
	size_t nseg, m;
	struct scratch w;       /* its own from_start and before; inv and inv_pairs shared */
	double *q;              /* [i]: the largest candidate Q of shuffle i */
};

static void *evaluate(void *arg)
{
	struct worker *k = arg;
	for (size_t i = k->first; i < k->count; i += k->step)
		best_of_segments(k->shuffles + i * k->n, k->bounds, k->nseg, k->m, &k->w, NULL, &k->q[i]);
	return NULL;
}

/* Each shuffle's largest candidate Q into q, over nworkers (the calling
 * thread one of them; a worker whose thread cannot start is done here). */
static void evaluate_batch(struct worker *workers, size_t nworkers)
{
	pthread_t threads[MAX_WORKERS];
	int started[MAX_WORKERS] = {0};
	for (size_t i = 1; i < nworkers; i++)
		started[i] = pthread_create(&threads[i], NULL, evaluate, &workers[i]) == 0;
	evaluate(&workers[0]);
	for (size_t i = 1; i < nworkers; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			evaluate(&workers[i]);
	}
}

static size_t worker_count(size_t n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < THREADED_FROM || cores < 2)
		return 1;
	return cores > MAX_WORKERS ? MAX_WORKERS : (size_t)cores;
}

/* The segments' values shuffled within each segment (Fisher-Yates, from
 * the end), into out. */
static void shuffle_within(const double *x, size_t n, const size_t *bounds, size_t nseg, struct ev_rng *g, double *out)
{
	memcpy(out, x, n * sizeof *x);
	for (size_t k = 0; k < nseg; k++)
		for (size_t i = bounds[k + 1] - 1; i > bounds[k]; i--) {
			size_t j = bounds[k] + ev_rng_below(g, i - bounds[k] + 1);
			double keep = out[i];
			out[i] = out[j];
			out[j] = keep;
		}
}

/* How many of R shuffles have a candidate Q at least q: counted in order,
 * and stopped once p = (1 + that) / (R + 1) exceeds alpha (p only grows:
 * the split is refused whatever the shuffles left would say, and nothing
 * after a refusal draws from g). @return EV_OK or EV_INTERRUPTED. */
static ev_status count_as_large(struct worker *workers, size_t nworkers, double *shuffles, const double *x, size_t n,
				const size_t *bounds, size_t nseg, const struct ev_changepoint_options *o, struct ev_rng *g,
				double q, uint64_t *as_large, volatile sig_atomic_t *stop)
{
	*as_large = 0;
	for (uint64_t done = 0; done < o->permutations;) {
		if (stop && *stop)
			return EV_INTERRUPTED;
		size_t batch = PER_WORKER * nworkers;
		size_t count = o->permutations - done < batch ? (size_t)(o->permutations - done) : batch;
		for (size_t i = 0; i < count; i++)
			shuffle_within(x, n, bounds, nseg, g, shuffles + i * n);
		for (size_t i = 0; i < nworkers; i++) {
			workers[i].count = count;
			workers[i].nseg = nseg;
		}
		evaluate_batch(workers, nworkers);
		for (size_t i = 0; i < count; i++) {
			*as_large += workers[0].q[i] >= q;
			if ((double)(1 + *as_large) / (double)(o->permutations + 1) > o->alpha)
				return EV_OK;
		}
		done += count;
	}
	return EV_OK;
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
	if (n > EV_CHANGEPOINT_MAX)
		return ev_error_set(err, EV_USAGE, "change points: %zu values; at most %d are searched", n, EV_CHANGEPOINT_MAX);
	/* bounds: the segments' starts, then n; at most n + 1 of them */
	size_t len = n + 1, nworkers = worker_count(n), nseg = 1;
	size_t *bounds = malloc((n + 2) * sizeof *bounds);
	double *shuffles = malloc(BATCH * len * sizeof *shuffles), *q = malloc(BATCH * sizeof *q);
	double *shared = malloc(2 * len * sizeof *shared), *own = malloc(2 * len * nworkers * sizeof *own);
	struct worker workers[MAX_WORKERS];
	if (!bounds || !shuffles || !q || !shared || !own) {
		free(bounds), free(shuffles), free(q), free(shared), free(own);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	for (size_t c = 0; c < len; c++) {
		shared[c] = c ? 1 / (double)c : 0;
		shared[len + c] = c >= 2 ? 1 / ((double)c * (double)(c - 1) / 2) : 0;
	}
	for (size_t i = 0; i < nworkers; i++)
		workers[i] = (struct worker){.shuffles = shuffles, .n = n, .first = i, .step = nworkers, .bounds = bounds,
					     .m = o->min_segment, .q = q,
					     .w = {own + 2 * len * i, own + 2 * len * i + len, shared, shared + len}};
	bounds[0] = 0;
	bounds[1] = n;
	struct ev_rng g = {o->seed};
	ev_status st = EV_OK;
	while (*nout < cap) {
		size_t seg = 0;
		double best_q;
		size_t t = best_of_segments(x, bounds, nseg, o->min_segment, &workers[0].w, &seg, &best_q);
		if (!t)
			break;
		uint64_t as_large;
		if (count_as_large(workers, nworkers, shuffles, x, n, bounds, nseg, o, &g, best_q, &as_large, stop) != EV_OK) {
			st = ev_error_set(err, EV_INTERRUPTED, "stopped by a signal");
			break;
		}
		double p = (double)(1 + as_large) / (double)(o->permutations + 1);
		if (p > o->alpha)
			break;
		out[*nout] = (struct ev_changepoint){.index = t, .q = best_q, .p_value = p, .order = *nout};
		(*nout)++;
		memmove(&bounds[seg + 2], &bounds[seg + 1], (nseg - seg) * sizeof *bounds);
		bounds[seg + 1] = t;
		nseg++;
	}
	free(bounds), free(shuffles), free(q), free(shared), free(own);
	if (st == EV_OK && *nout > 1)
		qsort(out, *nout, sizeof *out, by_index);
	return st;
}
