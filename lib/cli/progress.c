/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/cli/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_SECONDS 0.25

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ev_progress_init(struct ev_progress *p, FILE *stream, const char *label,
		      uint64_t total_bytes, uint64_t total_members)
{
	memset(p, 0, sizeof *p);
	p->stream = stream;
	p->label = label;
	p->noun = "members";
	p->total_bytes = total_bytes;
	p->total_members = total_members;
	const char *force = getenv("EVIDENCE_PROGRESS");
	if (force && strcmp(force, "never") == 0)
		p->enabled = 0;
	else if (force && strcmp(force, "always") == 0)
		p->enabled = 1;
	else
		p->enabled = isatty(fileno(stream));
	p->start = p->last_print = now_seconds();
}

static void draw(struct ev_progress *p, double t)
{
	if (!p->total_bytes && !p->done_bytes) { /* counted in members alone: runs, pairs */
		fprintf(p->stream, "\r\033[K%s: %llu", p->label, (unsigned long long)p->done_members);
		if (p->total_members)
			fprintf(p->stream, "/%llu", (unsigned long long)p->total_members);
		fprintf(p->stream, " %s%s%s", p->noun, p->item[0] ? ": " : "", p->item);
		fflush(p->stream);
		p->printed = 1;
		p->last_print = t;
		return;
	}
	char done[32], total[48] = "", members[64] = "", rate[32], eta[32] = "";
	double elapsed = t - p->start;
	double bps = elapsed > 0 ? (double)p->done_bytes / elapsed : 0;
	ev_format_bytes(p->done_bytes, done, sizeof done);
	if (p->total_bytes) {
		char of[32];
		ev_format_bytes(p->total_bytes, of, sizeof of);
		snprintf(total, sizeof total, " of %s", of);
	}
	if (p->total_members)
		snprintf(members, sizeof members, ", %llu/%llu %s", (unsigned long long)p->done_members,
			 (unsigned long long)p->total_members, p->noun);
	ev_format_bytes((uint64_t)bps, rate, sizeof rate);
	if (p->total_bytes > p->done_bytes && bps > 0)
		snprintf(eta, sizeof eta, ", ETA %.0fs",
			 (double)(p->total_bytes - p->done_bytes) / bps);
	fprintf(p->stream, "\r\033[K%s: %s%s%s, %s/s%s", p->label, done, total, members, rate, eta);
	fflush(p->stream);
	p->printed = 1;
	p->last_print = t;
}

void ev_progress_item(struct ev_progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->item, sizeof p->item, fmt, ap);
	va_end(ap);
	if (!p->enabled)
		return;
	double t = now_seconds();
	if (!p->printed || t - p->last_print >= REDRAW_SECONDS)
		draw(p, t); /* a long item shows its name as it starts */
}

void ev_progress_add(struct ev_progress *p, uint64_t bytes, uint64_t members)
{
	p->done_bytes += bytes;
	p->done_members += members;
	if (!p->enabled)
		return;
	double t = now_seconds();
	if (t - p->last_print >= REDRAW_SECONDS)
		draw(p, t);
}

void ev_progress_done(struct ev_progress *p)
{
	if (p->enabled && p->printed) {
		fprintf(p->stream, "\r\033[K");
		fflush(p->stream);
	}
	p->printed = 0;
}

static void advance_progress(void *ctx, uint64_t bytes, uint64_t members)
{
	ev_progress_add(ctx, bytes, members);
}

static void set_goal(void *ctx, uint64_t bytes, uint64_t members)
{
	struct ev_progress *p = ctx;
	p->total_bytes = bytes;
	p->total_members = members;
}

struct ev_meter ev_progress_meter(struct ev_progress *p)
{
	return (struct ev_meter){.goal = set_goal, .advance = advance_progress, .ctx = p};
}
