/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/stats/quantile.h"
#include "lib/core/grow.h"
#include "lib/core/stop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 16           /* a range this short is sorted outright */
#define MAX_DECIMALS 9

static const char *const names[EV_QRULE_COUNT] = {"nearest-rank", "floor-index", "round-half-up",
						  "linear"};

const char *ev_qrule_name(enum ev_qrule rule)
{
	return (unsigned)rule < EV_QRULE_COUNT ? names[rule] : "unknown";
}

int ev_qrule_parse(const char *name)
{
	for (int i = 0; i < EV_QRULE_COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int ev_prob_parse_percent(const char *text, struct ev_prob *out)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	const char *p = text;
	int digits = 0, decimals = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 100)
			return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, decimals++) {
			if (decimals == MAX_DECIMALS)
				return -1;
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
		if (!decimals)
			return -1;
	}
	if (*p || !digits)
		return -1;
	uint64_t num = whole * scale + frac, den = 100 * scale;
	if (num > den)
		return -1;
	out->num = num;
	out->den = den;
	return 0;
}

void ev_prob_format(struct ev_prob p, char *out, size_t cap)
{
	/* as a percentage: num / (den / 100), den a power of ten */
	uint64_t scale = p.den / 100, whole = p.num / scale, frac = p.num % scale;
	int n = snprintf(out, cap, "%llu", (unsigned long long)whole);
	if (frac && n > 0 && (size_t)n < cap) {
		char f[24];
		int w = snprintf(f, sizeof f, "%llu", (unsigned long long)scale);
		snprintf(f, sizeof f, "%0*llu", w - 1, (unsigned long long)frac);
		for (size_t k = strlen(f); k > 0 && f[k - 1] == '0'; k--)
			f[k - 1] = 0;
		snprintf(out + n, cap - (size_t)n, ".%s", f);
	}
}

uint64_t ev_quantile_index(enum ev_qrule rule, struct ev_prob p, uint64_t n, uint64_t *g_num,
			   uint64_t *g_den)
{
	typedef unsigned __int128 u128;
	u128 pn = (u128)p.num * n;
	uint64_t r;
	*g_num = 0;
	*g_den = 1;
	switch (rule) {
	case EV_QRULE_NEAREST_RANK:
		r = (uint64_t)((pn + p.den - 1) / p.den);
		return r ? r - 1 : 0;
	case EV_QRULE_FLOOR_INDEX:
		r = (uint64_t)(pn / p.den);
		return r < n ? r : n - 1;
	case EV_QRULE_ROUND_HALF_UP:
		r = (uint64_t)((2 * pn + p.den) / (2 * (u128)p.den));
		if (r > n)
			r = n;
		return r ? r - 1 : 0;
	case EV_QRULE_LINEAR:
	default: {
		u128 h = (u128)p.num * (n - 1);
		uint64_t j = (uint64_t)(h / p.den);
		if (j + 1 < n) {
			*g_num = (uint64_t)(h % p.den);
			*g_den = p.den;
		}
		return j;
	}
	}
}

/* every this many values plus one, a pass looks at the stop flag */
#define STOP_SLICE (((size_t)1 << 20) - 1)

void ev_moments_of(const uint64_t *v, size_t n, struct ev_moments *m)
{
	uint64_t lo = n ? v[0] : 0, hi = lo;
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(i & STOP_SLICE) && ev_stop_requested())
			break; /* the caller sees the flag and claims nothing */
		uint64_t x = v[i];
		sum += x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	m->n = n;
	m->min = lo;
	m->max = hi;
	m->sum = sum;
}

double ev_moments_mean(const struct ev_moments *m)
{
	return m->n ? (double)m->sum / (double)m->n : 0.0;
}

static inline void swap(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;
	*a = *b;
	*b = t;
}

static void insertion(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sift(uint64_t *v, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		swap(&v[root], &v[child]);
	}
}

