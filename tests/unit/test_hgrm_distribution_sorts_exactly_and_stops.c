/* SPDX-License-Identifier: Apache-2.0 */
/* hgrm: ev_distribution_of gives every distinct value once, in order,
 * with its count, for an empty series (no copy of nothing: UBSan saw
 * memcpy from NULL once), one value, ties, values that use every byte, a
 * million random ones (a third far apart: sorted as a copy) and a million
 * like latencies (1% in a far tail: counted in place, the tail sorted
 * apart), each checked against qsort; the series is never
 * changed; a stop flag already set returns -2 with nothing kept. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "lib/stats/hgrm.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* d against a sorted copy of v */
static void agrees(const uint64_t *v, size_t n, const struct ev_distribution *d)
{
	uint64_t *ref = malloc((n ? n : 1) * sizeof *ref);
	memcpy(ref, v, n * sizeof *ref);
	qsort(ref, n, sizeof *ref, by_u64);
	size_t at = 0, bad = 0;
	for (size_t i = 0; i < d->n; i++) {
		bad += i && d->value[i] <= d->value[i - 1];
		for (uint64_t c = 0; c < d->count[i]; c++)
			bad += at >= n || ref[at++] != d->value[i];
	}
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(at, n);
	CHECK_INT_EQ(d->total, n);
	free(ref);
}

int main(void)
{
	struct ev_distribution d;
	CHECK_INT_EQ(ev_distribution_of(NULL, 0, &d, NULL), 0);
	CHECK_INT_EQ(d.n, 0);
	CHECK_INT_EQ(d.total, 0);
	ev_distribution_free(&d);

	uint64_t one = 42;
	CHECK_INT_EQ(ev_distribution_of(&one, 1, &d, NULL), 0);
	CHECK_INT_EQ(d.n, 1);
	CHECK_INT_EQ(d.value[0], 42);
	CHECK_INT_EQ(d.count[0], 1);
	ev_distribution_free(&d);

	uint64_t ties[] = {7, 3, 7, 7, 3, 0, UINT64_MAX, 0, UINT64_MAX - 1, 1ull << 56};
	size_t nt = sizeof ties / sizeof *ties;
	CHECK_INT_EQ(ev_distribution_of(ties, nt, &d, NULL), 0);
	CHECK_INT_EQ(d.n, 6);
	CHECK_INT_EQ(d.count[0], 2); /* 0 twice */
	CHECK_INT_EQ(d.count[2], 3); /* 7 three times */
	agrees(ties, nt, &d);
	ev_distribution_free(&d);

	size_t n = 1000000;
	uint64_t *v = malloc(n * sizeof *v), *keep = malloc(n * sizeof *keep), s = 1;
	for (size_t i = 0; i < n; i++)
		v[i] = i % 3 ? 1800 + next(&s) % 4000 : next(&s) >> (next(&s) % 64);
	memcpy(keep, v, n * sizeof *v);
	CHECK_INT_EQ(ev_distribution_of(v, n, &d, NULL), 0);
	agrees(v, n, &d);
	CHECK(memcmp(keep, v, n * sizeof *v) == 0);
	ev_distribution_free(&d);

	/* a latency series: dense near its minimum, a tail of 1% far above
	 * (counted in place, the tail sorted apart) */
	for (size_t i = 0; i < n; i++)
		v[i] = i % 100 ? 1800 + next(&s) % 4000 : 10000 + (next(&s) >> (next(&s) % 40));
	CHECK_INT_EQ(ev_distribution_of(v, n, &d, NULL), 0);
	agrees(v, n, &d);
	ev_distribution_free(&d);

	volatile sig_atomic_t stop = 1;
	CHECK_INT_EQ(ev_distribution_of(v, n, &d, &stop), -2);
	CHECK(d.value == NULL && d.count == NULL && d.n == 0);
	free(v);
	free(keep);
	return check_exit("hgrm distribution");
}
