/* SPDX-License-Identifier: Apache-2.0 */
/* stats: what fix-sender reports about its timed calls, in the shapes the
 * llfix TX benchmark uses: the coloured statistics block (%g for Minimum
 * and Maximum, %f for the rest, percentiles by llfix's floor-index rule:
 * sorted[floor(N * p / 100)]), the raw series (doc/formats.md "Raw
 * series") and a JSON report ("evidence-pair-report/1"). Samples are
 * integer nanoseconds. */
#ifndef PAIR_STATS_H
#define PAIR_STATS_H

#include <stdint.h>
#include <stdio.h>

struct pair_run {
	const char *title;          /* "New order" */
	uint64_t warmups, measured;
	const char *clock;          /* "CLOCK_MONOTONIC_RAW" or "rdtscp" */
	uint64_t source_hz;         /* rdtscp: the rate cycles were converted with; else 0 */
	uint64_t hz_calibrated;     /* rdtscp: the TSC against CLOCK_MONOTONIC_RAW */
	uint64_t hz_cpuinfo;        /* the first "cpu MHz" of /proc/cpuinfo, as llfix prints it */
	int cpu;                    /* where the sender ran at the end */
	uint64_t rate, missed;      /* --rate, and the deadlines missed and re-anchored */
	uint64_t elapsed_ns;        /* first measured call's start to the last call's end */
	long sndbuf_requested, sndbuf, rcvbuf_requested, rcvbuf;
	uint64_t journal_records, journal_files;
};

/* The statistics block on out; samples (measured of them) are left as
 * they are (a sorted copy is made). @return 0 or -1. */
int pair_stats_print(const struct pair_run *run, const uint64_t *samples, FILE *out);

/* The raw series at path (never replacing a file): the 80-byte header,
 * then each sample as a little-endian u64. @return 0 or -1. */
int pair_series_write(const char *path, const char *clock, uint64_t source_hz,
		      const uint64_t *samples, uint64_t n);

/* The JSON report at path; delays may be NULL (an unpaced run). */
int pair_report_write(const char *path, const struct pair_run *run, const uint64_t *samples,
		      const uint64_t *delays);

#endif
