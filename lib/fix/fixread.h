/* SPDX-License-Identifier: Apache-2.0 */
/* fixread: the journals and logs FIX engines persist, read as a stream of
 * records.
 *
 * One interface, one small module per layout:
 *   llfix       numbered N.bin files: a u64 count, packed records (u64
 *               timestamp, u8 success, u64 length, the message), zeros to
 *               the end (../shared/formats/llfix.md)
 *   raw         concatenated FIX messages, framed by BodyLength
 *   qf-store    QuickFIX FileStore: PREFIX.body (messages back to back)
 *               indexed by PREFIX.header ("seq,offset,size " records),
 *               with PREFIX.seqnums and PREFIX.session checked beside it
 *   qf-log      QuickFIX FileLog: "YYYYMMDD-HH:MM:SS.nnnnnnnnn : <message>"
 * A reader parses whole records where the caller's bytes are (no copy;
 * only a record cut by the end of a feed is copied, to be finished from
 * the next) and reports the damage it can see itself (journal-count,
 * journal-tail, journal-overrun, journal-rotation, journal-send,
 * stream-framing, store-index, log-line) with the file and byte offset.
 *
 * The sink gets records and damage in file order. A reader belongs to one
 * thread. free accepts NULL.
 */
#ifndef EV_FIXREAD_H
#define EV_FIXREAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/fix/fixcheck.h"
#include "lib/fix/fixrules.h"
#include "lib/core/hashpipe.h"
#include "lib/core/status.h"

#define EV_FIXREAD_RECORD_MAX ((size_t)4 << 20) /* longer is damage, not memory */

enum ev_fixread_kind { EV_FIXREAD_LLFIX, EV_FIXREAD_RAW, EV_FIXREAD_QF_STORE, EV_FIXREAD_QF_LOG };

struct ev_fixread_sink {
	void (*record)(void *ctx, const struct ev_fix_record *r);
	void (*damage)(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
		       uint64_t offset, const char *message, const char *expected, const char *found);
	void *ctx;
	void (*fed)(void *ctx, size_t bytes); /* may be NULL: bytes fed, for a progress line */
	/* may be NULL: a file read beside the one named (a qf-store's .header,
	 * .seqnums, .session), its SHA-256 as read and what was checked in it,
	 * so that every byte the audit relied on is among its inputs */
	void (*companion)(void *ctx, const char *path, const uint8_t digest[EV_SHA256_LEN],
			  const char *checked);
	/* may be NULL: looked at before every read of ev_fixread_file; once
	 * nonzero, the file is left with EV_INTERRUPTED */
	volatile sig_atomic_t *stop;
	/* may be NULL: looked at likewise; once nonzero, the file is left
	 * with EV_INTERRUPTED too, as the caller no longer needs the rest
	 * (its own flag tells it from a signal) */
	volatile sig_atomic_t *enough;
};

struct ev_fixread;

/* "llfix", "raw", "qf-store", "qf-log"; and back. @return -1 when unknown. */
const char *ev_fixread_kind_name(enum ev_fixread_kind kind);
int ev_fixread_kind_parse(const char *name);

/* Where journals are read from: the file system, or the members of a
 * sealed archive (audit journal --archive). The rules that tell a
 * journal's kind from its path and list its files in reading order are
 * written once, over this interface; a source answers two questions. */
struct ev_journal_source {
	/* What stands at path (its st_mode's type bits), or 0 with errno set
	 * when nothing does. */
	mode_t (*look)(void *ctx, const char *path);
	/* Each name directly inside the directory dir, to fn, in any order. */
	ev_status (*names_in)(void *ctx, const char *dir, void (*fn)(void *arg, const char *name), void *arg,
			      struct ev_error *err);
	void *ctx;
};

/* The file system. */
extern const struct ev_journal_source ev_journal_files;

/* Which reader a path needs: a directory holding 1.bin is llfix, a file
 * ending in .body (or a prefix whose .body exists) qf-store, one ending in
 * .log qf-log, any other file raw; a store's .header, .seqnums or .session
 * named instead of its .body is refused with the name to give.
 * @return the kind, or -1 (err set). */
int ev_fixread_detect_in(const struct ev_journal_source *src, const char *path, struct ev_error *err);
int ev_fixread_detect(const char *path, struct ev_error *err); /* on the file system */

