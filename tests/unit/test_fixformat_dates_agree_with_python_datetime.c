/* SPDX-License-Identifier: Apache-2.0 */
/* fixformat: every candidate date from 1999 to 2101 (months 00 to 13, days
 * 00 to 32) is a UTCDATEONLY, LOCALMKTDATE and the date of a UTCTIMESTAMP
 * exactly when Python's datetime says the day exists (31 November never,
 * 29 February in leap years only, 2000 leap and 2100 not); a second 60 is
 * accepted only at 23:59:60 UTC on a day IERS put a leap second (and,
 * after the days it has ruled on, at the end of June or December), in
 * every time type, with TZ offsets moved to UTC; and each day's
 * nanoseconds since 1970 (ev_fix_timestamp_ns) are Python's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/fix/fixformat.h"

#define FIRST_YEAR 1999
#define LAST_YEAR 2101

static int ok(enum ev_fix_type t, const char *v)
{
	return ev_fix_format_ok(t, v, (uint32_t)strlen(v));
}

int main(void)
{
	/* Python's verdict for every day that exists, one YYYYMMDD a line */
	static const char script[] =
		"python3 -c 'import datetime\n"
		"d = datetime.date(1999, 1, 1)\n"
		"while d.year <= 2101:\n"
		"    print(d.strftime(\"%Y%m%d\"), (d - datetime.date(1970, 1, 1)).days * 86400)\n"
		"    d += datetime.timedelta(days=1)'";
	FILE *py = popen(script, "r");
	if (!py) {
		printf("1..0 # SKIP python3 cannot be run\n");
		return 77;
	}
	static unsigned char exists[LAST_YEAR - FIRST_YEAR + 1][14][33];
	char line[64];
	size_t days = 0, epoch_wrong = 0;
	while (fgets(line, sizeof line, py)) {
		int y, m, d;
		unsigned long long midnight;
		if (sscanf(line, "%4d%2d%2d %llu", &y, &m, &d, &midnight) == 4 && y >= FIRST_YEAR && y <= LAST_YEAR) {
			exists[y - FIRST_YEAR][m][d] = 1;
			days++;
			uint64_t compact = ((uint64_t)y * 10000 + (uint64_t)m * 100 + (uint64_t)d) * 1000000 + 123456;
			if (ev_fix_timestamp_ns(compact, 789) != (midnight + 12 * 3600 + 34 * 60 + 56) * 1000000000ull + 789 &&
			    epoch_wrong++ < 10)
				fprintf(stderr, "%04d%02d%02d-12:34:56.000000789: not %llu s after 1970 + 45296 s\n", y, m, d,
					midnight);
		}
	}
	CHECK_INT_EQ(epoch_wrong, 0);
	if (pclose(py) != 0 || days == 0) {
		printf("1..0 # SKIP python3 did not list the days\n");
		return 77;
	}
	CHECK_INT_EQ(days, 103 * 365 + 25); /* 1999 to 2101: 2000 to 2096 leap, 2100 not */

	size_t disagree = 0;
	for (int y = FIRST_YEAR; y <= LAST_YEAR; y++)
		for (int m = 0; m <= 13; m++)
			for (int d = 0; d <= 32; d++) {
				char date[48], stamp[80];
				snprintf(date, sizeof date, "%04d%02d%02d", y, m, d);
				snprintf(stamp, sizeof stamp, "%s-12:34:56.789", date);
				int want = exists[y - FIRST_YEAR][m][d];
				if (ok(EV_FIX_T_UTCDATEONLY, date) != want || ok(EV_FIX_T_UTCTIMESTAMP, stamp) != want) {
					if (disagree++ < 10)
						fprintf(stderr, "%s: Python says %s\n", date, want ? "a day" : "no day");
				}
			}
	CHECK_INT_EQ(disagree, 0);
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261131-08:00:00"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "21000229-08:00:00"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20000229-08:00:00"));
	CHECK(!ok(EV_FIX_T_TZTIMESTAMP, "20261131-08:00:00Z"));
	CHECK(!ok(EV_FIX_T_MONTHYEAR, "20260230"));
	CHECK(ok(EV_FIX_T_MONTHYEAR, "202602"));

	/* leap seconds: the real ones, at 23:59:60 only */
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20161231-23:59:60"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20150630-23:59:60.123456789"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "19720630-23:59:60"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20161230-23:59:60"));  /* the day before */
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20170630-23:59:60"));  /* ruled out by IERS */
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20251231-23:59:60"));  /* ruled out by IERS */
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261231-23:59:60"));   /* not ruled on yet: June and December */
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261130-23:59:60"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20161231-12:00:60"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20161231-23:58:60"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20161231-23:59:61"));
	CHECK(ok(EV_FIX_T_UTCTIMEONLY, "23:59:60"));
	CHECK(ok(EV_FIX_T_UTCTIMEONLY, "23:59:60.500"));
	CHECK(!ok(EV_FIX_T_UTCTIMEONLY, "12:34:60"));
	CHECK(ok(EV_FIX_T_TZTIMEONLY, "23:59:60Z"));
	CHECK(ok(EV_FIX_T_TZTIMEONLY, "18:59:60-05"));
	CHECK(ok(EV_FIX_T_TZTIMEONLY, "05:29:60+05:30"));
	CHECK(!ok(EV_FIX_T_TZTIMEONLY, "23:59:60+01"));
	CHECK(!ok(EV_FIX_T_TZTIMEONLY, "12:00:60Z"));
	CHECK(ok(EV_FIX_T_TZTIMEONLY, "12:00-05"));
	CHECK(!ok(EV_FIX_T_TZTIMEONLY, "12:00+15"));
	CHECK(!ok(EV_FIX_T_TZTIMEONLY, "12:00+05:60"));

	/* the memo gives the same verdicts: a leap second on a wrong day is
	 * refused even after a good value of the same length */
	struct ev_fix_time_memo memo = {0};
	uint64_t s;
	uint32_t ns;
	CHECK_INT_EQ(ev_fix_utc_timestamp_memo(&memo, "20161231-23:59:59.000", 21, &s, &ns), 0);
	CHECK_INT_EQ(ev_fix_utc_timestamp_memo(&memo, "20161231-23:59:60.000", 21, &s, &ns), 0);
	CHECK_INT_EQ(ev_fix_utc_timestamp_memo(&memo, "20161130-23:59:60.000", 21, &s, &ns), -1);
	CHECK_INT_EQ(ev_fix_utc_timestamp_memo(&memo, "20261131-08:00:00.000", 21, &s, &ns), -1);
	return check_exit("fixformat dates");
}
