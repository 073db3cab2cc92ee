/* SPDX-License-Identifier: Apache-2.0 */
/* status: the outcome of a libevidence call and the error that explains it.
 *
 * Every library function that can fail returns an ev_status and, on failure,
 * fills a caller-owned struct ev_error. The library never prints, exits or
 * aborts on bad input; the tool decides how to show the error.
 *
 * An error is a chain of messages, innermost first written: the call that
 * saw the failure sets it (ev_error_set), each caller on the way out may add
 * context in front (ev_error_wrap), so the final text reads outside-in:
 *     "data/run1.bin: read failed: Input/output error".
 * Only the first failure is kept: ev_error_set on an error that is already
 * set does nothing, so a cleanup path cannot overwrite the cause.
 *
 * No global state; an ev_error belongs to one thread.
 */
#ifndef EV_STATUS_H
#define EV_STATUS_H

#include <stddef.h>

/* Ordered by severity; tools map them to exit codes (doc/design.md principle 5):
 * EV_OK -> 0, EV_MISMATCH -> 1, everything from EV_ERROR up -> 2. */
typedef enum ev_status {
	EV_OK = 0,
	EV_MISMATCH = 1, /* a check failed; the findings say which */
	EV_ERROR = 2,    /* I/O, environment or internal error: nothing is claimed */
	EV_USAGE = 3,    /* the caller asked for something impossible */
	EV_REFUSED = 4,  /* the input holds something the tool must never accept */
	EV_INTERRUPTED = 5, /* a signal asked us to stop */
} ev_status;

#define EV_ERROR_TEXT_MAX 1024

struct ev_error {
	ev_status status;       /* EV_OK while nothing failed */
	char text[EV_ERROR_TEXT_MAX];
};

/* Reset to "no error". */
void ev_error_clear(struct ev_error *err);

/* Record a failure (printf-style text) unless one is already recorded.
 * @return status, so a caller can write `return ev_error_set(err, ...)`. */
ev_status ev_error_set(struct ev_error *err, ev_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like ev_error_set, appending ": strerror(errnum)". */
ev_status ev_error_errno(struct ev_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Put context in front of a recorded error ("ctx: old text"). Does nothing
 * when no error is recorded. Text that no longer fits is cut with "...".
 * @return the recorded status. */
ev_status ev_error_wrap(struct ev_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A verdict's reason (printf-style) into why (cap bytes), for the
 * readers that answer "does not hold, because..." rather than fail.
 * @return EV_MISMATCH, so a reader can write `return ev_why(why, ...)`. */
ev_status ev_why(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Exit code for a status: 0, 1 or 2. */
int ev_status_exit_code(ev_status st);

#endif