/* The fallback when partitions keep going badly: O(n log n) always. */
static void heap_sort(uint64_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t end = n; end-- > 1;) {
		swap(&v[0], &v[end]);
		sift(v, 0, end);
	}
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b)
		swap(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

static uint64_t pivot_of(const uint64_t *v, size_t n)
{
	if (n < 1000)
		return median3(v[0], v[n / 2], v[n - 1]);
	size_t s = n / 8; /* the median of three medians of three */
	return median3(median3(v[0], v[s], v[2 * s]), median3(v[3 * s], v[4 * s], v[5 * s]),
		       median3(v[6 * s], v[7 * s], v[n - 1]));
}

/* v[lo, hi) holds the wanted indices want[a, b) (sorted): place them. */
static void select_range(uint64_t *v, size_t lo, size_t hi, const uint64_t *want, size_t a, size_t b,
			 int depth)
{
	while (a < b) {
		size_t n = hi - lo;
		if (n <= SMALL) {
			insertion(v + lo, n);
			return;
		}
		if (depth-- == 0) {
			heap_sort(v + lo, n);
			return;
		}
		/* three ways, so that ties (latencies have many) end a range */
		uint64_t p = pivot_of(v + lo, n);
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			uint64_t x = v[i];
			if (x < p)
				swap(&v[lt++], &v[i++]);
			else if (x > p)
				swap(&v[i], &v[--gt]);
			else
				i++;
		}
		size_t m1 = a, m2;
		while (m1 < b && want[m1] < lt)
			m1++;
		m2 = m1;
		while (m2 < b && want[m2] < gt)
			m2++;
		/* the smaller side by recursion, the larger by looping */
		if (lt - lo < hi - gt) {
			select_range(v, lo, lt, want, a, m1, depth);
			lo = gt;
			a = m2;
		} else {
			select_range(v, gt, hi, want, m2, b, depth);
			hi = lt;
			b = m1;
		}
	}
}

