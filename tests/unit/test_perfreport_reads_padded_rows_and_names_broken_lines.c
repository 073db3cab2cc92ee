/* SPDX-License-Identifier: Apache-2.0 */
/* perf report's ';'-separated rows are read as perf pads them: spaces
 * around every field, N/A children without call graphs, a symbol with
 * spaces, C++ templates, a ';' of its own, "[unknown]" and a bare address;
 * the header's lost samples and event; a line that is no row is named
 * with its number, never skipped. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "lib/campaign/perfreport.h"

struct rows {
	int n;
	struct ev_perf_row r[16];
};

static void on_row(void *ctx, const struct ev_perf_row *row)
{
	struct rows *rs = ctx;
	if (rs->n < 16)
		rs->r[rs->n] = *row;
	rs->n++;
}

struct seen {
	int n;
	char subject[4][128], found[4][EV_FINDING_VALUE_MAX];
};

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct seen *s = ctx;
	if (s->n < 4) {
		snprintf(s->subject[s->n], sizeof s->subject[0], "%s", f->subject);
		snprintf(s->found[s->n], sizeof s->found[0], "%s", f->found);
	}
	s->n++;
}

int main(void)
{
	static const char text[] =
		"# To display the perf.data header info, please use --header/--header-only options.\n"
		"#\n"
		"# Total Lost Samples: 3\n"
		"#\n"
		"# Samples: 12K of event 'cpu-clock'\n"
		"# Event count (approx.): 82000000\n"
		"#\n"
		"# Children;Overhead;     Samples;    Pid:Command   ;Shared Object    ;Symbol                 \n"
		"     N/A; 0.61%  ; 1          ;  21053:fix-sender;[kernel.kallsyms];[k] ___slab_alloc\n"
		"    8.33%  ; 4.17%  ; 1234       ;  24405:sh     ;libstdc++.so.6.0.30 ;[.] std::vector<int, std::allocator<int> >::push_back(int const&)  \n"
		"     N/A; 1.00%  ; 7          ;  21053:fix-sender;fix-sender       ;[.] operator new(unsigned long)\n"
		"     N/A; 0.50%  ; 2          ;  21053:fix-sender;[unknown]        ;[.] 0x00007f3a12345678\n"
		"     N/A; 0.50%  ; 2          ;  21053:fix:sender;a.so             ;[.] odd;name with; semicolons\n"
		"\n"
		"     N/A; 0.61%  ; x          ;  21053:fix-sender;[kernel.kallsyms];[k] broken\n"
		"some text perf printed\n";
	struct ev_perf_header h;
	struct rows rows = {0};
	struct seen seen = {0};
	unsigned n = ev_perf_report_parse(text, strlen(text), "report", &h, on_row, &rows, on_finding, &seen);
	CHECK_INT_EQ(n, 2);
	CHECK_INT_EQ(h.has_lost, 1);
	CHECK_INT_EQ(h.lost, 3);
	CHECK_STR_EQ(h.event, "cpu-clock");
	CHECK_INT_EQ(rows.n, 5);
	CHECK_INT_EQ(rows.r[0].pid, 21053);
	CHECK_STR_EQ(rows.r[0].comm, "fix-sender");
	CHECK_STR_EQ(rows.r[0].dso, "[kernel.kallsyms]");
	CHECK_STR_EQ(rows.r[0].sym, "___slab_alloc");
	CHECK_INT_EQ(rows.r[0].mark, 'k');
	CHECK_INT_EQ(rows.r[0].samples, 1);
	CHECK(rows.r[0].children_percent < 0);
	CHECK_STR_EQ(rows.r[1].sym, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	CHECK_INT_EQ(rows.r[1].samples, 1234);
	CHECK(rows.r[1].children_percent > 8.32 && rows.r[1].children_percent < 8.34);
	CHECK(rows.r[1].self_percent > 4.16 && rows.r[1].self_percent < 4.18);
	CHECK_STR_EQ(rows.r[2].sym, "operator new(unsigned long)");
	CHECK_STR_EQ(rows.r[3].dso, "[unknown]");
	CHECK_STR_EQ(rows.r[3].sym, "0x00007f3a12345678");
	CHECK_STR_EQ(rows.r[4].comm, "fix:sender");
	CHECK_STR_EQ(rows.r[4].sym, "odd;name with; semicolons");
	CHECK_STR_EQ(seen.subject[0], "report line 15");
	CHECK(strstr(seen.found[0], "x          ;") != NULL);
	CHECK_STR_EQ(seen.subject[1], "report line 16");
	CHECK_STR_EQ(seen.found[1], "some text perf printed");
	return check_exit("perfreport");
}
