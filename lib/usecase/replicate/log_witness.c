/* SPDX-License-Identifier: Apache-2.0 */
/* log_witness: the far end of a push's head exchange (log_witness.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/log_files.h"
#include "lib/usecase/replicate/log_witness.h"

/* One line from fd into line (cap bytes), without its newline. */
static ev_status read_line(int fd, char *line, size_t cap, struct ev_error *err)
{
	int got = ev_fd_read_line(fd, line, cap);
	if (got == -1)
		return ev_error_set(err, EV_ERROR, "the sender's line ended early");
	if (got == -2)
		return ev_error_set(err, EV_USAGE, "the sender's line is longer than %zu bytes", cap);
	return EV_OK;
}

static void say(int fd, const char *text)
{
	size_t len = strlen(text);
	while (len) {
		ssize_t w = write(fd, text, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		text += w;
		len -= (size_t)w;
	}
}

/* The witness's rules beyond the consistency proof (c2sp.org/tlog-witness):
 * a checkpoint, signed by a log key this replica trusts, named as the log
 * it first cosigned under this label (origin_seen; *first when none yet),
 * saying what the head says. @return 1 cosign it; 0 keep the head without
 * cosigning (no log key trusted here, or an unsigned log: nothing to
 * cosign), why (cap bytes) says so; -1 refuse, why says what does not
 * hold. *note is the checkpoint (inside msg). */
static int witness_judges(const struct ev_witness *w, const json_t *msg, const struct ev_log_head *new, const char *kept_dir,
			  char origin_seen[EV_NOTE_NAME_MAX], int *first, const char **note, char *why, size_t cap)
{
	char cwhy[512], had[EV_SHA256_HEX_LEN + 1], says[EV_SHA256_HEX_LEN + 1];
	struct ev_checkpoint cp;
	struct ev_error oerr;
	ev_error_clear(&oerr);
	*note = json_string_value(json_object_get(msg, "checkpoint"));
	*first = 0;
	if (!w->trust || !ev_trust_count(w->trust)) {
		snprintf(why, cap, "this replica trusts no log key (--trust, or trust in its configuration)");
		return 0;
	}
	if (!*note) {
		snprintf(why, cap, "the head came without a checkpoint (an unsigned log)");
		return 0;
	}
	if (ev_checkpoint_read(*note, strlen(*note), w->trust, &cp, cwhy, sizeof cwhy) != EV_OK)
		snprintf(why, cap, "checkpoint: %.480s", cwhy);
	else if (ev_log_origin_read(kept_dir, origin_seen, &oerr) != EV_OK)
		snprintf(why, cap, "%.500s", oerr.text);
	else if (origin_seen[0] && strcmp(origin_seen, cp.origin) != 0)
		snprintf(why, cap, "unknown origin %.100s: this replica witnesses this host's log as %.100s (%.200s/origin)",
			 cp.origin, origin_seen, kept_dir);
	else if (cp.size != new->size || memcmp(cp.root, new->root, sizeof cp.root) != 0)
		ev_sha256_hex(cp.root, says), ev_sha256_hex(new->root, had),
			snprintf(why, cap, "the checkpoint says size %zu, root %s; the head says size %zu, root %s", cp.size,
				 says, new->size, had);
	else if (!origin_seen[0])
		*first = 1, snprintf(origin_seen, EV_NOTE_NAME_MAX, "%s", cp.origin);
	return why[0] ? -1 : 1;
}

/* The cosignature line this replica already made of note at path (the
 * file it kept), into line: @return 1 when it kept that very checkpoint
 * cosigned, 0 otherwise. A head offered again is answered with the same
 * line, so that a push repeated gets the same evidence, not a new time. */
static int cosigned_before(const char *path, const char *note, char *line, size_t cap)
{
	char *kept = NULL;
	size_t len = 0, n = strlen(note);
	struct ev_error ignored;
	int same = 0;
	if (ev_file_read_all(path, EV_LOG_NOTE_MAX, &kept, &len, &ignored) != EV_OK)
		return 0;
	if (len > n && memcmp(kept, note, n) == 0 && memchr(kept + n, '\n', len - n) == kept + len - 1 &&
	    len - n < cap) {
		memcpy(line, kept + n, len - n);
		line[len - n] = '\0';
		same = 1;
	}
	free(kept);
	return same;
}

/* Cosign note as w, keep it as KEPT/heads/checkpoint-SIZE, and the origin
 * when it is the first: line (cap bytes) receives the cosignature's line. */
static ev_status witness_cosigns(const struct ev_witness *w, const char *note, size_t size, const char *kept_dir,
				 const char *origin, int first, char *line, size_t cap, struct ev_error *err)
{
	size_t len = strlen(note);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/heads/checkpoint-%010zu", kept_dir, size);
	if (cosigned_before(path, note, line, cap)) {
		line[strcspn(line, "\n")] = '\0';
		return EV_OK;
	}
	ev_status st = ev_cosignature_make(note, len, w->name, (uint64_t)time(NULL), w->key, line, cap, err);
	char *cosigned = st == EV_OK ? malloc(len + strlen(line) + 1) : NULL;
	if (st == EV_OK && !cosigned)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK) {
		memcpy(cosigned, note, len);
		memcpy(cosigned + len, line, strlen(line) + 1);
		st = ev_publish_bytes(path, cosigned, strlen(cosigned), 0644, err);
	}
	if (st == EV_OK && first)
		st = ev_log_origin_record(kept_dir, origin, err);
	free(cosigned);
	line[strcspn(line, "\n")] = '\0';
	return st;
}

