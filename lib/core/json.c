/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/json.h"
#include "lib/core/input.h"
#include "lib/core/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CANONICAL_FLAGS (JSON_SORT_KEYS | JSON_COMPACT)

json_t *ev_json_decimal(unsigned __int128 num, uint64_t den, unsigned digits)
{
	if (digits > 18)
		digits = 18;
	unsigned __int128 scale = 1;
	for (unsigned i = 0; i < digits; i++)
		scale *= 10;
	unsigned __int128 whole = num / den, rest = num % den;
	/* the fraction's digits, rounded half up: rest * scale / den, in
	 * two steps so that rest * scale cannot overflow (rest < den < 2^64,
	 * scale <= 10^18 < 2^60) */
	unsigned __int128 frac = rest * scale / den, left = rest * scale % den;
	if (left * 2 >= den)
		frac++;
	if (frac == scale) {
		whole++;
		frac = 0;
	}
	char rev[64], out[80];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + (int)(whole % 10));
		whole /= 10;
	} while (whole && n < sizeof rev);
	size_t o = 0;
	while (n)
		out[o++] = rev[--n];
	if (digits) {
		out[o++] = '.';
		for (unsigned i = digits; i-- > 0;) {
			out[o + i] = (char)('0' + (int)(frac % 10));
			frac /= 10;
		}
		o += digits;
	}
	out[o] = 0;
	return json_string(out);
}

json_t *ev_json_decimal_of(double value, unsigned digits)
{
	char out[400];
	snprintf(out, sizeof out, "%.*f", (int)(digits > 18 ? 18 : digits), value);
	return json_string(out);
}

/* The first real number in v, its key into where; 1 when there is one. */
static int find_real(const json_t *v, char *where, size_t cap)
{
	if (json_is_real(v))
		return 1;
	const char *key;
	json_t *x;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, x)
			if (find_real(x, where, cap)) {
				if (!where[0])
					snprintf(where, cap, "%s", key);
				return 1;
			}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (find_real(x, where, cap))
				return 1;
	}
	return 0;
}

/* A real anywhere in value: 1, err naming its key. */
static int has_real(const json_t *value, struct ev_error *err)
{
	char where[128] = "";
	if (!find_real(value, where, sizeof where))
		return 0;
	ev_error_set(err, EV_ERROR, "JSON: a real number at \"%s\": canonical JSON holds integers only, a fraction "
		     "as a string of decimal digits (a defect of this tool)", where);
	return 1;
}

struct dump_buffer {
	char *buf;
	size_t len, cap;
};

static int dump_into(const char *text, size_t n, void *ctx)
{
	struct dump_buffer *d = ctx;
	return ev_json_append_raw(text, n, &d->buf, &d->len, &d->cap);
}

ev_status ev_json_dump(const json_t *value, char **out, size_t *len, struct ev_error *err)
{
	if (has_real(value, err))
		return EV_ERROR;
	/* one pass into a growing buffer: json_dumpb would sort and walk the
	 * document twice, once to learn its size */
	struct dump_buffer d = {NULL, 0, 0};
	if (json_dump_callback(value, dump_into, &d, CANONICAL_FLAGS) != 0 || !d.buf) {
		free(d.buf);
		return ev_error_set(err, EV_ERROR, "JSON: cannot serialize document (out of memory)");
	}
	if (ev_json_append_raw("\n", 1, &d.buf, &d.len, &d.cap) != 0) {
		free(d.buf);
		return ev_error_set(err, EV_ERROR, "JSON: out of memory");
	}
	*out = d.buf;
	*len = d.len;
	return EV_OK;
}

struct hash_buffer {
	struct ev_sha256 *sha;
	size_t len;
	int failed;
	char buf[4096];
};

static int flush_into_hash(struct hash_buffer *h)
{
	struct ev_error e;
	if (h->len && ev_sha256_update(h->sha, h->buf, h->len, &e) != EV_OK)
		h->failed = 1;
	h->len = 0;
	return h->failed ? -1 : 0;
}

static int hash_into(const char *text, size_t n, void *ctx)
{
	struct hash_buffer *h = ctx;
	if (h->len + n > sizeof h->buf && flush_into_hash(h) != 0)
		return -1;
	if (n > sizeof h->buf) {
		struct ev_error e;
		return ev_sha256_update(h->sha, text, n, &e) == EV_OK ? 0 : -1;
	}
	memcpy(h->buf + h->len, text, n);
	h->len += n;
	return 0;
}

