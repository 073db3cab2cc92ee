/* SPDX-License-Identifier: Apache-2.0 */
/* audit_journal: pairs of FIX journals (a sender's copy and a receiver's)
 * judged cold, every record against every rule, the two copies compared
 * message by message, into a receipt. What `audit journal` does, and what
 * `audit campaign` does for the journals of every run.
 *
 * Each side is read from its directory, or (archive set) from a sealed
 * archive as it streams by, checked against its seal on the way and never
 * extracted (audit_journal_archive.c). A side is one of four formats
 * (lib/fix/fixread), judged by lib/fix/fixcheck; a pair's second copy is
 * held against the first, and judged as the first's copy where that gives
 * what judging it afresh would (audit_journal_mirror.c). With latency,
 * each copy's own stamps are measured against SendingTime and against
 * the other copy's (audit_journal_latency.c), their distributions
 * published in hgrm_dir.
 *
 * The receipt is the caller's (ev_receipt_new, still empty): the audit
 * fills it, signs it with sign_key and writes it at receipt (or a fresh
 * name in the current directory), or writes nothing. The findings of the
 * journals are kept in each pair (first max_findings per rule) for the
 * caller to show; the archive's own findings go to on_archive_finding as
 * they are made. Nothing is printed. Pairs are audited on jobs threads;
 * with a meter the calling thread advances it and does not audit.
 *
 * One struct per audit, owned by the caller: ev_audit_journal_init, fill
 * the inputs, ev_audit_journal_prepare with the journals, ev_audit_journal_run,
 * read the outputs, ev_audit_journal_free (also after a failure).
 */
#ifndef EV_AUDIT_JOURNAL_H
#define EV_AUDIT_JOURNAL_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/sha256.h"
#include "lib/campaign/clocks_read.h"
#include "lib/fix/fingerprint.h"
#include "lib/fix/fixcheck.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fixread.h"
#include "lib/fix/fixspec.h"
#include "lib/receipt/signature.h"
#include "lib/stats/quantile.h"

#define EV_AUDIT_JOURNAL_MAX_PAIRS 256
#define EV_AUDIT_JOURNAL_MAX_DICTS 8

struct ev_journal_findings {
	struct ev_fix_finding *v;
	size_t n, cap;
	int oom;
};

/* A file read beside a journal file (a QuickFIX store's .header, .seqnums,
 * .session): an input of the receipt like the journal's own files. */
struct ev_journal_companion {
	char *path, *checked;
	char hex[EV_SHA256_HEX_LEN + 1];
};

struct ev_journal_side {
	const char *role;           /* "sender" or "receiver" */
	const char *path;
	int present;
	enum ev_fixread_kind kind;
	char **files;
	size_t nfiles;
	uint8_t (*digests)[EV_SHA256_LEN];
	uint64_t *bytes, *records;
	struct ev_fixcheck_stats stats;
	struct ev_fixsession_facts session;
	struct ev_fixorders_facts orders; /* the spec's "orders", in a copy holding both directions */
	int has_orders;
	int mirrored;               /* judged as the pair's first side, whose messages it holds (audit_journal_mirror.c) */
	struct ev_fixlatency_stream latency[2]; /* latency: [0] the messages kept, [1] the other direction */
	struct ev_journal_companion *companions;
	size_t ncompanions, companions_cap;
};

/* The first side's messages as read, one keyed hash (fingerprint.h) of
 * each whole message, in order: enough to see that the other side's copy
 * is the same messages in the same order (audit_journal_mirror.c). */
struct ev_journal_mirror {
	uint64_t *h;
	size_t n, cap;
	int oom;
};

struct ev_journal_pair {
	size_t number;              /* 1-based */
	struct ev_journal_side side[2]; /* sender, receiver */
	int own_counts;             /* warmups and measured below are this pair's (a campaign's run) */
	uint64_t warmups, measured;
	struct ev_fixspec spec;     /* the run's spec with this pair's counts; shares the run's strings */
	struct ev_fingerprint_set prints;
	struct ev_journal_mirror mirror; /* the first side's messages, a keyed hash each, in order */
	struct ev_journal_findings findings; /* the first max_findings per rule, in the order found */
	json_t *latency;            /* latency: the pair's figures (audit_journal_latency.c) */
	char *latency_text;         /* the same as lines, for the caller to print */
	ev_status st;
	struct ev_error err;
};

/* An archive's own finding: shown names the archive by its path, recorded
 * by "archive" (what the receipt keeps, so that copies on two hosts
 * agree). */
typedef void (*ev_audit_journal_archive_fn)(void *ctx, const struct ev_finding *shown,
					     const struct ev_finding *recorded);

