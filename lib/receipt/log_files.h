/* SPDX-License-Identifier: Apache-2.0 */
/* log_files: the receipt log's files, as they lie on disk, read and
 * written; the log's use cases (append, verify, a push's head exchange,
 * the witness) are lib/usecase/replicate's receipt_log and log_witness.
 *
 * A log is a directory (doc/formats.md "The receipt log"):
 *   entries.jsonl   one canonical JSON line per entry, appended, never
 *                   rewritten: {"added", "file", "kind", "sha256"} (the
 *                   file's real path, its kind: "seal" or the receipt's,
 *                   the SHA-256 of its bytes); the line's bytes are the
 *                   leaf's data;
 *   heads/head-SIZE.json   a tree head after every append:
 *                   {"format": "evidence-tree-head/1", "host", "root_sha256",
 *                   "size", "time"}, signed with the key given;
 *   heads/checkpoint-SIZE   with a key, the same head as a C2SP checkpoint
 *                   (lib/receipt/checkpoint), signed under the origin;
 *   origin          the log's name in its checkpoints, one line, written by
 *                   the first append and never changed;
 *   .lock           appends are serialised with flock on it.
 *   cosignatures/NAME/checkpoint-SIZE   a checkpoint a replica (NAME) cosigned
 *                   when a push gave it this log's head (keep-head);
 * And beside each file appended, FILE.inclusion.json: its inclusion proof
 * against the tree head written by that append; with a key, also
 * FILE.tlog-proof, the same proof as a C2SP tlog-proof.
 *
 * No global state; nothing printed.
 */
#ifndef EV_LOG_FILES_H
#define EV_LOG_FILES_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/merkle.h"

#define EV_TREE_HEAD_FORMAT "evidence-tree-head/1"
#define EV_INCLUSION_FORMAT "evidence-inclusion/1"
#define EV_CONSISTENCY_FORMAT "evidence-consistency/1"
#define EV_LOG_NOTE_MAX ((size_t)64 << 10) /* a checkpoint or tlog-proof; ours are under 4 KiB */

/* entries.jsonl as read: each line's bytes (without its newline), parsed,
 * and its leaf hash. */
struct ev_log_entries {
	char *bytes;
	size_t n;
	const char **line;
	size_t *len;
	json_t **doc;
	ev_merkle_hash *leaf;
};

/* Every line, canonical JSON; an absent file is an empty log. @return
 * EV_OK; EV_REFUSED (a line cut short or not canonical, naming the entry);
 * EV_ERROR. Free with ev_log_entries_free (also after a failure). */
ev_status ev_log_entries_read(const char *dir, struct ev_log_entries *e, struct ev_error *err);
void ev_log_entries_free(struct ev_log_entries *e);
/* The RFC 9162 tree over the entries' leaves. */
ev_status ev_log_entries_tree(const struct ev_log_entries *e, struct ev_merkle *t, struct ev_error *err);
/* text (len bytes: whole lines) appended to DIR/entries.jsonl and synced. */
ev_status ev_log_entries_append(const char *dir, const char *text, size_t len, struct ev_error *err);

/* A tree head as read: heads/head-SIZE.json, its size and root. */
struct ev_log_head {
	char path[PATH_MAX];
	json_t *doc;
	size_t size;
	ev_merkle_hash root;
};

ev_status ev_log_head_load(const char *path, struct ev_log_head *h, struct ev_error *err);
/* heads/head-*.json of dir, by size (*out malloc'd, *n of them; none when
 * there is no heads/); with last_only, only the largest, found by its
 * name. Free with ev_log_heads_free. */
ev_status ev_log_heads_read(const char *dir, int last_only, struct ev_log_head **out, size_t *n, struct ev_error *err);
void ev_log_heads_free(struct ev_log_head *h, size_t n);

/* DIR and DIR/heads made when missing, DIR/.lock held (flock, exclusive)
 * in *fd: appends are serialised on it; close(*fd) lets go. */
ev_status ev_log_lock(const char *dir, int *fd, struct ev_error *err);

/* DIR/origin: the log's name, one line ("" when none is recorded yet).
 * @return EV_OK; EV_REFUSED (not a regular file, not one line, not a
 * name a note allows); EV_ERROR. */
ev_status ev_log_origin_read(const char *dir, char origin[EV_NOTE_NAME_MAX], struct ev_error *err);
/* DIR/origin published (a log's name, or the one a replica witnesses). */
ev_status ev_log_origin_record(const char *dir, const char *origin, struct ev_error *err);

/* A log as a judge who is not the log reads it (replicate accept): its
 * origin, each entry's SHA-256 (its "sha256"), the tree over its leaves,
 * and the paths of the cosigned checkpoints lying in it
 * (cosignatures/NAME/checkpoint-SIZE, never through a link). Nothing is
 * verified here but the lines' form; the judge holds the checkpoints to
 * its own keys. */
struct ev_log_view {
	char origin[EV_NOTE_NAME_MAX];       /* "" when none is recorded */
	size_t n;                            /* entries */
	char (*sha256)[EV_SHA256_HEX_LEN + 1]; /* n of them */
	struct ev_merkle tree;
	char **cosigned;                     /* paths */
	size_t ncosigned;
};
/* @return EV_OK; EV_REFUSED (a line that is not an entry) or EV_ERROR,
 * naming the file. */
ev_status ev_log_view_read(const char *dir, struct ev_log_view *v, struct ev_error *err);
void ev_log_view_free(struct ev_log_view *v);

#endif
