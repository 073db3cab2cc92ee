/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_prune: a completed runtime directory removed once enough hosts
 * hold verified, agreeing copies of its seal, and only then. What
 * `replicate prune` does.
 *
 * Before anything is removed, every guard is judged and every reason to
 * refuse reported: DIR (never a link, never /) matches the seal or the
 * selection member for member (lib/usecase/seal/tree_verify), sits on one file
 * system and holds no link out; the evidence relied on lies outside it;
 * the replica receipts are intact (signed by a trusted key with trust
 * files), pass, are made against this seal, agree, and come from at least
 * min_hosts distinct hosts (by key with trust files), each with a whole
 * verification within max_age when given; no process a
 * run.json in DIR records still runs; with audits, one of them is an
 * audit campaign that passed on another host, read from an archive copy
 * of this seal (within max_age), and they agree. Only then is DIR taken out of its
 * name in one rename and emptied from below, each entry removed only when
 * provably what was checked (lib/archive/tree_remove); what changed stays.
 *
 * The cleanup receipt is the caller's (ev_receipt_new, still empty): it
 * is filled, signed with sign_key and written at receipt (or a fresh name
 * in the current directory, never inside DIR), also when prune refuses.
 * Reasons to refuse go to on_refused, entries kept to on_kept, as they
 * are found; nothing is printed. One struct per call, owned by the
 * caller: fill the inputs, call ev_replicate_prune, read the outputs. No
 * global state but the process's stop flag (lib/core/stop), released once
 * files are gone so that their record is written even after a signal:
 * SIGINT, SIGTERM and SIGHUP are held (in the calling thread) while it is
 * written, so a signal is taken before the record, which then fails with
 * a check "signal", or after it, which then stands; either way the call
 * ends with EV_INTERRUPTED, naming the record.
 */
#ifndef EV_REPLICATE_PRUNE_H
#define EV_REPLICATE_PRUNE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"

enum ev_prune_outcome {
	EV_PRUNE_NOTHING,  /* nothing was judged: an error before (no receipt) */
	EV_PRUNE_REFUSED,  /* a guard did not hold: nothing removed */
	EV_PRUNE_REMOVED,  /* DIR and every member in it */
	EV_PRUNE_KEPT,     /* entries changed or open after the check were kept (left_at) */
	EV_PRUNE_STOPPED,  /* the removal stopped (a signal, an I/O error; left_at) */
};

struct ev_replicate_prune {
	/* inputs */
	const char *dir, *seal;              /* required */
	const char *seal_sha256, *selection; /* may be NULL */
	char *const *receipts;               /* the replica receipts relied on */
	size_t n_receipts;
	/* may be none: else audit receipts, one of which must be an intact,
	 * passing audit campaign of an archive copy (an "archive" input) of
	 * this seal on another host (by name; by trusted key with trust
	 * lists), and which must agree with each other (--require-audit) */
	char *const *audits;
	size_t n_audits;
	const char *require_timestamp;       /* may be NULL: else a CA file, and the seal's RFC 3161 timestamp
						(SEAL.json.tsr, seal timestamp) must verify against it */
	const char *const *trust;            /* trust lists (may be none: hosts counted by name) */
	size_t n_trust;
	long min_hosts;                      /* distinct hosts that must hold a verified copy */
	long long max_age;                   /* seconds (0: any age): a replica receipt counts, and an audit
						passes, only when it finished at most this long before now */
	const char *receipt;                 /* the cleanup receipt; NULL: a fresh name here */
	struct ev_signing_key *sign_key;     /* NULL: unsigned */
	ev_finding_fn on_refused, on_kept;   /* required */
	void *ctx;
	const struct ev_meter *meter;        /* may be NULL: the tree's check */
	volatile sig_atomic_t *interrupted;  /* required */

	/* outputs */
	enum ev_prune_outcome outcome;
	unsigned refused, kept;              /* reasons reported to each */
	unsigned not_removed;                /* KEPT: entries changed, open or added after the check */
	uint64_t files, dirs, bytes;         /* removed */
	char coverage_line[512];             /* what the removal proved, in one line (once removal began) */
	char left_at[3 * PATH_MAX + 160];    /* KEPT, STOPPED: where what is left is */
	char dir_real[PATH_MAX];
	char receipt_path[PATH_MAX];         /* "" until the receipt was written */
};

/* @return EV_OK when DIR was removed; EV_MISMATCH when refused or entries
 * were kept (the receipt is written and says why); EV_USAGE or EV_REFUSED
 * before anything was judged (a link, /, a receipt that exists or would
 * be removed with DIR, a seal that is not its pin); EV_INTERRUPTED or
 * EV_ERROR: before the removal nothing is removed and no receipt written;
 * during it (STOPPED) the receipt is written, failed, and says so. */
ev_status ev_replicate_prune(struct ev_replicate_prune *p, json_t *receipt, struct ev_error *err);

#endif