struct ev_journal_progress;

struct ev_audit_journal {
	/* inputs */
	struct ev_signing_key *sign_key; /* its receipt signed (the caller's); NULL: unsigned */
	const char *spec_path, *archive, *seal, *seal_sha256, *receipt, *sender_compid;
	char *dicts[EV_AUDIT_JOURNAL_MAX_DICTS];
	size_t ndicts;
	int format;                 /* every side's format (enum ev_fixread_kind); -1: detected */
	int side_format[2];         /* the sender's, the receiver's; -1: format's */
	int latency;                /* stamps against SendingTime (audit_journal_latency.c) */
	const char *clock[2];       /* the sender's and receiver's clocks; NULL: each its own */
	const char *clock_record[2]; /* each host's clock record (capture clocks, or a run.json); NULL: none */
	long long clock_bound_ns;   /* with clock_record: the largest error a one-way figure across two clocks may have */
	struct ev_trust *clock_trust; /* may be NULL: else each clock record signed by one of these keys */
	const char *hgrm_dir;       /* with latency: the distributions published there */
	enum ev_qrule quantile_rule;
	int judge_each_copy;        /* never judge a copy as the one it mirrors */
	long warmups, measured;     /* -1: the spec's */
	size_t jobs;
	unsigned max_findings;      /* kept and shown per rule and side */
	const struct ev_meter *meter;       /* may be NULL: then no thread waits on it */
	volatile sig_atomic_t *interrupted; /* required: the audit stops with EV_INTERRUPTED when it is set */
	ev_audit_journal_archive_fn on_archive_finding; /* required with archive */
	void *ctx;
	/* may be NULL: a prefix of the journals' paths that gives way in the
	 * receipt and in the files' names kept for findings (a campaign's
	 * copies out of its archive, shown as the archive names them) */
	const char *shown_from;

	/* outputs */
	struct ev_journal_pair *pairs;
	size_t npairs;
	char receipt_path[PATH_MAX]; /* where the receipt was written */
	char coverage_line[512];    /* what a pass means here, in one line */
	uint64_t findings;          /* every finding counted, the archive's included */
	uint64_t archive_findings;  /* archive: the archive's own against its seal */

	/* the audit's own */
	char spec_hex[EV_SHA256_HEX_LEN + 1], dict_hex[EV_AUDIT_JOURNAL_MAX_DICTS][EV_SHA256_HEX_LEN + 1];
	char archive_hex[EV_SHA256_HEX_LEN + 1], seal_hex[EV_SHA256_HEX_LEN + 1];
	char clock_record_hex[2][EV_SHA256_HEX_LEN + 1];
	struct ev_clock_judgement clock_judged[2]; /* with clock_record: each host's clock, judged */
	char **hgrm_published;      /* the files written in hgrm_dir: removed when no receipt names them */
	size_t nhgrm_published, hgrm_published_cap;
	struct ev_fixspec spec;
	struct ev_fixdict *dict;
	struct ev_fingerprint_key key;
	json_t *doc;                /* the receipt, filled as the audit goes */
	struct ev_journal_progress *progress; /* reading from directories with a meter */
	char spec_buf[4096], dict_buf[2][4096]; /* the default spec's and dictionaries' paths */
};

/* An audit with nothing asked yet: no format, the spec's counts, a job per
 * core, 10 findings kept per rule. */
void ev_audit_journal_init(struct ev_audit_journal *run);

/* Pairs of sender and receiver journals (nsenders and nreceivers of them;
 * one side alone when the other is 0, or when its entry is NULL), with the
 * shipped spec and dictionaries unless run names its own.
 * @return EV_OK, EV_USAGE (the defaults are not installed) or EV_ERROR. */
ev_status ev_audit_journal_prepare(struct ev_audit_journal *run, const char *const *senders,
				   const char *const *receivers, size_t nsenders, size_t nreceivers,
				   struct ev_error *err);

/* Audit every pair into receipt and write it.
 * @return EV_OK when nothing was found; EV_MISMATCH when findings were
 * made (run->findings counts them; the receipt is written and says
 * which); EV_USAGE before anything was read (an existing receipt, a spec
 * or dictionary that cannot be used, dictionaries of another FIX version
 * than the messages', an archive member out of the order a pass can read);
 * EV_REFUSED (a seal that is not its pin); EV_INTERRUPTED or EV_ERROR.
 * Unless EV_OK or EV_MISMATCH, nothing is written: no receipt, and no
 * distribution is left in hgrm_dir. */
ev_status ev_audit_journal_run(struct ev_audit_journal *run, json_t *receipt, struct ev_error *err);

void ev_audit_journal_free(struct ev_audit_journal *run);

#endif
