#include "config.h"
#include "quantile.h"

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

void ev_moments_of(const uint64_t *v, size_t n, struct ev_moments *m)
{
	uint64_t lo = n ? v[0] : 0, hi = lo;
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < n; i++) {
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
