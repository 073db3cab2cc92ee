/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixlatency.h"
#include "lib/core/grow.h"

#include <stdlib.h>
#include <string.h>

const char *const ev_fixlatency_percents[EV_FIXLATENCY_QUANTILES] = {"50", "90", "99", "99.9", "99.99"};

/* The largest power of ten, at most a second, that divides v. */
static uint64_t resolution_of(uint64_t v)
{
	uint64_t r = 1;
	while (r < 1000000000u && v % (r * 10) == 0)
		r *= 10;
	return r;
}

static void finer(uint64_t *kept, uint64_t v)
{
	uint64_t r = resolution_of(v);
	if (*kept == 0 || r < *kept)
		*kept = r;
}

static void name(char *out, const char *v, uint32_t len)
{
	if (!v || out[0])
		return;
	if (len >= EV_FIXLATENCY_COMPID_MAX)
		len = EV_FIXLATENCY_COMPID_MAX - 1;
	for (uint32_t i = 0; i < len; i++) /* shown in lines and file names: printable only */
		out[i] = v[i] > 0x20 && v[i] < 0x7f ? v[i] : '?';
	out[len] = 0;
}

void ev_fixlatency_add(struct ev_fixlatency_stream *s, int has_seq, uint64_t seq, uint64_t stamp_ns,
		       int has_sending, uint64_t sending_ns, int poss_dup, const char *from, uint32_t from_len,
		       const char *to, uint32_t to_len)
{
	name(s->from, from, from_len);
	name(s->to, to, to_len);
	if (poss_dup) {
		s->resends++;
		return;
	}
	if (!stamp_ns) {
		s->unstamped++;
		return;
	}
	if (!has_seq) {
		s->unnumbered++;
		return;
	}
	if (!has_sending) {
		s->untimed++;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct ev_fixlatency_point *v = ev_grow(s->v, cap * sizeof *v);
		if (!v) {
			s->oom = 1;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	if (s->n && seq < s->last_seq) /* a reset: a new numbering (a repeat is a duplicate) */
		s->numbering++;
	s->last_seq = seq;
	s->v[s->n++] = (struct ev_fixlatency_point){seq, stamp_ns, sending_ns, s->numbering};
	finer(&s->stamp_resolution_ns, stamp_ns);
	finer(&s->sending_resolution_ns, sending_ns);
}

void ev_fixlatency_stream_free(struct ev_fixlatency_stream *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

int ev_fixlatency_deltas(const struct ev_fixlatency_stream *s, int64_t **out)
{
	*out = NULL;
	if (!s->n)
		return 0;
	int64_t *d = malloc(s->n * sizeof *d);
	if (!d)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		d[i] = (int64_t)(s->v[i].stamp_ns - s->v[i].sending_ns);
	*out = d;
	return 0;
}

static int by_number(const void *a, const void *b)
{
	const struct ev_fixlatency_point *x = a, *y = b;
	if (x->numbering != y->numbering)
		return x->numbering < y->numbering ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->stamp_ns > y->stamp_ns) - (x->stamp_ns < y->stamp_ns);
}

/* Already in order, as a journal mostly is: no sort. */
static void sort_points(struct ev_fixlatency_stream *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (by_number(&s->v[i - 1], &s->v[i]) > 0) {
			qsort(s->v, s->n, sizeof *s->v, by_number);
			return;
		}
}

int ev_fixlatency_one_way(struct ev_fixlatency_stream *earlier, struct ev_fixlatency_stream *later,
			  int64_t **out, size_t *n, uint64_t *only_earlier, uint64_t *only_later)
{
	*out = NULL;
	*n = 0;
	*only_earlier = *only_later = 0;
	sort_points(earlier);
	sort_points(later);
	size_t cap = earlier->n < later->n ? earlier->n : later->n;
	int64_t *d = cap ? malloc(cap * sizeof *d) : NULL;
	if (cap && !d)
		return -1;
	size_t i = 0, j = 0;
	while (i < earlier->n && j < later->n) {
		const struct ev_fixlatency_point *a = &earlier->v[i], *b = &later->v[j];
		int c = a->numbering != b->numbering ? (a->numbering < b->numbering ? -1 : 1)
			: a->seq != b->seq ? (a->seq < b->seq ? -1 : 1) : 0;
		if (c < 0) {
			(*only_earlier)++;
			i++;
		} else if (c > 0) {
			(*only_later)++;
			j++;
		} else {
			d[(*n)++] = (int64_t)(b->stamp_ns - a->stamp_ns);
			/* the first of a number in each copy: later ones of it are left out */
			for (i++; i < earlier->n && earlier->v[i].numbering == a->numbering && earlier->v[i].seq == a->seq;)
				i++;
			for (j++; j < later->n && later->v[j].numbering == b->numbering && later->v[j].seq == b->seq;)
				j++;
		}
	}
	*only_earlier += earlier->n - i;
	*only_later += later->n - j;
	*out = d;
	return 0;
}

int ev_fixlatency_summarize(int64_t *v, size_t n, enum ev_qrule rule, struct ev_fixlatency_summary *out)
{
	memset(out, 0, sizeof *out);
	if (!n)
		return 0;
	int64_t min = v[0], max = v[0];
	__int128 sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
		sum += v[i];
	}
	/* as distances from the minimum: unsigned, exact, and small enough
	 * that a linear quantile's double keeps every nanosecond */
	uint64_t *u = (uint64_t *)v;
	for (size_t i = 0; i < n; i++)
		u[i] = (uint64_t)v[i] - (uint64_t)min;
	out->n = n;
	out->min = min;
	out->max = max;
	out->sum = sum;
	out->mean = (double)sum / (double)n;
	for (int k = 0; k < EV_FIXLATENCY_QUANTILES; k++) {
		struct ev_prob p;
		ev_prob_parse_percent(ev_fixlatency_percents[k], &p);
		out->q[k] = (double)min + ev_quantile(u, n, rule, p);
	}
	return 0;
}

uint64_t ev_fixlatency_coarser(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}
