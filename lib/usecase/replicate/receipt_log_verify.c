/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_log_verify: a receipt log judged whole, every finding named
 * (receipt_log.h: ev_receipt_log_verify). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/log_files.h"
#include "lib/receipt/merkle.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "lib/usecase/replicate/receipt_log_parts.h"

/* A checkpoint note at path (a file read whole), judged with the log's
 * trust and origin. @return 1 it holds (cp filled); 0 a finding was made. */
static int read_checkpoint(struct ev_receipt_log *l, const char *subject, const char *check, const char *path,
			   const char *note, size_t len, struct ev_checkpoint *cp)
{
	char why[512];
	if (ev_checkpoint_read(note, len, l->trust, cp, why, sizeof why) != EV_OK) {
		ev_receipt_log_found(l, subject, check, "%s: %s", path, why);
		return 0;
	}
	if (l->log_origin[0] && strcmp(cp->origin, l->log_origin) != 0) {
		ev_receipt_log_found(l, subject, check, "%s: names the log %s; this log is %s (its file origin)", path, cp->origin,
		      l->log_origin);
		return 0;
	}
	return 1;
}

/* A regular file read whole (at most EV_LOG_NOTE_MAX bytes). @return 1, or 0 with
 * a finding. */
static int read_note_file(struct ev_receipt_log *l, const char *subject, const char *check, const char *path,
			  char **bytes, size_t *len)
{
	struct ev_error rerr;
	ev_error_clear(&rerr);
	int fd = ev_input_open(path, "a C2SP note", &rerr);
	if (fd >= 0)
		close(fd);
	if (fd < 0 || ev_file_read_all(path, EV_LOG_NOTE_MAX, bytes, len, &rerr) != EV_OK) {
		ev_receipt_log_found(l, subject, check, "%s", rerr.text);
		return 0;
	}
	return 1;
}

/* Each head's checkpoint, when one lies beside it: a signed note (with
 * trust, signed by a trusted key under the origin) saying what its head
 * says. */
static void verify_checkpoints(struct ev_receipt_log *l, const struct ev_log_head *heads, size_t nheads)
{
	for (size_t i = 0; i < nheads; i++) {
		const struct ev_log_head *h = &heads[i];
		char path[PATH_MAX], name[64], subject[64], *note = NULL;
		size_t len = 0;
		struct stat sb;
		snprintf(name, sizeof name, "heads/checkpoint-%010zu", h->size);
		if (ev_path_join(path, sizeof path, l->dir, name) != 0 || lstat(path, &sb) != 0)
			continue; /* an unsigned head, or one written before checkpoints were */
		snprintf(subject, sizeof subject, "tree size %zu", h->size);
		struct ev_checkpoint cp;
		if (read_note_file(l, subject, "checkpoint", path, &note, &len) &&
		    read_checkpoint(l, subject, "checkpoint", path, note, len, &cp)) {
			char cp_hex[EV_SHA256_HEX_LEN + 1], head_hex[EV_SHA256_HEX_LEN + 1];
			ev_sha256_hex(cp.root, cp_hex);
			ev_sha256_hex(h->root, head_hex);
			if (cp.size != h->size || memcmp(cp.root, h->root, sizeof cp.root) != 0)
				ev_receipt_log_found(l, subject, "checkpoint", "%s: says size %zu, root %s; its tree head %s says size %zu, "
				      "root %s", path, cp.size, cp_hex, h->path, h->size, head_hex);
			else
				l->checkpoints++;
		}
		free(note);
	}
}

/* Each checkpoint a replica cosigned (cosignatures/NAME/checkpoint-SIZE): a
 * checkpoint that holds (with trust, every cosignature by a trusted key
 * verified and counted) and whose root this log's first SIZE entries
 * still hash to: else the log showed that replica another history. */
