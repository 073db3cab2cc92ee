/* SPDX-License-Identifier: Apache-2.0 */
/* checkpoint: C2SP signed notes, checkpoints and tlog-proofs
 * (checkpoint.h). */
#include "config.h"
#include "lib/receipt/checkpoint.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/base64.h"
#include "lib/core/sha256.h"

#define SIG_LEN 64
#define SIGNATURES_MAX 64 /* signed-note: verifiers accept at least 16 */

static const char em_dash_space[] = "\xe2\x80\x94 ";

int ev_note_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= EV_NOTE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= 0x20 || c >= 0x7f || c == '+')
			return 0;
	}
	return 1;
}

/* signed-note's key ID: SHA-256(name || 0x0A || type || pub)[:4], big-endian. */
static uint32_t key_id(const char *name, size_t name_len, unsigned type, const unsigned char pub[32])
{
	unsigned char buf[EV_NOTE_NAME_MAX + 2 + 32];
	uint8_t d[EV_SHA256_LEN];
	struct ev_error ignored;
	memcpy(buf, name, name_len);
	buf[name_len] = '\n';
	buf[name_len + 1] = (unsigned char)type;
	memcpy(buf + name_len + 2, pub, 32);
	if (ev_sha256_buffer(buf, name_len + 2 + 32, d, &ignored) != EV_OK)
		return 0; /* only memory can fail here; no key has ID 0 by chance often enough to matter */
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

ev_status ev_note_vkey(const char *name, unsigned type, const unsigned char pub[32], char vkey[EV_NOTE_VKEY_MAX],
		       struct ev_error *err)
{
	if (!ev_note_name_ok(name))
		return ev_error_set(err, EV_USAGE, "'%s': not a key name (printable ASCII without space or '+', at most "
				    "%d bytes)", name, EV_NOTE_NAME_MAX - 1);
	unsigned char typed[1 + 32] = {(unsigned char)type};
	memcpy(typed + 1, pub, 32);
	char *b64 = ev_base64_encode(typed, sizeof typed);
	if (!b64)
		return ev_error_set(err, EV_ERROR, "out of memory");
	snprintf(vkey, EV_NOTE_VKEY_MAX, "%s+%08x+%s", name, (unsigned)key_id(name, strlen(name), type, pub), b64);
	free(b64);
	return EV_OK;
}

ev_status ev_checkpoint_make(const char *origin, size_t size, const ev_merkle_hash root,
			     const struct ev_signing_key *key, char **note, size_t *len, struct ev_error *err)
{
	*note = NULL;
	if (!ev_note_name_ok(origin))
		return ev_error_set(err, EV_USAGE, "'%s': not a checkpoint origin (printable ASCII without space or '+', at "
				    "most %d bytes)", origin, EV_NOTE_NAME_MAX - 1);
	unsigned char pub[32], blob[4 + SIG_LEN];
	char *root64 = ev_base64_encode(root, EV_SHA256_LEN), *sig64 = NULL;
	char text[EV_NOTE_NAME_MAX + 24 + 48];
	int tlen = root64 ? snprintf(text, sizeof text, "%s\n%zu\n%s\n", origin, size, root64) : -1;
	ev_status st = tlen < 0 ? ev_error_set(err, EV_ERROR, "out of memory") : EV_OK;
	if (st == EV_OK)
		st = ev_signature_sign_bytes(key, text, (size_t)tlen, blob + 4, NULL, err);
	if (st == EV_OK) {
		ev_signing_key_public(key, pub);
		uint32_t id = key_id(origin, strlen(origin), EV_NOTE_ED25519, pub);
		blob[0] = (unsigned char)(id >> 24), blob[1] = (unsigned char)(id >> 16);
		blob[2] = (unsigned char)(id >> 8), blob[3] = (unsigned char)id;
		sig64 = ev_base64_encode(blob, sizeof blob);
		size_t cap = (size_t)tlen + 1 + sizeof em_dash_space + strlen(origin) + 1 + (sig64 ? strlen(sig64) : 0) + 2;
		if (!sig64 || !(*note = malloc(cap)))
			st = ev_error_set(err, EV_ERROR, "out of memory");
		else
			*len = (size_t)snprintf(*note, cap, "%s\n%s%s %s\n", text, em_dash_space, origin, sig64);
	}
	free(root64);
	free(sig64);
	return st;
}

/* The line at *pos (without its newline) into *line, *n; *pos moves past
 * it. @return 1 a line; 0 at the end; -1 a last line without a newline. */
static int next_line(const char *s, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return 0;
	const char *nl = memchr(s + *pos, '\n', len - *pos);
	if (!nl)
		return -1;
	*line = s + *pos;
	*n = (size_t)(nl - *line);
	*pos += *n + 1;
	return 1;
}

/* A decimal with no leading zero (but "0"), as both specs write sizes. */
static int decimal(const char *s, size_t n, size_t *out)
{
	if (n == 0 || n > 18 || (n > 1 && s[0] == '0'))
		return 0;
	size_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return 1;
}

/* One SHA-256 in base64 (exactly 32 bytes). */
static int hash64(const char *s, size_t n, ev_merkle_hash out)
{
	size_t got = 0;
	unsigned char *b = ev_base64_decode(s, n, &got);
	int ok = b && got == EV_SHA256_LEN;
	if (ok)
		memcpy(out, b, EV_SHA256_LEN);
	free(b);
	return ok;
}

/* tlog-cosignature's signed message: "cosignature/v1\ntime T\n" and the
 * note text, T the big-endian u64 at be (malloc'd, NUL-terminated). */
static char *cosigned_message(const unsigned char be[8], const char *text, size_t text_len)
{
	uint64_t t = 0;
	for (int i = 0; i < 8; i++)
		t = t << 8 | be[i];
	char head[64];
	int n = snprintf(head, sizeof head, "cosignature/v1\ntime %llu\n", (unsigned long long)t);
	char *msg = malloc((size_t)n + text_len + 1);
	if (msg) {
		memcpy(msg, head, (size_t)n);
		memcpy(msg + n, text, text_len);
		msg[(size_t)n + text_len] = '\0';
	}
	return msg;
}

/* The note text's length: up to its last blank line. @return 0 when there is none. */
static size_t note_text_len(const char *note, size_t len)
{
	for (size_t i = len ? len - 1 : 0; i > 0; i--)
		if (note[i] == '\n' && note[i - 1] == '\n')
			return i;
	return 0;
}

ev_status ev_cosignature_make(const char *checkpoint, size_t len, const char *name, uint64_t t,
			      const struct ev_signing_key *key, char *line, size_t cap, struct ev_error *err)
{
	if (!ev_note_name_ok(name))
		return ev_error_set(err, EV_USAGE, "'%s': not a cosigner name (printable ASCII without space or '+', at most "
				    "%d bytes)", name, EV_NOTE_NAME_MAX - 1);
	size_t text_len = note_text_len(checkpoint, len);
	if (!text_len)
		return ev_error_set(err, EV_USAGE, "not a signed note: nothing to cosign");
	unsigned char blob[4 + 8 + SIG_LEN], pub[32];
	for (int i = 0; i < 8; i++)
		blob[4 + i] = (unsigned char)(t >> (56 - 8 * i));
	char *msg = cosigned_message(blob + 4, checkpoint, text_len);
	ev_status st = msg ? ev_signature_sign_bytes(key, msg, strlen(msg), blob + 12, NULL, err)
			   : ev_error_set(err, EV_ERROR, "out of memory");
	free(msg);
	if (st != EV_OK)
		return st;
	ev_signing_key_public(key, pub);
	uint32_t id = key_id(name, strlen(name), EV_NOTE_COSIGNATURE, pub);
	blob[0] = (unsigned char)(id >> 24), blob[1] = (unsigned char)(id >> 16);
	blob[2] = (unsigned char)(id >> 8), blob[3] = (unsigned char)id;
	char *b64 = ev_base64_encode(blob, sizeof blob);
	if (!b64)
		return ev_error_set(err, EV_ERROR, "out of memory");
	if ((size_t)snprintf(line, cap, "%s%s %s\n", em_dash_space, name, b64) >= cap)
		st = ev_error_set(err, EV_ERROR, "a cosignature line longer than %zu bytes", cap);
	free(b64);
	return st;
}

/* A signature line, after its em dash and space: NAME base64(ID || SIG).
 * Judged against trust as signed-note says. */
static ev_status signature_line(const char *s, size_t n, size_t line_no, const char *text, size_t text_len,
				const struct ev_trust *trust, struct ev_checkpoint *cp, char *why, size_t cap)
{
	const char *sp = memchr(s, ' ', n);
	size_t name_len = sp ? (size_t)(sp - s) : 0, got = 0;
	char name[EV_NOTE_NAME_MAX];
	if (!sp || name_len == 0 || name_len >= sizeof name)
		return ev_why(why, cap, "line %zu: a signature line is \"— NAME SIGNATURE\"; found no name", line_no);
	memcpy(name, s, name_len);
	name[name_len] = '\0';
	if (!ev_note_name_ok(name))
		return ev_why(why, cap, "line %zu: '%s' is not a key name (printable ASCII without space or '+')", line_no,
			      name);
	unsigned char *blob = ev_base64_decode(sp + 1, n - name_len - 1, &got);
	if (!blob || got < 5) {
		free(blob);
		return ev_why(why, cap, "line %zu: the signature by %s is not base64 of a key ID and a signature", line_no,
			      name);
	}
	cp->signatures++;
	uint32_t id = (uint32_t)blob[0] << 24 | (uint32_t)blob[1] << 16 | (uint32_t)blob[2] << 8 | blob[3];
	ev_status st = EV_OK;
	for (size_t i = 0; trust && i < ev_trust_count(trust) && st == EV_OK; i++) {
		unsigned char pub[32];
		char hex[EV_SHA256_HEX_LEN + 1];
		ev_trust_public(trust, i, pub, hex);
		if (key_id(name, name_len, EV_NOTE_ED25519, pub) == id) {
			if (got != 4 + SIG_LEN || ev_trust_verify_bytes(trust, hex, text, text_len, blob + 4, got - 4) != 1)
				st = ev_why(why, cap, "line %zu: the signature by %s (key ID %08x, trusted key %.16s...) does not "
					    "verify: the note was changed after it was signed", line_no, name, (unsigned)id, hex);
			else if (strcmp(name, cp->origin) == 0)
				cp->trusted++;
		} else if (key_id(name, name_len, EV_NOTE_COSIGNATURE, pub) == id) {
			char *msg = got == 4 + 8 + SIG_LEN ? cosigned_message(blob + 4, text, text_len) : NULL;
			if (!msg || ev_trust_verify_bytes(trust, hex, msg, strlen(msg), blob + 12, SIG_LEN) != 1)
				st = ev_why(why, cap, "line %zu: the cosignature by %s (key ID %08x, trusted key %.16s...) does "
					    "not verify: the checkpoint was changed after it was cosigned", line_no, name,
					    (unsigned)id, hex);
			else if (cp->cosigned++ == 0)
				snprintf(cp->cosigners, sizeof cp->cosigners, "%s", name);
			free(msg);
		} /* else not this key: signed-note says to ignore it */
	}
	free(blob);
	return st;
}

ev_status ev_checkpoint_read(const char *note, size_t len, const struct ev_trust *trust, struct ev_checkpoint *cp,
			     char *why, size_t why_cap)
{
	memset(cp, 0, sizeof *cp);
	if (len == 0 || note[len - 1] != '\n')
		return ev_why(why, why_cap, "does not end in a newline: not a signed note");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)note[i] < 0x20 && note[i] != '\n')
			return ev_why(why, why_cap, "byte %zu is a control character (0x%02x): a signed note holds none but "
				      "newlines", i, (unsigned char)note[i]);
	size_t sep = note_text_len(note, len); /* the last blank line's newline */
	if (!sep)
		return ev_why(why, why_cap, "no blank line before signature lines: not a signed note");
	size_t pos = 0, n = 0, line_no = 0, text_len = sep;
	const char *line = NULL;
	const char *what[] = {"the origin", "the tree size", "the root hash"};
	for (line_no = 1; line_no <= 3; line_no++) {
		if (next_line(note, text_len, &pos, &line, &n) != 1 || n == 0)
			return ev_why(why, why_cap, "line %zu: expected %s, found %s", line_no, what[line_no - 1],
				      pos >= text_len ? "the end of the note text" : "an empty line");
		if (line_no == 1) {
			if (n >= sizeof cp->origin)
				return ev_why(why, why_cap, "line 1: the origin is longer than %zu bytes", sizeof cp->origin - 1);
			memcpy(cp->origin, line, n);
			cp->origin[n] = '\0';
			if (!ev_note_name_ok(cp->origin))
				return ev_why(why, why_cap, "line 1: '%s' is not an origin this log writes (printable ASCII "
					      "without space or '+')", cp->origin);
		} else if (line_no == 2 && !decimal(line, n, &cp->size)) {
			return ev_why(why, why_cap, "line 2: expected the tree size (a decimal, no leading zero), found '%.*s'",
				      (int)(n > 40 ? 40 : n), line);
		} else if (line_no == 3 && !hash64(line, n, cp->root)) {
			return ev_why(why, why_cap, "line 3: expected the root hash (base64 of 32 bytes), found '%.*s'",
				      (int)(n > 60 ? 60 : n), line);
		}
	}
	if (pos < text_len)
		return ev_why(why, why_cap, "line 4: an extension line; this log's checkpoints have none");
	pos = sep + 1;
	line_no = 5;
	int r;
	while ((r = next_line(note, len, &pos, &line, &n)) == 1) {
		if (n < sizeof em_dash_space - 1 || memcmp(line, em_dash_space, sizeof em_dash_space - 1) != 0)
			return ev_why(why, why_cap, "line %zu: a signature line begins with an em dash and a space", line_no);
		if (cp->signatures == SIGNATURES_MAX)
			return ev_why(why, why_cap, "line %zu: more than %d signatures", line_no, SIGNATURES_MAX);
		ev_status st = signature_line(line + sizeof em_dash_space - 1, n - (sizeof em_dash_space - 1), line_no,
					      note, text_len, trust, cp, why, why_cap);
		if (st != EV_OK)
			return st;
		line_no++;
	}
	if (cp->signatures == 0)
		return ev_why(why, why_cap, "no signature line: a checkpoint is signed by its log");
	if (trust && cp->trusted == 0)
		return ev_why(why, why_cap, "not signed by a trusted key named %s (its origin): %zu signature line%s, "
			      "none by a key given with --trust", cp->origin, cp->signatures, cp->signatures == 1 ? "" : "s");
	return EV_OK;
}

