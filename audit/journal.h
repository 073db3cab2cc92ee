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
	struct ev_fixlatency_stream latency[2]; /* --latency: [0] the messages kept, [1] the other direction */
	struct side_companion *companions;
	size_t ncompanions;
};

struct pair {
	size_t number;              /* 1-based */
	struct side side[2];        /* sender, receiver */
	int own_counts;             /* warmups and measured below are this pair's (a campaign's run) */
	uint64_t warmups, measured;
	struct ev_fixspec spec;     /* the run's spec with this pair's counts; shares the run's strings */
	struct ev_fingerprint_set prints;
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
};

/* Count bytes fed and files finished for the progress line (pr may be
 * NULL); workers call it, the main thread draws. */
void audit_journal_progress_note(struct journal_progress *pr, uint64_t bytes, uint64_t files);

/* journal_side.c: start reading side s of pair p (findings go to the pair's list; COMPARE
 * sorts the first side's fingerprints first). Feed s's files to
 * out->reader with ev_fixread_begin/feed/end, then close. */
ev_status audit_journal_side_open(const struct journal_run *run, struct pair *p, struct side *s,
			    enum ev_fingerprint_mode mode, struct side_session *out, struct ev_error *err);

/* After the side's last file: the checks across files and the order
 * count; for the second side the agreement with first (whose records
 * again may fetch once more, NULL when they cannot be); the side's stats. */
void audit_journal_side_close(struct side_session *ss, const struct side *first, ev_fix_reread_fn again);

/* Free a session that could not be finished (an I/O error). */
void audit_journal_side_abandon(struct side_session *ss);

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
