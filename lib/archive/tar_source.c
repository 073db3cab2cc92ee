/* SPDX-License-Identifier: Apache-2.0 */
/* tar_source: an archive's plain tar, decoded into a ring (tar_source.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/archive/tar_source.h"

ev_status ev_tar_source_ring(struct ev_tar_source *s, struct ev_hashpipe *pipe, const char *path,
			     struct ev_error *err)
{
	s->pipe = pipe;
	for (size_t i = 0; i < EV_TAR_SOURCE_RING_BLOCKS; i++)
		if (!(s->ring[i] = malloc(EV_DECODER_OUT_BYTES)))
			return ev_error_set(err, EV_ERROR, "%s: out of memory", path);
	return EV_OK;
}

la_ssize_t ev_tar_source_read(struct archive *a, void *ctx, const void **out)
{
	struct ev_tar_source *s = ctx;
	if (s->interrupted && *s->interrupted) {
		s->stopped = 1;
		archive_set_error(a, EINTR, "interrupted by a signal");
		return -1;
	}
	if (s->pipe) { /* a checker's source; ev_archive_embedded_seal's has no ring */
		size_t next = (s->at + 1) % EV_TAR_SOURCE_RING_BLOCKS;
		ev_hashpipe_wait(s->pipe, s->ticket[next]);
		ev_decoder_set_output(s->decoder, s->ring[next]);
		s->at = next;
	}
	ssize_t n = ev_decoder_read(s->decoder, out, &s->io);
	s->block = n > 0 ? *out : NULL;
	s->block_len = n > 0 ? (size_t)n : 0;
	if (n == -1) {
		archive_set_error(a, EILSEQ, "%s", ev_decoder_problem(s->decoder));
		return -1;
	}
	if (n < 0) {
		archive_set_error(a, EIO, "%s", s->io.text);
		return -1;
	}
	if (n > 0)
		ev_tarwalk_feed(&s->walk, *out, (size_t)n);
	return n;
}

void ev_tar_source_free(struct ev_tar_source *s)
{
	ev_decoder_free(s->decoder);
	s->decoder = NULL;
	ev_tarwalk_free(&s->walk);
	for (size_t i = 0; i < EV_TAR_SOURCE_RING_BLOCKS; i++) {
		free(s->ring[i]);
		s->ring[i] = NULL;
	}
}
