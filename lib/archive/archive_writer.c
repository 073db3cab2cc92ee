/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/archive_writer.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_writeSkippableFrame */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/core/publish.h"

struct ev_archive_writer {
	int out_fd;
	int stream_fd;       /* where the member stream goes */
	char *display;
	enum ev_compression compression;
	char *root;
	int level;
	size_t seal_json_len;
	uint64_t reserve;    /* zstd: bytes kept free at the start for SEAL.json */
	uint64_t stream_bytes; /* compressed member-stream bytes written */
	uint64_t writeback_from; /* zstd: file offset not yet handed to writeback */
	uint64_t total_bytes;
	struct archive *tar;
	struct archive_entry *entry;
	ZSTD_CCtx *zc;
	int closed;                /* archive_write_close was called */
	int discarding;            /* freed unfinished: write nothing more */
	z_stream gz;
	int gz_ready;
	unsigned char *outbuf;
	size_t outcap;
	struct ev_error cb_error; /* failure seen inside libarchive's callback */
};

const char *ev_compression_name(enum ev_compression c)
{
	return c == EV_COMPRESS_GZIP ? "gzip" : "zstd";
}

const char *ev_archive_filename(enum ev_compression c)
{
	return c == EV_COMPRESS_GZIP ? "archive.tar.gz" : "archive.tar.zst";
}

/* --- compression of the member stream ------------------------------------ */

/* Start the kernel's writeback of what was written since the last call,
 * every WRITEBACK_STEP bytes, without waiting for it: the fsync at the end
 * then finds little left to flush, and a large archive never fills memory
 * with dirty pages. Only for the final file (zstd), not gzip's spool. */
#define WRITEBACK_STEP ((uint64_t)16 << 20)

static void start_writeback(struct ev_archive_writer *w)
{
	uint64_t end = w->reserve + w->stream_bytes;
	if (w->compression != EV_COMPRESS_ZSTD || end - w->writeback_from < WRITEBACK_STEP)
		return;
	/* Advisory: a file system that cannot do it simply flushes at fsync. */
	sync_file_range(w->out_fd, (off64_t)w->writeback_from,
			(off64_t)(end - w->writeback_from), SYNC_FILE_RANGE_WRITE);
	w->writeback_from = end;
}

static ev_status zstd_pump(struct ev_archive_writer *w, const void *buf, size_t len,
			   ZSTD_EndDirective mode, struct ev_error *err)
{
	ZSTD_inBuffer in = {buf, len, 0};
	for (;;) {
		ZSTD_outBuffer out = {w->outbuf, w->outcap, 0};
		size_t left = ZSTD_compressStream2(w->zc, &out, &in, mode);
		if (ZSTD_isError(left))
			return ev_error_set(err, EV_ERROR, "%s: zstd compression failed: %s",
					    w->display, ZSTD_getErrorName(left));
		if (out.pos && ev_write_all(w->stream_fd, w->outbuf, out.pos, w->display, err))
			return err->status;
		w->stream_bytes += out.pos;
		start_writeback(w);
		if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return EV_OK;
	}
}

static ev_status gzip_pump(struct ev_archive_writer *w, const void *buf, size_t len, int flush,
			   struct ev_error *err)
{
	w->gz.next_in = (Bytef *)(uintptr_t)buf;
	w->gz.avail_in = (uInt)len;
	for (;;) {
		w->gz.next_out = w->outbuf;
		w->gz.avail_out = (uInt)w->outcap;
		int r = deflate(&w->gz, flush);
		if (r == Z_STREAM_ERROR)
			return ev_error_set(err, EV_ERROR, "%s: gzip compression failed", w->display);
		size_t n = w->outcap - w->gz.avail_out;
		if (n && ev_write_all(w->stream_fd, w->outbuf, n, w->display, err))
			return err->status;
		w->stream_bytes += n;
		if (flush == Z_FINISH ? r == Z_STREAM_END
				      : (w->gz.avail_in == 0 && w->gz.avail_out != 0))
			return EV_OK;
	}
}

static la_ssize_t tar_to_compressor(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct ev_archive_writer *w = ctx;
	if (w->discarding) {
		archive_set_error(a, ECANCELED, "the archive is being thrown away");
		return -1;
	}
	ev_status st = w->compression == EV_COMPRESS_ZSTD
			       ? zstd_pump(w, buf, len, ZSTD_e_continue, &w->cb_error)
			       : gzip_pump(w, buf, len, Z_NO_FLUSH, &w->cb_error);
	if (st != EV_OK) {
		archive_set_error(a, EIO, "%s", w->cb_error.text);
		return -1;
	}
	return (la_ssize_t)len;
}

/* --- tar ------------------------------------------------------------------ */

