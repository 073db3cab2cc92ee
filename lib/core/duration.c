/* SPDX-License-Identifier: Apache-2.0 */
/* duration: maximum ages and receipts' times (duration.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/duration.h"

int ev_duration_parse(const char *s, long long *seconds)
{
	static const struct {
		char unit;
		long long seconds;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
	if (!s || *s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || n < 1 || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (*end == units[i].unit) {
			if (n > EV_DURATION_MAX / units[i].seconds)
				return -1;
			*seconds = n * units[i].seconds;
			return 0;
		}
	return -1;
}

void ev_duration_format(long long seconds, char *buf, size_t cap)
{
	static const struct {
		const char *unit;
		long long seconds;
	} units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}};
	if (seconds < 0)
		seconds = -seconds;
	size_t first = 3;
	for (size_t i = 0; i < 4; i++)
		if (seconds >= units[i].seconds) {
			first = i;
			break;
		}
	long long big = seconds / units[first].seconds;
	if (first == 3) {
		snprintf(buf, cap, "%llds", big);
		return;
	}
	long long small = seconds % units[first].seconds / units[first + 1].seconds;
	if (small)
		snprintf(buf, cap, "%lld%s %lld%s", big, units[first].unit, small, units[first + 1].unit);
	else
		snprintf(buf, cap, "%lld%s", big, units[first].unit);
}

int ev_utc_parse(const char *s, time_t *t)
{
	struct tm tm = {0};
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	if (!end || *end || strlen(s) != 20)
		return 0;
	*t = timegm(&tm);
	return 1;
}

enum ev_age ev_age_judge(const char *finished, time_t now, long long max_age, long long *age)
{
	time_t when;
	*age = 0;
	if (!ev_utc_parse(finished, &when))
		return EV_AGE_UNKNOWN;
	long long old = (long long)now - (long long)when;
	if (old < -EV_AGE_SKEW_SECONDS) {
		*age = old;
		return EV_AGE_FUTURE;
	}
	*age = old < 0 ? 0 : old;
	return *age > max_age ? EV_AGE_STALE : EV_AGE_FRESH;
}

void ev_age_describe(enum ev_age verdict, long long age, const char *finished, char *buf, size_t cap)
{
	char span[48];
	ev_duration_format(age, span, sizeof span);
	switch (verdict) {
	case EV_AGE_FRESH:
	case EV_AGE_STALE: snprintf(buf, cap, "%s old", span); break;
	case EV_AGE_FUTURE: snprintf(buf, cap, "in the future by %s", span); break;
	case EV_AGE_UNKNOWN:
		if (finished && *finished)
			snprintf(buf, cap, "no time a clock can read (\"%.40s\")", finished);
		else
			snprintf(buf, cap, "no time recorded");
		break;
	}
}