ev_status ev_json_sha256(const json_t *value, uint8_t out[EV_SHA256_LEN], struct ev_error *err)
{
	if (has_real(value, err))
		return EV_ERROR;
	struct hash_buffer h = {.sha = ev_sha256_new()};
	if (!h.sha)
		return ev_error_set(err, EV_ERROR, "SHA-256: out of memory");
	ev_status st = EV_OK;
	if (json_dump_callback(value, hash_into, &h, CANONICAL_FLAGS) != 0 || hash_into("\n", 1, &h) != 0 ||
	    flush_into_hash(&h) != 0)
		st = ev_error_set(err, EV_ERROR, "JSON: cannot serialize document to hash it (out of memory)");
	if (st == EV_OK)
		st = ev_sha256_final(h.sha, out, err);
	ev_sha256_free(h.sha);
	return st;
}

int ev_json_append_raw(const char *text, size_t n, char **buf, size_t *len, size_t *cap)
{
	if (*len + n + 1 > *cap) {
		size_t want = *cap ? *cap : 4096;
		while (*len + n + 1 > want)
			want *= 2;
		/* large buffers are mapped: glibc's realloc moves their pages, it does not copy */
		char *bigger = realloc(*buf, want);
		if (!bigger)
			return -1;
		*buf = bigger;
		*cap = want;
	}
	memcpy(*buf + *len, text, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

int ev_json_append(const json_t *value, char **buf, size_t *len, size_t *cap)
{
	char small[512];
	size_t need = json_dumpb(value, small, sizeof small, CANONICAL_FLAGS | JSON_ENCODE_ANY);
	if (need == 0)
		return -1;
	if (need <= sizeof small)
		return ev_json_append_raw(small, need, buf, len, cap);
	char *big = malloc(need);
	if (!big)
		return -1;
	int r = json_dumpb(value, big, need, CANONICAL_FLAGS | JSON_ENCODE_ANY) == need
		? ev_json_append_raw(big, need, buf, len, cap) : -1;
	free(big);
	return r;
}

ev_status ev_json_parse(const char *bytes, size_t len, const char *name,
			const char *expected_format, unsigned flags, json_t **out,
			struct ev_error *err)
{
	json_error_t jerr;
	json_t *doc = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return ev_error_set(err, EV_REFUSED, "%s: not valid JSON (line %d, column %d: %s)",
				    name, jerr.line, jerr.column, jerr.text);
	ev_status st = EV_OK;
	if (!json_is_object(doc)) {
		st = ev_error_set(err, EV_REFUSED, "%s: expected a JSON object at the top", name);
		goto fail;
	}
	if (expected_format) {
		json_t *fmt = json_object_get(doc, "format");
		if (!json_is_string(fmt)) {
			st = ev_error_set(err, EV_REFUSED,
					  "%s: no \"format\" tag (expected \"%s\")", name,
					  expected_format);
			goto fail;
		}
		if (strcmp(json_string_value(fmt), expected_format) != 0) {
			st = ev_error_set(err, EV_REFUSED,
					  "%s: wrong format (expected \"%s\", found \"%s\")", name,
					  expected_format, json_string_value(fmt));
			goto fail;
		}
	}
	if (flags & EV_JSON_REQUIRE_CANONICAL) {
		char *again = NULL;
		size_t again_len = 0;
		if ((st = ev_json_dump(doc, &again, &again_len, err)) != EV_OK)
			goto fail;
		int same = again_len == len && memcmp(again, bytes, len) == 0;
		free(again);
		if (!same) {
			st = ev_error_set(err, EV_REFUSED,
					  "%s: not in canonical form (sorted keys, no spaces, one "
					  "trailing newline); it was edited or not written by evidence",
					  name);
			goto fail;
		}
	}
	*out = doc;
	return EV_OK;
fail:
	json_decref(doc);
	return st;
}

ev_status ev_file_read_all(const char *path, size_t limit, char **out, size_t *len,
			   struct ev_error *err)
{
	ev_status st = EV_OK;
	char *buf = NULL;
	int fd = ev_input_open(path, "document", err);
	if (fd < 0)
		return err->status;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = ev_error_set(err, EV_USAGE, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)sb.st_size > limit) {
		st = ev_error_set(err, EV_REFUSED, "%s: too large (%lld bytes, limit %zu)", path,
				  (long long)sb.st_size, limit);
		goto out;
	}
	size_t cap = (size_t)sb.st_size + 1, used = 0;
	buf = malloc(cap);
	if (!buf) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		if (used == cap - 1) {
			/* The file grew since fstat; read on, within the limit. */
			if (cap - 1 >= limit) {
				st = ev_error_set(err, EV_REFUSED, "%s: too large (limit %zu)", path,
						  limit);
				goto out;
			}
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				st = ev_error_set(err, EV_ERROR, "%s: out of memory", path);
				goto out;
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + used, cap - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			st = ev_error_errno(err, errno, "%s: read failed", path);
			goto out;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return st;
}

ev_status ev_json_load(const char *path, const char *expected_format, unsigned flags,
		       json_t **out, uint8_t sha256_out[EV_SHA256_LEN], char **bytes_out,
		       size_t *len_out, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_file_read_all(path, EV_JSON_MAX_BYTES, &bytes, &len, err);
	if (st != EV_OK)
		return st;
	if (sha256_out && (st = ev_sha256_buffer(bytes, len, sha256_out, err)) != EV_OK)
		goto out;
	if ((st = ev_json_parse(bytes, len, path, expected_format, flags, out, err)) != EV_OK)
		goto out;
	if (bytes_out) {
		*bytes_out = bytes;
		bytes = NULL;
	}
	if (len_out)
		*len_out = len;
out:
	free(bytes);
	return st;
}

ev_status ev_json_get_string(const json_t *obj, const char *key, const char *what,
			     const char **out, struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_string(v))
		return ev_error_set(err, EV_REFUSED, "%s: \"%s\" must be a string", what, key);
	*out = json_string_value(v);
	return EV_OK;
}

ev_status ev_json_get_u64(const json_t *obj, const char *key, const char *what,
			  uint64_t *out, struct ev_error *err)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: \"%s\" must be a non-negative integer", what, key);
	*out = (uint64_t)json_integer_value(v);
	return EV_OK;
}

