/* SPDX-License-Identifier: Apache-2.0 */
/* What audit recomputes from a run's raw series. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/usecase/audit/series_analysis.h"
#include "lib/receipt/receipt.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/fix/fixread.h"

#define NS_PER_SECOND 1000000000u

/* The order statistics idx[0..k) (ascending or not) read off a sorted
 * distribution: one walk over its cumulative counts. */
static void from_distribution(const struct ev_distribution *d, const uint64_t *idx, size_t k, uint64_t *val)
{
	size_t order[2 * EV_ANALYSIS_MAX_QUANTILES + 2];
	for (size_t j = 0; j < k; j++) { /* the ranks in increasing order */
		size_t at = j;
		for (; at > 0 && idx[order[at - 1]] > idx[j]; at--)
			order[at] = order[at - 1];
		order[at] = j;
	}
	uint64_t below = 0;
	size_t i = 0;
	for (size_t o = 0; o < k; o++) {
		uint64_t rank = idx[order[o]];
		while (i + 1 < d->n && below + d->count[i] <= rank)
			below += d->count[i++];
		val[order[o]] = d->value[i];
	}
}

void ev_analysis_select(uint64_t *v, size_t n, const struct ev_distribution *sorted, struct ev_wanted *want,
			   size_t nwant)
{
	uint64_t idx[2 * EV_ANALYSIS_MAX_QUANTILES + 2] = {0}, val[2 * EV_ANALYSIS_MAX_QUANTILES + 2] = {0};
	size_t k = 0, at[EV_ANALYSIS_MAX_QUANTILES + 1] = {0};
	if (nwant > EV_ANALYSIS_MAX_QUANTILES + 1)
		nwant = EV_ANALYSIS_MAX_QUANTILES + 1;
	for (size_t i = 0; i < nwant && n; i++) {
		if (want[i].given) {
			want[i].g_num = 0;
			want[i].index = want[i].index < n ? want[i].index : n - 1;
		} else {
			want[i].index = ev_quantile_index(want[i].rule, want[i].p, n, &want[i].g_num, &want[i].g_den);
		}
		at[i] = k;
		idx[k++] = want[i].index;
		if (want[i].g_num)
			idx[k++] = want[i].index + 1;
	}
	/* read only, by histogram; in place if its scratch cannot be had */
	int got = 0;
	if (n && sorted && sorted->total == n)
		from_distribution(sorted, idx, k, val); /* already sorted: no pass over the series */
	else if (n)
		got = ev_order_stats(v, n, idx, k, val);
	if (got == -2) { /* stopped by a signal: the caller claims nothing */
		for (size_t i = 0; i < nwant; i++)
			want[i].value = 0, want[i].lo = want[i].hi = 0;
		return;
	}
	if (got != 0) {
		ev_select_many(v, n, idx, k);
		for (size_t j = 0; j < k; j++)
			val[j] = v[idx[j]];
	}
	for (size_t i = 0; i < nwant; i++) {
		if (!n) {
			want[i].value = 0;
			want[i].lo = want[i].hi = 0;
			continue;
		}
		want[i].lo = want[i].hi = val[at[i]];
		if (want[i].g_num)
			want[i].hi = val[at[i] + 1];
		double a = (double)val[at[i]];
		if (!want[i].g_num) {
			want[i].value = a;
			continue;
		}
		double b = (double)val[at[i] + 1], g = (double)want[i].g_num / (double)want[i].g_den;
		/* numpy's blend, so that the same inputs give the same double */
		want[i].value = g < 0.5 ? a + (b - a) * g : b - (b - a) * (1 - g);
	}
}

json_t *ev_analysis_moments_json(const struct ev_moments *m)
{
	char sum[48];
	/* the sum is exact, and may pass 2^64: as text */
	unsigned __int128 s = m->sum;
	char rev[48];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + (int)(s % 10));
		s /= 10;
	} while (s);
	for (size_t i = 0; i < n; i++)
		sum[i] = rev[n - 1 - i];
	sum[n] = 0;
	return json_pack("{s:I, s:I, s:I, s:s, s:o}", "count", (json_int_t)m->n, "min", (json_int_t)m->min,
			 "max", (json_int_t)m->max, "sum", sum, "mean", ev_json_decimal(m->sum, m->n ? m->n : 1, 9));
}

