/* SPDX-License-Identifier: Apache-2.0 */
/* tar_source: the plain tar of an archive as libarchive reads it, decoded
 * block by block (lib/archive/decoder) and its headers walked as written
 * (lib/archive/tarwalk), beside libarchive's own reading.
 *
 * For a check that hashes members where they lie (archive_reader), the
 * decoded blocks go round a ring: a block is decoded into again only once
 * the hasher is past what was handed to it from there (its ticket), so
 * the decoder seldom waits and no member byte is copied. A signal stops
 * the reading (stopped), and an I/O error is kept for the caller (io).
 * One struct per reading, owned by the caller; no global state.
 */
#ifndef EV_TAR_SOURCE_H
#define EV_TAR_SOURCE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <archive.h>

#include "lib/archive/decoder.h"
#include "lib/archive/tarwalk.h"
#include "lib/core/hashpipe.h"
#include "lib/core/status.h"

/* Decoded blocks kept alive while the hasher reads them where they are:
 * more than the hasher's slots, so the decoder seldom waits for it. */
#define EV_TAR_SOURCE_RING_BLOCKS 64

struct ev_tar_source {
	struct ev_decoder *decoder;  /* the caller opens it (ev_decoder_open) */
	struct ev_error io;          /* an I/O error while reading, for the caller */
	struct ev_tarwalk walk;      /* the headers as written; the caller sets its on_entry and ctx */
	volatile sig_atomic_t *interrupted; /* NULL: never */
	int stopped;                 /* the reading stopped for a signal */
	struct ev_hashpipe *pipe;    /* with a ring: the hasher its blocks are lent to */
	unsigned char *ring[EV_TAR_SOURCE_RING_BLOCKS];
	uint64_t ticket[EV_TAR_SOURCE_RING_BLOCKS];
	size_t at;                   /* the block the last read filled */
	const unsigned char *block;  /* its bytes */
	size_t block_len;
};

/* Decode into a ring of blocks lent to pipe's hasher. @return EV_OK or
 * EV_ERROR (out of memory; free s all the same). */
ev_status ev_tar_source_ring(struct ev_tar_source *s, struct ev_hashpipe *pipe, const char *path,
			     struct ev_error *err);

/* libarchive's read callback (archive_read_open(a, s, NULL, this, NULL)). */
la_ssize_t ev_tar_source_read(struct archive *a, void *ctx, const void **out);

/* Are these len bytes inside the block decoded last? */
static inline int ev_tar_source_holds(const struct ev_tar_source *s, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	return s->block && p >= s->block && len <= s->block_len && p - s->block <= (ptrdiff_t)(s->block_len - len);
}

/* The block decoded last was lent to the hasher as ticket: it is not
 * decoded into again before the hasher is past it. */
static inline void ev_tar_source_lend(struct ev_tar_source *s, uint64_t ticket)
{
	s->ticket[s->at] = ticket;
}

/* The decoder, the walk and the ring; after the hasher stopped, which may
 * still read the ring. */
void ev_tar_source_free(struct ev_tar_source *s);

#endif
