/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/decoder.h"

#include "lib/core/hashpipe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#define RAW_CHUNK ((size_t)1 << 20)
#define RAW_HASH_SLOTS 4 /* the raw bytes are hashed on a thread of their own */
#define OUT_CHUNK EV_DECODER_OUT_BYTES

static const unsigned char zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
static const unsigned char gzip_magic[2] = {0x1F, 0x8B};

struct ev_decoder {
	int fd;
	enum ev_compression_kind kind;
	struct ev_hashpipe *raw_hash;
	uint8_t raw_digest[EV_SHA256_LEN];
	unsigned char *in, *out;
	unsigned char *own_out; /* out, unless the caller gave one */
	size_t in_len, in_pos;  /* raw bytes in `in`, and how many were used */
	uint64_t raw_read;      /* raw bytes read from fd so far */
	int raw_eof;
	ZSTD_DStream *zs;
	z_stream gz;
	int gz_ready;
	int between;            /* at a frame or member boundary */
	int out_full;           /* the last call filled the output: more may be pending */
	int ended;              /* the compressed stream is over */
	uint64_t trailing_at, trailing;
	uint64_t frame_at;      /* where the frame (or member) being decoded starts */
	uint64_t data_frames;   /* zstd frames begun (skippable ones not counted) */
	uint64_t skippables;    /* skippable frames passed */
	char problem[256];
};

const char *ev_decoder_kind_name(enum ev_compression_kind kind)
{
	return kind == EV_DECODE_ZSTD ? "zstd" : kind == EV_DECODE_GZIP ? "gzip" : "unknown";
}

enum ev_compression_kind ev_decoder_kind(const struct ev_decoder *d)
{
	return d->kind;
}

void ev_decoder_set_output(struct ev_decoder *d, void *buf)
{
	d->out = buf ? buf : d->own_out;
}

const char *ev_decoder_problem(const struct ev_decoder *d)
{
	return d->problem;
}

/* The offset in the file of the next raw byte to decode. */
static uint64_t position(const struct ev_decoder *d)
{
	return d->raw_read - (d->in_len - d->in_pos);
}

/* Read more raw bytes (hashing them). @return 1 got some, 0 end of file, -1 error. */
static int refill(struct ev_decoder *d, struct ev_error *err)
{
	if (d->in_pos < d->in_len)
		memmove(d->in, d->in + d->in_pos, d->in_len - d->in_pos);
	d->in_len -= d->in_pos;
	d->in_pos = 0;
	if (d->raw_eof)
		return 0;
	ssize_t n;
	while ((n = read(d->fd, d->in + d->in_len, RAW_CHUNK - d->in_len)) < 0 && errno == EINTR)
		;
	if (n < 0) {
		ev_error_errno(err, errno, "read failed");
		return -1;
	}
	if (n == 0) {
		d->raw_eof = 1;
		return 0;
	}
	/* Decompression is the slower half of the work: the archive's own
	 * digest is computed beside it, on the raw-hash thread. */
	memcpy(ev_hashpipe_buffer(d->raw_hash), d->in + d->in_len, (size_t)n);
	ev_hashpipe_publish(d->raw_hash, (size_t)n, 0, NULL);
	d->in_len += (size_t)n;
	d->raw_read += (uint64_t)n;
	return 1;
}

