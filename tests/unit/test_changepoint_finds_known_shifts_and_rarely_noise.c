/* SPDX-License-Identifier: Apache-2.0 */
/* changepoint: E-divisive means finds a step at the index it was put (one
 * step, two steps, a step in the second half only), with p = 1/(R + 1)
 * when no shuffle comes near it; the search's Q equals the formula
 * computed pair by pair over every split and end; on pure noise a change is found in no more of 400
 * histories than the stated rate alpha allows (alpha plus three binomial
 * standard deviations); the same seed gives the same p-values bit for bit;
 * a minimum segment is honoured; bad options and values are refused. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/stats/bootstrap.h"
#include "lib/stats/changepoint.h"

static double gaussian(struct ev_rng *g)
{
	double u = ((double)(ev_rng_next(g) >> 11) + 0.5) * 0x1p-53, v = (double)(ev_rng_next(g) >> 11) * 0x1p-53;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static size_t find(const double *x, size_t n, size_t m, double alpha, uint64_t seed, struct ev_changepoint *out)
{
	struct ev_changepoint_options o = {.min_segment = m, .alpha = alpha, .permutations = 199, .seed = seed};
	struct ev_error err;
	ev_error_clear(&err);
	size_t found = 0;
	CHECK_INT_EQ(ev_changepoints(x, n, &o, out, 16, &found, NULL, &err), EV_OK);
	return found;
}

/* Q by its definition, pair by pair, for A = x[0..t) and B = x[t..n) */
static double q_by_definition(const double *x, size_t n, size_t t)
{
	double a = (double)t, b = (double)(n - t), between = 0, wa = 0, wb = 0;
	for (size_t i = 0; i < t; i++)
		for (size_t j = t; j < n; j++)
			between += fabs(x[i] - x[j]);
	for (size_t i = 0; i < t; i++)
		for (size_t j = i + 1; j < t; j++)
			wa += fabs(x[i] - x[j]);
	for (size_t i = t; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			wb += fabs(x[i] - x[j]);
	return a * b / (a + b) * (2 * between / (a * b) - wa / (a * (a - 1) / 2) - wb / (b * (b - 1) / 2));
}

int main(void)
{
	struct ev_rng noise = {42};
	struct ev_changepoint cp[16], again[16];
	double x[60];

	/* one step at 15 of 30 */
	for (size_t i = 0; i < 30; i++)
		x[i] = (i < 15 ? 100 : 130) + 3 * gaussian(&noise);
	size_t n = find(x, 30, 3, 0.05, 1, cp);
	CHECK_INT_EQ(n, 1);
	CHECK_INT_EQ(cp[0].index, 15);
	CHECK(cp[0].p_value == 1.0 / 200);
	/* the first split's Q is the largest Q by definition over every split t and end k */
	double best = -INFINITY;
	size_t best_t = 0;
	for (size_t t = 3; t <= 27; t++)
		for (size_t k = t + 3; k <= 30; k++)
			if (q_by_definition(x, k, t) > best)
				best = q_by_definition(x, k, t), best_t = t;
	CHECK_INT_EQ(best_t, 15);
	CHECK(fabs(cp[0].q - best) <= 1e-9 * best);

	/* two steps: up at 10, down at 20 */
	for (size_t i = 0; i < 30; i++)
		x[i] = (i >= 10 && i < 20 ? 130 : 100) + 3 * gaussian(&noise);
	n = find(x, 30, 3, 0.05, 1, cp);
	CHECK_INT_EQ(n, 2);
	CHECK_INT_EQ(cp[0].index, 10);
	CHECK_INT_EQ(cp[1].index, 20);

	/* a late step: 20 quiet values, then 6 that are 20% lower */
	for (size_t i = 0; i < 26; i++)
		x[i] = (i < 20 ? 1000 : 800) + 10 * gaussian(&noise);
	n = find(x, 26, 3, 0.05, 7, cp);
	int late_first = 0; /* found first; noise may add a later, weaker one at this alpha */
	for (size_t i = 0; i < n; i++)
		late_first |= cp[i].index == 20 && cp[i].order == 0;
	CHECK(late_first);

	/* the same seed: the same bits; the minimum segment keeps a step at 2 from being split off with m = 3 */
	size_t n2 = find(x, 26, 3, 0.05, 7, again);
	CHECK_INT_EQ(n2, n);
	CHECK(memcmp(again, cp, n * sizeof *cp) == 0);
	for (size_t i = 0; i < 20; i++)
		x[i] = (i < 2 ? 500 : 100) + gaussian(&noise);
	n = find(x, 20, 3, 0.05, 1, cp);
	for (size_t i = 0; i < n; i++)
		CHECK(cp[i].index >= 3 && cp[i].index <= 17);

	/* noise: 400 histories of 20 campaigns, each its own seed */
	size_t false_positives = 0;
	for (uint64_t h = 0; h < 400; h++) {
		for (size_t i = 0; i < 20; i++)
			x[i] = 100 + 5 * gaussian(&noise);
		false_positives += find(x, 20, 3, 0.05, h, cp) > 0;
	}
	fprintf(stderr, "noise: a change found in %zu of 400 histories at alpha 0.05\n", false_positives);
	CHECK(false_positives <= 20 + 13); /* 400 alpha + 3 sqrt(400 alpha (1 - alpha)) */

	/* refusals */
	struct ev_changepoint_options bad = {.min_segment = 0, .alpha = 0.05, .permutations = 10};
	struct ev_error err;
	ev_error_clear(&err);
	size_t none;
	CHECK_INT_EQ(ev_changepoints(x, 20, &bad, cp, 16, &none, NULL, &err), EV_USAGE);
	bad.min_segment = 2, bad.alpha = 1;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_changepoints(x, 20, &bad, cp, 16, &none, NULL, &err), EV_USAGE);
	bad.alpha = 0.05;
	x[4] = NAN;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_changepoints(x, 20, &bad, cp, 16, &none, NULL, &err), EV_USAGE);
	CHECK_STR_EQ(err.text, "change points: value 4 is not a finite number");
	volatile sig_atomic_t stop = 1;
	x[4] = 1;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_changepoints(x, 20, &bad, cp, 16, &none, &stop, &err), EV_INTERRUPTED);
	return check_exit("test_changepoint_finds_known_shifts_and_rarely_noise");
}
