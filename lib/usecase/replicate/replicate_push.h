/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_push: a sealed archive and its seal copied to several
 * destinations at once (over the user's own ssh, or to local directories:
 * lib/remote), verified there by `replicate verify`, each verifier's
 * receipt fetched, one more made here, and the receipts judged together
 * (lib/receipt/receipt_set). What `replicate push ARCHIVE --seal SEAL.json
 * --to DEST...` does.
 *
 * Two steps, because the tool says what it is about to push in between:
 * ev_replicate_push_prepare refuses what would leave a destination
 * holding files that refuse every later, correct push (a seal not pinned
 * as given, not the archive's own, an unusable signing key, a bad
 * destination), hashes the seal and the archive, and copies nothing;
 * ev_replicate_push_run starts one thread per destination (and one for
 * the check here), each sending its files through `replicate receive`,
 * resuming what a previous push kept, and running the verifier there;
 * waits for them, advancing the meter by the archive's bytes sent; hands
 * each destination's outcome to on_destination, in the order given (the
 * check here last); then loads the receipts with the trust files and
 * compares them, every problem and difference to on_finding. With a log,
 * each destination is offered this host's latest tree head and keeps it
 * only when it extends the one it kept from the last push (RFC 9162
 * consistency: `replicate keep-head` there); a refusal fails that
 * destination, naming the tree size. Nothing is
 * printed. One struct per push, owned by the caller: fill the inputs
 * (zero the rest), call the two steps, read the outputs, call
 * ev_replicate_push_free (also after a failure).
 */
#ifndef EV_REPLICATE_PUSH_H
#define EV_REPLICATE_PUSH_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#include "lib/core/meter.h"
#include "lib/core/status.h"
#include "lib/receipt/receipt_set.h"
#include "lib/remote/transport.h"

#define EV_PUSH_MAX_DESTINATIONS 64

enum ev_push_outcome { EV_PUSH_PENDING, EV_PUSH_VERIFIED, EV_PUSH_FAILED_CHECK, EV_PUSH_UNREACHABLE };

/* One destination, or (local_check) the verification made here. */
struct ev_push_destination {
	struct ev_endpoint ep;       /* spec "here" for the local check */
	int local_check;             /* the receipt made here, not a copy */
	enum ev_push_outcome outcome;
	char message[EV_ERROR_TEXT_MAX + PATH_MAX + 200]; /* "pass; receipt PATH", or why it was not reached */
	char receipt_path[PATH_MAX]; /* the receipt kept here */
	char verifier_receipt[PATH_MAX]; /* where its verifier said it wrote its receipt ("": not said) */
	int verifier_unsure;         /* killed without saying whether it published a receipt */

	/* its own */
	struct ev_replicate_push *push;
	pthread_t thread;
	atomic_uint_fast64_t sent;
	atomic_int finished;         /* set by the worker when outcome is final */
	int sending_archive;         /* between the first and the last byte of it */
};

struct ev_replicate_push {
	/* inputs */
	const char *archive, *seal, *seal_sha256; /* seal_sha256 may be NULL */
	const char *receipts;                /* the directory the receipts are kept in here */
	const char *sign_key;                /* may be NULL: signs the receipt made here */
	const char *remote_sign_key;         /* may be NULL: a key file on each destination's host */
	const char *const *to;               /* [user@]HOST:DIR or a local DIR, each */
	size_t n_to;                         /* 1 to EV_PUSH_MAX_DESTINATIONS */
	char *const *trust_files;            /* may be NULL: the receipts' signatures are then not judged */
	size_t n_trust;
	struct ev_transport transport;       /* ssh, its options, the far replicate, the idle timeout; stop and self_exe are set here */
	const char *log;                     /* may be NULL: this host's receipt log, whose latest tree head each
						destination keeps, only when it extends the one kept before */
	const char *tool;                    /* required: the verifier's name, as it says "TOOL: receipt written: PATH" */
	ev_receipt_finding_fn on_finding;    /* required: a receipt's problem, or a difference between receipts */
	void (*on_destination)(void *ctx, const struct ev_push_destination *d); /* may be NULL: each, once all ended */
	void *ctx;
	const struct ev_meter *meter;        /* may be NULL: the archive's bytes sent, over every destination */
	volatile sig_atomic_t *interrupted;  /* required: every helper is stopped once it is set */

	/* outputs */
	struct ev_payload files[2];          /* SEAL.json, then the archive: sizes and digests */
	struct ev_push_destination *dests;   /* n_to + 1: the destinations in order, the check here last */
	size_t ndests;
	struct ev_receipt_set set;           /* the receipts of the destinations reached, judged */
	size_t nreceipts;
	unsigned problems;                   /* findings of on_finding */
	size_t differing;
	ev_status judged;                    /* EV_OK, or why the receipts could not be judged (judge_err) */
	struct ev_error judge_err;
	int failed, unreachable, agree;      /* a check failed; a destination was not reached; every receipt agrees */

	/* its own */
	char *archive_copy;
};

/* `replicate push --json`, once it ended: each destination (its status,
 * message and receipt), whether every receipt agrees, and findings (what
 * on_finding was given, as the tool kept them). */
#define EV_PUSH_FORMAT "evidence-push/1"
json_t *ev_replicate_push_json(const struct ev_replicate_push *p, json_t *findings);

/* @return EV_OK; EV_REFUSED (a seal that is not the archive's own or not
 * the pinned one), EV_USAGE (a destination that is neither HOST:DIR nor a
 * directory) or EV_ERROR: err says why, and nothing was copied. */
ev_status ev_replicate_push_prepare(struct ev_replicate_push *p, struct ev_error *err);

/* @return EV_OK once every destination ended and the receipts were judged:
 * the verdict is in failed, unreachable and agree (and judged, when a
 * receipt could not be read); EV_INTERRUPTED when the signal came first
 * (every helper stopped; each destination says which receipts exist);
 * EV_ERROR (a thread, a trust file): err says why. */
ev_status ev_replicate_push_run(struct ev_replicate_push *p, struct ev_error *err);

void ev_replicate_push_free(struct ev_replicate_push *p);

#endif
