/* SPDX-License-Identifier: Apache-2.0 */
/* A maximum age is a whole number and one unit, nothing else; an age is
 * written in its two largest units; a receipt's time is fresh, stale,
 * ahead of the clock beyond its skew (no evidence), or no time at all. */
#include "config.h"

#include <time.h>

#include "check.h"
#include "lib/core/duration.h"

static long long parsed(const char *s)
{
	long long v = -7;
	return ev_duration_parse(s, &v) == 0 ? v : -1;
}

static const char *formatted(long long seconds)
{
	static char buf[64];
	ev_duration_format(seconds, buf, sizeof buf);
	return buf;
}

int main(void)
{
	CHECK_INT_EQ(parsed("7d"), 7 * 86400);
	CHECK_INT_EQ(parsed("36h"), 36 * 3600);
	CHECK_INT_EQ(parsed("90m"), 5400);
	CHECK_INT_EQ(parsed("1s"), 1);
	CHECK_INT_EQ(parsed("2w"), 14 * 86400);
	CHECK_INT_EQ(parsed("5200w"), 5200LL * 7 * 86400);
	static const char *const refused[] = {"", "7", "d", "0d", "-1d", "+1d", " 7d", "7d ", "7D", "1.5d", "7dd",
					      "5300w", "99999999999999999999s", NULL};
	for (const char *const *r = refused; *r; r++)
		if (parsed(*r) != -1) {
			fprintf(stderr, "accepted '%s'\n", *r);
			CHECK(0);
		}
	CHECK(ev_duration_parse(NULL, &(long long){0}) == -1);

	CHECK_STR_EQ(formatted(0), "0s");
	CHECK_STR_EQ(formatted(42), "42s");
	CHECK_STR_EQ(formatted(60), "1m");
	CHECK_STR_EQ(formatted(5 * 3600 + 12 * 60 + 9), "5h 12m");
	CHECK_STR_EQ(formatted(17 * 86400 + 3 * 3600 + 59), "17d 3h");
	CHECK_STR_EQ(formatted(20 * 86400), "20d");
	CHECK_STR_EQ(formatted(-30 * 86400), "30d");

	time_t t;
	CHECK(ev_utc_parse("2026-12-07T22:34:07Z", &t) && t == 1796682847);
	CHECK(!ev_utc_parse("2026-12-07T22:34:07", &t));
	CHECK(!ev_utc_parse("2026-12-07T22:34:07Z ", &t));
	CHECK(!ev_utc_parse("2026-12-07 22:34:07Z", &t));
	CHECK(!ev_utc_parse(NULL, &t));

	time_t now = 1796682847; /* 2026-12-07T22:34:07Z */
	long long age;
	CHECK_INT_EQ(ev_age_judge("2026-12-07T22:34:07Z", now, 60, &age), EV_AGE_FRESH);
	CHECK_INT_EQ(age, 0);
	CHECK_INT_EQ(ev_age_judge("2026-12-07T22:33:07Z", now, 60, &age), EV_AGE_FRESH);
	CHECK_INT_EQ(age, 60);
	CHECK_INT_EQ(ev_age_judge("2026-12-07T22:33:06Z", now, 60, &age), EV_AGE_STALE);
	CHECK_INT_EQ(age, 61);
	/* within the skew: age 0, fresh; beyond it: the future, never fresh */
	CHECK_INT_EQ(ev_age_judge("2026-12-07T22:39:07Z", now, 60, &age), EV_AGE_FRESH);
	CHECK_INT_EQ(age, 0);
	CHECK_INT_EQ(ev_age_judge("2026-12-07T22:39:08Z", now, 60, &age), EV_AGE_FUTURE);
	CHECK_INT_EQ(age, -301);
	CHECK_INT_EQ(ev_age_judge("yesterday", now, 60, &age), EV_AGE_UNKNOWN);
	CHECK_INT_EQ(ev_age_judge(NULL, now, 60, &age), EV_AGE_UNKNOWN);

	char words[128];
	ev_age_describe(EV_AGE_STALE, 20 * 86400, "2026-11-17T22:34:07Z", words, sizeof words);
	CHECK_STR_EQ(words, "20d old");
	ev_age_describe(EV_AGE_FUTURE, -30 * 86400, "2027-01-06T22:34:07Z", words, sizeof words);
	CHECK_STR_EQ(words, "in the future by 30d");
	ev_age_describe(EV_AGE_UNKNOWN, 0, NULL, words, sizeof words);
	CHECK_STR_EQ(words, "no time recorded");
	ev_age_describe(EV_AGE_UNKNOWN, 0, "yesterday", words, sizeof words);
	CHECK_STR_EQ(words, "no time a clock can read (\"yesterday\")");
	return check_exit("test_durations_read_and_age_a_receipts_time");
}
