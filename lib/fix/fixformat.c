/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixformat.h"

#include <string.h>

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n digits at s as a number, or -1. */
static long digits(const char *s, uint32_t n)
{
	long v = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int integer(const char *v, uint32_t len, int sign)
{
	uint32_t i = sign && v[0] == '-' ? 1 : 0;
	if (i == len)
		return 0;
	for (; i < len; i++)
		if (!digit(v[i]))
			return 0;
	return 1;
}

static int decimal(const char *v, uint32_t len)
{
	uint32_t i = v[0] == '-' ? 1 : 0, ndigits = 0, dots = 0;
	for (; i < len; i++) {
		if (v[i] == '.')
			dots++;
		else if (digit(v[i]))
			ndigits++;
		else
			return 0;
	}
	return ndigits > 0 && dots <= 1;
}

static int days_in_month(long y, long m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

/* YYYYMMDD, a day of the Gregorian calendar (proleptic before 1582). */
static int date(const char *v)
{
	long y = digits(v, 4), m = digits(v + 4, 2), d = digits(v + 6, 2);
	return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

/* The UTC days whose last minute had a 61st second (IERS Bulletin C),
 * and the last day Bulletin C had ruled on when this list was written:
 * after it, a leap second is accepted at the end of June and December,
 * where IERS schedules them first. */
static const uint32_t leap_second_days[] = {
	19720630, 19721231, 19731231, 19741231, 19751231, 19761231, 19771231, 19781231, 19791231,
	19810630, 19820630, 19830630, 19850630, 19871231, 19891231, 19901231, 19920630, 19930630,
	19940630, 19951231, 19970630, 19981231, 20051231, 20081231, 20120630, 20150630, 20161231,
};
#define LEAP_SECONDS_RULED_UNTIL 20251231u

static int leap_second_day(uint32_t yyyymmdd)
{
	if (yyyymmdd > LEAP_SECONDS_RULED_UNTIL)
		return yyyymmdd % 10000 == 630 || yyyymmdd % 10000 == 1231;
	for (size_t i = 0; i < sizeof leap_second_days / sizeof *leap_second_days; i++)
		if (leap_second_days[i] == yyyymmdd)
			return 1;
	return 0;
}

/* HH:MM:SS then none, 3, 6 or 9 fractional digits; len from v. Second
 * 60 only at 23:59, the one minute a leap second may end. */
static int time_of_day(const char *v, uint32_t len)
{
	if (len < 8 || v[2] != ':' || v[5] != ':')
		return 0;
	long h = digits(v, 2), m = digits(v + 3, 2), s = digits(v + 6, 2);
	if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60 || (s == 60 && (h != 23 || m != 59)))
		return 0;
	if (len == 8)
		return 1;
	uint32_t frac = len - 9;
	return v[8] == '.' && (frac == 3 || frac == 6 || frac == 9) && digits(v + 9, frac) >= 0;
}

/* HH:MM, or HH:MM:SS[.fff...] in local time offset by offset_min from
 * UTC: second 60 only in the local minute that is 23:59 UTC. */
static int local_time(const char *v, uint32_t n, long offset_min)
{
	long h = digits(v, 2), m = n >= 5 ? digits(v + 3, 2) : -1;
	if (n < 5 || v[2] != ':' || h < 0 || h > 23 || m < 0 || m > 59)
		return 0;
	if (n == 5)
		return 1;
	if (n >= 8 && digits(v + 6, 2) == 60) {
		long utc = ((h * 60 + m - offset_min) % 1440 + 1440) % 1440;
		char shifted[32];
		if (utc != 23 * 60 + 59 || n >= sizeof shifted)
			return 0;
		memcpy(shifted, v, n); /* judged as the UTC time it is */
		memcpy(shifted, "23:59", 5);
		return time_of_day(shifted, n);
	}
	return time_of_day(v, n);
}

/* A time, then Z, +hh, -hh, +hh:mm or -hh:mm. */
static int tz_time(const char *v, uint32_t len)
{
	if (len >= 1 && v[len - 1] == 'Z')
		return local_time(v, len - 1, 0);
	for (uint32_t z = 0; z < len; z++) {
		if (v[z] != '+' && v[z] != '-')
			continue;
		const char *o = v + z + 1;
		uint32_t rest = len - z - 1;
		long oh = rest >= 2 ? digits(o, 2) : -1, om = rest == 5 && o[2] == ':' ? digits(o + 3, 2) : 0;
		int offset = (rest == 2 || (rest == 5 && o[2] == ':')) && oh >= 0 && oh <= 14 && om >= 0 && om <= 59;
		long minutes = (oh * 60 + om) * (v[z] == '-' ? -1 : 1);
		return offset && local_time(v, z, minutes);
	}
	return 0;
}

int ev_fix_utc_timestamp(const char *value, uint32_t len, uint64_t *seconds, uint32_t *nanos)
{
	if (len < 17 || value[8] != '-' || !date(value) || !time_of_day(value + 9, len - 9))
		return -1;
	if (value[15] == '6' && !leap_second_day((uint32_t)digits(value, 8)))
		return -1; /* 23:59:60 on a day that had no leap second */
	uint64_t s = (uint64_t)digits(value, 8);
	s = s * 100 + (uint64_t)digits(value + 9, 2);
	s = s * 100 + (uint64_t)digits(value + 12, 2);
	s = s * 100 + (uint64_t)digits(value + 15, 2);
	uint32_t ns = 0;
	if (len > 17) {
		uint32_t frac = len - 18;
		ns = (uint32_t)digits(value + 18, frac);
		for (uint32_t i = frac; i < 9; i++)
			ns *= 10;
	}
	*seconds = s;
	*nanos = ns;
	return 0;
}

int ev_fix_utc_timestamp_memo(struct ev_fix_time_memo *memo, const char *value, uint32_t len,
			      uint64_t *seconds, uint32_t *nanos)
{
	if (len > sizeof memo->head && len == memo->len &&
	    memcmp(value, memo->head, sizeof memo->head) == 0) {
		uint32_t frac = len - (uint32_t)sizeof memo->head;
		long ns = digits(value + sizeof memo->head, frac);
		if (ns < 0)
			return -1;
		for (uint32_t i = frac; i < 9; i++)
			ns *= 10;
		*seconds = memo->seconds;
		*nanos = (uint32_t)ns;
		return 0;
	}
	if (ev_fix_utc_timestamp(value, len, seconds, nanos) != 0)
		return -1;
	if (len > sizeof memo->head) {
		memcpy(memo->head, value, sizeof memo->head);
		memo->len = len;
		memo->seconds = *seconds;
	}
	return 0;
}

int ev_fix_format_ok(enum ev_fix_type type, const char *v, uint32_t len)
{
	uint64_t s;
	uint32_t ns;
	switch (type) {
	case EV_FIX_T_CHAR: return len == 1;
	case EV_FIX_T_BOOLEAN: return len == 1 && (v[0] == 'Y' || v[0] == 'N');
	case EV_FIX_T_INT: return integer(v, len, 1);
	case EV_FIX_T_UINT: return integer(v, len, 0);
	case EV_FIX_T_FLOAT: return decimal(v, len);
	case EV_FIX_T_UTCTIMESTAMP: return ev_fix_utc_timestamp(v, len, &s, &ns) == 0;
	case EV_FIX_T_UTCTIMEONLY: return time_of_day(v, len);
	case EV_FIX_T_UTCDATEONLY: return len == 8 && date(v);
	case EV_FIX_T_MONTHYEAR:
		return (len == 6 && digits(v, 6) >= 0 && digits(v + 4, 2) >= 1 && digits(v + 4, 2) <= 12) ||
		       (len == 8 && date(v)) ||
		       (len == 8 && digits(v, 6) >= 0 && v[6] == 'w' && v[7] >= '1' && v[7] <= '5');
	case EV_FIX_T_TZTIMEONLY: return tz_time(v, len);
	case EV_FIX_T_TZTIMESTAMP: return len > 9 && v[8] == '-' && date(v) && tz_time(v + 9, len - 9);
	default: return len > 0;
	}
}

const char *ev_fix_type_name(enum ev_fix_type type)
{
	switch (type) {
	case EV_FIX_T_CHAR: return "CHAR";
	case EV_FIX_T_BOOLEAN: return "BOOLEAN";
	case EV_FIX_T_INT: return "INT";
	case EV_FIX_T_UINT: return "an unsigned INT (LENGTH, NUMINGROUP, SEQNUM)";
	case EV_FIX_T_FLOAT: return "a decimal (FLOAT, PRICE, QTY, AMT)";
	case EV_FIX_T_UTCTIMESTAMP: return "UTCTIMESTAMP";
	case EV_FIX_T_UTCTIMEONLY: return "UTCTIMEONLY";
	case EV_FIX_T_UTCDATEONLY: return "a date (UTCDATEONLY, LOCALMKTDATE)";
	case EV_FIX_T_MONTHYEAR: return "MONTHYEAR";
	case EV_FIX_T_TZTIMEONLY: return "TZTIMEONLY";
	case EV_FIX_T_TZTIMESTAMP: return "TZTIMESTAMP";
	case EV_FIX_T_DATA: return "DATA";
	default: return "STRING";
	}
}

uint64_t ev_fix_timestamp_ns(uint64_t seconds, uint32_t nanos)
{
	int64_t y = (int64_t)(seconds / 10000000000ull), mo = (int64_t)(seconds / 100000000ull % 100),
		d = (int64_t)(seconds / 1000000ull % 100), h = (int64_t)(seconds / 10000 % 100),
		mi = (int64_t)(seconds / 100 % 100), se = (int64_t)(seconds % 100);
	/* days from the civil date (H. Hinnant's algorithm, public domain) */
	y -= mo <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	if (days < 0)
		return 0;
	return ((uint64_t)days * 86400 + (uint64_t)(h * 3600 + mi * 60 + se)) * 1000000000ull + nanos;
}
