/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/path.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uninorm.h>

/* Decode one UTF-8 sequence at s (n bytes available). @return its length,
 * or 0 when it is malformed, overlong, a surrogate or above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2; min = 0x80; *cp = c & 0x1F;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3; min = 0x800; *cp = c & 0x0F;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4; min = 0x10000; *cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3F);
	}
	if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
		return 0;
	return len;
}

static const char *component_problem(const unsigned char *s, size_t len)
{
	if (len == 0)
		return "has an empty component (leading, trailing or doubled '/')";
	if (len > EV_PATH_COMPONENT_MAX)
		return "has a component longer than 255 bytes";
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return "has a '.' or '..' component";
	return NULL;
}

const char ev_path_not_nfc[] = "is not in Unicode normalization form C (NFC)";

/* Tar readers and writers (libarchive among them) turn UTF-8 names into
 * NFC: a name in any other form would not come back from an archive as it
 * was sealed. Pure ASCII is always NFC. */
static const char *nfc_problem(const unsigned char *s, size_t len)
{
	int ascii = 1;
	for (size_t i = 0; i < len && ascii; i++)
		ascii = s[i] < 0x80;
	if (ascii)
		return NULL;
	uint8_t buf[EV_PATH_MAX + 16];
	size_t n = sizeof buf;
	uint8_t *nfc = u8_normalize(UNINORM_NFC, s, len, buf, &n);
	const char *problem = !nfc || n != len || memcmp(nfc, s, len) != 0 ? ev_path_not_nfc : NULL;
	if (nfc != buf)
		free(nfc);
	return problem;
}

const char *ev_path_problem(const char *path, size_t len)
{
	const unsigned char *s = (const unsigned char *)path;
	if (len == 0)
		return "is empty";
	if (len > EV_PATH_MAX)
		return "is longer than 4095 bytes";
	if (s[0] == '/')
		return "is absolute";
	size_t start = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_sequence(s + i, len - i, &cp);
		if (n == 0)
			return "is not valid UTF-8";
		if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			return "holds a control character";
		if (cp == '\\')
			return "holds a backslash";
		if (cp == '/') {
			const char *p = component_problem(s + start, i - start);
			if (p)
				return p;
			start = i + 1;
		}
		i += n;
	}
	const char *p = component_problem(s + start, len - start);
	return p ? p : nfc_problem(s, len);
}

const char *ev_path_component_problem(const char *name, size_t len)
{
	if (memchr(name, '/', len))
		return "holds a '/'";
	return ev_path_problem(name, len);
}

static void quote(const char *path, size_t len, int keep_utf8, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)path;
	size_t o = 0;
	if (cap == 0)
		return;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_sequence(s + i, len - i, &cp);
		char piece[8];
		size_t plen;
		if (n > 0 && cp >= 0x20 && !(cp >= 0x7F && cp <= 0x9F) && cp != '\\' &&
		    (keep_utf8 || cp < 0x80)) {
			memcpy(piece, s + i, n);
			plen = n;
		} else {
			snprintf(piece, sizeof piece, "\\x%02X", s[i]);
			plen = 4;
			n = 1;
		}
		if (o + plen + 1 > cap) {
			if (cap >= 4) {
				memcpy(out + cap - 4, "...", 3);
				o = cap - 1;
			}
			break;
		}
		memcpy(out + o, piece, plen);
		o += plen;
		i += n;
	}
	out[o] = '\0';
}

void ev_path_quote(const char *path, size_t len, char *out, size_t cap)
{
	quote(path, len, 1, out, cap);
}

void ev_path_quote_bytes(const char *path, size_t len, char *out, size_t cap)
{
	quote(path, len, 0, out, cap);
}

int ev_path_join(char *out, size_t cap, const char *a, const char *b)
{
	int n = snprintf(out, cap, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			out[0] = 0;
		return -1;
	}
	return 0;
}

void ev_path_label(const char *text, char *out, size_t cap)
{
	size_t o = 0;
	for (const char *p = text ? text : "unknown"; *p && o + 1 < cap; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
		out[o++] = plain ? *p : '_';
	}
	out[o] = '\0';
}