static void verify_cosignatures(struct ev_receipt_log *l, const struct ev_merkle *tree, size_t entries)
{
	char top[PATH_MAX], sub[PATH_MAX + 256], path[PATH_MAX + 512];
	if (ev_path_join(top, sizeof top, l->dir, "cosignatures") != 0)
		return;
	DIR *d = opendir(top), *c;
	struct dirent *de, *ce;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (ev_path_join(sub, sizeof sub, top, de->d_name) != 0 || !(c = opendir(sub)))
			continue;
		while ((ce = readdir(c))) {
			if (strncmp(ce->d_name, "checkpoint-", 11) != 0)
				continue;
			char *note = NULL, subject[PATH_MAX + 300], now_hex[EV_SHA256_HEX_LEN + 1],
			     cp_hex[EV_SHA256_HEX_LEN + 1];
			size_t len = 0;
			struct ev_checkpoint cp;
			if (ev_path_join(path, sizeof path, sub, ce->d_name) != 0)
				continue;
			snprintf(subject, sizeof subject, "cosigned by %s", de->d_name);
			if (read_note_file(l, subject, "cosignature", path, &note, &len) &&
			    read_checkpoint(l, subject, "cosignature", path, note, len, &cp)) {
				ev_merkle_hash now = {0};
				if (cp.size <= entries) {
					ev_merkle_root(tree, cp.size, now);
					ev_sha256_hex(now, now_hex);
					ev_sha256_hex(cp.root, cp_hex);
				}
				if (cp.size > entries)
					ev_receipt_log_found(l, subject, "cosigned-checkpoint", "%s: cosigns a tree of %zu entries; this log holds "
					      "%zu: entries were removed", path, cp.size, entries);
				else if (memcmp(now, cp.root, sizeof now) != 0)
					ev_receipt_log_found(l, subject, "cosigned-checkpoint", "%s: the replica cosigned size %zu, root %s; this "
					      "log's first %zu entries hash to %s: it was shown another history", path, cp.size,
					      cp_hex, cp.size, now_hex);
				else
					l->cosignatures += cp.cosigned;
			}
			free(note);
		}
		closedir(c);
	}
	if (d)
		closedir(d);
}

/* Entry i's tlog-proof, when one lies beside its file: the proof of this
 * line at this index, against a checkpoint that holds and whose root this
 * log's first SIZE entries still hash to. */
static void verify_tlog_proof(struct ev_receipt_log *l, const struct ev_log_entries *e, const struct ev_merkle *tree, size_t i,
			      const char *file, const char *subject)
{
	char path[PATH_MAX + 32], *text = NULL, why[512];
	size_t len = 0;
	struct stat sb;
	snprintf(path, sizeof path, "%s.tlog-proof", file);
	if (lstat(path, &sb) != 0 || !read_note_file(l, subject, "tlog-proof", path, &text, &len))
		return;
	struct ev_tlog_proof *p = malloc(sizeof *p);
	struct ev_checkpoint cp;
	if (!p) {
		ev_receipt_log_found(l, subject, "tlog-proof", "%s: out of memory", path);
	} else if (ev_tlog_proof_read(text, len, p, why, sizeof why) != EV_OK) {
		ev_receipt_log_found(l, subject, "tlog-proof", "%s: %s", path, why);
	} else if (!read_checkpoint(l, subject, "tlog-proof", path, p->checkpoint, p->checkpoint_len, &cp)) {
		/* named */
	} else if (p->index != i) {
		ev_receipt_log_found(l, subject, "entry-moved", "%s: its tlog-proof %s places it at index %zu, the log has it at %zu: an "
		      "entry before it was removed, or the entries were reordered", file, path, p->index, i);
	} else if (cp.size <= i ||
		   !ev_merkle_verify_inclusion(i, cp.size, e->leaf[i], (const ev_merkle_hash *)p->path, p->n, cp.root)) {
		ev_receipt_log_found(l, subject, "tlog-proof", "%s: does not prove this line at index %zu in its checkpoint's tree of size "
		      "%zu: the entry or the proof was edited", path, i, cp.size);
	} else if (cp.size <= e->n) {
		ev_merkle_hash now;
		ev_merkle_root(tree, cp.size, now);
		if (memcmp(now, cp.root, sizeof now) != 0)
			ev_receipt_log_found(l, subject, "tree-head", "%s: its checkpoint's tree of size %zu has another root than the log's "
			      "first %zu entries now: an entry before index %zu was changed", path, cp.size, cp.size, cp.size);
	}
	free(p);
	free(text);
}

/* Each registration and session entry carries its document whole, the
 * very bytes its sha256 names: a document edited in the line (and the
 * heads rewritten to match) would otherwise tell the log's reader another
 * story than the file appended. */