/* The files a path stands for, in reading order (llfix: 1.bin, 2.bin, ...
 * numerically, with missing numbers reported through the sink when read;
 * qf-store: the .body; others: the path). *files is malloc'd, each name
 * too; free with ev_fixread_files_free. */
ev_status ev_fixread_list_in(const struct ev_journal_source *src, enum ev_fixread_kind kind, const char *path,
			     char ***files, size_t *nfiles, struct ev_error *err);
ev_status ev_fixread_list(enum ev_fixread_kind kind, const char *path, char ***files,
			  size_t *nfiles, struct ev_error *err); /* on the file system */

/* The N of "N.bin" (no leading zero), or 0: llfix's rotation number. */
unsigned long ev_fixread_llfix_number(const char *name);
void ev_fixread_files_free(char **files, size_t n);

struct ev_fixread *ev_fixread_new(enum ev_fixread_kind kind, const struct ev_fixread_sink *sink);
void ev_fixread_free(struct ev_fixread *r);

/* Push a file's bytes: begin, feed any number of times, end. name is kept
 * (not copied) until the next begin; index is the caller's number for the
 * file (records carry it). The file's number in a numbered layout comes
 * from its name. @return EV_OK or EV_ERROR (memory). */
ev_status ev_fixread_begin(struct ev_fixread *r, const char *name, uint32_t index,
			   struct ev_error *err);
ev_status ev_fixread_feed(struct ev_fixread *r, const void *data, size_t len, struct ev_error *err);
ev_status ev_fixread_end(struct ev_fixread *r, struct ev_error *err);

/* Before begin: where the file being read is, for a reader that also reads
 * the file beside it (qf-store: the .header beside the .body; others
 * ignore it). ev_fixread_file does this itself. */
void ev_fixread_companion(struct ev_fixread *r, const char *path);

/* After the last file: checks across files (rotation). */
void ev_fixread_finish(struct ev_fixread *r);

/* Read one file from disk into r (begin, feed, end), hashing its bytes on
 * pipe (may be NULL; digest receives them, valid after the pipe is
 * finished) and counting them into *bytes (may be NULL). index is the
 * caller's number for the file, as for begin. A qf-store's .header is read
 * beside its .body. */
ev_status ev_fixread_file(struct ev_fixread *r, const char *path, uint32_t index,
			  struct ev_hashpipe *pipe, uint8_t digest[EV_SHA256_LEN], uint64_t *bytes,
			  struct ev_error *err);

/* Per file: records read (after end). */
uint64_t ev_fixread_records(const struct ev_fixread *r);

/* The parsing interface each reader implements (internal to fixread*.c). */
struct ev_fixread_ops {
	size_t state_size;
	void (*begin)(void *st, struct ev_fixread *r, const char *name);
	/* Consume whole records from data (len bytes at file offset `at`);
	 * eof: the file ends after these. @return bytes consumed. */
	size_t (*parse)(void *st, struct ev_fixread *r, const unsigned char *data, size_t len,
			uint64_t at, int eof);
	void (*end)(void *st, struct ev_fixread *r, uint64_t size);
	void (*finish)(void *st, struct ev_fixread *r);
	/* qf-store: the .header beside the .body (may be NULL). */
	void (*companion)(void *st, struct ev_fixread *r, const char *body_path);
	/* What the state holds besides memory (files, contexts); may be NULL. */
	void (*release)(void *st);
};

/* For readers: hand over a record / damage for the current file. */
void ev_fixread_emit(struct ev_fixread *r, const unsigned char *msg, uint32_t len, uint64_t at);
/* The same with the copy's own time of the record (ev_fix_record.stamp_ns). */
void ev_fixread_emit_stamped(struct ev_fixread *r, const unsigned char *msg, uint32_t len, uint64_t at,
			     uint64_t stamp_ns);
void ev_fixread_damage(struct ev_fixread *r, enum ev_fix_rule rule, uint64_t at,
		       const char *message, const char *expected, const char *found);
const char *ev_fixread_name(const struct ev_fixread *r);
const struct ev_fixread_sink *ev_fixread_sink_of(const struct ev_fixread *r);

extern const struct ev_fixread_ops ev_fixread_llfix_ops, ev_fixread_raw_ops,
	ev_fixread_qfstore_ops, ev_fixread_qflog_ops;

#endif