json_t *ev_analysis_quantile_json(const struct ev_wanted *w)
{
	if (!w->g_num || w->hi == w->lo)
		return json_integer((json_int_t)w->lo);
	/* lo + (hi - lo) g = (lo (den - num) + hi num) / den, exactly */
	unsigned __int128 num = (unsigned __int128)w->lo * (w->g_den - w->g_num) + (unsigned __int128)w->hi * w->g_num;
	return ev_json_decimal(num, w->g_den, 9);
}

/* sockperf's own rank: (int)(0.5 + p * N) - 1, in double */
static uint64_t sockperf_index(struct ev_prob p, size_t n)
{
	double pd = (double)p.num / (double)p.den;
	long r = (long)(0.5 + pd * (double)n) - 1;
	return r < 0 ? 0 : (uint64_t)r;
}

const char *ev_analysis_sockperf_clock_name(enum ev_sockperf_clock c)
{
	return c == EV_SOCKPERF_CLOCK_TSC ? "tsc" : c == EV_SOCKPERF_CLOCK_MONOTONIC ? "monotonic" : "unknown";
}

/* sockperf's TicksDuration::stdDev over the samples in their log order:
 * sums in double, the sample variance, its root rounded to a whole tick.
 * Ticks are ns on its monotonic clock. */
static long double sockperf_stddev(const uint64_t *v, size_t n)
{
	if (n <= 1)
		return 0;
	double sum = 0, sum_sqr = 0;
	for (size_t i = 0; i < n; i++) {
		double t = (double)v[i];
		sum += t;
		sum_sqr += t * t;
	}
	double avg = sum / (double)n;
	double variance = (sum_sqr - (double)n * avg * avg) / (double)(n - 1);
	return (long double)(int64_t)(sqrt(variance) + 0.5);
}

static const char why_tsc_order[] =
	"sockperf converts TSC ticks to ns for each logged timestamp apart, truncating: a latency rebuilt "
	"from the log is its own or 1 ns above it, never below";
static const char why_tsc_either[] =
	"sockperf computes this in TSC ticks; from the log's truncated ns it is rebuilt within 1 ns, "
	"either side";
static const char why_clock_unknown[] =
	"1 ns off, as sockperf's TSC conversion would make it, but nothing says sockperf ran on its TSC "
	"clock: say --sockperf-clock tsc if it ran without --no-rdtsc";

/* Does value + delta, formatted as st was printed, read as st's text? */
static int equal_at(const struct ev_native_stat *st, long double value, long double delta)
{
	char t[64];
	if (value + delta < 0)
		return 0;
	ev_native_format_value(st, value + delta, t, sizeof t);
	return strcmp(t, st->text) == 0;
}

/* Kept whole: one case per statistic a native tool prints (sockperf's sums
 * first, before anything may reorder the samples; each quantile by the
 * tool's rule; the moments), a table in code whose rows are a few lines
 * each. */
