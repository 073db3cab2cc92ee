/* SPDX-License-Identifier: Apache-2.0 */
/* audit_series: the statistics of one latency series recomputed from its
 * raw samples, with the rule the benchmark used, beside what the
 * benchmark printed, into a receipt. What `audit series` does.
 *
 * The series (lib/stats/series: llfix's, sockperf's, our own) is read
 * once, mapped, and hashed on a thread of its own while it is read. With
 * a native report (lib/stats/nativestats) every statistic it prints is
 * recomputed by its own rule and compared (series_analysis); with a
 * journal, the journal-page cohorts; with a delay series and the rate
 * asked, the pacing rebuilt. The receipt is made here, signed with
 * sign_key and written at receipt (or a fresh name in the current
 * directory); a signal before it is written leaves nothing.
 *
 * Findings in a series go to on_finding as they are made, each printed
 * statistic that differs, is missing, or is equal only by a documented
 * cause of its tool's to on_statistic; nothing is printed. One struct per
 * audit, owned by the caller: fill the inputs, call ev_audit_series, read
 * the outputs, call ev_audit_series_free (also after a failure). No
 * global state. From a sealed archive, the named members are copied out
 * first (archive_copies.h) and read as files.
 */
#ifndef EV_AUDIT_SERIES_H
#define EV_AUDIT_SERIES_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/stats/series.h"
#include "lib/usecase/common/archive_copies.h"
#include "lib/usecase/audit/series_analysis.h"

struct ev_audit_series {
	/* inputs */
	struct ev_signing_key *sign_key;    /* NULL: unsigned */
	const char *series;                 /* required */
	const char *native, *delay, *journal, *receipt; /* each may be NULL */
	int rule;                           /* enum ev_qrule; -1: the native report's, else nearest-rank */
	enum ev_sockperf_clock sockperf_clock;
	const char *quantiles[EV_ANALYSIS_MAX_QUANTILES]; /* percentiles asked ("99.9"); none: the report's, or 50, 95, 99, 99.9 */
	size_t nquantiles;
	uint64_t rate;                      /* with delay: the rate asked, orders a second */
	uint64_t warmups;                   /* with journal: orders before the first measured one */
	uint64_t threshold;                 /* with journal and have_threshold: the cohorts' bound; else the p99 */
	int have_threshold;
	uint64_t page_size;                 /* with journal; 0: 4096 */
	ev_finding_fn on_finding;           /* required */
	void (*on_statistic)(void *ctx, const json_t *row); /* may be NULL; row: one of compared */
	void *ctx;
	volatile sig_atomic_t *interrupted; /* required */
	const struct ev_invocation *invocation; /* how the command was run, for the receipt; may be NULL */
	/* may be NULL: else series, native, delay and journal are member paths
	 * of this sealed archive (from the seal's root, or with it in front),
	 * copied out in the one pass that checks the archive against seal
	 * (pinned by seal_sha256 when given; archive_copies.h), and shown as
	 * the archive names them, ROOT/PATH; every finding of the archive goes
	 * to on_finding and fails the check "archive against its seal" */
	const char *archive, *seal, *seal_sha256;

	/* outputs */
	struct ev_series s;                 /* the series read (kind, n, clock, ticks_per_second, half_rtt) */
	json_t *compared;                   /* the native report's rows: name, rule, native, recomputed, verdict[, why] */
	json_t *receipt_doc;                /* the receipt written */
	char receipt_path[PATH_MAX];
	char coverage_text[640];            /* what was recomputed of the native report, in one line */
	unsigned differ;                    /* printed statistics that differ or are missing */
	unsigned findings;                  /* findings in the series (the first 100 kept in the receipt) */
	uint64_t missed;                    /* with delay: deadlines missed and re-anchored */
	unsigned archive_findings;          /* from an archive: its own against the seal */
	int archive_failed;                 /* from an archive: a named member not the sealed bytes; nothing computed */
};

/* @return EV_OK when every statistic agrees and the series holds no
 * finding (from an archive, and the archive none); EV_MISMATCH otherwise
 * (the receipt is written and says which; from an archive whose copy of a
 * named member does not match its seal, nothing is computed and only the
 * receipt's archive check is written);
 * EV_USAGE, EV_REFUSED (an existing receipt), EV_INTERRUPTED or
 * EV_ERROR: then no receipt is written. */
ev_status ev_audit_series(struct ev_audit_series *a, struct ev_error *err);

void ev_audit_series_free(struct ev_audit_series *a);

#endif
