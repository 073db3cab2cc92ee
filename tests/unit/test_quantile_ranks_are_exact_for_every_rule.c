/* SPDX-License-Identifier: Apache-2.0 */
/* quantile: every rule's rank is exact where a double is not (p N a whole
 * number at N = 1000 and 5000; 99.999 at 10^5), at the ends (N = 1, 2,
 * p = 0 and 100), with ties and huge outliers; percentages are read and
 * written back exactly; selection in place, and order statistics by
 * histogram (which must not touch its input), agree with a full sort on
 * ties, outliers, one repeated value, wide ranges and many ranks. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/stats/quantile.h"

static struct ev_prob pct(const char *s)
{
	struct ev_prob p = {0, 1};
	CHECK_INT_EQ(ev_prob_parse_percent(s, &p), 0);
	return p;
}

static uint64_t index_of(enum ev_qrule rule, const char *p, uint64_t n)
{
	uint64_t g_num, g_den;
	return ev_quantile_index(rule, pct(p), n, &g_num, &g_den);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	struct ev_prob p;
	char text[32];
	/* reading percentages: exact fractions, refusals */
	p = pct("99.9");
	CHECK_INT_EQ(p.num, 999);
	CHECK_INT_EQ(p.den, 1000);
	p = pct("50");
	CHECK(p.num * 2 == p.den);
	CHECK(ev_prob_parse_percent("100.1", &p) != 0 && ev_prob_parse_percent("-1", &p) != 0 &&
	      ev_prob_parse_percent("99.", &p) != 0 && ev_prob_parse_percent("9e1", &p) != 0 &&
	      ev_prob_parse_percent("", &p) != 0 && ev_prob_parse_percent("99.9999999999", &p) != 0);
	ev_prob_format(pct("99.000"), text, sizeof text);
	CHECK_STR_EQ(text, "99");
	ev_prob_format(pct("99.990"), text, sizeof text);
	CHECK_STR_EQ(text, "99.99");
	ev_prob_format(pct("0.5"), text, sizeof text);
	CHECK_STR_EQ(text, "0.5");

	/* N = 1000, p = 99%: p N = 990 exactly */
	CHECK_INT_EQ(index_of(EV_QRULE_NEAREST_RANK, "99", 1000), 989);  /* rank 990 */
	CHECK_INT_EQ(index_of(EV_QRULE_FLOOR_INDEX, "99", 1000), 990);   /* llfix: sorted[990] */
	CHECK_INT_EQ(index_of(EV_QRULE_ROUND_HALF_UP, "99", 1000), 989); /* floor(990.5) = 990 */
	/* N = 5000, p = 99.9%: 4995 exactly; 0.999 * 5000 in a double is 4994.999... */
	CHECK_INT_EQ(index_of(EV_QRULE_NEAREST_RANK, "99.9", 5000), 4994);
	CHECK_INT_EQ(index_of(EV_QRULE_FLOOR_INDEX, "99.9", 5000), 4995);
	/* 99.999% of 10^5 is 99999 exactly */
	CHECK_INT_EQ(index_of(EV_QRULE_FLOOR_INDEX, "99.999", 100000), 99999);
	/* round-half-up at an exact half: 50% of 5 = 2.5 -> rank 3 */
	CHECK_INT_EQ(index_of(EV_QRULE_ROUND_HALF_UP, "50", 5), 2);
	CHECK_INT_EQ(index_of(EV_QRULE_NEAREST_RANK, "50", 5), 2);
	CHECK_INT_EQ(index_of(EV_QRULE_ROUND_HALF_UP, "50", 4), 1);
	/* the ends */
	for (int r = 0; r < EV_QRULE_COUNT; r++) {
		CHECK_INT_EQ(index_of((enum ev_qrule)r, "0", 1), 0);
		CHECK_INT_EQ(index_of((enum ev_qrule)r, "100", 1), 0);
		CHECK_INT_EQ(index_of((enum ev_qrule)r, "0", 2), 0);
		CHECK(index_of((enum ev_qrule)r, "100", 2) == (r == EV_QRULE_LINEAR ? 1u : 1u));
	}
	/* linear: p (N - 1) = 0.5 * 3 = 1.5 -> between [1] and [2], weight 1/2 */
	uint64_t g_num, g_den, j = ev_quantile_index(EV_QRULE_LINEAR, pct("50"), 4, &g_num, &g_den);
	CHECK_INT_EQ(j, 1);
	CHECK(g_num * 2 == g_den);
	uint64_t four[] = {40, 10, 30, 20};
	CHECK(ev_quantile(four, 4, EV_QRULE_LINEAR, pct("50")) == 25.0);

	/* selection in place agrees with a sort: ties, outliers, every index */
	enum { N = 10007 };
	static uint64_t a[N], sorted[N], b[N];
	uint64_t seed = 12345;
	for (int i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		a[i] = 1800 + (seed >> 33) % 50;           /* many ties */
		if (i % 1000 == 7)
			a[i] = 476819000ull + (uint64_t)i; /* huge outliers */
	}
	memcpy(sorted, a, sizeof a);
	qsort(sorted, N, sizeof *sorted, by_value);
	uint64_t want[] = {0, 1, 5003, 9906, 9997, 10005, N - 1};
	memcpy(b, a, sizeof a);
	ev_select_many(b, N, want, sizeof want / sizeof *want);
	for (size_t k = 0; k < sizeof want / sizeof *want; k++)
		CHECK_INT_EQ(b[want[k]], sorted[want[k]]);
	/* a sorted and a reversed input (the pivot's worst cases) */
	memcpy(b, sorted, sizeof b);
	ev_select_many(b, N, want, 3);
	CHECK_INT_EQ(b[5003], sorted[5003]);
	for (int i = 0; i < N; i++)
		b[i] = sorted[N - 1 - i];
	ev_select_many(b, N, want + 3, 4);
	CHECK_INT_EQ(b[9997], sorted[9997]);
	/* order statistics by histogram: every shape that forces it to narrow */
	static uint64_t c[N], c_sorted[N];
	uint64_t ranks[64], got[64];
	for (int shape = 0; shape < 5; shape++) {
		for (int i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t r = seed >> 11;
			c[i] = shape == 0 ? a[i]                                   /* ties and outliers */
			     : shape == 1 ? 7                                      /* one value */
			     : shape == 2 ? r                                      /* the whole 53-bit range */
			     : shape == 3 ? 1000000 + r % 3                        /* three values, heavy buckets */
			     : (i % 2 ? UINT64_MAX - r % 5 : r % 100);             /* both ends of u64 */
		}
		memcpy(c_sorted, c, sizeof c);
		qsort(c_sorted, N, sizeof *c_sorted, by_value);
		size_t k = 0;
		for (; k < 60; k++)
			ranks[k] = (uint64_t)k * (N - 1) / 59;
		ranks[k++] = 5003;
		ranks[k++] = 5003; /* the same rank twice */
		memcpy(b, c, sizeof c);
		CHECK_INT_EQ(ev_order_stats(c, N, ranks, k, got), 0);
		CHECK(memcmp(b, c, sizeof c) == 0); /* read only */
		for (size_t q = 0; q < k; q++)
			if (got[q] != c_sorted[ranks[q]]) {
				fprintf(stderr, "  shape %d rank %llu: %llu, sorted %llu\n", shape,
					(unsigned long long)ranks[q], (unsigned long long)got[q],
					(unsigned long long)c_sorted[ranks[q]]);
				CHECK(0);
			}
	}
	struct ev_moments m;
	ev_moments_of(a, N, &m);
	CHECK_INT_EQ(m.min, sorted[0]);
	CHECK_INT_EQ(m.max, sorted[N - 1]);
	unsigned __int128 sum = 0;
	for (int i = 0; i < N; i++)
		sum += a[i];
	CHECK(m.sum == sum);
	return check_exit("quantile");
}
