/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_outdir.h"

#define OUTPUT_MODE 0644

void ev_seal_archive_opts_init(struct ev_seal_archive_opts *a)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	*a = (struct ev_seal_archive_opts){.compression = EV_COMPRESS_ZSTD, .threads = cores > 0 ? (int)cores : 1};
}

ev_status ev_seal_outdir_begin(struct ev_seal_outdir *so, const char *outdir,
			       const struct ev_seal_archive_opts *a, const struct ev_seal *seal,
			       struct ev_error *err)
{
	enum ev_compression compression = a->compression;
	memset(so, 0, sizeof *so);
	so->archive.fd = so->archive.dirfd = -1;
	so->seal_file.fd = so->seal_file.dirfd = -1;
	so->receipt_file.fd = so->receipt_file.dirfd = -1;
	so->od.dirfd = so->od.parentfd = -1;
	so->outdir = outdir;
	so->compression = compression;
	so->sign_key = a->sign_key;
	ev_status st = ev_seal_serialize(seal, &so->seal_bytes, &so->seal_len, err);
	if (st != EV_OK || (st = ev_outdir_open(&so->od, outdir, err)) != EV_OK)
		return st;
	const char *name = ev_archive_filename(compression);
	if ((st = ev_outfile_openat(&so->archive, so->od.dirfd, name, name, err)) != EV_OK)
		return st;
	return ev_archive_writer_new(&so->writer, so->archive.fd, so->od.dirfd, name, compression,
				     seal->root, so->seal_len, a->threads, a->level, err);
}

static ev_status hash_archive(struct ev_seal_outdir *so, struct ev_error *err)
{
	int fd = openat(so->od.dirfd, so->archive.tmp_name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot reopen the archive to hash it",
				      so->archive.display);
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_sha256_fd(fd, so->archive.display, digest, NULL, err);
	close(fd);
	if (st == EV_OK)
		ev_sha256_hex(digest, so->archive_hex);
	return st;
}

static ev_status write_receipt(struct ev_seal_outdir *so, const struct ev_seal *seal, json_t *r,
			       struct ev_error *err)
{
	const char *archive_name = ev_archive_filename(so->compression);
	json_t *totals = json_pack("{s:I, s:I, s:I}", "files", (json_int_t)seal->files, "dirs",
				   (json_int_t)seal->dirs, "bytes", (json_int_t)seal->bytes);
	ev_status st;
	if ((st = ev_receipt_add_output(r, EV_SEAL_FILENAME, NULL, so->seal_hex, err)) ||
	    (st = ev_receipt_add_output(r, archive_name, NULL, so->archive_hex, err)) ||
	    (st = ev_receipt_set_fact(r, "root", json_string(seal->root), err)) ||
	    (st = ev_receipt_set_fact(r, "totals", totals, err)) ||
	    (st = ev_receipt_set_fact(r, "compression", json_string(ev_compression_name(so->compression)), err)) ||
	    (st = ev_receipt_set_fact(r, "compression_level", json_integer(ev_archive_writer_level(so->writer)), err)) ||
	    (st = ev_receipt_set_fact(r, "archive_bytes",
				      json_integer((json_int_t)ev_archive_writer_size(so->writer)), err)) ||
	    (st = ev_receipt_finish_signed(r, so->sign_key, err)))
		return st;
	char *bytes = NULL;
	size_t len = 0;
	if ((st = ev_json_dump(r, &bytes, &len, err)) != EV_OK)
		return st;
	st = ev_outfile_openat(&so->receipt_file, so->od.dirfd, "receipt.json", "receipt.json", err);
	if (st == EV_OK)
		st = ev_outfile_write(&so->receipt_file, bytes, len, err);
	if (st == EV_OK)
		st = ev_outfile_commit(&so->receipt_file, OUTPUT_MODE, err);
	free(bytes);
	return st;
}

ev_status ev_seal_outdir_finish(struct ev_seal_outdir *so, const struct ev_seal *seal, json_t *receipt,
				volatile sig_atomic_t *interrupted, struct ev_error *err)
{
	ev_status st;
	free(so->seal_bytes);
	so->seal_bytes = NULL;
	if ((st = ev_seal_serialize(seal, &so->seal_bytes, &so->seal_len, err)) != EV_OK)
		return st;
	uint8_t digest[EV_SHA256_LEN];
	if ((st = ev_sha256_buffer(so->seal_bytes, so->seal_len, digest, err)) != EV_OK)
		return st;
	ev_sha256_hex(digest, so->seal_hex);
	if ((st = ev_archive_writer_finish(so->writer, so->seal_bytes, so->seal_len, err)) != EV_OK ||
	    (st = hash_archive(so, err)) != EV_OK ||
	    (st = ev_outfile_commit(&so->archive, OUTPUT_MODE, err)) != EV_OK)
		return st;
	if ((st = ev_outfile_openat(&so->seal_file, so->od.dirfd, EV_SEAL_FILENAME, EV_SEAL_FILENAME, err)) ||
	    (st = ev_outfile_write(&so->seal_file, so->seal_bytes, so->seal_len, err)) ||
	    (st = ev_outfile_commit(&so->seal_file, OUTPUT_MODE, err)))
		return st;
	if ((st = write_receipt(so, seal, receipt, err)) != EV_OK)
		return st;
	if (interrupted && *interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing was written");
	return ev_outdir_commit(&so->od, 0755, err);
}

void ev_seal_outdir_free(struct ev_seal_outdir *so)
{
	ev_archive_writer_free(so->writer);
	so->writer = NULL;
	ev_outfile_abort(&so->archive);
	ev_outfile_abort(&so->seal_file);
	ev_outfile_abort(&so->receipt_file);
	if (so->od.tmp_name)
		ev_outdir_abort(&so->od);
	free(so->seal_bytes);
	so->seal_bytes = NULL;
}