static void verify_carried(struct ev_receipt_log *l, const struct ev_log_entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		const char *kind = json_string_value(json_object_get(e->doc[i], "kind")) ?: "";
		const char *want = json_string_value(json_object_get(e->doc[i], "sha256")) ?: "";
		const json_t *doc = json_object_get(e->doc[i], "doc");
		char subject[64], hex[EV_SHA256_HEX_LEN + 1];
		uint8_t d[EV_SHA256_LEN];
		struct ev_error derr;
		if (strcmp(kind, "registration") != 0 && strcmp(kind, "session") != 0)
			continue;
		snprintf(subject, sizeof subject, "entry %zu", i);
		ev_error_clear(&derr);
		if (!json_is_object(doc)) {
			ev_receipt_log_found(l, subject, "entry-doc", "a %s entry without its document (\"doc\"): expected the %s "
					     "itself in the line", kind, kind);
			continue;
		}
		if (ev_json_sha256(doc, d, &derr) != EV_OK) {
			ev_receipt_log_found(l, subject, "entry-doc", "%s", derr.text);
			continue;
		}
		ev_sha256_hex(d, hex);
		if (strcmp(hex, want) != 0)
			ev_receipt_log_found(l, subject, "entry-doc", "its %s as carried hashes to %s, the entry names %s: the "
					     "document in the line was edited", kind, hex, want);
	}
}

/* Each entry whose inclusion proof lies beside its file: the proof made
 * for this line, at this index, verifying against its head. */
static void verify_proofs(struct ev_receipt_log *l, const struct ev_log_entries *e, const struct ev_merkle *tree)
{
	for (size_t i = 0; i < e->n; i++) {
		const char *file = json_string_value(json_object_get(e->doc[i], "file"));
		char proof_path[PATH_MAX + 32], subject[64];
		if (!file)
			continue;
		snprintf(subject, sizeof subject, "entry %zu", i);
		/* a line is a stranger's input: its file is read only at the real
		 * path append recorded, never through a link or a ".." */
		char real[PATH_MAX];
		if (file[0] != '/' || strstr(file, "/../") || strstr(file, "/./")) {
			ev_receipt_log_found(l, subject, "entry-path", "%s: not a real absolute path; its proof is not read", file);
			continue;
		}
		if (realpath(file, real) && strcmp(real, file) != 0) {
			ev_receipt_log_found(l, subject, "entry-path", "%s: its path now passes through a link (to %s); its proof is not read",
			      file, real);
			continue;
		}
		verify_tlog_proof(l, e, tree, i, file, subject);
		proof_path_of(file, proof_path, sizeof proof_path);
		struct stat sb;
		if (lstat(proof_path, &sb) != 0)
			continue; /* moved with its file, or never written: the heads still hold the entry */
		json_t *p = NULL;
		struct ev_error perr;
		ev_error_clear(&perr);
		if (ev_json_load(proof_path, EV_INCLUSION_FORMAT, EV_JSON_REQUIRE_CANONICAL, &p, NULL, NULL, NULL, &perr) != EV_OK) {
			ev_receipt_log_found(l, subject, "inclusion-proof", "%s", perr.text);
			continue;
		}
		size_t index = (size_t)json_integer_value(json_object_get(p, "index"));
		size_t size = (size_t)json_integer_value(json_object_get(p, "size"));
		ev_merkle_hash leaf, root, path[EV_MERKLE_MAX_PROOF];
		size_t len = 0, k;
		json_t *h;
		int ok = ev_hex_decode(json_string_value(json_object_get(p, "leaf_sha256")), leaf, sizeof leaf) == 0 &&
			 ev_hex_decode(json_string_value(json_object_get(p, "root_sha256")), root, sizeof root) == 0;
		json_array_foreach(json_object_get(p, "path"), k, h)
			ok = ok && len < EV_MERKLE_MAX_PROOF && ev_hex_decode(json_string_value(h), path[len++], EV_SHA256_LEN) == 0;
		if (!ok) {
			ev_receipt_log_found(l, subject, "inclusion-proof", "%s: malformed (expected index, size, leaf_sha256, root_sha256, path)",
			      proof_path);
		} else if (index != i) {
			ev_receipt_log_found(l, subject, "entry-moved", "%s: its inclusion proof %s places it at index %zu, the log has it at %zu: "
			      "an entry before it was removed, or the entries were reordered", file, proof_path, index, i);
		} else if (memcmp(leaf, e->leaf[i], sizeof leaf) != 0) {
			ev_receipt_log_found(l, subject, "entry-edited", "%s: this line is not the one its inclusion proof %s was made for: the "
			      "entry was edited", file, proof_path);
		} else if (!ev_merkle_verify_inclusion(index, size, leaf, (const ev_merkle_hash *)path, len, root)) {
			ev_receipt_log_found(l, subject, "inclusion-proof", "%s: its inclusion proof %s does not verify", file, proof_path);
		} else if (size <= e->n) {
			ev_merkle_hash now;
			ev_merkle_root(tree, size, now);
			if (memcmp(now, root, sizeof now) != 0)
				ev_receipt_log_found(l, subject, "tree-head", "%s: the tree of size %zu its proof was made against has root %s in "
				      "the proof, another in the log now: an entry before index %zu was changed", file, size,
				      json_string_value(json_object_get(p, "root_sha256")), size);
		}
		json_decref(p);
	}
}