ev_status ev_receipt_log_keep_head(int in, int out, const char *dir, const char *label, const struct ev_witness *w,
				   struct ev_error *err)
{
	char kept_dir[PATH_MAX], text[PATH_MAX + 768];
	if (!label[0] || strchr(label, '/') || label[0] == '.')
		return ev_error_set(err, EV_USAGE, "LABEL: a plain name, not '%s'", label);
	if (snprintf(kept_dir, sizeof kept_dir, "%s/log-heads/%s", dir, label) >= (int)sizeof kept_dir)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	snprintf(text, sizeof text, "%s/log-heads", dir);
	if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || (mkdir(text, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(kept_dir, 0755) != 0 && errno != EEXIST))
		return ev_error_errno(err, errno, "%s: cannot make it", kept_dir);
	struct ev_log_head *heads = NULL;
	size_t nheads = 0;
	/* the heads kept from LABEL lie as a log's own do: KEPT/heads/head-SIZE.json */
	ev_status st = ev_log_heads_read(kept_dir, 1, &heads, &nheads, err);
	if (st != EV_OK)
		return st;
	const struct ev_log_head *old = nheads ? &heads[nheads - 1] : NULL;
	if (old)
		snprintf(text, sizeof text, "have %zu %s\n", old->size, json_string_value(json_object_get(old->doc, "root_sha256")));
	else
		snprintf(text, sizeof text, "have 0 -\n");
	say(out, text);
	char *line = malloc(1 << 20);
	json_t *msg = NULL, *new_doc = NULL;
	if (!line) {
		ev_log_heads_free(heads, nheads);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if ((st = read_line(in, line, 1 << 20, err)) == EV_OK) {
		json_error_t je;
		if (!(msg = json_loads(line, JSON_REJECT_DUPLICATES, &je)))
			st = ev_error_set(err, EV_USAGE, "the sender's line is not JSON: %s", je.text);
	}
	struct ev_log_head new;
	memset(&new, 0, sizeof new);
	char why[512] = "";
	if (st == EV_OK) {
		new_doc = json_object_get(msg, "head");
		const json_t *size = json_object_get(new_doc, "size");
		if (strcmp(json_string_value(json_object_get(new_doc, "format")) ?: "", EV_TREE_HEAD_FORMAT) != 0 ||
		    !json_is_integer(size) || json_integer_value(size) < 1 ||
		    ev_hex_decode(json_string_value(json_object_get(new_doc, "root_sha256")), new.root, sizeof new.root) != 0)
			st = ev_error_set(err, EV_USAGE, "the sender's head is not an %s document", EV_TREE_HEAD_FORMAT);
		else
			new.size = (size_t)json_integer_value(size);
	}
	if (st == EV_OK && old) {
		ev_merkle_hash proof[EV_MERKLE_MAX_PROOF];
		size_t len = 0, k;
		json_t *h;
		int ok = 1;
		json_array_foreach(json_object_get(msg, "proof"), k, h)
			ok = ok && len < EV_MERKLE_MAX_PROOF && ev_hex_decode(json_string_value(h), proof[len++], EV_SHA256_LEN) == 0;
		if (new.size < old->size)
			snprintf(why, sizeof why, "the head offered covers %zu entries, the one kept from %s covers %zu: its log "
				 "shrank", new.size, label, old->size);
		else if (!ok || !ev_merkle_verify_consistency(old->size, new.size, old->root, new.root,
							    (const ev_merkle_hash *)proof, len))
			snprintf(why, sizeof why, "the head offered (size %zu) does not extend the one kept from %s (size %zu, "
				 "root %s): its history was rewritten", new.size, label, old->size,
				 json_string_value(json_object_get(old->doc, "root_sha256")));
	}
	const char *note = NULL;
	char origin_seen[EV_NOTE_NAME_MAX] = "", cosignature[EV_NOTE_NAME_MAX + 160] = "", not_cosigned[sizeof why] = "";
	int first = 0, cosign = 0;
	if (st == EV_OK && !why[0] && w && w->key &&
	    (cosign = witness_judges(w, msg, &new, kept_dir, origin_seen, &first, &note, why, sizeof why)) == 0) {
		snprintf(not_cosigned, sizeof not_cosigned, "%s", why);
		why[0] = '\0';
	}
	if (st == EV_OK && why[0]) {
		snprintf(text, sizeof text, "refused: %s\n", why);
		say(out, text);
		st = ev_error_set(err, EV_MISMATCH, "%s", why);
	} else if (st == EV_OK && !(old && old->size == new.size)) { /* the same head: nothing new to keep */
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/heads/head-%010zu.json", kept_dir, new.size);
		char sub[PATH_MAX + 8];
		snprintf(sub, sizeof sub, "%s/heads", kept_dir);
		if (mkdir(sub, 0755) != 0 && errno != EEXIST)
			st = ev_error_errno(err, errno, "%s: cannot make it", sub);
		if (st == EV_OK)
			st = ev_publish_json(path, new_doc, err);
	}
	if (st == EV_OK && cosign == 1)
		st = witness_cosigns(w, note, new.size, kept_dir, origin_seen, first, cosignature, sizeof cosignature, err);
	if (st == EV_OK) {
		snprintf(text, sizeof text, "kept head-%010zu%s%s%s\n", new.size,
			 cosignature[0] ? " cosigned " : not_cosigned[0] ? " not cosigned: " : "",
			 cosignature[0] ? cosignature : "", not_cosigned);
		say(out, text);
	}
	json_decref(msg);
	free(line);
	ev_log_heads_free(heads, nheads);
	return st;
}