json_t *ev_analysis_compare_native(const struct ev_native *nat, struct ev_series *s,
				     const struct ev_distribution *sorted, const struct ev_moments *m,
				enum ev_sockperf_clock clock, unsigned *differ)
{
	json_t *out = json_array();
	*differ = 0;
	char why[256] = "";
	int sockperf = nat->kind == EV_NATIVE_SOCKPERF;
	int sockperf_log = sockperf && s->kind == EV_SERIES_SOCKPERF;
	if (s->ticks_per_second && s->ticks_per_second != NS_PER_SECOND)
		snprintf(why, sizeof why,
			 "the series counts %" PRIu64 " ticks a second and %s prints nanoseconds; evidence "
			 "never rescales", s->ticks_per_second, nat->tool);
	else if (sockperf_log && nat->half_rtt != s->half_rtt)
		snprintf(why, sizeof why, "the summary is of %s, the log of %s",
			 nat->half_rtt ? "half round trips" : "round trips",
			 s->half_rtt ? "half round trips" : "round trips");
	else if (s->n == 0)
		snprintf(why, sizeof why, "the series is empty");
	/* before anything may reorder the samples: sockperf's own sums run
	 * in the log's order */
	long double stddev = sockperf_log ? sockperf_stddev(s->v, s->n) : 0;
	/* every quantile by the exact rule, and for sockperf at its double
	 * rank too: all selected at once */
	struct ev_wanted want[2 * EV_NATIVE_MAX];
	size_t nwant = 0, at[EV_NATIVE_MAX];
	for (size_t i = 0; i < nat->n; i++)
		if (nat->stats[i].what == EV_NSTAT_QUANTILE) {
			at[i] = nwant;
			want[nwant++] = (struct ev_wanted){.rule = nat->rule, .p = nat->stats[i].p};
			if (sockperf)
				want[nwant++] = (struct ev_wanted){.given = 1, .index = sockperf_index(nat->stats[i].p, s->n)};
		}
	if (!why[0])
		ev_analysis_select(s->v, s->n, sorted, want, nwant);
	for (size_t i = 0; i < nat->n; i++) {
		const struct ev_native_stat *st = &nat->stats[i];
		long double value = 0, alt = -1;
		const char *not_here = NULL; /* why this one cannot be recomputed from this series */
		switch (st->what) {
		case EV_NSTAT_COUNT: value = (long double)m->n; break;
		case EV_NSTAT_PER_PERCENTILE: value = (long double)m->n / 100; break;
		case EV_NSTAT_SUM: value = (long double)m->sum; break;
		case EV_NSTAT_MIN: value = (long double)m->min; break;
		case EV_NSTAT_MAX: value = (long double)m->max; break;
		case EV_NSTAT_QUANTILE:
			value = want[at[i]].value;
			if (sockperf)
				alt = want[at[i] + 1].value;
			break;
		case EV_NSTAT_MEAN:
			if (sockperf_log && m->n)
				/* sockperf: the round trips' sum over the count, in whole
				 * ticks, then halved, in whole ticks */
				value = (long double)(uint64_t)(s->rtt_sum / m->n / (s->half_rtt ? 2 : 1));
			else
				value = ev_moments_mean(m);
			break;
		case EV_NSTAT_STDDEV:
			if (!sockperf_log)
				not_here = "sockperf's deviation needs its own log";
			else if (!s->half_rtt)
				not_here = "sockperf's deviation of a --full-rtt run: not recomputed by this audit";
			value = stddev;
			break;
		case EV_NSTAT_RUNTIME:
			if (!sockperf_log)
				not_here = "sockperf's valid duration needs its own log";
			else if (nat->dropped > 0 || nat->out_of_order > 0)
				not_here = "packets dropped or out of order are not in the log, and may end the valid duration";
			value = (long double)(s->last_rx - s->first_tx);
			break;
		}
		char text[64], alt_text[64] = "";
		const char *verdict, *because = NULL;
		ev_native_format_value(st, value, text, sizeof text);
		if (alt >= 0)
			ev_native_format_value(st, alt, alt_text, sizeof alt_text);
		int counts = st->what == EV_NSTAT_COUNT || st->what == EV_NSTAT_PER_PERCENTILE;
		int order_stat = st->what == EV_NSTAT_QUANTILE || st->what == EV_NSTAT_MIN || st->what == EV_NSTAT_MAX;
		/* sockperf's TSC conversion moves a rebuilt order statistic up
		 * by at most 1 ns; a mean, deviation or duration either way */
		int off_by_tsc = sockperf_log && !counts && st->format != EV_NFMT_DOUBLE &&
				 (order_stat ? equal_at(st, value, -1) || (alt >= 0 && equal_at(st, alt, -1))
					     : equal_at(st, value, -1) || equal_at(st, value, 1));
		if (not_here || (why[0] && !counts)) {
			verdict = "not compared";
			because = not_here ? not_here : why;
		} else if (st->format == EV_NFMT_DOUBLE) {
			verdict = (double)value == st->value ? "equal" : "differs";
		} else if (strcmp(text, st->text) == 0) {
			verdict = "equal";
		} else if (sockperf && alt >= 0 && strcmp(alt_text, st->text) == 0) {
			verdict = "equal at sockperf's double rank";
			because = "sockperf takes element (int)(0.5 + p N) - 1 computed in double, here not the exact rank";
			snprintf(text, sizeof text, "%s", alt_text);
		} else if (off_by_tsc && clock == EV_SOCKPERF_CLOCK_TSC) {
			verdict = "equal within the TSC conversion";
			because = order_stat ? why_tsc_order : why_tsc_either;
		} else {
			verdict = "differs";
			if (off_by_tsc && clock == EV_SOCKPERF_CLOCK_UNKNOWN)
				because = why_clock_unknown;
		}
		if (strcmp(verdict, "differs") == 0)
			(*differ)++;
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", st->name, "rule",
				      st->what == EV_NSTAT_QUANTILE ? ev_qrule_name(nat->rule) : "exact", "native", st->text,
				      "recomputed", strcmp(verdict, "not compared") == 0 ? "" : text, "verdict", verdict);
		if (because)
			json_object_set_new(o, "why", json_string(because));
		json_array_append_new(out, o);
	}
	*differ += (unsigned)ev_analysis_native_rest(nat, out);
	return out;
}

