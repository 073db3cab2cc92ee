/* SPDX-License-Identifier: Apache-2.0 */
/* decoder: the compressed bytes of an evidence archive (zstd or gzip) in,
 * the tar stream out, with every raw byte hashed and every kind of damage
 * told apart and placed.
 *
 * libzstd and zlib do the decoding (zstd: any sequence of frames,
 * skippable frames included, checksums verified; gzip: concatenated
 * members, CRC-32 verified). What this layer adds is knowing where the
 * compressed stream ends: bytes after its last complete frame (or member)
 * that do not start another one are "trailing", reported with their offset
 * and count while the tar before them is read to its end; damage inside a
 * frame and a stream cut short are "damaged"/"truncated" with the offset.
 * Memory: two fixed buffers. One decoder per thread; no global state.
 */
#ifndef EV_DECODER_H
#define EV_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

enum ev_compression_kind { EV_DECODE_UNKNOWN, EV_DECODE_ZSTD, EV_DECODE_GZIP };

/* The most one ev_decoder_read returns: small enough that libzstd streams a
 * large frame out piece by piece (with room for the whole frame it decodes
 * it internally and, when the frame's checksum fails, returns none of it,
 * so no member could be named). */
#define EV_DECODER_OUT_BYTES ((size_t)128 << 10)

struct ev_decoder;

/* Start decoding fd (read from its current offset). The first bytes say
 * which compression it is; ev_decoder_kind tells, EV_DECODE_UNKNOWN when
 * neither (then ev_decoder_read returns -1 with a problem at once).
 * @return EV_OK, or EV_ERROR on I/O or memory failure. */
ev_status ev_decoder_open(struct ev_decoder **out, int fd, struct ev_error *err);

/* Free; NULL accepted. Does not close fd. */
void ev_decoder_free(struct ev_decoder *d);

enum ev_compression_kind ev_decoder_kind(const struct ev_decoder *d);
const char *ev_decoder_kind_name(enum ev_compression_kind kind); /* "zstd", "gzip", "unknown" */

/* The next decoded bytes: *out points into the decoder's buffer, valid
 * until the next call. @return the count (> 0); 0 at the end of the
 * compressed stream (trailing bytes, if any, are counted, not returned);
 * -1 when the stream is damaged, truncated or not ours
 * (ev_decoder_problem says how and where); -2 on an I/O error (err). */
ssize_t ev_decoder_read(struct ev_decoder *d, const void **out, struct ev_error *err);

/* Decode into buf (EV_DECODER_OUT_BYTES long, the caller's) from the next
 * ev_decoder_read on, instead of the decoder's own buffer; NULL goes back
 * to it. A reader that keeps several decoded blocks alive while the next
 * are decoded (a ring) gives each call a different one. */
void ev_decoder_set_output(struct ev_decoder *d, void *buf);

/* The sentence for the last -1, e.g. "zstd frame damaged: the frame that
 * starts at byte 2640 (Restored data doesn't match checksum)", or for a file that
 * is neither zstd nor gzip "first bytes 7b 22 66 ..."; "" when none.
 * Output decoded before damage was detected is returned first; the -1
 * comes on the next call. */
const char *ev_decoder_problem(const struct ev_decoder *d);

/* Read and hash whatever of the file is left, then give its SHA-256 and
 * size, and how many bytes trailed the compressed stream and where they
 * start (trailing = 0 when none). @return EV_OK or EV_ERROR. */
ev_status ev_decoder_finish(struct ev_decoder *d, uint8_t sha256[EV_SHA256_LEN],
			    uint64_t *raw_bytes, uint64_t *trailing, uint64_t *trailing_at,
			    struct ev_error *err);

#endif