ev_status ev_receipt_log_verify(struct ev_receipt_log *l, struct ev_error *err)
{
	struct ev_log_entries e = {0};
	struct ev_log_head *heads = NULL;
	size_t nheads = 0;
	struct ev_merkle tree = {0};
	struct stat sb;
	if (stat(l->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "%s: no receipt log here (replicate log append makes one)", l->dir);
	ev_status st = ev_log_entries_read(l->dir, &e, err);
	if (st == EV_OK)
		st = ev_log_heads_read(l->dir, 0, &heads, &nheads, err);
	if (st == EV_OK)
		st = ev_log_entries_tree(&e, &tree, err);
	if (st != EV_OK)
		goto out;
	l->size = e.n;
	l->heads = nheads;
	struct ev_error oerr;
	ev_error_clear(&oerr);
	if (ev_log_origin_read(l->dir, l->log_origin, &oerr) != EV_OK)
		ev_receipt_log_found(l, "origin", "checkpoint", "%s", oerr.text);
	ev_merkle_hash root;
	ev_merkle_root(&tree, e.n, root);
	ev_sha256_hex(root, l->root_hex);
	for (size_t i = 0; i < nheads; i++) {
		const struct ev_log_head *h = &heads[i];
		char subject[64];
		snprintf(subject, sizeof subject, "tree size %zu", h->size);
		if (h->size > e.n) {
			ev_receipt_log_found(l, subject, "entries-removed", "%s covers %zu entries; the log holds %zu: entries were removed",
			      h->path, h->size, e.n);
			continue;
		}
		ev_merkle_hash now;
		ev_merkle_root(&tree, h->size, now);
		if (memcmp(now, h->root, sizeof now) != 0)
			ev_receipt_log_found(l, subject, "tree-head", "%s: the log's first %zu entries no longer hash to the root it signed: an "
			      "entry was removed, reordered or edited", h->path, h->size);
		if (l->trust) {
			char why[256];
			struct ev_error serr;
			ev_error_clear(&serr);
			if (ev_receipt_check_signature(h->doc, l->trust, NULL, why, sizeof why, &serr) != EV_OK)
				ev_receipt_log_found(l, subject, "signature", "%s %s", h->path, serr.status >= EV_ERROR ? serr.text : why);
		}
	}
	size_t covered = nheads ? heads[nheads - 1].size : 0;
	if (covered < e.n)
		ev_receipt_log_found(l, "entries", "no-tree-head", "entries %zu to %zu are in no tree head (an append stopped before its "
		      "head was written)", covered, e.n - 1);
	verify_checkpoints(l, heads, nheads);
	verify_cosignatures(l, &tree, e.n);
	verify_proofs(l, &e, &tree);
	verify_carried(l, &e);
	st = l->findings ? EV_MISMATCH : EV_OK;
out:
	ev_merkle_free(&tree);
	ev_log_heads_free(heads, nheads);
	ev_log_entries_free(&e);
	return st;
}

