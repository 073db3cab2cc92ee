/* SPDX-License-Identifier: Apache-2.0 */
/* perfreport: the text of
 *     perf report --stdio --children -g none --field-separator=';'
 *                 --sort pid,dso,sym -F overhead_children,overhead,sample,pid,dso,sym
 * read strictly. The header's "# Total Lost Samples: N" and "# Samples: N
 * of event 'E'" lines; then a row per (PID, DSO, symbol), its fields padded
 * with spaces:
 *     " 8.33%  ; 4.17%  ; 1          ;  24405:sh     ;[kernel.kallsyms]   ;[k] __pud_alloc"
 * Children is "N/A" without call graphs. The symbol is the rest of the
 * line (it may hold spaces, ';', C++ templates, "[unknown]" or a bare
 * address), its "[k] " (kernel) or "[.] " (user) mark taken off. A line
 * that is neither a comment, blank, nor such a row is a finding, never
 * skipped. No global state. */
#ifndef EV_PERFREPORT_H
#define EV_PERFREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/finding.h"

struct ev_perf_row {
	long pid;
	char comm[64];
	char dso[512];
	char sym[1024];
	char mark;               /* 'k' kernel, '.' user, '?' none */
	uint64_t samples;        /* self */
	double self_percent;
	double children_percent; /* -1 when perf printed N/A (no call graphs) */
};

struct ev_perf_header {
	int has_lost, has_samples;
	uint64_t lost;
	char event[128];
};

typedef void (*ev_perf_row_fn)(void *ctx, const struct ev_perf_row *row);

/* Parse text (subject names it in findings); each row goes to row(ctx).
 * @return how many findings went to fn(fctx). */
unsigned ev_perf_report_parse(const char *text, size_t len, const char *subject, struct ev_perf_header *h,
			      ev_perf_row_fn row, void *ctx, ev_finding_fn fn, void *fctx);

#endif
