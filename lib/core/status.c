/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ev_error_clear(struct ev_error *err)
{
	err->status = EV_OK;
	err->text[0] = '\0';
}

static void mark_truncated(char *buf, size_t cap)
{
	memcpy(buf + cap - 4, "...", 4);
}

static ev_status __attribute__((format(printf, 4, 0)))
vset(struct ev_error *err, ev_status status, int errnum, const char *fmt, va_list ap)
{
	if (err->status != EV_OK)
		return err->status;
	err->status = status;
	int n = vsnprintf(err->text, sizeof err->text, fmt, ap);
	if (n < 0) {
		snprintf(err->text, sizeof err->text, "(unformattable error)");
		return status;
	}
	if ((size_t)n >= sizeof err->text) {
		mark_truncated(err->text, sizeof err->text);
		return status;
	}
	if (errnum != 0) {
		size_t used = (size_t)n;
		int m = snprintf(err->text + used, sizeof err->text - used,
				 ": %s", strerror(errnum));
		if (m < 0 || (size_t)m >= sizeof err->text - used)
			mark_truncated(err->text, sizeof err->text);
	}
	return status;
}

ev_status ev_error_set(struct ev_error *err, ev_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ev_status st = vset(err, status, 0, fmt, ap);
	va_end(ap);
	return st;
}

ev_status ev_why(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return EV_MISMATCH;
}

ev_status ev_error_errno(struct ev_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ev_status st = vset(err, EV_ERROR, errnum, fmt, ap);
	va_end(ap);
	return st;
}

ev_status ev_error_wrap(struct ev_error *err, const char *fmt, ...)
{
	if (err->status == EV_OK)
		return EV_OK;
	char prefix[EV_ERROR_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err->status;
	char joined[EV_ERROR_TEXT_MAX];
	int m = snprintf(joined, sizeof joined, "%s: %s", prefix, err->text);
	if (m < 0)
		return err->status;
	if ((size_t)m >= sizeof joined)
		mark_truncated(joined, sizeof joined);
	memcpy(err->text, joined, sizeof joined);
	return err->status;
}

int ev_status_exit_code(ev_status st)
{
	switch (st) {
	case EV_OK:
		return 0;
	case EV_MISMATCH:
		return 1;
	default:
		return 2;
	}
}