size_t ev_analysis_native_rest(const struct ev_native *nat, json_t *rows)
{
	for (size_t i = 0; i < nat->nmissing; i++)
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", nat->missing[i], "rule",
						      "exact", "native", "", "recomputed", "", "verdict", "missing", "why",
						      "the tool always prints it: a line was removed or the output was cut"));
	for (size_t i = 0; i < nat->nnotes; i++)
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", nat->notes[i].label,
						      "rule", "none", "native", nat->notes[i].text, "recomputed", "",
						      "verdict", "not recomputable", "why", nat->notes[i].why));
	return nat->nmissing;
}

void ev_analysis_native_coverage(const json_t *rows, char *out, size_t cap)
{
	size_t i, printed = 0, compared = 0, used = 0;
	json_t *r;
	char skipped[512] = "";
	json_array_foreach(rows, i, r) {
		const char *verdict = json_string_value(json_object_get(r, "verdict"));
		printed += strcmp(verdict, "missing") != 0;
		if (strncmp(verdict, "equal", 5) == 0 || strcmp(verdict, "differs") == 0) {
			compared++;
		} else if (strcmp(verdict, "missing") != 0) {
			int n = snprintf(skipped + used, sizeof skipped - used, "%s%s", used ? ", " : "",
					 json_string_value(json_object_get(r, "name")));
			if (n > 0 && (size_t)n < sizeof skipped - used)
				used += (size_t)n;
		}
	}
	if (compared == printed)
		snprintf(out, cap, "recomputed %zu of %zu printed statistics", compared, printed);
	else
		snprintf(out, cap, "recomputed %zu of %zu printed statistics (not recomputable: %s)", compared, printed,
			 skipped);
}

json_t *ev_analysis_pacing(struct ev_series *d, uint64_t rate, uint64_t *missed_out)
{
	uint64_t tps = d->ticks_per_second ? d->ticks_per_second : NS_PER_SECOND;
	uint64_t interval = (uint64_t)((double)tps / (double)rate);
	/* The deadlines as the sender kept them: each an interval after the
	 * last, or re-anchored where a call was a whole interval late. */
	uint64_t deadline = 0, first = 0, last = 0, missed = 0;
	for (size_t k = 0; k < d->n; k++) {
		uint64_t start = deadline + d->v[k];
		if (k == 0)
			first = start;
		last = start;
		if (d->v[k] >= interval) {
			missed++;
			deadline = start;
		}
		deadline += interval;
	}
	*missed_out = missed;
	json_t *achieved = d->n > 1 && last > first
				   ? ev_json_decimal((unsigned __int128)(d->n - 1) * tps, last - first, 3)
				   : json_string("0.000");
	struct ev_moments m;
	ev_moments_of(d->v, d->n, &m);
	static const char *const pct[] = {"50", "90", "99", "99.9"};
	struct ev_wanted want[4] = {0};
	for (int i = 0; i < 4; i++) {
		want[i].rule = EV_QRULE_NEAREST_RANK;
		ev_prob_parse_percent(pct[i], &want[i].p);
	}
	ev_analysis_select(d->v, d->n, NULL, want, 4);
	json_t *q = json_object();
	for (int i = 0; i < 4; i++) {
		char key[16];
		snprintf(key, sizeof key, "p%s", pct[i]);
		json_object_set_new(q, key, json_integer((json_int_t)want[i].value));
	}
	return json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:o, s:s}", "rate", (json_int_t)rate,
			 "interval_ticks", (json_int_t)interval, "calls", (json_int_t)d->n,
			 "achieved_from_deadlines", achieved, "missed_and_reanchored", (json_int_t)missed,
			 "max_delay", (json_int_t)m.max, "delay_quantiles", q, "rule", "nearest-rank");
}

