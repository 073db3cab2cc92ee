/* SPDX-License-Identifier: Apache-2.0 */
/* fixformat: each FIX data format accepts what the standard allows and
 * nothing else (signs, dots, exponents, ranges of dates and times,
 * fraction widths), and UTCTIMESTAMP orders as time does; through a memo
 * of the last well-formed value, every verdict and value is the same. */
#include "config.h"

#include "check.h"
#include "lib/fix/fixformat.h"

static int ok(enum ev_fix_type t, const char *v)
{
	return ev_fix_format_ok(t, v, (uint32_t)strlen(v));
}

int main(void)
{
	CHECK(ok(EV_FIX_T_INT, "-12") && ok(EV_FIX_T_INT, "0") && !ok(EV_FIX_T_INT, "1.0") &&
	      !ok(EV_FIX_T_INT, "-") && !ok(EV_FIX_T_INT, "+1") && !ok(EV_FIX_T_INT, "1 "));
	CHECK(ok(EV_FIX_T_UINT, "42") && !ok(EV_FIX_T_UINT, "-1"));
	CHECK(ok(EV_FIX_T_FLOAT, "10000") && ok(EV_FIX_T_FLOAT, "-0.5") && ok(EV_FIX_T_FLOAT, ".5") &&
	      ok(EV_FIX_T_FLOAT, "5.") && !ok(EV_FIX_T_FLOAT, "1.2.3") && !ok(EV_FIX_T_FLOAT, "1e5") &&
	      !ok(EV_FIX_T_FLOAT, ".") && !ok(EV_FIX_T_FLOAT, "+1"));
	CHECK(ok(EV_FIX_T_CHAR, "D") && !ok(EV_FIX_T_CHAR, "DD"));
	CHECK(ok(EV_FIX_T_BOOLEAN, "Y") && ok(EV_FIX_T_BOOLEAN, "N") && !ok(EV_FIX_T_BOOLEAN, "y"));
	/* timestamps: none, 3, 6 or 9 fractional digits; leap second 60 */
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:14"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:14.257"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:14.257123"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:14.257123456"));
	CHECK(ok(EV_FIX_T_UTCTIMESTAMP, "20261231-23:59:60"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:14.25"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261302-08:03:14"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261200-08:03:14"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261202-24:03:14"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261202 08:03:14"));
	CHECK(!ok(EV_FIX_T_UTCTIMESTAMP, "20261202-08:03:1x"));
	CHECK(ok(EV_FIX_T_UTCTIMEONLY, "08:03:14.257") && !ok(EV_FIX_T_UTCTIMEONLY, "8:03:14"));
	CHECK(ok(EV_FIX_T_UTCDATEONLY, "20261202") && !ok(EV_FIX_T_UTCDATEONLY, "2026122"));
	CHECK(ok(EV_FIX_T_MONTHYEAR, "202612") && ok(EV_FIX_T_MONTHYEAR, "20261202") &&
	      ok(EV_FIX_T_MONTHYEAR, "202612w3") && !ok(EV_FIX_T_MONTHYEAR, "202613") &&
	      !ok(EV_FIX_T_MONTHYEAR, "202612w6"));
	CHECK(ok(EV_FIX_T_TZTIMEONLY, "08:03Z") && ok(EV_FIX_T_TZTIMEONLY, "08:03:14+01") &&
	      ok(EV_FIX_T_TZTIMEONLY, "08:03:14-05:30") && !ok(EV_FIX_T_TZTIMEONLY, "08:03:14"));
	CHECK(ok(EV_FIX_T_TZTIMESTAMP, "20261202-08:03:14Z") &&
	      !ok(EV_FIX_T_TZTIMESTAMP, "20261202-08:03:14"));
	CHECK(ok(EV_FIX_T_STRING, "anything at all") && ok(EV_FIX_T_DATA, "\001x"));

	uint64_t s1, s2;
	uint32_t n1, n2;
	CHECK_INT_EQ(ev_fix_utc_timestamp("20261202-08:03:14.257", 21, &s1, &n1), 0);
	CHECK_INT_EQ(ev_fix_utc_timestamp("20261202-08:03:14.257001", 24, &s2, &n2), 0);
	CHECK(s1 == s2 && n1 == 257000000u && n2 == 257001000u);
	CHECK_INT_EQ(ev_fix_utc_timestamp("20261202-08:03:15", 17, &s2, &n2), 0);
	CHECK(s2 == s1 + 1 && n2 == 0);
	CHECK_INT_EQ(ev_fix_utc_timestamp("20261202-08:03", 14, &s2, &n2), -1);
	CHECK_STR_EQ(ev_fix_type_name(EV_FIX_T_UTCTIMESTAMP), "UTCTIMESTAMP");

	/* The memo takes the shortcut only for a matching head; each value's
	 * verdict and parts equal the full parse's. */
	static const char *series[] = {
		"20261202-08:03:14.257000001", "20261202-08:03:14.257000002",
		"20261202-08:03:14.25700000x", /* bad fraction, same head */
		"20261202-08:03:14.999999999", "20261202-08:03:15.000000000", /* next second */
		"20261202-08:03:15.000", /* other length */
		"20261202-08:03:15.001", "20261202-08:03:15.0-1", "20261202-08:03:15",
		"20261202-08:03:15.", /* a dot without digits: refused both ways */
		"20261302-08:03:15.000", /* month 13 */
		"20261302-08:03:15.001", /* the same head as a refused value: still refused */
		"20261202-23:59:60.500", /* leap second */
	};
	struct ev_fix_time_memo memo = {0};
	for (size_t i = 0; i < sizeof series / sizeof *series; i++) {
		uint64_t fs = 7, ms = 7;
		uint32_t fn = 7, mn = 7, len = (uint32_t)strlen(series[i]);
		int full = ev_fix_utc_timestamp(series[i], len, &fs, &fn);
		int memoed = ev_fix_utc_timestamp_memo(&memo, series[i], len, &ms, &mn);
		if (full != memoed || (full == 0 && (fs != ms || fn != mn)))
			fprintf(stderr, "  memo disagrees on %s\n", series[i]);
		CHECK(full == memoed && (full != 0 || (fs == ms && fn == mn)));
	}
	CHECK_INT_EQ(ev_fix_utc_timestamp_memo(&memo, "20261202-08:03:14.257000002", 27, &s1, &n1), 0);
	CHECK_INT_EQ(n1, 257000002);
	CHECK_INT_EQ(s1, 20261202080314ull);
	return check_exit("fixformat");
}
