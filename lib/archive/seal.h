/* SPDX-License-Identifier: Apache-2.0 */
/* seal: the seal document (SEAL.json, "evidence-seal/1") in memory.
 *
 * A seal names a tree by its root name and lists every member in byte order
 * of path: type ("file" or "dir"), mode (permission bits as a 4-digit octal
 * string), and for files size and SHA-256; then totals; and, for a tree
 * that came from somewhere that names it (a git commit), "source". Its identity is the
 * SHA-256 of its canonical bytes. Every directory's parent directory is a
 * member too (the root itself is not a member).
 *
 * Used by seal (create, verify, diff, select) and by the archive checker.
 * The seal owns all its strings; ev_seal_free releases them. No global state.
 */
#ifndef EV_SEAL_H
#define EV_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_SEAL_FORMAT "evidence-seal/1"
#define EV_SEAL_FILENAME "SEAL.json"

/* A seal holds only files and directories; the other types exist so that a
 * check can say what it found instead ("expected file, found symlink"). */
enum ev_member_type {
	EV_MEMBER_FILE,
	EV_MEMBER_DIR,
	EV_MEMBER_SYMLINK,
	EV_MEMBER_FIFO,
	EV_MEMBER_SOCKET,
	EV_MEMBER_DEVICE,
	EV_MEMBER_HARDLINK, /* an archive entry that points at another entry */
	EV_MEMBER_OTHER,
};

struct ev_member {
	char *path;                 /* valid member path (path.h) */
	enum ev_member_type type;
	unsigned mode;              /* permission bits only, <= 0777 */
	uint64_t size;              /* files only */
	uint8_t sha256[EV_SHA256_LEN]; /* files only */
};

struct ev_seal {
	char *root;                 /* the tree's name: one valid component */
	json_t *source;             /* optional: where the tree came from (a capsule's
				       {"git": {"commit", "tree", ...}}); owned, NULL when none */
	struct ev_member *members;  /* sorted by strcmp of path, no duplicates */
	size_t count;
	uint64_t files, dirs, bytes; /* totals */
};

void ev_seal_init(struct ev_seal *seal);
void ev_seal_free(struct ev_seal *seal);

/* Sort members by path bytes and recompute the totals. */
void ev_seal_finish(struct ev_seal *seal);

/* The seal as a JSON document (new reference), or NULL when out of memory. */
json_t *ev_seal_to_json(const struct ev_seal *seal);

/* Serialize canonically; *bytes is malloc'd, caller frees. */
ev_status ev_seal_serialize(const struct ev_seal *seal, char **bytes, size_t *len,
			    struct ev_error *err);

/* Flags for ev_seal_from_json. */
#define EV_SEAL_SUBSET 1u /* a selection: parents need not be members, and the
			     document may carry more keys than a seal */

/* Build a seal from a parsed document, checking everything: root, each
 * member's path, type, mode, size and digest, byte order without
 * duplicates, parents present as directories (unless EV_SEAL_SUBSET),
 * totals. The format tag is the caller's to check. name is used in errors.
 * On failure seal is left empty. */
ev_status ev_seal_from_json(const json_t *doc, const char *name, unsigned flags,
			    struct ev_seal *seal, struct ev_error *err);

/* Read, check (canonical bytes required) and parse a SEAL.json file.
 * sha256_out, bytes_out, len_out may be NULL; *bytes_out is caller-freed. */
ev_status ev_seal_load(const char *path, struct ev_seal *seal,
		       uint8_t sha256_out[EV_SHA256_LEN], char **bytes_out, size_t *len_out,
		       struct ev_error *err);

/* Like ev_seal_load, but when pin_hex is not NULL the file's bytes must
 * hash to it, checked before anything is parsed. The digest of the bytes
 * goes to sha256_hex (65 bytes) in every case where the file was read.
 * @return EV_MISMATCH (nothing parsed, seal empty) when the pin differs. */
ev_status ev_seal_load_pinned(const char *path, const char *pin_hex, struct ev_seal *seal,
			      char sha256_hex[EV_SHA256_HEX_LEN + 1], char **bytes_out,
			      size_t *len_out, struct ev_error *err);

/* The refusal of a command that relies on a seal (push, prune, audit
 * journal --archive) when ev_seal_load_pinned found another one: the
 * path and both digests, in one sentence. @return EV_REFUSED. */
ev_status ev_seal_refuse_unpinned(const char *path, const char *found_hex, const char *pin_hex,
				  struct ev_error *err);

/* @return the index of the member with this path, or -1. */
long ev_seal_find(const struct ev_seal *seal, const char *path);

/* "file", "dir", "symlink", "fifo", "socket", "device", "hardlink", "other". */
const char *ev_member_type_name(enum ev_member_type type);

/* Mode as the seal writes it: 4 octal digits ("0644"); buf >= 8 bytes. */
void ev_mode_format(unsigned mode, char *buf, size_t cap);

/* Compare what was found with what the seal expects for one member and hand
 * each difference (type, mode, size, sha256) to on_finding. A type
 * difference is the only finding for that member; a size difference is not
 * followed by a sha256 one.
 * compare_digest = 0 skips the SHA-256 (e.g. when the size already differs
 * and the content was not hashed). @return the number of findings. */
unsigned ev_member_compare(const struct ev_member *expected, const struct ev_member *found,
			   int compare_digest, ev_finding_fn on_finding, void *ctx);

#endif
