/* audit journal's shared state: one run, its pairs and their sides.
 * journal_side.c reads one side whatever its source; journal.c reads
 * sides from directories and runs the command; journal_archive.c fills
 * them from a sealed archive. journal.c uses journal_archive.c, both use
 * journal_side.c, and nothing calls back up. Only audit/journal*.c
 * include this. */
#ifndef AUDIT_JOURNAL_H
#define AUDIT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <stdatomic.h>

#include "lib/receipt/signature.h"
#include "lib/fix/fixcheck.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fingerprint.h"
#include "lib/fix/fixread.h"
#include "lib/fix/fixspec.h"
#include "lib/cli/progress.h"
#include "lib/core/sha256.h"

#define JOURNAL_MAX_PAIRS 256
#define JOURNAL_MAX_DICTS 8

struct finding_list {
	struct ev_fix_finding *v;
	size_t n, cap;
	int oom;
};

/* A file read beside a journal file (a QuickFIX store's .header, .seqnums,
 * .session): an input of the receipt like the journal's own files. */
struct side_companion {
	char *path, *checked;
	char hex[EV_SHA256_HEX_LEN + 1];
};

struct side {
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
	int mirrored;               /* judged as the pair's first side, whose messages it holds (journal_mirror.c) */
	struct ev_fixlatency_stream latency[2]; /* --latency: [0] the messages kept, [1] the other direction */
	struct side_companion *companions;
	size_t ncompanions;
};

/* The first side's messages as read, one keyed hash (fingerprint.h) of
 * each whole message, in order: enough to see that the other side's copy
 * is the same messages in the same order (journal_mirror.c). */
struct journal_mirror {
	uint64_t *h;
	size_t n, cap;
	int oom;
};

struct pair {
	size_t number;              /* 1-based */
	struct side side[2];        /* sender, receiver */
	int own_counts;             /* warmups and measured below are this pair's (a campaign's run) */
	uint64_t warmups, measured;
	struct ev_fixspec spec;     /* the run's spec with this pair's counts; shares the run's strings */
	struct ev_fingerprint_set prints;
	struct journal_mirror mirror; /* the first side's messages, a keyed hash each, in order */
	struct finding_list findings;
	json_t *latency;            /* --latency: the pair's figures (journal_latency.c) */
	char *latency_text;         /* the same as lines for stdout */
	ev_status st;
	struct ev_error err;
};

/* The progress line of a directory audit: workers count the bytes they
 * feed and the files they finish; the main thread draws the line. */
struct journal_progress {
	atomic_uint_fast64_t fed, files;
	atomic_uint_fast64_t again_bytes, again_files; /* read by a pass left for another: the goal grows */
	struct ev_progress line;
};

struct journal_run {
	struct ev_signing_key *sign_key; /* --sign-key: its receipt signed (the caller's) */
	const char *spec_path, *archive, *seal, *seal_sha256, *receipt, *sender_compid;
	char *dicts[JOURNAL_MAX_DICTS];
	size_t ndicts;
	char spec_hex[EV_SHA256_HEX_LEN + 1], dict_hex[JOURNAL_MAX_DICTS][EV_SHA256_HEX_LEN + 1];
	char archive_hex[EV_SHA256_HEX_LEN + 1], seal_hex[EV_SHA256_HEX_LEN + 1];
	int format, json;
	int latency;                /* --latency: stamps against SendingTime (journal_latency.c) */
	const char *clock[2];       /* --clock sender=, receiver=: NULL, each its own */
	const char *hgrm_dir;       /* --hgrm */
	char **hgrm_published;      /* the files written there: removed when no receipt names them */
	size_t nhgrm_published;
	enum ev_qrule quantile_rule;
	char coverage_line[512];    /* what a pass means here, in one line (set with the receipt) */
	int side_format[2];         /* --sender-format, --receiver-format; -1: --format's */
	int judge_each_copy;        /* --judge-each-copy: never judge a copy as the one it mirrors */
	long warmups, measured;
	size_t jobs;
	unsigned max_findings;
	struct ev_fixspec spec;
	struct ev_fixdict *dict;
	struct ev_fingerprint_key key;
	struct pair *pairs;
	size_t npairs;
	json_t *doc;                /* the receipt, filled as the audit goes */
	struct journal_progress *progress; /* NULL: none (from an archive: its own) */
	int quiet;                  /* findings only, no per-side summary lines */
	uint64_t findings;          /* out: every finding counted */
	char spec_buf[4096], dict_buf[2][4096]; /* the default spec's and dictionaries' paths */
	uint64_t archive_findings;  /* --archive: the archive's own against its seal */
};

/* One side being read: its reader feeds its checker. */
struct side_session {
	const struct journal_run *run;
	struct pair *pair;
	struct side *side;
	enum ev_fingerprint_mode mode; /* RECORD: the pair's first side; COMPARE: its second */
	struct ev_fixcheck *checker;
	struct ev_fixread *reader;
	struct journal_mirror *keep; /* the first side judged for a mirror: each message's hash kept here */
	volatile sig_atomic_t halt;  /* set once a finding leaves nothing to mirror */
	uint64_t fed;                /* bytes fed, for the progress line when read again */
};