static json_t *cohort_json(uint64_t *v, size_t n, size_t above, size_t total)
{
	struct ev_prob p99 = {99, 100};
	double p = n ? ev_quantile(v, n, EV_QRULE_NEAREST_RANK, p99) : 0;
	json_t *o = json_pack("{s:I, s:o, s:I, s:o}", "calls", (json_int_t)n, "share_of_calls",
			      ev_json_decimal(n, total ? total : 1, 9), "above_threshold", (json_int_t)above,
			      "share_above", ev_json_decimal(above, n ? n : 1, 9));
	json_object_set_new(o, "p99", n ? json_integer((json_int_t)p) : json_null());
	return o;
}

json_t *ev_analysis_cohorts(const uint64_t *v, size_t n, const uint8_t *page, uint64_t threshold)
{
	static const size_t displacements[] = {0, 1, 8, 128};
	uint64_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
	if (!scratch)
		return NULL;
	json_t *out = json_array();
	for (size_t d = 0; d < sizeof displacements / sizeof *displacements; d++) {
		size_t shift = displacements[d], front = 0, back = n, above_page = 0, above_other = 0;
		for (size_t k = 0; k < n; k++) {
			int labelled = k >= shift && page[k - shift];
			if (labelled) {
				scratch[front++] = v[k];
				above_page += v[k] > threshold;
			} else {
				scratch[--back] = v[k];
				above_other += v[k] > threshold;
			}
		}
		json_t *o = json_pack("{s:I, s:s}", "displacement", (json_int_t)shift, "labels",
				      shift ? "control: each call takes the label of the record this many before it"
					    : "the call's own record");
		json_object_set_new(o, "page", cohort_json(scratch, front, above_page, n));
		json_object_set_new(o, "other", cohort_json(scratch + front, n - front, above_other, n));
		size_t above = above_page + above_other;
		json_object_set_new(o, "page_share_of_calls_above", ev_json_decimal(above_page, above ? above : 1, 9));
		json_array_append_new(out, o);
	}
	free(scratch);
	return out;
}

struct labelling {
	uint64_t warmups, page_size, record;
	size_t n;
	uint8_t *labels;
	uint32_t file;
	int64_t max_page;
};

static void on_record(void *ctx, const struct ev_fix_record *r)
{
	struct labelling *l = ctx;
	if (r->file_index != l->file || l->record == 0) {
		l->file = r->file_index;
		l->max_page = -1; /* a new file: every page is new */
	}
	/* a record reaches new ground when its last byte lies past every page
	 * the file had before it (its header comes first, in lower pages) */
	uint64_t to = r->offset + r->len - 1;
	int64_t last = (int64_t)(to / l->page_size);
	int fresh = last > l->max_page;
	if (last > l->max_page)
		l->max_page = last;
	uint64_t k = l->record - l->warmups - 1; /* record 0 is the Logon */
	if (l->record > l->warmups && k < l->n)
		l->labels[k] = (uint8_t)fresh;
	l->record++;
}

static void on_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
		      uint64_t offset, const char *message, const char *expected, const char *found)
{
	/* audit journal judges the journal; here only its records' places count */
	(void)ctx, (void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
}

ev_status ev_analysis_page_labels(const char *dir, uint64_t warmups, size_t n, uint64_t page_size,
			       uint8_t **labels, struct ev_error *err)
{
	struct labelling l = {.warmups = warmups, .page_size = page_size, .n = n};
	char **files = NULL;
	size_t nfiles = 0;
	*labels = NULL;
	ev_status st = ev_fixread_list(EV_FIXREAD_LLFIX, dir, &files, &nfiles, err);
	if (st != EV_OK)
		return st;
	if (!(l.labels = calloc(n ? n : 1, 1))) {
		ev_fixread_files_free(files, nfiles);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	struct ev_fixread_sink sink = {on_record, on_damage, &l, NULL, NULL, NULL, NULL};
	struct ev_fixread *r = ev_fixread_new(EV_FIXREAD_LLFIX, &sink);
	if (!r)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < nfiles && st == EV_OK; i++)
		st = ev_fixread_file(r, files[i], (uint32_t)i, NULL, NULL, NULL, err);
	ev_fixread_free(r);
	ev_fixread_files_free(files, nfiles);
	if (st == EV_OK && l.record < warmups + 1 + n)
		st = ev_error_set(err, EV_MISMATCH,
				  "%" PRIu64 " records, too few for a Logon, %" PRIu64 " warmups and the "
				  "series' %zu measured calls", l.record, warmups, n);
	if (st != EV_OK) {
		free(l.labels);
		return st;
	}
	*labels = l.labels;
	return EV_OK;
}
