/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/core/path.h"

void ev_seal_init(struct ev_seal *seal)
{
	memset(seal, 0, sizeof *seal);
}

void ev_seal_free(struct ev_seal *seal)
{
	if (!seal)
		return;
	for (size_t i = 0; i < seal->count; i++)
		free(seal->members[i].path);
	free(seal->members);
	free(seal->root);
	json_decref(seal->source);
	ev_seal_init(seal);
}

static int member_order(const void *a, const void *b)
{
	const struct ev_member *x = a, *y = b;
	return strcmp(x->path, y->path);
}

void ev_seal_finish(struct ev_seal *seal)
{
	if (seal->count > 1)
		qsort(seal->members, seal->count, sizeof seal->members[0], member_order);
	seal->files = seal->dirs = seal->bytes = 0;
	for (size_t i = 0; i < seal->count; i++) {
		if (seal->members[i].type == EV_MEMBER_DIR) {
			seal->dirs++;
		} else if (seal->members[i].type == EV_MEMBER_FILE) {
			seal->files++;
			seal->bytes += seal->members[i].size;
		}
	}
}

const char *ev_member_type_name(enum ev_member_type type)
{
	switch (type) {
	case EV_MEMBER_FILE: return "file";
	case EV_MEMBER_DIR: return "dir";
	case EV_MEMBER_SYMLINK: return "symlink";
	case EV_MEMBER_FIFO: return "fifo";
	case EV_MEMBER_SOCKET: return "socket";
	case EV_MEMBER_DEVICE: return "device";
	case EV_MEMBER_HARDLINK: return "hardlink";
	default: return "other";
	}
}

void ev_mode_format(unsigned mode, char *buf, size_t cap)
{
	snprintf(buf, cap, "%04o", mode & 07777);
}

