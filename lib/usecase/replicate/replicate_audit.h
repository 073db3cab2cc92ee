/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_audit: the campaign audited on every host that holds a copy
 * of its sealed archive, against that copy, and the audits compared.
 * What `replicate audit --seal SEAL.json --receipt-dir DIR HOST:DIR...`
 * does.
 *
 * Each destination is a directory replicate push filled (SEAL.json and
 * the archive), on another host ([user@]HOST:DIR, over the user's own
 * ssh, lib/remote) or here (a local DIR). On each, one thread runs `audit
 * campaign --seal DIR/SEAL.json --seal-sha256 H DIR/ARCHIVE -o
 * DIR/audit-STAMP --print-receipt --stop-when-stdin-closes`: the audit
 * reads the copy there, in one pass, and leaves its OUTDIR beside it; its
 * receipt and summary.json come back on its stdout and are kept here
 * (audit-HOST-STAMP.json and .summary.json beside it). The far host needs
 * only the audit binary; nothing is extracted there. Then the receipts
 * are judged together (lib/receipt/receipt_set: each intact, signed when
 * trust is given, every one against the first), and for every host whose
 * comparable digest is not the first one's, the first value where its
 * summary differs is named.
 *
 * Stopped by a signal, each audit still running is told by the end of
 * its stdin and given EV_AUDIT_STOP_GRACE_SECONDS to end by itself, so
 * that what exists there afterwards is known, not guessed: an audit that
 * ended before it noticed had already published its OUTDIR (it prints
 * its receipt only then); one that ended without a receipt published
 * nothing; one killed after the grace is the one case left open. Each
 * host's `at_stop`, `published_there` and `receipt_path` say which.
 *
 * Nothing is printed. One struct per call, owned by the caller: fill the
 * inputs (zero the rest), call ev_replicate_audit_run, read the outputs,
 * call ev_replicate_audit_free (also after a failure).
 */
#ifndef EV_REPLICATE_AUDIT_H
#define EV_REPLICATE_AUDIT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/receipt_set.h"
#include "lib/remote/transport.h"

#define EV_AUDIT_MAX_HOSTS 64

enum ev_host_audit { EV_HOST_PENDING, EV_HOST_PASSED, EV_HOST_FAILED, EV_HOST_UNREACHABLE };

/* How a host's audit met a stop signal. */
enum ev_host_at_stop {
	EV_AT_STOP_ENDED_BEFORE, /* it had ended: outcome and message stand */
	EV_AT_STOP_STOPPED,      /* told to stop, it ended by itself within the grace */
	EV_AT_STOP_KILLED,       /* it did not end within the grace and was killed */
};

/* Long enough for a far audit to notice the end of its input and say how
 * it ended over ssh; short enough that replicate still stops promptly. */
#define EV_AUDIT_STOP_GRACE_SECONDS 0.4

/* One destination and its audit. */
struct ev_replicate_audit_host {
	struct ev_endpoint ep;
	enum ev_host_audit outcome;
	char message[EV_ERROR_TEXT_MAX + PATH_MAX + 200]; /* "pass; receipt PATH", or why there is none */
	char receipt_path[PATH_MAX];  /* its receipt, kept here ("" until it is in place) */
	char summary_path[PATH_MAX];  /* its summary.json, kept here beside it ("" until in place) */
	char outdir[PATH_MAX];        /* where its audit wrote, there */
	int published_there;          /* its receipt came: its OUTDIR is in place there */
	enum ev_host_at_stop at_stop; /* when a signal stopped the run */
	json_t *summary;              /* its summary.json, as received */

	/* its own */
	struct ev_replicate_audit *run;
	pthread_t thread;
	atomic_int finished;
};

struct ev_replicate_audit {
	/* inputs */
	const char *seal, *seal_sha256;      /* the seal here; seal_sha256 may be NULL (its digest pins each copy's) */
	const char *archive_name;            /* the archive's name in each DIR; NULL: archive.tar.zst */
	const char *receipts;                /* the directory the receipts are kept in here */
	const char *remote_sign_key;         /* may be NULL: a key file on each host, to sign its audit */
	const char *const *at;               /* [user@]HOST:DIR or a local DIR, each */
	size_t n_at;                         /* 1 to EV_AUDIT_MAX_HOSTS */
	char *const *trust_files;            /* may be NULL: the receipts' signatures are then not judged */
	size_t n_trust;
	/* ssh, its options, the idle timeout; remote_replicate is the far
	 * audit program here (default "audit"); self_exe, the audit run for a
	 * local DIR, is found beside this executable unless set */
	struct ev_transport transport;
	ev_receipt_finding_fn on_finding;    /* required: a receipt's problem, or a difference between receipts */
	/* may be NULL: a host whose summary differs from the first host's, and
	 * the first value where ("runs[2].recomputed.max: 7044533 here, 7044534
	 * on hostA") */
	void (*on_difference)(void *ctx, const struct ev_replicate_audit_host *h, const char *text);
	void (*on_host)(void *ctx, const struct ev_replicate_audit_host *h); /* may be NULL: each, once all ended */
	void *ctx;
	volatile sig_atomic_t *interrupted;  /* required: every audit is stopped once it is set */

	/* outputs */
	char seal_hex[EV_SHA256_HEX_LEN + 1];
	char stamp[48];                      /* the audits' OUTDIR there: audit-STAMP */
	struct ev_replicate_audit_host *hosts;
	size_t nhosts;
	struct ev_receipt_set set;           /* the receipts of the hosts audited, judged */
	size_t nreceipts;
	unsigned problems;
	size_t differing;
	ev_status judged;                    /* EV_OK, or why the receipts could not be judged (judge_err) */
	struct ev_error judge_err;
	int failed, unreachable, agree;      /* an audit failed; a host was not reached; every receipt agrees */
};

/* @return EV_OK once every audit ended and the receipts were judged (the
 * verdict in failed, unreachable and agree); EV_USAGE (a destination that
 * is neither, no receipt directory, no audit program here), EV_REFUSED
 * (a seal not the pinned one), EV_INTERRUPTED (every audit stopped; each
 * host says what exists) or EV_ERROR. */
ev_status ev_replicate_audit_run(struct ev_replicate_audit *a, struct ev_error *err);

void ev_replicate_audit_free(struct ev_replicate_audit *a);

/* `replicate audit --json`, once it ended: each host (its status, message,
 * OUTDIR there, receipt and summary here), whether the audits agree, and
 * findings (what on_finding and on_difference were given, as the tool
 * kept them). */
#define EV_REPLICA_AUDITS_FORMAT "evidence-replica-audits/1"
json_t *ev_replicate_audit_json(const struct ev_replicate_audit *a, json_t *findings);

#endif
