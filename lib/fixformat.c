#include "config.h"
#include "fixformat.h"

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

static int date(const char *v)
{
	long y = digits(v, 4), m = digits(v + 4, 2), d = digits(v + 6, 2);
	return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* HH:MM:SS then none, 3, 6 or 9 fractional digits; len from v. */
static int time_of_day(const char *v, uint32_t len)
{
	if (len < 8 || v[2] != ':' || v[5] != ':')
		return 0;
	long h = digits(v, 2), m = digits(v + 3, 2), s = digits(v + 6, 2);
	if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60)
		return 0;
	if (len == 8)
		return 1;
	uint32_t frac = len - 9;
	return v[8] == '.' && (frac == 3 || frac == 6 || frac == 9) && digits(v + 9, frac) >= 0;
}

/* HH:MM, or a full time of day: what a TZ type's time part may be. */
static int hm_or_time(const char *v, uint32_t n)
{
	if (n == 5)
		return v[2] == ':' && digits(v, 2) >= 0 && digits(v, 2) <= 23 && digits(v + 3, 2) >= 0 &&
		       digits(v + 3, 2) <= 59;
	return time_of_day(v, n);
}

/* A time, then Z, +hh, -hh, +hh:mm or -hh:mm. */
static int tz_time(const char *v, uint32_t len)
{
	if (len >= 1 && v[len - 1] == 'Z')
		return hm_or_time(v, len - 1);
	for (uint32_t z = 0; z < len; z++) {
		if (v[z] != '+' && v[z] != '-')
			continue;
		const char *o = v + z + 1;
		uint32_t rest = len - z - 1;
		int offset = (rest == 2 && digits(o, 2) >= 0 && digits(o, 2) <= 14) ||
			     (rest == 5 && o[2] == ':' && digits(o, 2) >= 0 && digits(o + 3, 2) >= 0);
		return offset && hm_or_time(v, z);
	}
	return 0;
}

int ev_fix_utc_timestamp(const char *value, uint32_t len, uint64_t *seconds, uint32_t *nanos)
{
	if (len < 17 || value[8] != '-' || !date(value) || !time_of_day(value + 9, len - 9))
		return -1;
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