long ev_json_rename(json_t *value, const char *from, const char *to)
{
	if (!value || !from || !from[0])
		return 0;
	long n = 0, k;
	if (json_is_string(value)) {
		if (!strstr(json_string_value(value), from))
			return 0;
		char *s = strdup(json_string_value(value));
		if (!s)
			return -1;
		ev_text_rename(s, from, to);
		int rc = json_string_set(value, s);
		free(s);
		return rc == 0 ? 1 : -1;
	}
	if (json_is_array(value)) {
		size_t i;
		json_t *v;
		json_array_foreach(value, i, v) {
			if ((k = ev_json_rename(v, from, to)) < 0)
				return -1;
			n += k;
		}
	} else if (json_is_object(value)) {
		const char *key;
		json_t *v;
		json_object_foreach(value, key, v) {
			if ((k = ev_json_rename(v, from, to)) < 0)
				return -1;
			n += k;
		}
	}
	return n;
}

/* v as compact JSON, cut to cap bytes; "absent" for NULL. */
static void value_text(const json_t *v, char *out, size_t cap)
{
	if (!v) {
		snprintf(out, cap, "absent");
		return;
	}
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	snprintf(out, cap, "%s", s ? s : "?");
	free(s);
}

static int differ_at(const json_t *a, const json_t *b, char *path, size_t cap, size_t used, char *va, char *vb,
		     size_t vcap)
{
	if (a && b && json_typeof(a) == json_typeof(b)) {
		if (json_is_object(a)) {
			const char *key;
			json_t *v;
			json_object_foreach((json_t *)a, key, v) {
				size_t n = (size_t)snprintf(path + used, cap - used, "%s%s", used ? "." : "", key);
				if (differ_at(v, json_object_get(b, key), path, cap, used + n < cap ? used + n : cap - 1, va,
					      vb, vcap))
					return 1;
			}
			json_object_foreach((json_t *)b, key, v)
				if (!json_object_get(a, key)) {
					snprintf(path + used, cap - used, "%s%s", used ? "." : "", key);
					value_text(NULL, va, vcap);
					value_text(v, vb, vcap);
					return 1;
				}
			path[used] = 0;
			return 0;
		}
		if (json_is_array(a)) {
			size_t na = json_array_size(a), nb = json_array_size(b);
			for (size_t i = 0; i < na || i < nb; i++) {
				size_t n = (size_t)snprintf(path + used, cap - used, "[%zu]", i);
				if (differ_at(json_array_get(a, i), json_array_get(b, i), path, cap,
					      used + n < cap ? used + n : cap - 1, va, vb, vcap))
					return 1;
			}
			path[used] = 0;
			return 0;
		}
		if (json_equal((json_t *)a, (json_t *)b)) {
			path[used] = 0;
			return 0;
		}
	}
	if (!a && !b)
		return 0;
	value_text(a, va, vcap);
	value_text(b, vb, vcap);
	return 1;
}

int ev_json_first_difference(const json_t *a, const json_t *b, char *path, size_t cap, char *va, char *vb,
			     size_t vcap)
{
	if (!cap || !vcap)
		return !json_equal((json_t *)a, (json_t *)b);
	path[0] = va[0] = vb[0] = 0;
	return differ_at(a, b, path, cap, 0, va, vb, vcap);
}

const char *ev_json_unknown_key(const json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		int known = 0;
		for (const char *const *a = allowed; *a && !known; a++)
			known = strcmp(*a, key) == 0;
		if (!known)
			return key;
	}
	return NULL;
}
