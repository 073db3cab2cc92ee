/* SPDX-License-Identifier: Apache-2.0 */
/* hgrm: exact distributions and their HdrHistogram text (hgrm.h). */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats/hgrm.h"

static int reserve(struct ev_distribution *d, size_t n)
{
	d->value = malloc((n ? n : 1) * sizeof *d->value);
	d->count = malloc((n ? n : 1) * sizeof *d->count);
	if (d->value && d->count)
		return 0;
	ev_distribution_free(d);
	return -1;
}

/* every this many values plus one, a pass looks at the stop flag */
#define STOP_SLICE (((size_t)1 << 20) - 1)

static void insertion_sort(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* In-place MSD radix sort (American flag sort) of a by the byte at
 * shift and below: no second buffer, linear in n per byte, and it looks
 * at the stop flag between buckets of any size. @return 0, or -2 when
 * stopped. */
static int radix_sort(uint64_t *a, size_t n, int shift, const volatile sig_atomic_t *stop)
{
	if (n <= 32) {
		insertion_sort(a, n);
		return 0;
	}
	if (stop && *stop)
		return -2;
	size_t count[256] = {0}, start[256], next[256], moved = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(i & STOP_SLICE) && stop && *stop)
			return -2;
		count[(a[i] >> shift) & 0xff]++;
	}
	size_t at = 0;
	for (int b = 0; b < 256; b++) {
		start[b] = next[b] = at;
		at += count[b];
	}
	for (int b = 0; b < 256; b++) {
		size_t end = start[b] + count[b];
		while (next[b] < end) {
			uint64_t x = a[next[b]];
			int d = (int)((x >> shift) & 0xff);
			while (d != b) { /* swap x into its bucket until one belongs here */
				if (!(++moved & STOP_SLICE) && stop && *stop)
					return -2; /* a is a copy: left half-permuted, then freed */
				uint64_t y = a[next[d]];
				a[next[d]++] = x;
				x = y;
				d = (int)((x >> shift) & 0xff);
			}
			a[next[b]++] = x;
		}
	}
	if (shift == 0)
		return 0;
	for (int b = 0; b < 256; b++)
		if (count[b] > 1 && radix_sort(a + start[b], count[b], shift - 8, stop) != 0)
			return -2;
	return 0;
}

/* A latency series is dense near its minimum and sparse in its tail:
 * the values in [lo, lo + width) are counted in one pass (no copy of the
 * series), the few above are gathered and sorted apart, and the two lie
 * in order one after the other. @return 0; -1 when memory is lacking or
 * the tail is not few (more than n / 4 values: the caller sorts a copy
 * instead); -2 when stopped. */
static int count_dense(const uint64_t *v, size_t n, uint64_t lo, uint64_t width, struct ev_distribution *out,
		       const volatile sig_atomic_t *stop)
{
	uint32_t *c = calloc((size_t)width, sizeof *c);
	uint64_t *far = NULL;
	size_t nfar = 0, capfar = 0;
	int rc = -1;
	if (!c)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(i & STOP_SLICE) && stop && *stop) {
			rc = -2;
			goto out;
		}
		uint64_t x = v[i] - lo;
		if (x < width) {
			c[x]++;
			continue;
		}
		if (nfar == capfar) {
			size_t want = capfar ? 2 * capfar : 4096;
			if (want > n / 4 + 4096)
				goto out; /* a tail that is not few */
			uint64_t *grown = realloc(far, want * sizeof *far);
			if (!grown)
				goto out;
			far = grown;
			capfar = want;
		}
		far[nfar++] = v[i];
	}
	uint64_t fmax = 0;
	for (size_t i = 0; i < nfar; i++)
		fmax = far[i] > fmax ? far[i] : fmax;
	int top = 0;
	while (top < 56 && (fmax >> (top + 8)))
		top += 8;
	if (nfar && radix_sort(far, nfar, top, stop) != 0) {
		rc = -2;
		goto out;
	}
	size_t distinct = 0;
	for (uint64_t k = 0; k < width; k++)
		distinct += c[k] != 0;
	for (size_t i = 0; i < nfar; i++)
		distinct += i == 0 || far[i] != far[i - 1];
	if (reserve(out, distinct) != 0)
		goto out;
	for (uint64_t k = 0; k < width; k++)
		if (c[k]) {
			out->value[out->n] = lo + k;
			out->count[out->n++] = c[k];
		}
	for (size_t i = 0; i < nfar; i++) {
		if (i == 0 || far[i] != far[i - 1]) {
			out->value[out->n] = far[i];
			out->count[out->n++] = 0;
		}
		out->count[out->n - 1]++;
	}
	out->total = n;
	rc = 0;
out:
	free(c);
	free(far);
	return rc;
}