/* Count bytes fed and files finished for the progress line (pr may be
 * NULL); workers call it, the main thread draws. */
void audit_journal_progress_note(struct journal_progress *pr, uint64_t bytes, uint64_t files);

/* What a pass read before it was left for another over the same files:
 * the line's goal grows by it, so that it still ends at its goal. */
void audit_journal_progress_again(struct journal_progress *pr, uint64_t bytes, uint64_t files);

/* journal_mirror.c: forget what the first reading of side s of p found
 * (its findings, counts and facts), before it is read again in full. */
void audit_journal_forget_side(struct pair *p, struct side *s);

/* journal_side.c: start reading side s of pair p (findings go to the pair's list; COMPARE
 * sorts the first side's fingerprints first). Feed s's files to
 * out->reader with ev_fixread_begin/feed/end, then close. With keep (the
 * pair's first side, where the other may mirror it): no fingerprints and
 * no originals (fixcheck.h, without_originals), each message's hash kept
 * there, and the reading left at the first finding (out->halt). */
ev_status audit_journal_side_open(const struct journal_run *run, struct pair *p, struct side *s,
			    enum ev_fingerprint_mode mode, struct journal_mirror *keep, struct side_session *out,
			    struct ev_error *err);

/* Every file of side s from disk through reader (its first stop: a
 * signal, or its sink's enough), each hashed on the way by a thread of
 * its own into s->digests, its bytes and records counted; *files_done the
 * files begun. @return EV_OK, EV_INTERRUPTED or an I/O error. */
ev_status audit_journal_read_files(const struct journal_run *run, struct ev_fixread *reader, struct side *s,
				   size_t *files_done, struct ev_error *err);

/* After the side's last file: the checks across files and the order
 * count; for the second side the agreement with first (whose records
 * again may fetch once more, NULL when they cannot be); the side's stats. */
void audit_journal_side_close(struct side_session *ss, const struct side *first, ev_fix_reread_fn again);

/* Free a session that could not be finished (an I/O error). */
void audit_journal_side_abandon(struct side_session *ss);

/* journal_mirror.c: whether side s of p may be judged as the pair's first
 * side (mirrors), which must have been read already: both copies of the
 * same kind, the first judged without a single finding in a session
 * without gaps, resends, gap fills or resets, no --latency (its stamps
 * are the copy's own) and no --judge-each-copy. */
int audit_journal_mirror_fits(const struct journal_run *run, const struct pair *p, const struct side *s);

/* Where side s (read first) keeps its messages' hashes for the second to
 * be held against (NULL: the pair cannot be mirrored). */
struct journal_mirror *audit_journal_mirror_for(const struct journal_run *run, struct pair *p, const struct side *s);

/* Keep the hash of one message of the first side. */
void audit_journal_mirror_keep(const struct journal_run *run, struct journal_mirror *m, const char *msg, size_t len);

/* Read side s from disk (hashed, counted, its records and framing checked
 * as always) and hold each message against the first side's, in order.
 * *same: every message and the count agree, and the reader found no
 * damage; s then carries the first side's verdicts, counts and facts, as
 * judging it afresh would give them. Otherwise s is left to be read again
 * (audit_side). @return EV_OK or an I/O error. */
ev_status audit_journal_mirror_side(const struct journal_run *run, struct pair *p, struct side *s,
				    const struct side *first, int *same, struct ev_error *err);

/* A run with nothing asked yet: no format, the spec's counts, every core. */
void audit_journal_init(struct journal_run *run);

/* Pairs of sender and receiver journals (nsenders and nreceivers of
 * them; one side alone when the other is 0, or when its entry is NULL), with the shipped spec and
 * dictionaries unless run names its own. @return EV_OK, EV_USAGE (the
 * defaults are not installed) or EV_ERROR. */
ev_status audit_journal_prepare(struct journal_run *run, const char *const *senders, const char *const *receivers,
			  size_t nsenders, size_t nreceivers, struct ev_error *err);

/* Audit, write the receipt (run->receipt, or a fresh name here), print
 * the findings (and, unless quiet, a line per side and the verdict).
 * run->findings counts them. @return EV_OK, EV_MISMATCH or an error. */
ev_status audit_journal_run_all(struct journal_run *run, struct ev_error *err);
void audit_journal_free(struct journal_run *run);

/* journal_latency.c: the pair's latency figures from its sides' streams
 * (freed here) into p->latency and p->latency_text, and with --hgrm each
 * distribution published in run->hgrm_dir and named among the receipt's
 * outputs. */
/* Forget what --hgrm published; with remove, remove it too (the receipt
 * that would name it was not written). */
void audit_journal_latency_release(struct journal_run *run, int remove);
ev_status audit_journal_latency(struct journal_run *run, struct pair *p, json_t *receipt, struct ev_error *err);

/* Fill every side of run from the sealed archive, streamed once and
 * checked against its seal on the way: its findings and a check
 * "archive" go into run->doc. */
ev_status audit_journal_from_archive(struct journal_run *run, struct ev_error *err);

#endif
