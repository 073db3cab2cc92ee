/* SPDX-License-Identifier: Apache-2.0 */
/* audit_history: one plan's campaigns over time, from the catalog: per arm,
 * cell and statistic, the series of campaign medians (oldest capture
 * first), its change points (lib/stats/changepoint: E-divisive means, a
 * seeded permutation test) and each change's effect, the ratio of the
 * medians of the runs after it to those before it, with its bootstrap
 * interval over those runs (lib/stats/bootstrap). What `audit history`
 * does; its document is evidence-history/1 (doc/formats.md, "History").
 *
 * Only campaigns whose environment matches are compared: the plan digest
 * (as the audit receipt beside each summary names it), the pinned
 * programs' digests, the kernel release, the CPU model, and every
 * provenance field the caller names (policy.nohz_full, pm_qos.dma0...),
 * each held to the reference campaign's (the newest with the plan digest
 * asked for, else the newest). Every other campaign is listed apart with
 * the first field that differs, never mixed in.
 *
 * Reads the catalog only (its rows and kept bytes); writes nothing. One
 * struct per call, owned by the caller: fill the inputs, call, read doc,
 * free. No global state.
 */
#ifndef EV_AUDIT_HISTORY_H
#define EV_AUDIT_HISTORY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/status.h"

struct ev_audit_history {
	/* inputs */
	const char *catalog;               /* a SQLite path or postgresql://...; NULL: the configured, else the default */
	const char *plan;                  /* required: the plan's name (a summary's campaign) */
	const char *plan_sha256;           /* may be NULL: the newest campaign's plan digest */
	const char *const *statistics;     /* none: p50, p99 and p99.9 */
	size_t nstatistics;
	const char *const *match;          /* provenance fields to match beyond the fixed ones, dotted */
	size_t nmatch;
	const char *const *trust_files;    /* trust lists: only summaries an audit receipt signed by one of their
					      keys names are compared; none: every summary */
	size_t ntrust;
	uint64_t seed;                     /* of the permutations and the resamples */
	uint64_t permutations;             /* 0: 199 */
	double alpha;                      /* 0: 0.05 */
	size_t min_segment;                /* 0: 3 */
	uint64_t resamples;                /* 0: 2000 */
	double confidence;                 /* 0: 0.95 */
	double gate;                       /* > 1: a ratio the newest change may not pass (>= gate or <= 1/gate); 0: none */
	volatile sig_atomic_t *stop;       /* may be NULL: polled between series */

	/* outputs */
	json_t *doc;                       /* evidence-history/1 */
	int gate_tripped;                  /* a series' newest change passed the gate */
	size_t not_believed;               /* summaries whose catalog rows contradict their documents (doc's
					      "not_believed": [{where, why}], present only then) */
	size_t untrusted;                  /* with trust_files: summaries left out, no audit receipt signed by a
					      trusted key naming them (doc's "untrusted": [{where, why}]) */
};

/* @return EV_OK with doc; EV_USAGE (no campaign of the plan, none with the
 * plan digest asked for, options out of range); EV_REFUSED (a catalog
 * newer than this evidence); EV_MISMATCH, no doc (the catalog's file found
 * damaged: err names it); EV_INTERRUPTED; EV_ERROR (the catalog, a
 * summary that is not JSON). */
ev_status ev_audit_history(struct ev_audit_history *h, struct ev_error *err);

void ev_audit_history_free(struct ev_audit_history *h);

#endif