int ev_distribution_of(const uint64_t *v, size_t n, struct ev_distribution *out, const volatile sig_atomic_t *stop)
{
	memset(out, 0, sizeof *out);
	if (!n)
		return reserve(out, 0);
	uint64_t lo = v[0], hi = v[0];
	for (size_t i = 0; i < n; i++) {
		if (!(i & STOP_SLICE) && stop && *stop)
			return -2;
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	/* counts of 4 bytes over a window from the minimum: an eighth of a
	 * copy of the series (4 MiB for a short one) */
	if (n < UINT32_MAX) {
		uint64_t width = n / 8 > ((size_t)1 << 20) ? n / 8 : (size_t)1 << 20;
		if (hi - lo < width)
			width = hi - lo + 1;
		int rc = count_dense(v, n, lo, width, out, stop);
		if (rc != -1)
			return rc;
		ev_distribution_free(out);
	}
	uint64_t *sorted = malloc(n * sizeof *sorted), max = 0;
	if (!sorted)
		return -1;
	/* copied in slices, so that a signal is seen within one of them */
	const size_t slice = (size_t)1 << 22;
	for (size_t at = 0; at < n; at += slice) {
		if (stop && *stop) {
			free(sorted);
			return -2;
		}
		size_t k = n - at < slice ? n - at : slice;
		memcpy(sorted + at, v + at, k * sizeof *sorted);
		for (size_t i = at; i < at + k; i++)
			max = sorted[i] > max ? sorted[i] : max;
	}
	int top = 0; /* the highest byte any value uses */
	while (top < 56 && (max >> (top + 8)))
		top += 8;
	if (radix_sort(sorted, n, top, stop) != 0) {
		free(sorted);
		return -2;
	}
	/* the distinct values compacted into the sorted copy itself, which then
	 * shrinks to them: no third array the size of the series */
	size_t distinct = 0;
	uint64_t *count = NULL;
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || sorted[i] != sorted[i - 1];
	if (!(count = malloc(distinct * sizeof *count))) {
		free(sorted);
		return -1;
	}
	size_t d = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || sorted[i] != sorted[i - 1]) {
			sorted[d] = sorted[i];
			count[d++] = 0;
		}
		count[d - 1]++;
	}
	uint64_t *shrunk = realloc(sorted, distinct * sizeof *sorted);
	out->value = shrunk ? shrunk : sorted;
	out->count = count;
	out->n = distinct;
	out->total = n;
	return 0;
}

int ev_distribution_merge(const struct ev_distribution *a, const struct ev_distribution *b,
			  struct ev_distribution *out)
{
	memset(out, 0, sizeof *out);
	if (reserve(out, a->n + b->n) != 0)
		return -1;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		uint64_t v;
		uint64_t c = 0;
		if (j == b->n || (i < a->n && a->value[i] <= b->value[j]))
			v = a->value[i];
		else
			v = b->value[j];
		if (i < a->n && a->value[i] == v)
			c += a->count[i++];
		if (j < b->n && b->value[j] == v)
			c += b->count[j++];
		out->value[out->n] = v;
		out->count[out->n++] = c;
	}
	out->total = a->total + b->total;
	return 0;
}

void ev_distribution_free(struct ev_distribution *d)
{
	free(d->value);
	free(d->count);
	memset(d, 0, sizeof *d);
}

/* The next reporting level after level, as HdrHistogram's
 * PercentileIterator computes it (in doubles, the same operations). */
static double next_level(double level)
{
	int64_t halvings = (int64_t)(log(100.0 / (100.0 - level)) / log(2.0));
	int64_t ticks = 5 * (int64_t)pow(2.0, (double)(halvings + 1));
	return level + 100.0 / (double)ticks;
}

char *ev_hgrm_text(const struct ev_distribution *d, double scale, int decimals, size_t *len)
{
	/* the C library's growing stream: no buffer of our own to manage */
	char *text = NULL;
	size_t size = 0;
	FILE *b = open_memstream(&text, &size);
	if (!b)
		return NULL;
	fprintf(b, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
	double level = 0;
	uint64_t cumulative = 0;
	unsigned __int128 sum = 0;
	for (size_t i = 0; i < d->n; i++) {
		cumulative += d->count[i];
		sum += (unsigned __int128)d->value[i] * d->count[i];
		double reached = 100.0 * (double)cumulative / (double)d->total;
		/* the last value is reported once at its level, then at 100% */
		while (reached >= level) {
			double p = level / 100.0;
			fprintf(b, "%12.*f %2.12f %10llu %14.2f\n", decimals, (double)d->value[i] / scale, p,
			    (unsigned long long)cumulative, 1 / (1 - p));
			level = next_level(level);
			if (cumulative == d->total)
				break;
		}
	}
	uint64_t max = d->n ? d->value[d->n - 1] : 0;
	fprintf(b, "%12.*f %2.12f %10llu\n", decimals, (double)max / scale, 1.0, (unsigned long long)d->total);
	double mean = d->total ? (double)sum / (double)d->total : 0, var = 0;
	for (size_t i = 0; i < d->n; i++) {
		double dev = (double)d->value[i] - mean;
		var += dev * dev * (double)d->count[i];
	}
	double sd = d->total ? sqrt(var / (double)d->total) : 0;
	fprintf(b, "#[Mean    = %12.*f, StdDeviation   = %12.*f]\n", decimals, mean / scale, decimals, sd / scale);
	fprintf(b, "#[Max     = %12.*f, Total count    = %12llu]\n", decimals, (double)max / scale,
	    (unsigned long long)d->total);
	fprintf(b, "#[Buckets = %12d, SubBuckets     = %12d]\n", 0, 0);
	int failed = ferror(b);
	if (fclose(b) || failed) {
		free(text);
		return NULL;
	}
	*len = size;
	return text;
}
