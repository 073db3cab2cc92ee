/* SPDX-License-Identifier: Apache-2.0 */
/* progress: one self-overwriting status line on stderr for long runs.
 *
 * Shown only when the stream is a terminal (or EVIDENCE_PROGRESS=always, for
 * tests), at most a few times a second, and cleared when done, so logs and
 * pipes never see it. This is the one place where libevidence writes
 * output: the caller chooses the stream and the verb.
 *
 * One struct per run, owned by the caller; not thread-safe (update it from
 * one thread).
 */
#ifndef EV_PROGRESS_H
#define EV_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "lib/core/meter.h"
#include "lib/core/text.h" /* ev_format_bytes, for what tools print beside a progress line */

struct ev_progress {
	FILE *stream;
	int enabled;
	const char *label;        /* e.g. "seal: sealing" */
	const char *noun;         /* what total_members counts; "members" unless set after init */
	uint64_t total_bytes, total_members;
	uint64_t done_bytes, done_members;
	double start, last_print;
	int printed;
	char item[128];           /* what is being done now ("001-base-spin-1"), or "" */
};

/* Prepare; total_* may be 0 when unknown (then that total and the ETA are
 * not shown). */
void ev_progress_init(struct ev_progress *p, FILE *stream, const char *label,
		      uint64_t total_bytes, uint64_t total_members);

/* What is being done now, shown after the counts until the next call
 * (a run's name, a pair's cells), drawn at once the first time; "" shows
 * none. A line of work that
 * counts no bytes (total_bytes 0 and none done) shows only its counts
 * and this. */
void ev_progress_item(struct ev_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Account for more work done; redraws when enough time has passed. */
void ev_progress_add(struct ev_progress *p, uint64_t bytes, uint64_t members);

/* A meter that advances p: what a tool hands to a library call that reads
 * long (lib/core/meter.h). */
struct ev_meter ev_progress_meter(struct ev_progress *p);

/* Erase the line (if one was drawn). */
void ev_progress_done(struct ev_progress *p);

#endif