static struct archive *new_tar(void *ctx, archive_write_callback *cb)
{
	struct archive *a = archive_write_new();
	if (!a)
		return NULL;
	/* Unblocked: every byte goes straight to the callback and the stream
	 * ends with the two zero blocks of the end-of-archive marker. */
	if (archive_write_set_format_pax(a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
	    archive_write_open2(a, ctx, NULL, cb, NULL, NULL) != ARCHIVE_OK) {
		archive_write_free(a);
		return NULL;
	}
	return a;
}

static ev_status set_entry(struct archive_entry *e, const char *name, enum ev_member_type type,
			   unsigned mode, uint64_t size, struct ev_error *err)
{
	archive_entry_clear(e);
	if (!archive_entry_update_pathname_utf8(e, name))
		return ev_error_set(err, EV_ERROR, "%s: cannot be stored as a tar name", name);
	archive_entry_set_filetype(e, type == EV_MEMBER_DIR ? AE_IFDIR : AE_IFREG);
	archive_entry_set_perm(e, mode & 0777);
	archive_entry_set_size(e, type == EV_MEMBER_DIR ? 0 : (la_int64_t)size);
	archive_entry_set_mtime(e, EV_ARCHIVE_MTIME, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	return EV_OK;
}

struct capture {
	unsigned char *buf;
	size_t len, cap;
	int closed; /* after the SEAL.json entry: drop the end-of-archive marker */
	int failed;
};

static la_ssize_t capture_bytes(struct archive *a, void *ctx, const void *buf, size_t len)
{
	(void)a;
	struct capture *c = ctx;
	if (c->closed)
		return (la_ssize_t)len;
	if (c->len + len > c->cap) {
		size_t cap = (c->len + len) * 2;
		unsigned char *b = realloc(c->buf, cap);
		if (!b) {
			c->failed = 1;
			return -1;
		}
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	return (la_ssize_t)len;
}

/* The tar bytes of the SEAL.json entry alone (no end-of-archive marker:
 * the member stream that follows carries it). Caller frees *out. */
static ev_status render_seal_entry(const char *json, size_t len, unsigned char **out,
				   size_t *out_len, struct ev_error *err)
{
	struct capture c = {0};
	ev_status st = EV_OK;
	struct archive_entry *e = archive_entry_new();
	struct archive *a = new_tar(&c, capture_bytes);
	if (!a || !e) {
		st = ev_error_set(err, EV_ERROR, "SEAL.json: cannot start a tar writer");
		goto out;
	}
	if ((st = set_entry(e, EV_SEAL_FILENAME, EV_MEMBER_FILE, 0644, len, err)) != EV_OK)
		goto out;
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, json, len) != (la_ssize_t)len ||
	    archive_write_finish_entry(a) != ARCHIVE_OK || c.failed) {
		st = ev_error_set(err, EV_ERROR, "SEAL.json: tar writer failed: %s",
				  archive_error_string(a) ? archive_error_string(a) : "out of memory");
		goto out;
	}
	c.closed = 1;
	*out = c.buf;
	*out_len = c.len;
	c.buf = NULL;
out:
	if (a)
		archive_write_free(a);
	archive_entry_free(e);
	free(c.buf);
	return st;
}

/* --- lifecycle ------------------------------------------------------------ */

ev_status ev_archive_writer_new(struct ev_archive_writer **out, int out_fd, int tmp_dirfd,
				const char *display, enum ev_compression compression,
				const char *root, size_t seal_json_len, int threads, int level,
				struct ev_error *err)
{
	ev_status st = EV_OK;
	struct ev_archive_writer *w = calloc(1, sizeof *w);
	if (!w)
		return ev_error_set(err, EV_ERROR, "%s: out of memory", display);
	w->out_fd = out_fd;
	w->stream_fd = -1;
	w->compression = compression;
	w->seal_json_len = seal_json_len;
	w->display = strdup(display);
	w->root = strdup(root);
	ev_error_clear(&w->cb_error);
	if (!w->display || !w->root)
		goto oom;
	if (compression == EV_COMPRESS_ZSTD) {
		w->level = level ? level : EV_ARCHIVE_ZSTD_LEVEL;
		w->zc = ZSTD_createCCtx();
		if (!w->zc)
			goto oom;
		size_t r = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level);
		if (!ZSTD_isError(r))
			r = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1);
		if (!ZSTD_isError(r))
			r = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_nbWorkers, threads < 1 ? 1 : threads);
		if (!ZSTD_isError(r))
			r = ZSTD_CCtx_setParameter(w->zc, ZSTD_c_jobSize, (int)EV_ARCHIVE_ZSTD_JOB_SIZE);
		if (ZSTD_isError(r)) {
			st = ev_error_set(err, EV_ERROR,
					  "%s: zstd refused its parameters (%s); libzstd must be "
					  "built with multi-threading",
					  display, ZSTD_getErrorName(r));
			goto fail;
		}
		w->outcap = ZSTD_CStreamOutSize();
		/* Reserve room for the SEAL.json entry: its tar size depends only on
		 * the JSON's length, and its compressed size is at most the bound. */
		char *placeholder = malloc(seal_json_len ? seal_json_len : 1);
		unsigned char *tar = NULL;
		size_t tar_len = 0;
		if (!placeholder)
			goto oom;
		memset(placeholder, ' ', seal_json_len);
		st = render_seal_entry(placeholder, seal_json_len, &tar, &tar_len, err);
		free(placeholder);
		free(tar);
		if (st != EV_OK)
			goto fail;
		w->reserve = ZSTD_compressBound(tar_len) + ZSTD_SKIPPABLEHEADERSIZE;
		w->writeback_from = w->reserve;
		if (lseek(out_fd, (off_t)w->reserve, SEEK_SET) < 0) {
			st = ev_error_errno(err, errno, "%s: cannot seek", display);
			goto fail;
		}
		w->stream_fd = out_fd;
	} else {
		w->level = level ? level : EV_ARCHIVE_GZIP_LEVEL;
		/* windowBits 15 + 16: a gzip wrapper with mtime 0 and no name. */
		if (deflateInit2(&w->gz, w->level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			goto oom;
		w->gz_ready = 1;
		w->outcap = 1 << 17;
		w->stream_fd = openat(tmp_dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (w->stream_fd < 0) {
			st = ev_error_errno(err, errno, "%s: cannot create an unnamed temporary file",
					    display);
			goto fail;
		}
	}
	w->outbuf = malloc(w->outcap);
	w->entry = archive_entry_new();
	if (!w->outbuf || !w->entry)
		goto oom;
	w->tar = new_tar(w, tar_to_compressor);
	if (!w->tar) {
		st = ev_error_set(err, EV_ERROR, "%s: cannot start the tar writer", display);
		goto fail;
	}
	*out = w;
	return EV_OK;
oom:
	st = ev_error_set(err, EV_ERROR, "%s: out of memory", display);
fail:
	ev_archive_writer_free(w);
	return st;
}

static ev_status tar_failed(struct ev_archive_writer *w, const char *what, struct ev_error *err)
{
	if (w->cb_error.status != EV_OK)
		return ev_error_set(err, w->cb_error.status, "%s", w->cb_error.text);
	return ev_error_set(err, EV_ERROR, "%s: %s: %s", w->display, what,
			    archive_error_string(w->tar) ? archive_error_string(w->tar) : "failed");
}

ev_status ev_archive_writer_begin(struct ev_archive_writer *w, const struct ev_member *m,
				  struct ev_error *err)
{
	size_t n = strlen(w->root) + strlen(m->path) + 2;
	char *name = malloc(n);
	if (!name)
		return ev_error_set(err, EV_ERROR, "%s: out of memory", w->display);
	snprintf(name, n, "%s/%s", w->root, m->path);
	ev_status st = set_entry(w->entry, name, m->type, m->mode, m->size, err);
	free(name);
	if (st != EV_OK)
		return st;
	if (archive_write_header(w->tar, w->entry) != ARCHIVE_OK)
		return tar_failed(w, m->path, err);
	return EV_OK;
}

ev_status ev_archive_writer_data(struct ev_archive_writer *w, const void *buf, size_t len,
				 struct ev_error *err)
{
	if (len && archive_write_data(w->tar, buf, len) != (la_ssize_t)len)
		return tar_failed(w, "writing member data", err);
	return EV_OK;
}

static ev_status write_at(struct ev_archive_writer *w, const void *buf, size_t len, off_t off,
			  struct ev_error *err)
{
	const unsigned char *p = buf;
	while (len) {
		ssize_t n = pwrite(w->out_fd, p, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ev_error_errno(err, errno, "%s: write failed", w->display);
		}
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return EV_OK;
}

static ev_status place_seal_zstd(struct ev_archive_writer *w, const unsigned char *tar,
				 size_t tar_len, struct ev_error *err)
{
	ev_status st = EV_OK;
	unsigned char *frame = malloc(w->reserve);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	if (!frame || !c) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", w->display);
		goto out;
	}
	/* Single-threaded, always: a separate small frame, same bytes each time. */
	size_t r = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, w->level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	size_t n = ZSTD_isError(r) ? r : ZSTD_compress2(c, frame, w->reserve, tar, tar_len);
	if (ZSTD_isError(n) || n + ZSTD_SKIPPABLEHEADERSIZE > w->reserve) {
		st = ev_error_set(err, EV_ERROR, "%s: SEAL.json does not fit its reserved frame (%s)",
				  w->display, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "too large");
		goto out;
	}
	size_t pad = (size_t)w->reserve - n - ZSTD_SKIPPABLEHEADERSIZE;
	unsigned char *zeros = calloc(1, pad ? pad : 1);
	if (!zeros) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", w->display);
		goto out;
	}
	size_t s = ZSTD_writeSkippableFrame(frame + n, w->reserve - n, zeros, pad, 0);
	free(zeros);
	if (ZSTD_isError(s) || n + s != w->reserve) {
		st = ev_error_set(err, EV_ERROR, "%s: cannot write the padding frame", w->display);
		goto out;
	}
	st = write_at(w, frame, (size_t)w->reserve, 0, err);
out:
	ZSTD_freeCCtx(c);
	free(frame);
	return st;
}

static ev_status place_seal_gzip(struct ev_archive_writer *w, const unsigned char *tar,
				 size_t tar_len, struct ev_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, w->level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return ev_error_set(err, EV_ERROR, "%s: gzip init failed", w->display);
	uLong bound = deflateBound(&z, (uLong)tar_len);
	unsigned char *member = malloc(bound);
	ev_status st = EV_OK;
	if (!member) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", w->display);
		goto out;
	}
	z.next_in = (Bytef *)(uintptr_t)tar;
	z.avail_in = (uInt)tar_len;
	z.next_out = member;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		st = ev_error_set(err, EV_ERROR, "%s: gzip compression of SEAL.json failed",
				  w->display);
		goto out;
	}
	size_t n = bound - z.avail_out;
	if ((st = write_at(w, member, n, 0, err)) != EV_OK)
		goto out;
	/* Append the member stream after it. */
	loff_t in_off = 0, out_off = (loff_t)n;
	uint64_t left = w->stream_bytes;
	while (left) {
		ssize_t c = copy_file_range(w->stream_fd, &in_off, w->out_fd, &out_off, left, 0);
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0) {
			st = ev_error_errno(err, c < 0 ? errno : EIO, "%s: cannot copy the member stream",
					    w->display);
			goto out;
		}
		left -= (uint64_t)c;
	}
	w->reserve = n;
