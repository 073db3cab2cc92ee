/* SPDX-License-Identifier: Apache-2.0 */
/* duration: how old a verification may be, as people write it ("7d",
 * "36h") and read it ("17d 3h"), and how old a receipt's UTC time
 * ("2026-12-07T22:34:07Z", its "finished") is now. No global state. */
#ifndef EV_DURATION_H
#define EV_DURATION_H

#include <stddef.h>
#include <time.h>

/* The longest duration taken: a hundred years, in seconds. */
#define EV_DURATION_MAX (100LL * 366 * 86400)

/* What a duration must be, in the words every refusal uses. */
#define EV_DURATION_EXPECTED "a duration: a whole number and s, m, h, d or w (7d, 36h, 90m)"

/* "N" followed by one unit, s, m, h, d or w, N from 1, at most
 * EV_DURATION_MAX in all, into *seconds. @return 0, or -1 (nothing set). */
int ev_duration_parse(const char *s, long long *seconds);

/* seconds as its two largest units ("17d 3h", "5h 12m", "42s") into buf. */
void ev_duration_format(long long seconds, char *buf, size_t cap);

/* "YYYY-MM-DDTHH:MM:SSZ", exactly, into *t. @return 1, or 0 (not that). */
int ev_utc_parse(const char *s, time_t *t);

/* How a verification made at a receipt's UTC time counts against a
 * maximum age, now. A time ahead of now by more than
 * EV_AGE_SKEW_SECONDS is no evidence of freshness (a clock set wrong, or
 * a date written to stay fresh); less is clocks' skew, age 0. */
#define EV_AGE_SKEW_SECONDS 300
enum ev_age {
	EV_AGE_FRESH,   /* *age <= max_age */
	EV_AGE_STALE,   /* *age > max_age */
	EV_AGE_FUTURE,  /* ahead of now by more than the skew; *age is how far, negative */
	EV_AGE_UNKNOWN, /* no time, or not one */
};
enum ev_age ev_age_judge(const char *finished, time_t now, long long max_age, long long *age);

/* The words for a verdict: "9d 2h old", "in the future by 3d", "no time
 * recorded", "no time a clock can read (\"...\")", into buf. */
void ev_age_describe(enum ev_age verdict, long long age, const char *finished, char *buf, size_t cap);

#endif