ev_status ev_decoder_open(struct ev_decoder **out, int fd, struct ev_error *err)
{
	struct ev_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return ev_error_set(err, EV_ERROR, "out of memory");
	d->fd = fd;
	d->between = 1;
	d->in = malloc(RAW_CHUNK);
	d->out = d->own_out = malloc(OUT_CHUNK);
	if (!d->in || !d->out) {
		ev_decoder_free(d);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (ev_hashpipe_new(&d->raw_hash, RAW_HASH_SLOTS, RAW_CHUNK, err) != EV_OK) {
		ev_decoder_free(d);
		return err->status;
	}
	while (d->in_len < 4 && !d->raw_eof) {
		if (refill(d, err) < 0) {
			ev_decoder_free(d);
			return err->status;
		}
	}
	/* zstd: a frame or a skippable frame (magic 0x184D2A5?, little-endian). */
	if (d->in_len >= 4 && (memcmp(d->in, zstd_magic, 4) == 0 ||
			       ((d->in[0] & 0xF0) == 0x50 && d->in[1] == 0x2A && d->in[2] == 0x4D &&
				d->in[3] == 0x18)))
		d->kind = EV_DECODE_ZSTD;
	else if (d->in_len >= 2 && memcmp(d->in, gzip_magic, 2) == 0)
		d->kind = EV_DECODE_GZIP;
	if (d->kind == EV_DECODE_ZSTD && !(d->zs = ZSTD_createDStream())) {
		ev_decoder_free(d);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	*out = d;
	return EV_OK;
}

void ev_decoder_free(struct ev_decoder *d)
{
	if (!d)
		return;
	if (d->zs)
		ZSTD_freeDStream(d->zs);
	if (d->gz_ready)
		inflateEnd(&d->gz);
	ev_hashpipe_free(d->raw_hash);
	free(d->in);
	free(d->own_out);
	free(d);
}

static ssize_t fail(struct ev_decoder *d, const char *what, uint64_t at, const char *why)
{
	snprintf(d->problem, sizeof d->problem, "%s at byte %llu%s%s%s", what,
		 (unsigned long long)at, why ? " (" : "", why ? why : "", why ? ")" : "");
	return -1;
}

/* At a boundary with raw bytes left: do they start another frame? */
static int starts_frame(const struct ev_decoder *d)
{
	const unsigned char *p = d->in + d->in_pos;
	size_t n = d->in_len - d->in_pos;
	if (d->kind == EV_DECODE_GZIP)
		return n >= 2 ? memcmp(p, gzip_magic, 2) == 0 : -1;
	if (n < 4)
		return -1;
	return memcmp(p, zstd_magic, 4) == 0 ||
	       ((p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18);
}

/* What a frame (zstd) or member (gzip) is called in messages. */
static const char *unit(const struct ev_decoder *d)
{
	return d->kind == EV_DECODE_ZSTD ? "frame" : "member";
}

/* Have raw bytes ready to decode. At a frame boundary, decide whether
 * another frame starts (its offset is noted) or the stream has ended,
 * leaving any other bytes as trailing. @return 1 decode, 0 the stream
 * ended, -1 cut short (the problem is set), -2 an I/O error. */
static int ready_input(struct ev_decoder *d, int *starting, struct ev_error *err)
{
	*starting = 0;
	if (d->in_pos == d->in_len && !d->out_full) {
		int r = refill(d, err);
		if (r < 0)
			return -2;
		if (r == 0) {
			if (d->between) {
				d->ended = 1;
				return 0;
			}
			char what[96];
			snprintf(what, sizeof what, "%s data cut short: the file ends inside the %s that "
				 "starts", ev_decoder_kind_name(d->kind), unit(d));
			return (int)fail(d, what, d->frame_at, NULL);
		}
	}
	if (!d->between)
		return 1;
	int s = starts_frame(d);
	while (s < 0 && !d->raw_eof) {
		if (refill(d, err) < 0)
			return -2;
		s = starts_frame(d);
	}
	if (s <= 0) {
		d->ended = 1;
		d->trailing_at = position(d);
		return 0;
	}
	d->frame_at = position(d);
	*starting = 1;
	return 1;
}

static int is_skippable(const unsigned char *p)
{
	return (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

/* A zstd skippable frame at a frame boundary, read past by evidence
 * itself rather than by libzstd, which would skip any: an evidence archive
 * has exactly one, right after SEAL.json's frame, of magic 0x184D2A50 and
 * zeros only (doc/formats.md). Anything else could hide bytes that every
 * decoder passes over, so it is damage. @return 0 passed, -1 a problem
 * (set), -2 an I/O error. */
/* At least want raw bytes of the skippable frame at hand. @return 0, -1
 * the file ends first (the problem is set), -2 an I/O error. */
static int skippable_bytes(struct ev_decoder *d, size_t want, struct ev_error *err)
{
	while (d->in_len - d->in_pos < want) {
		int r = refill(d, err);
		if (r < 0)
			return -2;
		if (r == 0)
			return (int)fail(d, "zstd data cut short: the file ends inside the skippable frame that starts",
					 d->frame_at, NULL);
	}
	return 0;
}

static int skip_skippable(struct ev_decoder *d, struct ev_error *err)
{
	int r = skippable_bytes(d, 8, err);
	if (r < 0)
		return r;
	const unsigned char *h = d->in + d->in_pos;
	uint32_t size = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	char why[128];
	if (d->skippables || d->data_frames != 1 || h[0] != 0x50) {
		snprintf(why, sizeof why, "magic 0x184D2A%02X, %" PRIu32 " bytes; only SEAL.json's zero padding, "
			 "magic 0x184D2A50 right after its frame, belongs here", h[0], size);
		return (int)fail(d, "zstd skippable frame where an evidence archive has none: the frame that starts",
				 d->frame_at, why);
	}
	d->skippables++;
	d->in_pos += 8;
	uint64_t left = size, at = d->frame_at + 8;
	while (left) {
		if ((r = skippable_bytes(d, 1, err)) < 0)
			return r;
		size_t n = d->in_len - d->in_pos < left ? d->in_len - d->in_pos : (size_t)left;
		for (size_t i = 0; i < n; i++)
			if (d->in[d->in_pos + i]) {
				snprintf(why, sizeof why, "byte %" PRIu64 " is 0x%02x; the padding is zeros only",
					 at + i, d->in[d->in_pos + i]);
				return (int)fail(d, "zstd padding frame holds data: the skippable frame that starts",
						 d->frame_at, why);
			}
		d->in_pos += n;
		left -= n;
		at += n;
	}
	d->between = 1;
	return 0;
}

/* One call of the decompressor: *produced bytes into d->out.
 * @return 0, or -1 when the data is damaged (the problem is set; what was
 * produced before is still to be handed over). */
static int step_zstd(struct ev_decoder *d, int starting, size_t *produced)
{
	(void)starting; /* libzstd finds frame starts itself */
	ZSTD_inBuffer in = {d->in, d->in_len, d->in_pos};
	ZSTD_outBuffer o = {d->out, OUT_CHUNK, 0};
	size_t hint = ZSTD_decompressStream(d->zs, &o, &in);
	d->in_pos = in.pos;
	*produced = o.pos;
	d->out_full = o.pos == o.size;
	if (ZSTD_isError(hint)) {
		fail(d, "zstd frame damaged: the frame that starts", d->frame_at,
		     ZSTD_getErrorName(hint));
		return -1;
	}
	d->between = hint == 0;
	return 0;
}

static int step_gzip(struct ev_decoder *d, int starting, size_t *produced)
{
	*produced = 0;
	if (starting) {
		if (d->gz_ready)
			inflateReset(&d->gz);
		else if (inflateInit2(&d->gz, 15 + 16) != Z_OK) { /* gzip wrapper only */
			fail(d, "gzip decoder cannot start", d->frame_at, NULL);
			return -1;
		}
		d->gz_ready = 1;
		d->between = 0;
	}
	d->gz.next_in = d->in + d->in_pos;
	d->gz.avail_in = (uInt)(d->in_len - d->in_pos);
	d->gz.next_out = d->out;
	d->gz.avail_out = (uInt)OUT_CHUNK;
	int r = inflate(&d->gz, Z_NO_FLUSH);
	d->in_pos = d->in_len - d->gz.avail_in;
	*produced = OUT_CHUNK - d->gz.avail_out;
	d->out_full = d->gz.avail_out == 0;
	if (r == Z_STREAM_END) {
		d->between = 1;
	} else if (r != Z_OK && r != Z_BUF_ERROR) {
		fail(d, "gzip member damaged: the member that starts", d->frame_at,
		     d->gz.msg ? d->gz.msg : "inflate failed");
		return -1;
	}
	return 0;
}

ssize_t ev_decoder_read(struct ev_decoder *d, const void **out, struct ev_error *err)
{
	if (d->problem[0])
		return -1;
	if (d->ended)
		return 0;
	if (d->kind == EV_DECODE_ZSTD || d->kind == EV_DECODE_GZIP) {
		for (;;) {
			int starting;
			int r = ready_input(d, &starting, err);
			if (r <= 0)
				return r;
			if (starting && d->kind == EV_DECODE_ZSTD) {
				if (is_skippable(d->in + d->in_pos)) {
					if ((r = skip_skippable(d, err)) < 0)
						return r;
					continue;
				}
				d->data_frames++;
			}
			size_t produced;
			int damaged = d->kind == EV_DECODE_ZSTD ? step_zstd(d, starting, &produced)
								: step_gzip(d, starting, &produced);
			/* A checksum only says that the frame read so far is wrong:
			 * what was decoded is handed over first, so the members it
			 * garbled are named by their digests; the -1 follows. */
			if (produced > 0) {
				*out = d->out;
				return (ssize_t)produced;
			}
			if (damaged)
				return -1;
		}
	}
	/* Neither zstd nor gzip: say what the file starts with. */
	if (d->in_len == 0) {
		snprintf(d->problem, sizeof d->problem, "the file is empty");
		return -1;
	}
	snprintf(d->problem, sizeof d->problem, "first bytes");
	for (size_t i = 0; i < d->in_len && i < 8; i++) {
		size_t used = strlen(d->problem);
		snprintf(d->problem + used, sizeof d->problem - used, " %02x", d->in[i]);
	}
	return -1;
}

ev_status ev_decoder_finish(struct ev_decoder *d, uint8_t sha256[EV_SHA256_LEN],
			    uint64_t *raw_bytes, uint64_t *trailing, uint64_t *trailing_at,
			    struct ev_error *err)
{
	for (;;) {
		d->in_pos = d->in_len; /* consumed or not, every byte is hashed */
		int r = refill(d, err);
		if (r < 0)
			return err->status;
		if (r == 0)
			break;
	}
	*raw_bytes = d->raw_read;
	*trailing = d->ended && d->trailing_at ? d->raw_read - d->trailing_at : 0;
	*trailing_at = d->trailing_at;
	ev_hashpipe_buffer(d->raw_hash);
	ev_hashpipe_publish(d->raw_hash, 0, 1, d->raw_digest);
	ev_status st = ev_hashpipe_finish(d->raw_hash, err);
	if (st == EV_OK)
		memcpy(sha256, d->raw_digest, EV_SHA256_LEN);
	return st;
}
