/* hgrm: exact distributions and their HdrHistogram text (hgrm.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats/hgrm.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int reserve(struct ev_distribution *d, size_t n)
{
	d->value = malloc((n ? n : 1) * sizeof *d->value);
	d->count = malloc((n ? n : 1) * sizeof *d->count);
	if (d->value && d->count)
		return 0;
	ev_distribution_free(d);
	return -1;
}

int ev_distribution_of(const uint64_t *v, size_t n, struct ev_distribution *out)
{
	memset(out, 0, sizeof *out);
	uint64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
	if (!sorted)
		return -1;
	memcpy(sorted, v, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, by_u64);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || sorted[i] != sorted[i - 1];
	if (reserve(out, distinct) != 0) {
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || sorted[i] != sorted[i - 1]) {
			out->value[out->n] = sorted[i];
			out->count[out->n++] = 0;
		}
		out->count[out->n - 1]++;
	}
	out->total = n;
	free(sorted);
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
