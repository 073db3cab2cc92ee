/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_log: the append-only receipt log (receipt_log.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/archive/seal.h"
#include "lib/campaign/registration.h"
#include "lib/campaign/session.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/merkle.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "lib/usecase/replicate/receipt_log_parts.h"

#define DOC_MAX ((size_t)64 << 20)

void ev_receipt_log_found(struct ev_receipt_log *l, const char *subject, const char *check, const char *fmt, ...)
{
	char text[PATH_MAX + 512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	struct ev_finding f = {.subject = subject, .check = check, .message = text};
	l->findings++;
	if (l->on_finding)
		l->on_finding(l->ctx, &f);
}

/* What a file is: "seal", "registration", "session", or its receipt's
 * kind. A registration or a session is carried in its entry whole
 * (*carried, a new reference; else NULL): the log alone then says which
 * registration each session ran under and how it ended, even when the
 * campaign directory that held it is gone. */
static ev_status kind_of(const char *path, const char *bytes, size_t len, char *kind, size_t cap, json_t **carried,
			 struct ev_error *err)
{
	json_t *doc = NULL;
	*carried = NULL;
	ev_status st = ev_json_parse(bytes, len, path, NULL, EV_JSON_REQUIRE_CANONICAL, &doc, err);
	if (st != EV_OK)
		return st;
	const char *format = json_string_value(json_object_get(doc, "format"));
	if (format && strcmp(format, EV_SEAL_FORMAT) == 0)
		snprintf(kind, cap, "seal");
	else if (format && strcmp(format, EV_REGISTRATION_FORMAT) == 0)
		snprintf(kind, cap, "registration"), *carried = json_incref(doc);
	else if (format && strcmp(format, EV_SESSION_FORMAT) == 0)
		snprintf(kind, cap, "session"), *carried = json_incref(doc);
	else if (format && strcmp(format, EV_RECEIPT_FORMAT) == 0 && ev_receipt_kind(doc))
		snprintf(kind, cap, "%s", ev_receipt_kind(doc));
	else
		st = ev_error_set(err, EV_REFUSED, "%s: not a receipt, a seal, a registration or a session (format %s): not logged", path,
				  format ? format : "none");
	json_decref(doc);
	return st;
}


static json_t *hashes_json(const ev_merkle_hash *h, size_t n)
{
	json_t *list = json_array();
	char hex[EV_SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < n; i++) {
		ev_sha256_hex(h[i], hex);
		json_array_append_new(list, json_string(hex));
	}
	return list;
}

/* The origin append signs under: the one recorded; else --origin, or this
 * host's name and the log's absolute path (so that two logs on one host,
 * or on two, never share one), which *new says record_origin must record:
 * after the entries and their head, so that a log's first fsyncs stay its
 * entries' and its head's, and before the first checkpoint names it. */
static ev_status settle_origin(struct ev_receipt_log *l, int *new, struct ev_error *err)
{
	*new = 0;
	ev_status st = ev_log_origin_read(l->dir, l->log_origin, err);
	if (st != EV_OK || l->log_origin[0]) {
		if (st == EV_OK && l->origin && strcmp(l->origin, l->log_origin) != 0)
			st = ev_error_set(err, EV_USAGE, "%s: this log's origin is %s (recorded in its file origin by its first "
					  "append); --origin %s names another log: nothing appended", l->dir, l->log_origin,
					  l->origin);
		return st;
	}
	char name[EV_NOTE_NAME_MAX + PATH_MAX], host[256] = "", real[PATH_MAX];
	if (l->origin) {
		snprintf(name, sizeof name, "%s", l->origin);
	} else {
		gethostname(host, sizeof host - 1);
		if (!realpath(l->dir, real))
			return ev_error_errno(err, errno, "%s: cannot resolve its path", l->dir);
		snprintf(name, sizeof name, "%s%s", host, real);
	}
	if (!ev_note_name_ok(name))
		return ev_error_set(err, EV_USAGE, "%s: '%s' cannot be the log's origin, its name in every checkpoint "
				    "(printable ASCII without space or '+', at most %d bytes)%s; nothing appended", l->dir,
				    name, EV_NOTE_NAME_MAX - 1, l->origin ? "" : ": name the log with --origin NAME");
	memcpy(l->log_origin, name, strlen(name) + 1); /* < EV_NOTE_NAME_MAX: ev_note_name_ok held */
	*new = 1;
	return EV_OK;
}

/* The one Ed25519 public key in the PEM file at path. */
static ev_status one_public_key(const char *path, unsigned char pub[32], struct ev_error *err)
{
	struct ev_trust *t = NULL;
	ev_status st = ev_trust_from_files(&path, 1, &t, err);
	if (st == EV_OK && ev_trust_count(t) != 1)
		st = ev_error_set(err, EV_USAGE, "%s: holds %zu public keys; give a file with the one meant", path,
				  ev_trust_count(t));
	if (st == EV_OK)
		ev_trust_public(t, 0, pub, NULL);
	ev_trust_free(t);
	return st;
}

ev_status ev_receipt_log_vkey(struct ev_receipt_log *l, const char *pub_path, char vkey[EV_NOTE_VKEY_MAX],
			      struct ev_error *err)
{
	const char *name = l->origin;
	unsigned char pub[32];
	ev_status st = EV_OK;
	if (!name) {
		if ((st = ev_log_origin_read(l->dir, l->log_origin, err)) != EV_OK)
			return st;
		if (!l->log_origin[0])
			return ev_error_set(err, EV_USAGE, "%s: no origin recorded yet (no append made this log); give "
					    "--origin NAME", l->dir);
		name = l->log_origin;
	}
	if ((st = one_public_key(pub_path, pub, err)) != EV_OK)
		return st;
	return ev_note_vkey(name, EV_NOTE_ED25519, pub, vkey, err);
}

ev_status ev_witness_vkey(const char *name, const char *pub_path, char vkey[EV_NOTE_VKEY_MAX], struct ev_error *err)
{
	unsigned char pub[32];
	ev_status st = one_public_key(pub_path, pub, err);
	return st == EV_OK ? ev_note_vkey(name, EV_NOTE_COSIGNATURE, pub, vkey, err) : st;
}

/* Nothing is added to a log that no longer is what its last head signed. */
static ev_status still_as_signed(const struct ev_receipt_log *l, const struct ev_log_entries *e,
				 const struct ev_merkle *tree, const struct ev_log_head *last, struct ev_error *err)
{
	ev_merkle_hash root;
	if (last->size > e->n)
		return ev_error_set(err, EV_REFUSED, "%s: holds %zu entries, its tree head %s covers %zu: entries were "
				    "removed; nothing appended (replicate log verify names them)", l->dir, e->n, last->path,
				    last->size);
	ev_merkle_root(tree, last->size, root);
	if (memcmp(root, last->root, sizeof root) != 0)
		return ev_error_set(err, EV_REFUSED, "%s: its first %zu entries no longer hash to the root its tree head "
				    "%s signed: the log was rewritten; nothing appended (replicate log verify names the "
				    "entry)", l->dir, last->size, last->path);
	return EV_OK;
}

/* Whether an append of entry k stopped before it was whole: no head
 * covers it (headed: the last head's size), or its proofs are not beside
 * its file. Running the same append again completes it. */
static int append_unfinished(const struct ev_receipt_log *l, const struct ev_log_entries *e, size_t k, size_t headed)
{
	char proof_path[PATH_MAX + 32], tlog_path[PATH_MAX + 32];
	const char *file = json_string_value(json_object_get(e->doc[k], "file")) ?: "";
	if (k >= headed)
		return 1;
	proof_path_of(file, proof_path, sizeof proof_path);
	snprintf(tlog_path, sizeof tlog_path, "%s.tlog-proof", file);
	return access(proof_path, F_OK) != 0 || (l->sign_key && access(tlog_path, F_OK) != 0);
}

/* The new entries' lines (*text, *used bytes), one per file in order,
 * each file's SHA-256 into hex[i]: a file given twice is refused, and one
 * already in the log too, unless its append stopped before it was whole
 * (resumed[i] is then its entry, and no line is made for it; otherwise
 * resumed[i] is SIZE_MAX). */
static ev_status entry_lines(const struct ev_receipt_log *l, const struct ev_log_entries *e, size_t headed,
			     const char *const *files, size_t n, char (*hex)[EV_SHA256_HEX_LEN + 1], size_t *resumed,
			     char **text, size_t *used, struct ev_error *err)
{
	size_t cap = 0;
	ev_status st = EV_OK;
	for (size_t i = 0; i < n && st == EV_OK; i++) {
		char *bytes = NULL, kind[64], real[PATH_MAX], added[32];
		size_t len = 0;
		json_t *carried = NULL;
		uint8_t d[EV_SHA256_LEN];
		int fd = ev_input_open(files[i], "a receipt or seal", err);
		if (fd < 0)
			return err->status;
		close(fd);
		if ((st = ev_file_read_all(files[i], DOC_MAX, &bytes, &len, err)) == EV_OK &&
		    (st = kind_of(files[i], bytes, len, kind, sizeof kind, &carried, err)) == EV_OK &&
		    (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK) {
			ev_sha256_hex(d, hex[i]);
			resumed[i] = SIZE_MAX;
			for (size_t k = 0; k < e->n && st == EV_OK && resumed[i] == SIZE_MAX; k++) {
				if (strcmp(json_string_value(json_object_get(e->doc[k], "sha256")) ?: "", hex[i]) != 0)
					continue;
				/* proofs go beside the entry's recorded file: only the
				 * file given here, never a path the log names */
				const char *at = json_string_value(json_object_get(e->doc[k], "file")) ?: "";
				if (realpath(files[i], real) && strcmp(at, real) == 0 && append_unfinished(l, e, k, headed))
					resumed[i] = k;
				else
					st = ev_error_set(err, EV_REFUSED, "%s: already in the log as entry %zu (%s); "
							  "nothing appended", files[i], k,
							  json_string_value(json_object_get(e->doc[k], "file")) ?: "?");
			}
			for (size_t k = 0; k < i && st == EV_OK; k++)
				if (strcmp(hex[k], hex[i]) == 0)
					st = ev_error_set(err, EV_USAGE, "%s: given twice (the same bytes as %s)", files[i],
							  files[k]);
		}
		free(bytes);
		if (st == EV_OK && !realpath(files[i], real))
			st = ev_error_errno(err, errno, "%s: cannot resolve its path", files[i]);
		if (st != EV_OK || resumed[i] != SIZE_MAX) {
			json_decref(carried);
			if (st != EV_OK)
				break;
			continue;
		}
		ev_utc_now(added, sizeof added);
		json_t *line = json_pack("{s:s, s:o*, s:s, s:s, s:s}", "added", added, "doc", carried, "file", real, "kind",
					 kind, "sha256", hex[i]);
		if (!line || ev_json_append(line, text, used, &cap) != 0 || ev_json_append_raw("\n", 1, text, used, &cap) != 0)
			st = ev_error_set(err, EV_ERROR, "out of memory");
		json_decref(line);
	}
	return st;
}

/* The tree head of the log as it now is (heads/head-SIZE.json, signed
 * with the key given), its root into l->root_hex and root. */
static ev_status write_head(struct ev_receipt_log *l, const struct ev_log_entries *e, const struct ev_merkle *tree,
			    ev_merkle_hash root, struct ev_error *err)
{
	char time[32], host[256] = "", name[64];
	ev_merkle_root(tree, e->n, root);
	ev_sha256_hex(root, l->root_hex);
	l->size = e->n;
	ev_utc_now(time, sizeof time);
	gethostname(host, sizeof host - 1);
	json_t *head = json_pack("{s:s, s:s, s:s, s:I, s:s}", "format", EV_TREE_HEAD_FORMAT, "host", host, "root_sha256",
				 l->root_hex, "size", (json_int_t)e->n, "time", time);
	snprintf(name, sizeof name, "heads/head-%010zu.json", e->n);
	ev_status st = EV_OK;
	if (!head)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	else if (l->sign_key)
		st = ev_receipt_sign(head, l->sign_key, err);
	if (st == EV_OK && ev_path_join(l->head_path, sizeof l->head_path, l->dir, name) != 0)
		st = ev_error_set(err, EV_USAGE, "%s: path too long", l->dir);
	if (st == EV_OK)
		st = ev_publish_json(l->head_path, head, err);
	json_decref(head);
	return st;
}

/* Beside each file appended (entries from..e->n, and the n_resumed
 * entries of an append resumed): its inclusion proof against the head
 * just written and, when the head has a checkpoint (note), the same proof
 * as a C2SP tlog-proof. A resumed entry's proofs already in place are
 * kept. */
static ev_status write_proofs(struct ev_receipt_log *l, const struct ev_log_entries *e, const struct ev_merkle *tree,
			      size_t from, const size_t *resumed, size_t n_resumed, const char *note, size_t note_len,
			      struct ev_error *err)
{
	ev_status st = EV_OK;
	for (size_t r = 0, i; r < n_resumed + (e->n - from) && st == EV_OK; r++) {
		if (r < n_resumed && resumed[r] == SIZE_MAX)
			continue;
		i = r < n_resumed ? resumed[r] : from + (r - n_resumed);
		ev_merkle_hash path[EV_MERKLE_MAX_PROOF];
		size_t len;
		char leaf[EV_SHA256_HEX_LEN + 1], proof_path[PATH_MAX + 32];
		const char *file = json_string_value(json_object_get(e->doc[i], "file"));
		ev_merkle_inclusion(tree, i, e->n, path, &len);
		ev_sha256_hex(e->leaf[i], leaf);
		json_t *proof = json_pack("{s:s, s:I, s:s, s:s, s:o, s:s, s:I}", "format", EV_INCLUSION_FORMAT, "index",
					  (json_int_t)i, "leaf_sha256", leaf, "log", l->head_path, "path", hashes_json(path, len),
					  "root_sha256", l->root_hex, "size", (json_int_t)e->n);
		proof_path_of(file, proof_path, sizeof proof_path);
		int resuming = r < n_resumed;
		if (!proof)
			st = ev_error_set(err, EV_ERROR, "out of memory");
		else if (!resuming || access(proof_path, F_OK) != 0)
			st = ev_publish_json(proof_path, proof, err);
		json_decref(proof);
		char tlog_path[PATH_MAX + 32], *tlog = NULL;
		size_t tlog_len = 0;
		snprintf(tlog_path, sizeof tlog_path, "%s.tlog-proof", file);
		if (st == EV_OK && note && (!resuming || access(tlog_path, F_OK) != 0) &&
		    (st = ev_tlog_proof_make(i, path, len, note, note_len, &tlog, &tlog_len, err)) == EV_OK)
			st = ev_publish_bytes(tlog_path, tlog, tlog_len, 0644, err);
		free(tlog);
		if (st == EV_OK && l->on_appended)
			l->on_appended(l->ctx, file, i, proof_path, note ? tlog_path : NULL);
	}
	return st;
}

ev_status ev_receipt_log_append(struct ev_receipt_log *l, const char *const *files, size_t n, struct ev_error *err)
{
	int lock = -1;
	struct ev_log_entries e = {0};
	struct ev_log_head *heads = NULL;
	size_t nheads = 0;
	struct ev_merkle tree = {0};
	char *text = NULL;
	size_t used = 0;
	char(*hex)[EV_SHA256_HEX_LEN + 1] = calloc(n ? n : 1, sizeof *hex);
	size_t *resumed = calloc(n ? n : 1, sizeof *resumed);
	ev_status st = hex && resumed ? ev_log_lock(l->dir, &lock, err) : ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK)
		st = ev_log_entries_read(l->dir, &e, err);
	if (st == EV_OK)
		st = ev_log_heads_read(l->dir, 1, &heads, &nheads, err);
	if (st == EV_OK)
		st = ev_log_entries_tree(&e, &tree, err);
	if (st == EV_OK && nheads)
		st = still_as_signed(l, &e, &tree, &heads[nheads - 1], err);
	size_t headed = nheads ? heads[nheads - 1].size : 0;
	if (st == EV_OK)
		st = entry_lines(l, &e, headed, files, n, hex, resumed, &text, &used, err);
	size_t before = e.n;
	int new_origin = 0;
	if (st == EV_OK)
		st = settle_origin(l, &new_origin, err);
	/* the entry is durable before any head names it (ev_log_entries_append syncs) */
	int this_append = 0; /* entries this append added, or one resumed */
	for (size_t i = 0; i < n && st == EV_OK; i++)
		this_append |= resumed[i] != SIZE_MAX;
	if (st == EV_OK && used && (st = ev_log_entries_append(l->dir, text, used, err)) == EV_OK)
		this_append = 1;
	/* the entries as they now are, their tree, its head, each proof */
	if (st == EV_OK) {
		ev_log_entries_free(&e);
		ev_merkle_free(&tree);
		if ((st = ev_log_entries_read(l->dir, &e, err)) == EV_OK)
			st = ev_log_entries_tree(&e, &tree, err);
	}
	ev_merkle_hash root;
	if (st == EV_OK && headed == e.n && nheads) {
		/* an append resumed after its head was written: that head stands */
		memcpy(root, heads[nheads - 1].root, sizeof root);
		ev_sha256_hex(root, l->root_hex);
		l->size = e.n;
		snprintf(l->head_path, sizeof l->head_path, "%s", heads[nheads - 1].path);
	} else if (st == EV_OK) {
		st = write_head(l, &e, &tree, root, err);
	}
	if (st == EV_OK && new_origin)
		st = ev_log_origin_record(l->dir, l->log_origin, err);
	/* the same head as a C2SP checkpoint: a signed note needs a signature */
	char *note = NULL;
	size_t note_len = 0;
	l->checkpoint_path[0] = '\0';
	if (st == EV_OK && l->sign_key) {
		char name[64];
		snprintf(name, sizeof name, "heads/checkpoint-%010zu", e.n);
		if ((st = ev_checkpoint_make(l->log_origin, e.n, root, l->sign_key, &note, &note_len, err)) == EV_OK &&
		    ev_path_join(l->checkpoint_path, sizeof l->checkpoint_path, l->dir, name) != 0)
			st = ev_error_set(err, EV_USAGE, "%s: path too long", l->dir);
		if (st == EV_OK && access(l->checkpoint_path, F_OK) == 0) {
			/* resumed: the checkpoint written then stands (its signature's time differs) */
			free(note);
			note = NULL;
			st = ev_file_read_all(l->checkpoint_path, DOC_MAX, &note, &note_len, err);
		} else if (st == EV_OK) {
			st = ev_publish_bytes(l->checkpoint_path, note, note_len, 0644, err);
		}
	}
	if (st == EV_OK)
		st = write_proofs(l, &e, &tree, before, resumed, n, note, note_len, err);
	if (st != EV_OK && this_append && e.n > headed) {
		size_t at = strlen(err->text);
		snprintf(err->text + at, sizeof err->text - at, "; entries %zu to %zu are in the log, not yet whole: the "
			 "same append again completes them", headed, e.n - 1);
	}
	free(note);
	ev_merkle_free(&tree);
	ev_log_heads_free(heads, nheads);
	ev_log_entries_free(&e);
	free(text);
	free(hex);
	free(resumed);
	if (lock >= 0)
		close(lock);
	return st;
}

ev_status ev_receipt_log_consistency(struct ev_receipt_log *l, const char *old_head, const char *new_head,
				     json_t **proof, char *why, size_t why_cap, struct ev_error *err)
{
	struct ev_log_head old, new;
	struct ev_log_entries e = {0};
	struct ev_merkle tree = {0};
	*proof = NULL;
	memset(&old, 0, sizeof old);
	memset(&new, 0, sizeof new);
	ev_status st = ev_log_head_load(old_head, &old, err);
	if (st == EV_OK)
		st = ev_log_head_load(new_head, &new, err);
	if (st == EV_OK && (old.size == 0 || old.size > new.size))
		st = ev_error_set(err, EV_USAGE, "%s (size %zu) must be a head of a smaller non-empty tree than %s (size %zu)",
				  old_head, old.size, new_head, new.size);
	if (st == EV_OK)
		st = ev_log_entries_read(l->dir, &e, err);
	if (st == EV_OK && e.n < new.size)
		st = ev_error_set(err, EV_USAGE, "%s: holds %zu entries; %s covers %zu: not this log's head", l->dir, e.n,
				  new_head, new.size);
	if (st == EV_OK)
		st = ev_log_entries_tree(&e, &tree, err);
	if (st != EV_OK)
		goto out;
	ev_merkle_hash path[EV_MERKLE_MAX_PROOF], mine_old, mine_new;
	size_t len;
	ev_merkle_consistency(&tree, old.size, new.size, path, &len);
	ev_merkle_root(&tree, old.size, mine_old);
	ev_merkle_root(&tree, new.size, mine_new);
	int holds = ev_merkle_verify_consistency(old.size, new.size, old.root, new.root, (const ev_merkle_hash *)path, len);
	char a[EV_SHA256_HEX_LEN + 1], b[EV_SHA256_HEX_LEN + 1];
	*proof = json_pack("{s:s, s:{s:s, s:I, s:s}, s:{s:s, s:I, s:s}, s:o, s:b}", "format", EV_CONSISTENCY_FORMAT,
			   "old", "head", old_head, "size", (json_int_t)old.size, "root_sha256",
			   json_string_value(json_object_get(old.doc, "root_sha256")), "new", "head", new_head, "size",
			   (json_int_t)new.size, "root_sha256", json_string_value(json_object_get(new.doc, "root_sha256")),
			   "proof", hashes_json(path, len), "consistent", holds);
	if (holds) {
		st = EV_OK;
	} else if (memcmp(mine_new, new.root, sizeof mine_new) != 0) {
		ev_sha256_hex(mine_new, a);
		snprintf(why, why_cap, "%s is not a head of this log: its first %zu entries hash to %s", new_head, new.size, a);
		st = EV_MISMATCH;
	} else {
		ev_sha256_hex(mine_old, a);
		ev_sha256_hex(old.root, b);
		snprintf(why, why_cap, "%s is not a prefix of this log: its tree of size %zu has root %s, this log's first %zu "
			 "entries hash to %s: the history it saw was rewritten", old_head, old.size, b, old.size, a);
		st = EV_MISMATCH;
	}
out:
	ev_merkle_free(&tree);
	ev_log_entries_free(&e);
	json_decref(old.doc);
	json_decref(new.doc);
	return st;
}

ev_status ev_receipt_log_offer(struct ev_receipt_log *l, size_t old_size, const char *old_root_hex, json_t **head,
			       json_t **proof, char *label, size_t cap, char *why, size_t why_cap, struct ev_error *err)
{
	struct ev_log_entries e = {0};
	struct ev_log_head *heads = NULL;
	size_t nheads = 0;
	struct ev_merkle tree = {0};
	*head = *proof = NULL;
	ev_status st = ev_log_entries_read(l->dir, &e, err);
	if (st == EV_OK)
		st = ev_log_heads_read(l->dir, 1, &heads, &nheads, err);
	if (st == EV_OK && !nheads)
		st = ev_error_set(err, EV_USAGE, "%s: the log has no tree head yet (replicate log append writes one)", l->dir);
	if (st == EV_OK)
		st = ev_log_entries_tree(&e, &tree, err);
	if (st != EV_OK)
		goto out;
	const struct ev_log_head *last = &heads[nheads - 1];
	ev_merkle_hash old_root, mine;
	ev_path_label(json_string_value(json_object_get(last->doc, "host")), label, cap);
	if (last->size > e.n) {
		snprintf(why, why_cap, "this log's last tree head %s covers %zu entries, the log holds %zu: entries were "
			 "removed", last->path, last->size, e.n);
		st = EV_MISMATCH;
	} else if (old_size > last->size) {
		snprintf(why, why_cap, "the replica kept a tree head of size %zu from this host; this log's last covers %zu: "
			 "entries were removed", old_size, last->size);
		st = EV_MISMATCH;
	} else if (old_size && (ev_hex_decode(old_root_hex, old_root, sizeof old_root) != 0 ||
				(ev_merkle_root(&tree, old_size, mine), memcmp(mine, old_root, sizeof mine) != 0))) {
		char now[EV_SHA256_HEX_LEN + 1];
		ev_sha256_hex(mine, now);
		snprintf(why, why_cap, "the replica kept this host's tree head of size %zu, root %.64s; this log's first %zu "
			 "entries hash to %s: the history was rewritten (replicate log verify names the entry)", old_size,
			 old_root_hex, old_size, now);
		st = EV_MISMATCH;
	}
	if (st == EV_OK) {
		ev_merkle_hash path[EV_MERKLE_MAX_PROOF];
		size_t len = 0;
		if (old_size)
			ev_merkle_consistency(&tree, old_size, last->size, path, &len);
		*proof = hashes_json(path, len);
		*head = json_incref(last->doc);
	}
out:
	ev_merkle_free(&tree);
	ev_log_heads_free(heads, nheads);
	ev_log_entries_free(&e);
	return st;
}

ev_status ev_receipt_log_checkpoint(const struct ev_receipt_log *l, size_t size, char **note, size_t *len,
				    struct ev_error *err)
{
	char path[PATH_MAX], name[64];
	struct stat sb;
	*note = NULL;
	*len = 0;
	snprintf(name, sizeof name, "heads/checkpoint-%010zu", size);
	if (ev_path_join(path, sizeof path, l->dir, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", l->dir);
	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? EV_OK : ev_error_errno(err, errno, "%s: cannot read", path);
	int fd = ev_input_open(path, "a checkpoint", err);
	if (fd < 0)
		return err->status;
	close(fd);
	return ev_file_read_all(path, EV_LOG_NOTE_MAX, note, len, err);
}

ev_status ev_receipt_log_keep_cosignature(const struct ev_receipt_log *l, size_t size, const char *line, char *name,
					  size_t cap, char *why, size_t why_cap, struct ev_error *err)
{
	char *note = NULL, *cosigned = NULL, path[PATH_MAX], sub[64];
	size_t len = 0;
	struct ev_checkpoint cp;
	name[0] = '\0';
	ev_status st = ev_receipt_log_checkpoint(l, size, &note, &len, err);
	if (st == EV_OK && !note)
		st = ev_error_set(err, EV_ERROR, "%s: no checkpoint of size %zu to keep a cosignature of", l->dir, size);
	size_t cap_all = len + strlen(line) + 2;
	if (st == EV_OK && !(cosigned = malloc(cap_all)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK && cosigned) {
		memcpy(cosigned, note, len);
		snprintf(cosigned + len, cap_all - len, "%s\n", line);
		/* its shape only: the replica's key is the reviewer's to trust */
		if (ev_checkpoint_read(cosigned, strlen(cosigned), NULL, &cp, why, why_cap) != EV_OK ||
		    cp.signatures < 2 || strncmp(line, "\xe2\x80\x94 ", 4) != 0)
			st = why[0] ? EV_MISMATCH : ev_why(why, why_cap, "'%.80s' is not a cosignature line", line);
	}
	if (st == EV_OK) {
		char cosigner[EV_NOTE_NAME_MAX];
		snprintf(cosigner, sizeof cosigner, "%.*s", (int)strcspn(line + 4, " "), line + 4);
		ev_path_label(cosigner, name, cap);
		if (name[0] == '.') /* the far end's word: ".." names no directory of ours */
			name[0] = '_';
		snprintf(sub, sizeof sub, "/checkpoint-%010zu", size);
		if (snprintf(path, sizeof path, "%s/cosignatures", l->dir) >= (int)sizeof path ||
		    (mkdir(path, 0755) != 0 && errno != EEXIST))
			st = ev_error_errno(err, errno, "%s: cannot make it", path);
		else if (snprintf(path, sizeof path, "%s/cosignatures/%s", l->dir, name) >= (int)sizeof path - 32 ||
			 (mkdir(path, 0755) != 0 && errno != EEXIST))
			st = ev_error_errno(err, errno, "%s: cannot make it", path);
		if (st == EV_OK) {
			char *kept = NULL;
			size_t kept_len = 0;
			struct ev_error ignored;
			strcat(path, sub);
			/* the same head pushed again: the replica answers with the line it gave */
			if (ev_file_read_all(path, EV_LOG_NOTE_MAX, &kept, &kept_len, &ignored) == EV_OK && kept_len == strlen(cosigned) &&
			    memcmp(kept, cosigned, kept_len) == 0)
				;
			else if (kept)
				st = ev_why(why, why_cap, "%s already holds another cosignature by %s of this checkpoint", path,
					    cosigner);
			else
				st = ev_publish_bytes(path, cosigned, strlen(cosigned), 0644, err);
			free(kept);
		}
		snprintf(name, cap, "%s", cosigner);
	}
	free(note);
	free(cosigned);
	return st;
}
