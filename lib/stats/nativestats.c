/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/stats/nativestats.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"

#define REPORT_MAX ((size_t)1 << 30)
#define PAIR_FORMAT "evidence-pair-report/1"

/* The shortest text that reads back as exactly v. */
static void shortest(double v, char *out, size_t cap)
{
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(out, cap, "%.*g", digits, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

const char *ev_native_kind_name(enum ev_native_kind kind)
{
	switch (kind) {
	case EV_NATIVE_LLFIX: return "llfix";
	case EV_NATIVE_SOCKPERF: return "sockperf";
	default: return "pair";
	}
}

/* A line without its ANSI colour sequences (ESC [ digits ; ... m) and
 * trailing white space, into out. */
static void plain_line(const char *p, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		if (p[i] == '\033' && i + 1 < n && p[i + 1] == '[') {
			size_t j = i + 2;
			while (j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == ';'))
				j++;
			if (j < n && p[j] == 'm') {
				i = j;
				continue;
			}
		}
		out[o++] = p[i];
	}
	while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\r' || out[o - 1] == '\t'))
		o--;
	out[o] = 0;
}

static struct ev_native_stat *add(struct ev_native *nat, const char *name, enum ev_native_what what,
				  enum ev_native_format format, const char *text)
{
	if (nat->n == EV_NATIVE_MAX)
		return NULL;
	struct ev_native_stat *s = &nat->stats[nat->n++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	s->what = what;
	s->format = format;
	const char *t = text;
	while (*t == ' ')
		t++;
	snprintf(s->text, sizeof s->text, "%s", t);
	return s;
}

static void note(struct ev_native *nat, const char *label, const char *text, const char *why)
{
	if (nat->nnotes == EV_NATIVE_NOTES_MAX)
		return;
	struct ev_native_note *n = &nat->notes[nat->nnotes++];
	snprintf(n->label, sizeof n->label, "%s", label);
	while (*text == ' ')
		text++;
	snprintf(n->text, sizeof n->text, "%s", text);
	n->why = why;
}

static const char why_machine[] = "a fact of the machine or the run, not of the series";
static const char why_warmups[] = "warmups are timed but not kept: the series holds only measured calls";
static const char why_unknown[] = "a line of the block this audit does not know";

/* "Label : value[ nanoseconds]", and the head lines without " : " */
static void llfix_line(struct ev_native *nat, char *line)
{
	if (strncmp(line, "CPU frequency ", 14) == 0) {
		note(nat, "CPU frequency", line + 14, why_machine);
		return;
	}
	if (strncmp(line, "Pinned to CPU core ", 19) == 0) {
		note(nat, "Pinned to CPU core", line + 19, why_machine);
		return;
	}
	char *sep = strstr(line, " : ");
	size_t len = strlen(line);
	if (!sep && len > 2 && strcmp(line + len - 2, " :") == 0) { /* an empty value, its space trimmed */
		line[len - 2] = 0;
		note(nat, line, "", strcmp(line, "CPU isolation config") == 0 ? why_machine : why_unknown);
		return;
	}
	if (!sep)
		return;
	*sep = 0;
	char *label = line, *value = sep + 3;
	char *unit = strstr(value, " nanoseconds");
	if (unit)
		*unit = 0;
	if (strcmp(label, "Title") == 0) {
		snprintf(nat->title, sizeof nat->title, "%s", value);
	} else if (strcmp(label, "Antistall mock order count") == 0) {
		nat->warmups = strtoull(value, NULL, 10);
		note(nat, label, value, why_warmups);
	} else if (strcmp(label, "Sample count") == 0) {
		add(nat, "count", EV_NSTAT_COUNT, EV_NFMT_INT, value);
	} else if (unit && strcmp(label, "Minimum") == 0) {
		add(nat, "min", EV_NSTAT_MIN, EV_NFMT_G, value);
	} else if (unit && strcmp(label, "Maximum") == 0) {
		add(nat, "max", EV_NSTAT_MAX, EV_NFMT_G, value);
	} else if (unit && strcmp(label, "Average") == 0) {
		add(nat, "mean", EV_NSTAT_MEAN, EV_NFMT_F, value);
	} else if (unit && label[0] == 'P') {
		struct ev_prob p;
		char name[24], pct[20];
		if (ev_prob_parse_percent(label + 1, &p) != 0) {
			note(nat, label, value, why_unknown);
			return;
		}
		ev_prob_format(p, pct, sizeof pct);
		snprintf(name, sizeof name, "p%s", pct);
		struct ev_native_stat *s = add(nat, name, EV_NSTAT_QUANTILE, EV_NFMT_F, value);
		if (s)
			s->p = p;
	} else if (strcmp(label, "CPU isolation config") == 0 || strcmp(label, "AVX2 available") == 0) {
		note(nat, label, value, why_machine);
	} else {
		/* "QUICKFIX BM MODE : MEMORY PERSISTENT" and what a peer adds */
		note(nat, label, value, why_unknown);
	}
}

/* The number after "key=" in line, up to a space, ';' or ')', into out. */
static int after_key(const char *line, const char *key, char *out, size_t cap)
{
	const char *at = strstr(line, key);
	if (!at)
		return -1;
	at += strlen(key);
	snprintf(out, cap, "%.*s", (int)strcspn(at, " ;)"), at);
	return 0;
}

static void sockperf_line(struct ev_native *nat, const char *line)
{
	const char *at;
	char value[48];
	if ((at = strstr(line, "---> percentile ")) != NULL) {
		char pct[32];
		const char *eq = strstr(at, " = ");
		struct ev_prob p;
		if (!eq || sscanf(at + 16, "%31s", pct) != 1 || ev_prob_parse_percent(pct, &p) != 0) {
			note(nat, "percentile", at + 16, why_unknown);
			return;
		}
		char name[40];
		/* "99.000" and "99" are one percentile: name it by the short form */
		ev_prob_format(p, pct, sizeof pct);
		snprintf(name, sizeof name, "p%s", pct);
		struct ev_native_stat *s = add(nat, name, EV_NSTAT_QUANTILE, EV_NFMT_USEC3, eq + 3);
		if (s)
			s->p = p;
	} else if ((at = strstr(line, "<MAX> observation = ")) != NULL) {
		add(nat, "max", EV_NSTAT_MAX, EV_NFMT_USEC3, at + 20);
	} else if ((at = strstr(line, "<MIN> observation = ")) != NULL) {
		add(nat, "min", EV_NSTAT_MIN, EV_NFMT_USEC3, at + 20);
	} else if ((at = strstr(line, "avg-latency=")) != NULL || (at = strstr(line, "avg-rtt=")) != NULL) {
		nat->half_rtt = at[4] == 'l';
		const char *v = strchr(at, '=') + 1;
		snprintf(value, sizeof value, "%.*s", (int)strcspn(v, " ("), v);
		add(nat, "mean", EV_NSTAT_MEAN, EV_NFMT_USEC3, value);
		if (after_key(line, "std-dev=", value, sizeof value) == 0)
			add(nat, "std-dev", EV_NSTAT_STDDEV, EV_NFMT_USEC3, value);
		/* sockperf 3.8 and later print more beside it */
		static const char *const later[] = {"mean-ad=", "median-ad=", "siqr=", "cv=", "std-error="};
		for (size_t i = 0; i < sizeof later / sizeof *later; i++)
			if (after_key(line, later[i], value, sizeof value) == 0) {
				char label[24];
				snprintf(label, sizeof label, "%.*s", (int)strlen(later[i]) - 1, later[i]);
				note(nat, label, value, "not recomputed by this audit (sockperf 3.8's dispersion "
					"figures)");
			}
		if ((at = strstr(line, "ci=[")) != NULL)
			note(nat, "confidence interval", at + 3, "not recomputed by this audit (sockperf 3.8's "
				"confidence interval)");
	} else if ((at = strstr(line, "Summary: Latency is ")) != NULL ||
		   (at = strstr(line, "Summary: Round trip is ")) != NULL) {
		const char *v = strstr(at, " is ") + 4;
		snprintf(value, sizeof value, "%.*s", (int)strcspn(v, " "), v);
		add(nat, "summary mean", EV_NSTAT_MEAN, EV_NFMT_USEC3, value);
	} else if ((at = strstr(line, "Total ")) != NULL && strstr(at, " observations")) {
		snprintf(value, sizeof value, "%.*s", (int)strcspn(at + 6, " "), at + 6);
		add(nat, "count", EV_NSTAT_COUNT, EV_NFMT_INT, value);
		if ((at = strstr(line, "each percentile contains ")) != NULL) {
			snprintf(value, sizeof value, "%.*s", (int)strcspn(at + 25, " "), at + 25);
			add(nat, "observations per percentile", EV_NSTAT_PER_PERCENTILE, EV_NFMT_FIX2, value);
		}
	} else if (strstr(line, "[Valid Duration]")) {
		if (after_key(line, "RunTime=", value, sizeof value) == 0)
			add(nat, "valid run time", EV_NSTAT_RUNTIME, EV_NFMT_SEC3, value);
		if (after_key(line, "SentMessages=", value, sizeof value) == 0)
			note(nat, "valid sent messages", value,
			     "sockperf counts the sequence numbers it sent; the log lists only the answered ones");
		if (after_key(line, "ReceivedMessages=", value, sizeof value) == 0)
			add(nat, "valid received messages", EV_NSTAT_COUNT, EV_NFMT_INT, value);
	} else if (strstr(line, "[Total Run]")) {
		static const char *const keys[] = {"RunTime=", "Warm up time=", "Warm up packets=", "SentMessages=",
						   "ReceivedMessages=", "SkippedMessages="};
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			if (after_key(line, keys[i], value, sizeof value) == 0) {
				char label[48];
				snprintf(label, sizeof label, "total run %.*s", (int)strlen(keys[i]) - 1, keys[i]);
				note(nat, label, value, "counts the warmup too: the log holds only the valid duration");
			}
	} else if (strstr(line, "# dropped ")) {
		static const char *const keys[] = {"dropped messages = ", "duplicated messages = ",
						   "out-of-order messages = "};
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			if (after_key(line, keys[i], value, sizeof value) == 0) {
				char label[48];
				snprintf(label, sizeof label, "%.*s", (int)strlen(keys[i]) - 3, keys[i]);
				note(nat, label, value, "sockperf leaves these packets out of its log");
				if (i != 1) {
					char *e;
					long long n = strtoll(value, &e, 10);
					*(i == 0 ? &nat->dropped : &nat->out_of_order) = e != value && !*e ? n : -1;
				}
			}
	}
}

/* What each tool prints every time: absent, it is a finding. */
static void find_missing(struct ev_native *nat)
{
	static const char *const llfix[] = {"count", "min", "max", "mean", "p50", "p75", "p90", "p95", "p99", NULL};
	static const char *const sockperf[] = {"mean", "std-dev", "count", "max", "min", "p99.999", "p99.99",
					       "p99.9", "p99", "p90", "p75", "p50", "p25", "valid run time",
					       "valid received messages", NULL};
	static const char *const pair[] = {"count", "sum", "min", "max", "mean", "p50", "p75", "p90", "p95", "p99", NULL};
	const char *const *want = nat->kind == EV_NATIVE_LLFIX ? llfix : nat->kind == EV_NATIVE_SOCKPERF ? sockperf : pair;
	nat->nmissing = 0;
	for (; *want; want++) {
		size_t i = 0;
		while (i < nat->n && strcmp(nat->stats[i].name, *want) != 0)
			i++;
		if (i == nat->n && nat->nmissing < EV_NATIVE_MAX)
			nat->missing[nat->nmissing++] = *want;
	}
}

static ev_status load_pair(const char *path, const char *text, size_t len, struct ev_native *nat,
			   struct ev_error *err)
{
	json_t *doc;
	ev_status st = ev_json_parse(text, len, path, PAIR_FORMAT, 0, &doc, err);
	if (st != EV_OK)
		return st;
	nat->kind = EV_NATIVE_PAIR;
	nat->tool = "fix-sender";
	nat->rule = EV_QRULE_FLOOR_INDEX;
	const char *title = json_string_value(json_object_get(doc, "title"));
	snprintf(nat->title, sizeof nat->title, "%s", title ? title : "");
	nat->warmups = (uint64_t)json_integer_value(json_object_get(doc, "warmups"));
	json_t *rate = json_object_get(json_object_get(doc, "pacing"), "rate");
	nat->pacing_rate = json_is_integer(rate) && json_integer_value(rate) > 0 ? (uint64_t)json_integer_value(rate) : 0;
	json_t *measured = json_object_get(doc, "measured");
	if (json_is_integer(measured)) {
		char printed[32];
		snprintf(printed, sizeof printed, "%lld", (long long)json_integer_value(measured));
		add(nat, "measured", EV_NSTAT_COUNT, EV_NFMT_INT, printed);
	}
	json_t *stats = json_object_get(doc, "stats");
	const char *key;
	json_t *v;
	/* the report's other facts, each named: what the series cannot show */
	json_object_foreach(doc, key, v) {
		static const char *const read[] = {"format", "program", "title", "measured", "stats", "rule",
						   "clock", "ticks_per_second", NULL};
		const char *const *k = read;
		while (*k && strcmp(*k, key) != 0)
			k++;
		if (*k)
			continue;
		char *dump = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		note(nat, key, dump ? dump : "",
		     strcmp(key, "warmups") == 0 ? why_warmups
		     : strcmp(key, "pacing") == 0 ? "recomputed by --delay and --rate from the delay series"
		     : strcmp(key, "journal") == 0 ? "the journal's own counts: audit journal recomputes them"
						  : why_machine);
		free(dump);
	}
	json_object_foreach(stats, key, v) {
		char printed[64];
		struct ev_native_stat *s = NULL;
		if (json_is_integer(v))
			snprintf(printed, sizeof printed, "%lld", (long long)json_integer_value(v));
		if (strcmp(key, "mean") == 0 && json_is_number(v)) {
			shortest(json_number_value(v), printed, sizeof printed);
			if ((s = add(nat, "mean", EV_NSTAT_MEAN, EV_NFMT_DOUBLE, printed)))
				s->value = json_number_value(v);
		} else if (!json_is_integer(v)) {
			note(nat, key, "(not an integer)", why_unknown);
		} else if (strcmp(key, "count") == 0) {
			add(nat, "count", EV_NSTAT_COUNT, EV_NFMT_INT, printed);
		} else if (strcmp(key, "sum") == 0) {
			add(nat, "sum", EV_NSTAT_SUM, EV_NFMT_INT, printed);
		} else if (strcmp(key, "min") == 0) {
			add(nat, "min", EV_NSTAT_MIN, EV_NFMT_INT, printed);
		} else if (strcmp(key, "max") == 0) {
			add(nat, "max", EV_NSTAT_MAX, EV_NFMT_INT, printed);
		} else if (key[0] == 'p') {
			struct ev_prob p;
			if (ev_prob_parse_percent(key + 1, &p) != 0)
				note(nat, key, printed, why_unknown);
			else if ((s = add(nat, key, EV_NSTAT_QUANTILE, EV_NFMT_INT, printed)))
				s->p = p;
		} else {
			note(nat, key, printed, why_unknown);
		}
	}
	json_decref(doc);
	return EV_OK;
}

ev_status ev_native_load(const char *path, struct ev_native *nat, struct ev_error *err)
{
	memset(nat, 0, sizeof *nat);
	nat->dropped = nat->out_of_order = -1;
	char *text = NULL;
	size_t len = 0;
	ev_status st = ev_file_read_all(path, REPORT_MAX, &text, &len, err);
	if (st != EV_OK)
		return st;
	size_t lead = strspn(text, " \t\r\n");
	if (text[lead] == '{') {
		st = load_pair(path, text, len, nat, err);
	} else {
		int sockperf = strstr(text, "---> percentile ") || strstr(text, "<MAX> observation");
		nat->kind = sockperf ? EV_NATIVE_SOCKPERF : EV_NATIVE_LLFIX;
		nat->tool = sockperf ? "sockperf" : "llfix";
		nat->rule = sockperf ? EV_QRULE_ROUND_HALF_UP : EV_QRULE_FLOOR_INDEX;
		nat->half_rtt = sockperf; /* unless avg-rtt says otherwise */
		for (const char *p = text, *end = text + len; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
			char line[512];
			plain_line(p, (size_t)(stop - p), line, sizeof line);
			p = nl ? nl + 1 : end;
			/* sockperf's full log repeats the summary after the rows: the first is enough */
			if (sockperf && strncmp(line, "packet, txTime(sec)", 19) == 0)
				break;
			if (sockperf)
				sockperf_line(nat, line);
			else
				llfix_line(nat, line);
		}
	}
	free(text);
	if (st == EV_OK)
		find_missing(nat);
	if (st == EV_OK && nat->n == 0)
		st = ev_error_set(err, EV_REFUSED,
				  "%s: states no statistic this audit knows (an llfix statistics block, "
				  "sockperf's summary, or the reference pair's JSON report)", path);
	return st;
}

void ev_native_format_value(const struct ev_native_stat *s, long double value, char *out, size_t cap)
{
	switch (s->format) {
	case EV_NFMT_G: snprintf(out, cap, "%g", (double)value); break;
	case EV_NFMT_F: snprintf(out, cap, "%f", (double)value); break;
	case EV_NFMT_USEC3: snprintf(out, cap, "%.3lf", (double)value / 1000.0); break;
	case EV_NFMT_INT: snprintf(out, cap, "%.0Lf", value); break;
	case EV_NFMT_DOUBLE: shortest((double)value, out, cap); break;
	/* sockperf: toDecimalUsec() / 1000000, a double of whole ns */
	case EV_NFMT_SEC3: snprintf(out, cap, "%.3lf", (double)value / 1000.0 / 1000000.0); break;
	case EV_NFMT_FIX2: snprintf(out, cap, "%.2lf", (double)value); break;
	}
}

int ev_native_stat_ns(const struct ev_native_stat *s, double *value, double *slack)
{
	char *end = (char *)"";
	double v = s->value; /* a JSON number, read as the same double */
	errno = 0;
	if (s->format != EV_NFMT_DOUBLE)
		v = strtod(s->text, &end);
	if (end == s->text || *end || errno || !isfinite(v))
		return -1;
	double h = 0;
	switch (s->format) {
	case EV_NFMT_G: h = v == 0 ? 0.5e-6 : 0.5 * pow(10, floor(log10(fabs(v))) - 5); break;
	case EV_NFMT_F: h = 0.5e-6; break;
	case EV_NFMT_USEC3: v *= 1000; h = 0.5; break;
	case EV_NFMT_SEC3: v *= 1e9; h = 0.5e6; break;
	case EV_NFMT_FIX2: h = 0.005; break;
	case EV_NFMT_INT:
	case EV_NFMT_DOUBLE: break;
	}
	*value = v;
	*slack = h;
	return 0;
}

/* p of a quantile as a double, for ordering only */
static double p_of(const struct ev_native_stat *s)
{
	return s->p.den ? (double)s->p.num / (double)s->p.den : 0;
}

static size_t broken(struct ev_native_broken *out, size_t cap, size_t n, const struct ev_native_stat *a,
		     const struct ev_native_stat *b, const char *how, const char *why)
{
	if (n < cap) {
		out[n].stat = a->name;
		out[n].other = b->name;
		snprintf(out[n].text, sizeof out[n].text, "%s %s is %s %s %s (%s)", a->name, a->text, how, b->name, b->text,
			 why);
	}
	return n + 1;
}

size_t ev_native_check_consistency(const struct ev_native *nat, struct ev_native_broken *out, size_t cap)
{
	const struct ev_native_stat *min = NULL, *max = NULL, *q[EV_NATIVE_MAX];
	double v[EV_NATIVE_MAX], h[EV_NATIVE_MAX];
	size_t nq = 0, n = 0;
	double minv = 0, minh = 0, maxv = 0, maxh = 0;
	for (size_t i = 0; i < nat->n; i++) {
		const struct ev_native_stat *s = &nat->stats[i];
		if (s->what == EV_NSTAT_MIN && ev_native_stat_ns(s, &minv, &minh) == 0)
			min = s;
		else if (s->what == EV_NSTAT_MAX && ev_native_stat_ns(s, &maxv, &maxh) == 0)
			max = s;
	}
	if (min && max && minv - minh > maxv + maxh)
		n = broken(out, cap, n, min, max, "above", "the smallest value exceeds the largest");
	/* the percentiles in the order of p, whatever order they were printed in */
	for (size_t i = 0; i < nat->n; i++) {
		const struct ev_native_stat *s = &nat->stats[i];
		if (s->what != EV_NSTAT_QUANTILE || ev_native_stat_ns(s, &v[nq], &h[nq]) != 0)
			continue;
		size_t k = nq++;
		for (; k > 0 && p_of(q[k - 1]) > p_of(s); k--) {
			q[k] = q[k - 1];
			double tv = v[k], th = h[k];
			v[k] = v[k - 1], h[k] = h[k - 1];
			v[k - 1] = tv, h[k - 1] = th;
		}
		q[k] = s;
	}
	for (size_t i = 0; i < nq; i++) {
		if (i > 0 && v[i] + h[i] < v[i - 1] - h[i - 1])
			n = broken(out, cap, n, q[i], q[i - 1], "below", "a percentile never decreases as p rises");
		if (min && v[i] + h[i] < minv - minh)
			n = broken(out, cap, n, q[i], min, "below", "no percentile lies below the smallest value");
		if (max && v[i] - h[i] > maxv + maxh)
			n = broken(out, cap, n, q[i], max, "above", "no percentile lies above the largest value");
	}
	for (size_t i = 0; i < nat->n; i++) {
		const struct ev_native_stat *s = &nat->stats[i];
		double mv, mh;
		if (s->what != EV_NSTAT_MEAN || ev_native_stat_ns(s, &mv, &mh) != 0)
			continue;
		if (min && mv + mh < minv - minh)
			n = broken(out, cap, n, s, min, "below", "a mean lies between the smallest and the largest value");
		if (max && mv - mh > maxv + maxh)
			n = broken(out, cap, n, s, max, "above", "a mean lies between the smallest and the largest value");
	}
	return n;
}
