/* SPDX-License-Identifier: Apache-2.0 */
/* audit_journal's parts: what its files (audit_journal.c and its
 * receipt, _side, _mirror, _latency, _archive) share and nothing else
 * includes. audit_journal.c reads sides from directories and runs the
 * audit; audit_journal_archive.c fills them from a sealed archive;
 * audit_journal_mirror.c judges a copy as the one it mirrors; both use
 * audit_journal_side.c, and nothing calls back up. */
#ifndef EV_AUDIT_JOURNAL_PARTS_H
#define EV_AUDIT_JOURNAL_PARTS_H

#include <stdatomic.h>

#include "lib/usecase/audit/journal/audit_journal.h"

/* The progress of a directory audit: workers count the bytes they feed
 * and the files they finish; the calling thread advances the meter. */
struct ev_journal_progress {
	atomic_uint_fast64_t fed, files;
	atomic_uint_fast64_t again_bytes, again_files; /* read by a pass left for another: the goal grows */
};

/* One side being read: its reader feeds its checker. */
struct ev_journal_session {
	const struct ev_audit_journal *run;
	struct ev_journal_pair *pair;
	struct ev_journal_side *side;
	enum ev_fingerprint_mode mode; /* RECORD: the pair's first side; COMPARE: its second */
	struct ev_fixcheck *checker;
	struct ev_fixread *reader;
	struct ev_journal_mirror *keep; /* the first side judged for a mirror: each message's hash kept here */
	volatile sig_atomic_t halt;  /* set once a finding leaves nothing to mirror */
	uint64_t fed;                /* bytes fed, for the progress line when read again */
};

/* Count bytes fed and files finished for the progress line (pr may be
 * NULL); workers call it, the main thread draws. */
void ev_journal_progress_note(struct ev_journal_progress *pr, uint64_t bytes, uint64_t files);

/* What a pass read before it was left for another over the same files:
 * the line's goal grows by it, so that it still ends at its goal. */
void ev_journal_progress_again(struct ev_journal_progress *pr, uint64_t bytes, uint64_t files);

/* audit_journal_mirror.c: forget what the first reading of side s of p found
 * (its findings, counts and facts), before it is read again in full. */
void ev_journal_forget_side(struct ev_journal_pair *p, struct ev_journal_side *s);

/* audit_journal_side.c: start reading side s of pair p (findings go to the pair's list; COMPARE
 * sorts the first side's fingerprints first). Feed s's files to
 * out->reader with ev_fixread_begin/feed/end, then close. With keep (the
 * pair's first side, where the other may mirror it): no fingerprints and
 * no originals (fixcheck.h, without_originals), each message's hash kept
 * there, and the reading left at the first finding (out->halt). */
ev_status ev_journal_side_open(const struct ev_audit_journal *run, struct ev_journal_pair *p, struct ev_journal_side *s,
			    enum ev_fingerprint_mode mode, struct ev_journal_mirror *keep, struct ev_journal_session *out,
			    struct ev_error *err);

/* Every file of side s from disk through reader (its first stop: a
 * signal, or its sink's enough), each hashed on the way by a thread of
 * its own into s->digests, its bytes and records counted; *files_done the
 * files begun. @return EV_OK, EV_INTERRUPTED or an I/O error. */
ev_status ev_journal_read_files(const struct ev_audit_journal *run, struct ev_fixread *reader, struct ev_journal_side *s,
				   size_t *files_done, struct ev_error *err);

/* After the side's last file: the checks across files and the order
 * count; for the second side the agreement with first (whose records
 * again may fetch once more, NULL when they cannot be); the side's stats. */
void ev_journal_side_close(struct ev_journal_session *ss, const struct ev_journal_side *first, ev_fix_reread_fn again);

/* Free a session that could not be finished (an I/O error). */
void ev_journal_side_abandon(struct ev_journal_session *ss);

/* audit_journal_mirror.c: whether side s of p may be judged as the pair's first
 * side (mirrors), which must have been read already: both copies of the
 * same kind, the first judged without a single finding in a session
 * without gaps, resends, gap fills or resets, no latency (its stamps
 * are the copy's own) and not judge_each_copy. */
int ev_journal_mirror_fits(const struct ev_audit_journal *run, const struct ev_journal_pair *p, const struct ev_journal_side *s);

/* Where side s (read first) keeps its messages' hashes for the second to
 * be held against (NULL: the pair cannot be mirrored). */
struct ev_journal_mirror *ev_journal_mirror_for(const struct ev_audit_journal *run, struct ev_journal_pair *p, const struct ev_journal_side *s);

/* Keep the hash of one message of the first side. */
void ev_journal_mirror_keep(const struct ev_audit_journal *run, struct ev_journal_mirror *m, const char *msg, size_t len);

/* Read side s from disk (hashed, counted, its records and framing checked
 * as always) and hold each message against the first side's, in order.
 * *same: every message and the count agree, and the reader found no
 * damage; s then carries the first side's verdicts, counts and facts, as
 * judging it afresh would give them. Otherwise s is left to be read again
 * (audit_side). @return EV_OK or an I/O error. */
ev_status ev_journal_mirror_side(const struct ev_audit_journal *run, struct ev_journal_pair *p, struct ev_journal_side *s,
				    const struct ev_journal_side *first, int *same, struct ev_error *err);

/* audit_journal_latency.c: the pair's latency figures from its sides' streams
 * (freed here) into p->latency and p->latency_text, and with hgrm_dir each
 * distribution published in run->hgrm_dir and named among the receipt's
 * outputs. */
/* Forget what --hgrm published; with remove, remove it too (the receipt
 * that would name it was not written). */
void ev_journal_latency_release(struct ev_audit_journal *run, int remove);
ev_status ev_journal_latency(struct ev_audit_journal *run, struct ev_journal_pair *p, json_t *receipt, struct ev_error *err);

/* With clock records: each read and judged into run->clock_judged, its
 * digest kept; one clock named for both copies (--clock) is refused when
 * the records are of two boots and do not show both synchronised within
 * the bound. EV_OK without records. */
ev_status ev_journal_clocks_load(struct ev_audit_journal *run, struct ev_error *err);

/* Fill every side of run from the sealed archive, streamed once and
 * checked against its seal on the way: its findings and a check
 * "archive" go into run->doc. */
ev_status ev_journal_from_archive(struct ev_audit_journal *run, struct ev_error *err);


/* audit_journal_receipt.c: the pairs, their coverage and every rule's
 * check into receipt; *total the findings, the archive's included. */
ev_status ev_journal_build_receipt(struct ev_audit_journal *run, json_t *receipt, uint64_t *total,
				   struct ev_error *err);

#endif
