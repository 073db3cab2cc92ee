/* SPDX-License-Identifier: Apache-2.0 */
/* archive_writer: the evidence archive (doc/formats.md "Archive"), written in
 * one pass while the members are read.
 *
 * Layout: a POSIX pax tar stream whose first member is SEAL.json, then
 * ROOT/<member path> for every member in seal order; uid/gid 0, no user or
 * group names, mtime fixed at EV_ARCHIVE_MTIME, modes exactly as sealed;
 * compressed with zstd (default) or gzip.
 *
 * SEAL.json comes first but can only be written once every member has been
 * hashed, so the member stream is compressed as it is produced and the seal
 * is placed in front at the end:
 *  - zstd: a region at the start of the file is reserved, large enough for
 *    the compressed SEAL.json entry whatever its digests (its length is
 *    known from the member list alone). The entry is written there as its
 *    own zstd frame and the rest of the region is a zstd *skippable frame*
 *    (part of the zstd format, ignored by every decoder). The member stream
 *    is compressed in multi-threaded mode with a fixed job size, always,
 *    because libzstd's output is the same for any number of workers >= 1
 *    but differs in single-thread mode.
 *  - gzip: the member stream goes to an unnamed temporary file and is
 *    copied after the SEAL.json gzip member (concatenated gzip members are
 *    one gzip stream).
 * The same members, modes and bytes always give the same archive bytes.
 *
 * Built on libarchive (tar), libzstd and zlib. One writer per thread.
 */
#ifndef EV_ARCHIVE_WRITER_H
#define EV_ARCHIVE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/archive/seal.h"
#include "lib/core/status.h"

#define EV_ARCHIVE_MTIME 946684800 /* 2000-01-01T00:00:00Z: old tools warn on 0 */
#define EV_ARCHIVE_ZSTD_JOB_SIZE ((size_t)4 << 20)
#define EV_ARCHIVE_ZSTD_LEVEL 1 /* bench/seal: faster than 3 and no larger on campaign data */
#define EV_ARCHIVE_GZIP_LEVEL 6

enum ev_compression { EV_COMPRESS_ZSTD, EV_COMPRESS_GZIP };

struct ev_archive_writer;

/* Start writing the archive to out_fd (an empty file open for writing,
 * positioned at 0; the writer does not close it). tmp_dirfd is a directory
 * on the same file system for gzip's unnamed temporary file. root is the
 * archive's top directory name. seal_json_len is the exact length of the
 * SEAL.json that will be passed to ev_archive_writer_finish (digests do not
 * change it). threads >= 1 sets the zstd workers (gzip ignores it). level
 * is the compression level, 0 for the default. display names the file in
 * errors. */
ev_status ev_archive_writer_new(struct ev_archive_writer **out, int out_fd, int tmp_dirfd,
				const char *display,
				enum ev_compression compression, const char *root,
				size_t seal_json_len, int threads, int level,
				struct ev_error *err);

/* Begin a member: a header for ROOT/path with its type, mode and size. */
ev_status ev_archive_writer_begin(struct ev_archive_writer *w, const struct ev_member *m,
				  struct ev_error *err);

/* Append content of the current file member (exactly its size in total). */
ev_status ev_archive_writer_data(struct ev_archive_writer *w, const void *buf, size_t len,
				 struct ev_error *err);

/* End the member stream, put the SEAL.json entry in front, flush.
 * seal_json_len bytes exactly, as announced to ev_archive_writer_new. */
ev_status ev_archive_writer_finish(struct ev_archive_writer *w, const char *seal_json,
				   size_t len, struct ev_error *err);

/* The compression level in effect (the default when 0 was asked for). */
int ev_archive_writer_level(const struct ev_archive_writer *w);

/* Compressed bytes written so far (the whole archive after finish). */
uint64_t ev_archive_writer_size(const struct ev_archive_writer *w);

/* Free the writer; NULL is accepted. Does not close out_fd. */
void ev_archive_writer_free(struct ev_archive_writer *w);

/* "zstd" or "gzip"; archive file name for it. */
const char *ev_compression_name(enum ev_compression c);
const char *ev_archive_filename(enum ev_compression c);

#endif