static int by_index(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

void ev_select_many(uint64_t *v, size_t n, const uint64_t *want, size_t nwant)
{
	if (n < 2 || !nwant)
		return;
	uint64_t small[64], *w = nwant <= 64 ? small : malloc(nwant * sizeof *w);
	if (!w) { /* no room to order the wishes: sort the whole, which serves them all */
		heap_sort(v, n);
		return;
	}
	memcpy(w, want, nwant * sizeof *w);
	if (nwant > 1)
		qsort(w, nwant, sizeof *w, by_index);
	int depth = 0;
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	select_range(v, 0, n, w, 0, nwant, depth);
	if (w != small)
		free(w);
}

double ev_quantile(uint64_t *v, size_t n, enum ev_qrule rule, struct ev_prob p)
{
	uint64_t g_num, g_den, idx[2];
	idx[0] = ev_quantile_index(rule, p, n, &g_num, &g_den);
	idx[1] = idx[0] + 1;
	ev_select_many(v, n, idx, g_num ? 2 : 1);
	if (!g_num)
		return (double)v[idx[0]];
	double a = (double)v[idx[0]], b = (double)v[idx[1]], g = (double)g_num / (double)g_den;
	/* numpy's way of blending, so that the same inputs give the same double */
	return g < 0.5 ? a + (b - a) * g : b - (b - a) * (1 - g);
}

/* --- order statistics by histogram ------------------------------------- */

#define SUB_BITS 8
#define LOG_BUCKETS ((64 - SUB_BITS + 1) << SUB_BITS)
#define FINE_BITS 12
#define FINE_BUCKETS ((size_t)1 << FINE_BITS)
#define MAX_NARROWINGS 256

/* The logarithmic bucket of x: x itself below 2^SUB_BITS, else its
 * exponent and the SUB_BITS bits after its leading one. Monotonic. */
static inline unsigned log_bucket(uint64_t x)
{
	if (x < (1u << SUB_BITS))
		return (unsigned)x;
	unsigned e = 63u - (unsigned)__builtin_clzll(x);
	return ((e - SUB_BITS + 1) << SUB_BITS) | (unsigned)((x >> (e - SUB_BITS)) & ((1u << SUB_BITS) - 1));
}

/* The smallest and largest value of a logarithmic bucket. */
static void log_bounds(size_t b, uint64_t *lo, uint64_t *hi)
{
	if (b < (1u << SUB_BITS)) {
		*lo = *hi = b;
		return;
	}
	unsigned e = (unsigned)(b >> SUB_BITS) + SUB_BITS - 1, m = (unsigned)(b & ((1u << SUB_BITS) - 1));
	*lo = ((uint64_t)(m | (1u << SUB_BITS))) << (e - SUB_BITS);
	*hi = *lo + ((uint64_t)1 << (e - SUB_BITS)) - 1;
}

/* A range of values holding some wanted ranks: [lo, hi], with `below`
 * values under lo and `count` inside. Ranges never overlap, so a rank's
 * range is the one whose [below, below + count) holds it. */
struct vrange {
	uint64_t lo, hi, below, count;
};

struct ranges {
	struct vrange *v;
	size_t n, cap;
};

static int add_range(struct ranges *rs, struct vrange r)
{
	for (size_t j = 0; j < rs->n; j++)
		if (rs->v[j].lo == r.lo)
			return 0;
	if (ev_grow_array(&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v) != 0)
		return -1;
	rs->v[rs->n++] = r;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct vrange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Of sorted ranges, the one holding rank. */
static size_t range_of_rank(const struct ranges *rs, uint64_t rank)
{
	size_t a = 0, b = rs->n;
	while (b - a > 1) {
		size_t m = (a + b) / 2;
		if (rs->v[m].below <= rank)
			a = m;
		else
			b = m;
	}
	return a;
}

/* For each rank in [first, first + count) of those asked, the bucket of
 * counts (nb buckets starting after `below` values) that holds it, as a
 * range; bucket b spans [lo0 + (b << shift), ... + (1 << shift) - 1], or
 * the logarithmic buckets when shift is -1. */
static int place(struct ranges *rs, const uint64_t *ranks, size_t k, uint64_t first, uint64_t count,
		 const uint64_t *counts, size_t nb, uint64_t below, uint64_t lo0, int shift)
{
	for (size_t i = 0; i < k; i++) {
		if (ranks[i] < first || ranks[i] >= first + count)
			continue;
		uint64_t acc = below;
		size_t b = 0;
		while (b + 1 < nb && acc + counts[b] <= ranks[i])
			acc += counts[b++];
		uint64_t lo, hi;
		if (shift < 0) {
			log_bounds(b, &lo, &hi);
		} else {
			lo = lo0 + ((uint64_t)b << shift);
			hi = lo + ((uint64_t)1 << shift) - 1;
		}
		if (add_range(rs, (struct vrange){lo, hi, acc, counts[b]}) != 0)
			return -1;
	}
	return 0;
}

/* Kept whole: one selection in passes over the caller's samples (buckets,
 * narrowing, gathering, ordering), whose ranges and scratch buffers live
 * across the passes and are freed at one exit; a function per pass would
 * take them all as arguments. */
int ev_order_stats(const uint64_t *v, size_t n, const uint64_t *ranks, size_t k, uint64_t *out)
{
	if (!n || !k)
		return 0;
	struct ranges rs = {0};
	uint64_t *counts = calloc(LOG_BUCKETS, sizeof *counts), *scratch = NULL;
	size_t *fill = NULL;
	int rc = -1;
	if (!counts)
		goto out;
	/* level one: every value into its logarithmic bucket */
	for (size_t i = 0; i < n; i++) {
		if (!(i & STOP_SLICE) && ev_stop_requested()) {
			rc = -2;
			goto out;
		}
		counts[log_bucket(v[i])]++;
	}
	if (place(&rs, ranks, k, 0, n, counts, LOG_BUCKETS, 0, 0, -1) != 0)
		goto out;
	/* narrow the heaviest range while too much is left to gather */
	uint64_t limit = n / 8 > 4096 ? n / 8 : 4096;
	for (int round = 0; round < MAX_NARROWINGS; round++) {
		uint64_t total = 0;
		size_t heavy = rs.n;
		for (size_t j = 0; j < rs.n; j++) {
			if (rs.v[j].lo == rs.v[j].hi)
				continue; /* one value: nothing to order */
			total += rs.v[j].count;
			if (heavy == rs.n || rs.v[j].count > rs.v[heavy].count)
				heavy = j;
		}
		if (total <= limit || heavy == rs.n)
			break;
		struct vrange h = rs.v[heavy];
		rs.v[heavy] = rs.v[--rs.n];
		int shift = 0;
		while (shift < 63 && ((h.hi - h.lo) >> shift) >= FINE_BUCKETS)
			shift++;
		size_t nb = (size_t)((h.hi - h.lo) >> shift) + 1;
		memset(counts, 0, nb * sizeof *counts);
		for (size_t i = 0; i < n; i++) {
			if (!(i & STOP_SLICE) && ev_stop_requested()) {
				rc = -2;
				goto out;
			}
			if (v[i] >= h.lo && v[i] <= h.hi)
				counts[(v[i] - h.lo) >> shift]++;
		}
		if (place(&rs, ranks, k, h.below, h.count, counts, nb, h.below, h.lo, shift) != 0)
			goto out;
	}
	/* gather what lies in the ranges still to order, and order it */
	if (rs.n > 1)
		qsort(rs.v, rs.n, sizeof *rs.v, by_lo);
	uint64_t total = 0;
	if (!(fill = calloc(rs.n, sizeof *fill)))
		goto out;
	for (size_t j = 0; j < rs.n; j++)
		total += rs.v[j].lo == rs.v[j].hi ? 0 : rs.v[j].count;
	if (total && !(scratch = malloc((size_t)total * sizeof *scratch)))
		goto out;
	size_t *start = fill; /* reused: first each range's start, then its fill */
	uint64_t at = 0;
	for (size_t j = 0; j < rs.n; j++) {
		start[j] = (size_t)at;
		at += rs.v[j].lo == rs.v[j].hi ? 0 : rs.v[j].count;
	}
	if (total) {
		/* each range lies inside one logarithmic bucket: index them by
		 * it, so that most values are passed by with one lookup */
		uint32_t *first = (uint32_t *)counts; /* reused: LOG_BUCKETS u64 hold 2 x LOG_BUCKETS u32 */
		uint32_t *last = first + LOG_BUCKETS;
		memset(counts, 0, LOG_BUCKETS * sizeof *counts);
		for (size_t j = rs.n; j-- > 0;) {
			if (rs.v[j].lo == rs.v[j].hi)
				continue;
			unsigned b = log_bucket(rs.v[j].lo);
			if (!last[b])
				last[b] = (uint32_t)j + 1;
			first[b] = (uint32_t)j + 1;
		}
		for (size_t i = 0; i < n; i++) {
			if (!(i & STOP_SLICE) && ev_stop_requested()) {
				rc = -2;
				goto out;
			}
			uint64_t x = v[i];
			unsigned b = log_bucket(x);
			if (!first[b])
				continue;
			for (uint32_t j = first[b] - 1; j < last[b]; j++)
				if (x >= rs.v[j].lo && x <= rs.v[j].hi && rs.v[j].lo != rs.v[j].hi) {
					scratch[start[j]++] = x;
					break;
				}
		}
	}
	for (size_t j = rs.n; j-- > 0;) /* back to the starts */
		start[j] -= rs.v[j].lo == rs.v[j].hi ? 0 : (size_t)rs.v[j].count;
	for (size_t i = 0; i < k; i++) {
		size_t j = range_of_rank(&rs, ranks[i]);
		const struct vrange *r = &rs.v[j];
		if (r->lo == r->hi) {
			out[i] = r->lo;
			continue;
		}
		uint64_t within = ranks[i] - r->below;
		ev_select_many(scratch + start[j], (size_t)r->count, &within, 1);
		out[i] = scratch[start[j] + within];
	}
	rc = 0;
out:
	free(scratch);
	free(fill);
	free(counts);
	free(rs.v);
	return rc;
}
