/* SPDX-License-Identifier: Apache-2.0 */
/* tarwalk: a tar stream's own headers, walked beside libarchive as the
 * bytes stream past, for what libarchive merges away.
 *
 * libarchive hands a reader one name per entry, the pax `path` record when
 * there is one; the ustar header's own name, which a tar without pax
 * support extracts to, is not seen. tarwalk reads the 512-byte headers
 * itself (ustar name and prefix, size in octal or base-256, pax `path` and
 * `size` records) and calls back for each entry with both names, so that
 * a header naming another file than its pax record is found; and it says
 * whether the stream ended with tar's end-of-archive marker (two zero
 * blocks), so that a stream cut at a compression frame or header boundary
 * (which decodes cleanly) is told from a whole one.
 *
 * Memory: one block, and a pax header's records up to TARWALK_PAX_MAX
 * (longer ones are passed over, their path not compared). No global state;
 * one walker per stream. The caller owns the struct; zero it to start.
 */
#ifndef EV_TARWALK_H
#define EV_TARWALK_H

#include <stddef.h>
#include <stdint.h>

#define TARWALK_PAX_MAX ((size_t)64 << 10)
#define TARWALK_NAME_MAX 4096

/* An entry's names: header (ustar prefix "/" name, as written) and pax
 * (its pax path record, "" when none). */
typedef void (*ev_tarwalk_entry_fn)(void *ctx, const char *header, const char *pax);

struct ev_tarwalk {
	ev_tarwalk_entry_fn on_entry;
	void *ctx;
	unsigned char block[512];
	size_t have;                 /* bytes of block filled */
	uint64_t skip;               /* entry data (and padding) still to pass */
	int collecting;              /* the data passing is a pax header's */
	unsigned char *pax;          /* its records (malloc'd; freed by ev_tarwalk_free) */
	size_t pax_len;
	uint64_t collect_left;       /* of the pax records still to come */
	int pax_too_long;
	char pax_path[TARWALK_NAME_MAX];
	uint64_t pax_size;
	int have_pax_size;           /* a pax size record overrides the header's */
	unsigned zero_blocks;        /* consecutive, where a header belongs */
	int ended;                   /* the end-of-archive marker was seen last */
	uint64_t entries;
};

/* Feed the next decoded bytes (any cut). */
void ev_tarwalk_feed(struct ev_tarwalk *w, const void *bytes, size_t len);

/* After the last byte: did the stream end with its end-of-archive marker,
 * nothing but zero padding behind it? 1 yes, 0 no. */
int ev_tarwalk_complete(const struct ev_tarwalk *w);

/* Does a header name stand for path, as a writer of pax tar writes it?
 * Equal, or with one '?' for each character beyond ASCII (Python's
 * tarfile); or, where path is longer than a ustar name (100 bytes), its
 * truncation: the header's directory a leading part of path's, and its
 * last component a leading part of path's (libarchive shortens both). */
int ev_tarwalk_name_fits(const char *header, const char *path);

void ev_tarwalk_free(struct ev_tarwalk *w);

#endif