static json_t *member_to_json(const struct ev_member *m)
{
	char mode[8], hex[EV_SHA256_HEX_LEN + 1];
	json_t *o = json_object();
	if (!o)
		return NULL;
	ev_mode_format(m->mode, mode, sizeof mode);
	int bad = json_object_set_new(o, "path", json_string(m->path));
	bad |= json_object_set_new(o, "type", json_string(ev_member_type_name(m->type)));
	bad |= json_object_set_new(o, "mode", json_string(mode));
	if (m->type == EV_MEMBER_FILE) {
		ev_sha256_hex(m->sha256, hex);
		bad |= json_object_set_new(o, "size", json_integer((json_int_t)m->size));
		bad |= json_object_set_new(o, "sha256", json_string(hex));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *ev_seal_to_json(const struct ev_seal *seal)
{
	json_t *doc = json_object(), *members = json_array();
	json_t *totals = json_pack("{s:I, s:I, s:I}", "files", (json_int_t)seal->files, "dirs",
				   (json_int_t)seal->dirs, "bytes", (json_int_t)seal->bytes);
	if (!doc || !members || !totals)
		goto fail;
	for (size_t i = 0; i < seal->count; i++) {
		json_t *m = member_to_json(&seal->members[i]);
		if (!m || json_array_append_new(members, m) != 0)
			goto fail;
	}
	if (seal->source && json_object_set(doc, "source", seal->source))
		goto fail_doc;
	if (json_object_set_new(doc, "format", json_string(EV_SEAL_FORMAT)) ||
	    json_object_set_new(doc, "root", json_string(seal->root)) ||
	    json_object_set_new(doc, "members", members) ||
	    json_object_set_new(doc, "totals", totals))
		goto fail_doc;
	return doc;
fail:
	json_decref(members);
	json_decref(totals);
fail_doc:
	json_decref(doc);
	return NULL;
}

static int append_text(const char *text, char **buf, size_t *len, size_t *cap)
{
	return ev_json_append_raw(text, strlen(text), buf, len, cap);
}

/* The document ev_seal_to_json builds, written member by member: the
 * bytes are the same (keys in order: format, members, root, source,
 * totals), but a seal of 100,000 members never exists as 100,000 jansson
 * objects at once (about 700 bytes each). */
ev_status ev_seal_serialize(const struct ev_seal *seal, char **bytes, size_t *len,
			    struct ev_error *err)
{
	char *buf = NULL, *source = NULL;
	size_t n = 0, cap = 0, source_len = 0;
	if (seal->source && ev_json_dump(seal->source, &source, &source_len, err) != EV_OK)
		return err->status;
	json_t *format = json_string(EV_SEAL_FORMAT), *root = json_string(seal->root);
	json_t *totals = json_pack("{s:I, s:I, s:I}", "files", (json_int_t)seal->files, "dirs",
				   (json_int_t)seal->dirs, "bytes", (json_int_t)seal->bytes);
	int bad = !format || !root || !totals;
	bad = bad || append_text("{\"format\":", &buf, &n, &cap) ||
	      ev_json_append(format, &buf, &n, &cap) ||
	      append_text(",\"members\":[", &buf, &n, &cap);
	for (size_t i = 0; !bad && i < seal->count; i++) {
		json_t *m = member_to_json(&seal->members[i]);
		bad = !m || (i && append_text(",", &buf, &n, &cap)) ||
		      ev_json_append(m, &buf, &n, &cap);
		json_decref(m);
	}
	bad = bad || append_text("],\"root\":", &buf, &n, &cap) ||
	      ev_json_append(root, &buf, &n, &cap);
	if (source)
		bad = bad || append_text(",\"source\":", &buf, &n, &cap) ||
		      ev_json_append_raw(source, source_len - 1, &buf, &n, &cap);
	bad = bad || append_text(",\"totals\":", &buf, &n, &cap) ||
	      ev_json_append(totals, &buf, &n, &cap) || append_text("}\n", &buf, &n, &cap);
	json_decref(format);
	json_decref(root);
	json_decref(totals);
	free(source);
	if (bad) {
		free(buf);
		return ev_error_set(err, EV_ERROR, "SEAL.json: out of memory while building the seal");
	}
	*bytes = buf;
	*len = n;
	return EV_OK;
}

static int parse_mode(const char *s, unsigned *mode)
{
	if (strlen(s) != 4 || s[0] != '0')
		return 0;
	unsigned v = 0;
	for (int i = 1; i < 4; i++) {
		if (s[i] < '0' || s[i] > '7')
			return 0;
		v = v * 8 + (unsigned)(s[i] - '0');
	}
	*mode = v;
	return 1;
}

static int parse_hex_digest(const char *s, uint8_t out[EV_SHA256_LEN])
{
	return ev_hex_decode(s, out, EV_SHA256_LEN) == 0;
}

static ev_status member_from_json(const json_t *m, size_t index, const char *name,
				  struct ev_member *out, struct ev_error *err)
{
	char what[512];
	snprintf(what, sizeof what, "%s: member %zu", name, index);
	if (!json_is_object(m))
		return ev_error_set(err, EV_REFUSED, "%s: not an object", what);
	const char *path, *type, *mode;
	ev_status st;
	if ((st = ev_json_get_string(m, "path", what, &path, err)) != EV_OK ||
	    (st = ev_json_get_string(m, "type", what, &type, err)) != EV_OK ||
	    (st = ev_json_get_string(m, "mode", what, &mode, err)) != EV_OK)
		return st;
	const char *problem = ev_path_problem(path, strlen(path));
	if (problem)
		return ev_error_set(err, EV_REFUSED, "%s: path \"%s\" %s", what, path, problem);
	snprintf(what, sizeof what, "%s: member %s", name, path);
	if (!parse_mode(mode, &out->mode))
		return ev_error_set(err, EV_REFUSED,
				    "%s: mode must be 4 octal digits of permission bits, 0000-0777 "
				    "(found \"%s\")",
				    what, mode);
	size_t expected_keys;
	if (strcmp(type, "dir") == 0) {
		out->type = EV_MEMBER_DIR;
		expected_keys = 3;
	} else if (strcmp(type, "file") == 0) {
		out->type = EV_MEMBER_FILE;
		expected_keys = 5;
		const char *hex;
		if ((st = ev_json_get_u64(m, "size", what, &out->size, err)) != EV_OK ||
		    (st = ev_json_get_string(m, "sha256", what, &hex, err)) != EV_OK)
			return st;
		if (!parse_hex_digest(hex, out->sha256))
			return ev_error_set(err, EV_REFUSED,
					    "%s: sha256 must be 64 lower-case hex digits", what);
	} else {
		return ev_error_set(err, EV_REFUSED,
				    "%s: type must be \"file\" or \"dir\" (found \"%s\")", what, type);
	}
	if (json_object_size(m) != expected_keys)
		return ev_error_set(err, EV_REFUSED, "%s: unexpected keys for a %s member", what,
				    type);
	out->path = strdup(path);
	if (!out->path)
		return ev_error_set(err, EV_ERROR, "%s: out of memory", what);
	return EV_OK;
}

/* Every member's parent directory must be a "dir" member listed before it. */
static ev_status check_parents(const struct ev_seal *seal, const char *name,
			       struct ev_error *err)
{
	for (size_t i = 0; i < seal->count; i++) {
		const char *path = seal->members[i].path;
		const char *slash = strrchr(path, '/');
		if (!slash)
			continue;
		char *parent = strndup(path, (size_t)(slash - path));
		if (!parent)
			return ev_error_set(err, EV_ERROR, "%s: out of memory", name);
		long at = ev_seal_find(seal, parent);
		int ok = at >= 0 && seal->members[at].type == EV_MEMBER_DIR;
		free(parent);
		if (!ok)
			return ev_error_set(err, EV_REFUSED,
					    "%s: member %s: its parent directory is not a dir member",
					    name, path);
	}
	return EV_OK;
}

ev_status ev_seal_from_json(const json_t *doc, const char *name, unsigned flags,
			    struct ev_seal *seal, struct ev_error *err)
{
	ev_status st = EV_OK;
	ev_seal_init(seal);
	const char *root;
	if ((st = ev_json_get_string(doc, "root", name, &root, err)) != EV_OK)
		return st;
	const char *problem = ev_path_component_problem(root, strlen(root));
	if (problem)
		return ev_error_set(err, EV_REFUSED, "%s: root name \"%s\" %s", name, root, problem);
	json_t *members = json_object_get(doc, "members");
	json_t *totals = json_object_get(doc, "totals");
	if (!json_is_array(members) || !json_is_object(totals))
		return ev_error_set(err, EV_REFUSED,
				    "%s: expected a \"members\" array and a \"totals\" object", name);
	json_t *source = json_object_get(doc, "source");
	if (source && !json_is_object(source))
		return ev_error_set(err, EV_REFUSED, "%s: \"source\" is not an object", name);
	if (!(flags & EV_SEAL_SUBSET) && json_object_size(doc) != 4 + (source != NULL))
		return ev_error_set(err, EV_REFUSED,
				    "%s: unexpected keys (a seal has exactly format, root, members, "
				    "totals, and maybe source)",
				    name);
	size_t n = json_array_size(members);
	seal->root = strdup(root);
	seal->members = calloc(n ? n : 1, sizeof seal->members[0]);
	if (!seal->root || !seal->members) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", name);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		st = member_from_json(json_array_get(members, i), i, name, &seal->members[i], err);
		if (st != EV_OK)
			goto fail;
		seal->count = i + 1;
		if (i > 0 && strcmp(seal->members[i - 1].path, seal->members[i].path) >= 0) {
			st = ev_error_set(err, EV_REFUSED,
					  "%s: member %s: out of byte order or duplicated (after %s)",
					  name, seal->members[i].path, seal->members[i - 1].path);
			goto fail;
		}
	}
	if (!(flags & EV_SEAL_SUBSET) && (st = check_parents(seal, name, err)) != EV_OK)
		goto fail;
	uint64_t files, dirs, bytes;
	if ((st = ev_json_get_u64(totals, "files", name, &files, err)) != EV_OK ||
	    (st = ev_json_get_u64(totals, "dirs", name, &dirs, err)) != EV_OK ||
	    (st = ev_json_get_u64(totals, "bytes", name, &bytes, err)) != EV_OK)
		goto fail;
	seal->source = json_incref(source);
	ev_seal_finish(seal); /* already sorted; recomputes the totals */
	if (files != seal->files || dirs != seal->dirs || bytes != seal->bytes) {
		st = ev_error_set(err, EV_REFUSED,
				  "%s: totals disagree with the members (stated %llu files, %llu "
				  "dirs, %llu bytes; members add up to %llu, %llu, %llu)",
				  name, (unsigned long long)files, (unsigned long long)dirs,
				  (unsigned long long)bytes, (unsigned long long)seal->files,
				  (unsigned long long)seal->dirs, (unsigned long long)seal->bytes);
		goto fail;
	}
	return EV_OK;
fail:
	ev_seal_free(seal);
	return st;
}

ev_status ev_seal_load(const char *path, struct ev_seal *seal,
		       uint8_t sha256_out[EV_SHA256_LEN], char **bytes_out, size_t *len_out,
		       struct ev_error *err)
{
	json_t *doc = NULL;
	ev_seal_init(seal);
	ev_status st = ev_json_load(path, EV_SEAL_FORMAT, EV_JSON_REQUIRE_CANONICAL, &doc,
				    sha256_out, bytes_out, len_out, err);
	if (st != EV_OK)
		return st;
	st = ev_seal_from_json(doc, path, 0, seal, err);
	json_decref(doc);
	if (st != EV_OK && bytes_out) {
		free(*bytes_out);
		*bytes_out = NULL;
	}
	return st;
}

ev_status ev_seal_load_pinned(const char *path, const char *pin_hex, struct ev_seal *seal,
			      char sha256_hex[EV_SHA256_HEX_LEN + 1], char **bytes_out,
			      size_t *len_out, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	uint8_t digest[EV_SHA256_LEN];
	json_t *doc = NULL;
	ev_seal_init(seal);
	ev_status st = ev_file_read_all(path, EV_JSON_MAX_BYTES, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_sha256_buffer(bytes, len, digest, err);
	if (st != EV_OK)
		goto out;
	ev_sha256_hex(digest, sha256_hex);
	if (pin_hex && strcmp(pin_hex, sha256_hex) != 0) {
		st = EV_MISMATCH;
		goto out;
	}
	if ((st = ev_json_parse(bytes, len, path, EV_SEAL_FORMAT, EV_JSON_REQUIRE_CANONICAL, &doc,
				err)) != EV_OK)
		goto out;
	st = ev_seal_from_json(doc, path, 0, seal, err);
	json_decref(doc);
out:
	if (st == EV_OK && bytes_out) {
		*bytes_out = bytes;
		*len_out = len;
	} else {
		free(bytes);
	}
	return st;
}

long ev_seal_find(const struct ev_seal *seal, const char *path)
{
	size_t lo = 0, hi = seal->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(seal->members[mid].path, path);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

unsigned ev_member_compare(const struct ev_member *expected, const struct ev_member *found,
			   int compare_digest, ev_finding_fn on_finding, void *ctx)
{
	struct ev_finding f;
	char a[EV_FINDING_VALUE_MAX], b[EV_FINDING_VALUE_MAX];
	if (expected->type != found->type) {
		ev_finding_make(&f, expected->path, "type", "type differs",
				ev_member_type_name(expected->type), ev_member_type_name(found->type));
		on_finding(ctx, &f);
		return 1;
	}
	unsigned n = 0;
	if (expected->mode != found->mode) {
		ev_mode_format(expected->mode, a, sizeof a);
		ev_mode_format(found->mode, b, sizeof b);
		ev_finding_make(&f, expected->path, "mode", "mode differs", a, b);
		on_finding(ctx, &f);
		n++;
	}
	if (expected->type != EV_MEMBER_FILE)
		return n;
	if (expected->size != found->size) {
		snprintf(a, sizeof a, "%llu", (unsigned long long)expected->size);
		snprintf(b, sizeof b, "%llu", (unsigned long long)found->size);
		ev_finding_make(&f, expected->path, "size", "size differs", a, b);
		on_finding(ctx, &f);
		n++;
	}
	/* A size difference already says the content differs. */
	if (compare_digest && expected->size == found->size &&
	    memcmp(expected->sha256, found->sha256, EV_SHA256_LEN) != 0) {
		ev_sha256_hex(expected->sha256, a);
		ev_sha256_hex(found->sha256, b);
		ev_finding_make(&f, expected->path, "sha256", "content differs (SHA-256)", a, b);
		on_finding(ctx, &f);
		n++;
	}
	return n;
}

ev_status ev_seal_refuse_unpinned(const char *path, const char *found_hex, const char *pin_hex,
				  struct ev_error *err)
{
	return ev_error_set(err, EV_REFUSED,
			    "%s: not the pinned seal: its bytes hash to %s, --seal-sha256 says %s; nothing "
			    "else was read",
			    path, found_hex, pin_hex);
}
