/* SPDX-License-Identifier: Apache-2.0 */
/* series: a raw per-call latency series, read whole, its damage reported.
 *
 * Three shapes (doc/formats.md "Raw series"):
 *   binary    evidence's own: "EVSERIES", version 1, an 80-byte header
 *             (clock name, ticks per second, source rate, count), then a
 *             little-endian u64 per sample
 *   csv       its twin: an optional "# evidence-series/1 clock=NAME
 *             ticks_per_second=N source_ticks_per_second=N count=N" line,
 *             then one whole number a line
 *   sockperf  sockperf's --full-log: "packet, txTime(sec), rxTime(sec),
 *             latency(usec)" rows; each sample is (rx - tx) in ns, halved
 *             (integer) unless the log says rtt(usec) (--full-rtt), as
 *             sockperf itself computes it
 * A header count that disagrees with the samples, a row or line that does
 * not parse, a packet number out of turn and a latency column that is not
 * sockperf's own rounding of tx and rx are findings (check "series-count"
 * or "series-value", subject FILE: byte B or FILE: line L), not errors:
 * what can be read is kept and summarised. A file of another shape, or a
 * binary header that is not version 1, is an error.
 *
 * A binary series is mapped privately (its samples are the file's pages,
 * not a copy; writing to them would copy the pages touched); a text one is
 * parsed into one malloc'd array. Memory is the series' own size. The
 * caller owns the struct; ev_series_free accepts a zeroed one.
 */
#ifndef EV_SERIES_H
#define EV_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"

#define EV_SERIES_MAGIC "EVSERIES"
#define EV_SERIES_HEADER 80
#define EV_SERIES_CLOCK_MAX 32

enum ev_series_kind { EV_SERIES_BINARY, EV_SERIES_CSV, EV_SERIES_SOCKPERF };

struct ev_series {
	enum ev_series_kind kind;
	char clock[EV_SERIES_CLOCK_MAX + 1]; /* "CLOCK_MONOTONIC_RAW", "rdtscp", ..., or "unknown" */
	uint64_t ticks_per_second;          /* of the samples; 0: not said */
	uint64_t source_hz;                 /* the rate the samples were converted from; 0: none */
	uint64_t declared;                  /* the header's count; 0 when there is none */
	int has_declared;
	int half_rtt;                       /* sockperf: samples are half round trips */
	unsigned __int128 rtt_sum;          /* sockperf: the round trips' sum, before halving */
	uint64_t first_tx, last_rx;         /* sockperf: the first row's tx and the last row's rx, ns */
	uint64_t *v;                        /* the samples (read only for a mapped binary series) */
	size_t n;
	void *map;                          /* a binary series is mapped, not copied */
	size_t map_len;
};

const char *ev_series_kind_name(enum ev_series_kind kind);

/* Read path whole into s, its shape told from its bytes. Findings go to
 * fn(ctx, ...) (may be NULL). @return EV_OK (findings or not), EV_REFUSED
 * (not a series), EV_ERROR (I/O, memory). */
ev_status ev_series_load(const char *path, struct ev_series *s, ev_finding_fn fn, void *ctx,
			 struct ev_error *err);
void ev_series_free(struct ev_series *s);

#endif
