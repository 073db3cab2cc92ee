#include "config.h"
#include "seal/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/cli.h"
#include "lib/core/json.h"
#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "seal/seal.h"

#define OUTPUT_MODE 0644

void seal_archive_opts_init(struct seal_archive_opts *a)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	*a = (struct seal_archive_opts){.compression = EV_COMPRESS_ZSTD, .threads = cores > 0 ? (int)cores : 1};
}

int seal_archive_opt(struct seal_archive_opts *a, int c, const char *arg, const char *subcommand)
{
	long n;
	switch (c) {
	case 'z': a->compression = EV_COMPRESS_GZIP; return 0;
	case 'l':
		if (ev_cli_parse_long(arg, -7, 19, &n) || n == 0)
			return msg_usage(subcommand, "option --level: expected -7 to -1 or 1 to 19, found '%s'", arg);
		a->level = (int)n;
		return 0;
	case 'J': /* --jobs, as in audit; --threads, its older name */
	case 't':
		if (ev_cli_parse_long(arg, 1, 256, &n))
			return msg_usage(subcommand, "option %s: expected 1-256, found '%s'",
					 c == 'J' ? "--jobs" : "--threads", arg);
		a->threads = (int)n;
		return 0;
	default: return -1;
	}
}

int seal_archive_opts_check(const struct seal_archive_opts *a, const char *subcommand)
{
	if (a->compression == EV_COMPRESS_GZIP && (a->level > 9 || a->level < 0))
		return msg_usage(subcommand, "option --level: gzip takes 1-9, found %d", a->level);
	return 0;
}

ev_status seal_out_begin(struct seal_out *so, const char *outdir, const struct seal_archive_opts *a,
			 const struct ev_seal *seal, struct ev_error *err)
{
	enum ev_compression compression = a->compression;
	memset(so, 0, sizeof *so);
	so->archive.fd = so->archive.dirfd = -1;
	so->seal_file.fd = so->seal_file.dirfd = -1;
	so->receipt_file.fd = so->receipt_file.dirfd = -1;
	so->od.dirfd = so->od.parentfd = -1;
	so->outdir = outdir;
	so->compression = compression;
	ev_status st = ev_seal_serialize(seal, &so->seal_bytes, &so->seal_len, err);
	if (st != EV_OK || (st = ev_outdir_open(&so->od, outdir, err)) != EV_OK)
		return st;
	const char *name = ev_archive_filename(compression);
	if ((st = ev_outfile_openat(&so->archive, so->od.dirfd, name, name, err)) != EV_OK)
		return st;
	return ev_archive_writer_new(&so->writer, so->archive.fd, so->od.dirfd, name, compression,
				     seal->root, so->seal_len, a->threads, a->level, err);
}

static ev_status hash_archive(struct seal_out *so, struct ev_error *err)
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

static ev_status write_receipt(struct seal_out *so, const struct ev_seal *seal, json_t *r,
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
	    (st = ev_receipt_finish(r, err)))
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

ev_status seal_out_finish(struct seal_out *so, const struct ev_seal *seal, json_t *receipt,
			  struct ev_error *err)
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
	if (ev_cli_interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing was written");
	return ev_outdir_commit(&so->od, 0755, err);
}

void seal_out_free(struct seal_out *so)
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

void seal_out_print(const struct seal_out *so, const struct ev_seal *seal)
{
	char size[32], asize[32];
	ev_format_bytes(seal->bytes, size, sizeof size);
	ev_format_bytes(ev_archive_writer_size(so->writer), asize, sizeof asize);
	printf("sealed %s: %llu files, %llu dirs, %s into %s\n", seal->root,
	       (unsigned long long)seal->files, (unsigned long long)seal->dirs, size, so->outdir);
	printf("  %-16s sha256 %s\n", EV_SEAL_FILENAME, so->seal_hex);
	printf("  %-16s sha256 %s (%s)\n", ev_archive_filename(so->compression), so->archive_hex, asize);
}
