/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/tarwalk.h"

#include <stdlib.h>
#include <string.h>

static uint64_t round_block(uint64_t n)
{
	return (n + 511) / 512 * 512;
}

/* A numeric header field: octal digits (spaces and NULs around them), or
 * base-256 when its first byte has the high bit set. */
static uint64_t number(const unsigned char *f, size_t n)
{
	uint64_t v = 0;
	if (f[0] & 0x80) {
		for (size_t i = 1; i < n; i++)
			v = v << 8 | f[i];
		return v;
	}
	size_t i = 0;
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++)
		v = v << 3 | (uint64_t)(f[i] - '0');
	return v;
}

/* The pax records "LEN key=value\n" held: path and size. */
static void pax_records(struct ev_tarwalk *w)
{
	size_t at = 0;
	while (at < w->pax_len) {
		size_t len = 0, i = at;
		while (i < w->pax_len && w->pax[i] >= '0' && w->pax[i] <= '9')
			len = len * 10 + (size_t)(w->pax[i++] - '0');
		if (i == at || i >= w->pax_len || w->pax[i] != ' ' || len == 0 || at + len > w->pax_len)
			return; /* malformed: libarchive judges it */
		const char *kv = (const char *)w->pax + i + 1;
		size_t kvlen = at + len - (i + 1) - 1; /* without the newline */
		if (kvlen >= 5 && memcmp(kv, "path=", 5) == 0 && kvlen - 5 < sizeof w->pax_path) {
			memcpy(w->pax_path, kv + 5, kvlen - 5);
			w->pax_path[kvlen - 5] = 0;
		} else if (kvlen >= 5 && memcmp(kv, "size=", 5) == 0) {
			char digits[24];
			size_t n = kvlen - 5 < sizeof digits - 1 ? kvlen - 5 : sizeof digits - 1;
			memcpy(digits, kv + 5, n);
			digits[n] = 0;
			w->pax_size = strtoull(digits, NULL, 10);
			w->have_pax_size = 1;
		}
		at += len;
	}
}

static void header(struct ev_tarwalk *w)
{
	const unsigned char *b = w->block;
	size_t z = 0;
	while (z < 512 && !b[z])
		z++;
	if (z == 512) {
		if (++w->zero_blocks >= 2)
			w->ended = 1;
		return;
	}
	w->zero_blocks = 0;
	w->ended = 0;
	uint64_t size = number(b + 124, 12);
	char type = (char)b[156];
	if (type == 'x') { /* the next entry's records */
		w->collecting = 1;
		w->pax_len = 0;
		w->pax_too_long = size > TARWALK_PAX_MAX;
		w->skip = round_block(size);
		w->have_pax_size = 0;
		w->pax_path[0] = 0;
		if (!w->pax_too_long && !w->pax)
			w->pax = malloc(TARWALK_PAX_MAX);
		w->pax_too_long |= !w->pax;
		w->collect_left = size;
		return;
	}
	if (type == 'g' || type == 'L' || type == 'K') { /* global or GNU records: not ours to judge */
		w->skip = round_block(size);
		return;
	}
	char name[512];
	size_t n = strnlen((const char *)b, 100), p = strnlen((const char *)b + 345, 155);
	if (memcmp(b + 257, "ustar", 5) == 0 && p) {
		memcpy(name, b + 345, p);
		name[p] = '/';
		memcpy(name + p + 1, b, n);
		name[p + 1 + n] = 0;
	} else {
		memcpy(name, b, n);
		name[n] = 0;
	}
	if (w->have_pax_size)
		size = w->pax_size;
	w->entries++;
	if (w->on_entry)
		w->on_entry(w->ctx, name, w->pax_path);
	w->pax_path[0] = 0;
	w->have_pax_size = 0;
	/* hard and symbolic links, directories, devices and FIFOs carry no data */
	w->skip = type == '1' || type == '2' || type == '3' || type == '4' || type == '5' || type == '6'
			  ? 0 : round_block(size);
}

void ev_tarwalk_feed(struct ev_tarwalk *w, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	while (len) {
		if (w->skip) {
			size_t k = w->skip < len ? (size_t)w->skip : len;
			if (w->collecting && !w->pax_too_long && w->collect_left) {
				size_t take = k < w->collect_left ? k : (size_t)w->collect_left;
				memcpy(w->pax + w->pax_len, p, take);
				w->pax_len += take;
				w->collect_left -= take;
			}
			w->skip -= k;
			p += k;
			len -= k;
			if (!w->skip && w->collecting) {
				w->collecting = 0;
				if (!w->pax_too_long)
					pax_records(w);
			}
			continue;
		}
		size_t k = 512 - w->have < len ? 512 - w->have : len;
		memcpy(w->block + w->have, p, k);
		w->have += k;
		p += k;
		len -= k;
		if (w->have == 512) {
			w->have = 0;
			header(w);
		}
	}
}

int ev_tarwalk_complete(const struct ev_tarwalk *w)
{
	if (!w->ended || w->skip)
		return 0;
	for (size_t i = 0; i < w->have; i++) /* a cut block of padding */
		if (w->block[i])
			return 0;
	return 1;
}

/* Does h (hn bytes) render p (pn bytes): the same bytes, except that a
 * writer without UTF-8 names (Python's tarfile) may put one '?' for each
 * character beyond ASCII? partial: h may render a leading part of p. */
static int renders(const char *h, size_t hn, const char *p, size_t pn, int partial)
{
	size_t i = 0, j = 0;
	while (i < hn && j < pn) {
		unsigned char c = (unsigned char)p[j];
		if (h[i] == p[j]) {
			i++, j++;
			continue;
		}
		if (c < 0x80 || h[i] != '?')
			return 0;
		j++; /* one '?' for the whole character */
		while (j < pn && ((unsigned char)p[j] & 0xC0) == 0x80)
			j++;
		i++;
	}
	return i == hn && (j == pn || (partial && i > 0));
}

int ev_tarwalk_name_fits(const char *header, const char *path)
{
	size_t hn = strlen(header), pn = strlen(path);
	if (renders(header, hn, path, pn, 0))
		return 1;
	if (pn <= 100)
		return 0;
	/* without a directory's trailing slash */
	while (hn && header[hn - 1] == '/')
		hn--;
	while (pn && path[pn - 1] == '/')
		pn--;
	const char *hs = memrchr(header, '/', hn), *ps = memrchr(path, '/', pn);
	size_t hd = hs ? (size_t)(hs - header) : 0, pd = ps ? (size_t)(ps - path) : 0;
	const char *hf = hs ? hs + 1 : header, *pf = ps ? ps + 1 : path;
	size_t hfn = hn - (size_t)(hf - header), pfn = pn - (size_t)(pf - path);
	return (hd == 0 || renders(header, hd, path, pd, 1)) && renders(hf, hfn, pf, pfn, 1);
}

void ev_tarwalk_free(struct ev_tarwalk *w)
{
	free(w->pax);
	w->pax = NULL;
}