out:
	deflateEnd(&z);
	free(member);
	return st;
}

ev_status ev_archive_writer_finish(struct ev_archive_writer *w, const char *seal_json,
				   size_t len, struct ev_error *err)
{
	if (len != w->seal_json_len)
		return ev_error_set(err, EV_ERROR,
				    "%s: internal error: SEAL.json is %zu bytes, %zu were announced",
				    w->display, len, w->seal_json_len);
	w->closed = 1;
	if (archive_write_close(w->tar) != ARCHIVE_OK)
		return tar_failed(w, "closing the tar stream", err);
	ev_status st = w->compression == EV_COMPRESS_ZSTD
			       ? zstd_pump(w, NULL, 0, ZSTD_e_end, err)
			       : gzip_pump(w, NULL, 0, Z_FINISH, err);
	if (st != EV_OK)
		return st;
	unsigned char *tar = NULL;
	size_t tar_len = 0;
	if ((st = render_seal_entry(seal_json, len, &tar, &tar_len, err)) != EV_OK)
		return st;
	st = w->compression == EV_COMPRESS_ZSTD ? place_seal_zstd(w, tar, tar_len, err)
						: place_seal_gzip(w, tar, tar_len, err);
	free(tar);
	if (st == EV_OK)
		w->total_bytes = w->reserve + w->stream_bytes;
	return st;
}

int ev_archive_writer_level(const struct ev_archive_writer *w)
{
	return w->level;
}

uint64_t ev_archive_writer_size(const struct ev_archive_writer *w)
{
	return w->total_bytes ? w->total_bytes : w->reserve + w->stream_bytes;
}

void ev_archive_writer_free(struct ev_archive_writer *w)
{
	if (!w)
		return;
	/* Freed without a finish (an error, a signal): the archive is thrown
	 * away. libarchive's close would pad the member being written to its
	 * declared size (gigabytes of zeros, compressed, after the user asked
	 * to stop): the first block it writes is refused instead, which ends
	 * the close at once. (archive_write_fail would skip the close but
	 * leaks the client filter's state.) */
	if (w->tar) {
		w->discarding = !w->closed;
		archive_write_free(w->tar);
	}
	archive_entry_free(w->entry);
	ZSTD_freeCCtx(w->zc);
	if (w->gz_ready)
		deflateEnd(&w->gz);
	if (w->compression == EV_COMPRESS_GZIP && w->stream_fd >= 0)
		close(w->stream_fd);
	free(w->outbuf);
	free(w->display);
	free(w->root);
	free(w);
}