ev_status ev_tlog_proof_make(size_t index, const ev_merkle_hash *path, size_t n, const char *checkpoint,
			     size_t checkpoint_len, char **out, size_t *len, struct ev_error *err)
{
	size_t cap = sizeof EV_TLOG_PROOF_HEADER + 32 + n * 46 + 1 + checkpoint_len + 1, used;
	char *buf = malloc(cap);
	if (!buf)
		return ev_error_set(err, EV_ERROR, "out of memory");
	used = (size_t)snprintf(buf, cap, "%s\nindex %zu\n", EV_TLOG_PROOF_HEADER, index);
	for (size_t i = 0; i < n; i++) {
		char *h = ev_base64_encode(path[i], EV_SHA256_LEN);
		if (!h) {
			free(buf);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
		used += (size_t)snprintf(buf + used, cap - used, "%s\n", h);
		free(h);
	}
	buf[used++] = '\n';
	memcpy(buf + used, checkpoint, checkpoint_len);
	used += checkpoint_len;
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return EV_OK;
}

ev_status ev_tlog_proof_read(const char *text, size_t len, struct ev_tlog_proof *p, char *why, size_t why_cap)
{
	memset(p, 0, sizeof *p);
	size_t pos = 0, n = 0, line_no = 1;
	const char *line = NULL;
	if (next_line(text, len, &pos, &line, &n) != 1 || n != strlen(EV_TLOG_PROOF_HEADER) ||
	    memcmp(line, EV_TLOG_PROOF_HEADER, n) != 0)
		return ev_why(why, why_cap, "line 1: expected '%s'", EV_TLOG_PROOF_HEADER);
	line_no++;
	if (next_line(text, len, &pos, &line, &n) != 1 || n < 6 || memcmp(line, "index ", 6) != 0 ||
	    !decimal(line + 6, n - 6, &p->index))
		return ev_why(why, why_cap, "line 2: expected 'index N' (N a decimal, no leading zero)%s",
			      n >= 6 && memcmp(line, "extra ", 6) == 0 ? "; found extra data, which this log never writes" : "");
	for (line_no++;; line_no++) {
		if (next_line(text, len, &pos, &line, &n) != 1)
			return ev_why(why, why_cap, "line %zu: the proof ends before the blank line and the checkpoint", line_no);
		if (n == 0)
			break;
		if (p->n == EV_MERKLE_MAX_PROOF)
			return ev_why(why, why_cap, "line %zu: more than %d proof hashes", line_no, EV_MERKLE_MAX_PROOF);
		if (!hash64(line, n, p->path[p->n++]))
			return ev_why(why, why_cap, "line %zu: expected a proof hash (base64 of 32 bytes)", line_no);
	}
	if (pos >= len)
		return ev_why(why, why_cap, "line %zu: no checkpoint after the blank line", line_no + 1);
	p->checkpoint = text + pos;
	p->checkpoint_len = len - pos;
	return EV_OK;
}
