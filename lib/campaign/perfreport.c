/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/campaign/perfreport.h"
#include "lib/core/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.34%" into v. */
static int percent(const char *s, const char *e, double *v)
{
	ev_text_trim(&s, &e);
	if (e - s == 3 && memcmp(s, "N/A", 3) == 0) {
		*v = -1;
		return 1;
	}
	if (e - s < 2 || e[-1] != '%' || e - s > 30)
		return 0;
	char num[32];
	snprintf(num, sizeof num, "%.*s", (int)(e - s - 1), s);
	char *end;
	errno = 0;
	*v = strtod(num, &end);
	return !*end && !errno && *v >= 0 && *v <= 100.0001;
}

static int row_of(const char *s, const char *e, struct ev_perf_row *r)
{
	const char *field[5], *fend[5];
	const char *p = s;
	for (int i = 0; i < 5; i++) {
		const char *semi = memchr(p, ';', (size_t)(e - p));
		if (!semi)
			return 0;
		field[i] = p;
		fend[i] = semi;
		p = semi + 1;
	}
	memset(r, 0, sizeof *r);
	if (!percent(field[0], fend[0], &r->children_percent) || !percent(field[1], fend[1], &r->self_percent) ||
	    r->self_percent < 0)
		return 0;
	const char *a = field[2], *b = fend[2];
	ev_text_trim(&a, &b);
	char num[32];
	if (a == b || b - a >= (long)sizeof num)
		return 0;
	snprintf(num, sizeof num, "%.*s", (int)(b - a), a);
	char *end;
	errno = 0;
	unsigned long long samples = strtoull(num, &end, 10);
	if (*end || errno || num[0] == '-')
		return 0;
	r->samples = samples;
	a = field[3], b = fend[3];
	ev_text_trim(&a, &b);
	const char *colon = memchr(a, ':', (size_t)(b - a));
	if (!colon || colon == a || colon - a > 10)
		return 0;
	snprintf(num, sizeof num, "%.*s", (int)(colon - a), a);
	errno = 0;
	r->pid = strtol(num, &end, 10);
	if (*end || errno || r->pid < 0)
		return 0;
	snprintf(r->comm, sizeof r->comm, "%.*s", (int)(b - colon - 1), colon + 1);
	a = field[4], b = fend[4];
	ev_text_trim(&a, &b);
	if (a == b || (size_t)(b - a) >= sizeof r->dso)
		return 0;
	snprintf(r->dso, sizeof r->dso, "%.*s", (int)(b - a), a);
	a = p, b = e; /* the symbol: all that is left, ';' included */
	ev_text_trim(&a, &b);
	r->mark = '?';
	if (b - a >= 4 && a[0] == '[' && (a[1] == 'k' || a[1] == '.') && a[2] == ']' && a[3] == ' ') {
		r->mark = a[1];
		a += 4;
	}
	if (a == b || (size_t)(b - a) >= sizeof r->sym)
		return 0;
	snprintf(r->sym, sizeof r->sym, "%.*s", (int)(b - a), a);
	return 1;
}

unsigned ev_perf_report_parse(const char *text, size_t len, const char *subject, struct ev_perf_header *h,
			      ev_perf_row_fn row, void *ctx, ev_finding_fn fn, void *fctx)
{
	unsigned findings = 0;
	size_t lineno = 0;
	memset(h, 0, sizeof *h);
	const char *ls, *le;
	for (const char *s = text, *end = text + len; ev_text_next_line(&s, end, &ls, &le);) {
		lineno++;
		ev_text_trim(&ls, &le);
		if (ls == le)
			continue;
		char line[1600];
		snprintf(line, sizeof line, "%.*s", (int)(le - ls > 1500 ? 1500 : le - ls), ls);
		if (line[0] == '#') {
			unsigned long long n;
			char event[128];
			if (sscanf(line, "# Total Lost Samples: %llu", &n) == 1) {
				h->has_lost = 1;
				h->lost = n;
			} else if (sscanf(line, "# Samples: %*s of event '%127[^']'", event) == 1) {
				h->has_samples = 1;
				snprintf(h->event, sizeof h->event, "%s", event);
			}
			continue;
		}
		struct ev_perf_row r;
		if (!row_of(ls, le, &r)) {
			char where[600];
			snprintf(where, sizeof where, "%s line %zu", subject, lineno);
			ev_finding_emit(fn, fctx, where, "perf-report",
					"a line that is neither a comment nor a row of children; self; samples; "
					"pid:command; object; symbol",
					NULL, line);
			findings++;
			continue;
		}
		row(ctx, &r);
	}
	return findings;
}
