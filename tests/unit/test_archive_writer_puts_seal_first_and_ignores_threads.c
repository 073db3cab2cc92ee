/* SPDX-License-Identifier: Apache-2.0 */
/* The archive writer puts SEAL.json first in its own zstd frame, pads the
 * reserved region with one skippable frame, gives the same bytes for any
 * number of threads, and the checker accepts what it wrote (zstd and gzip)
 * and names a member whose seal entry disagrees. */
#include "config.h"

#define ZSTD_STATIC_LINKING_ONLY
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "check.h"
#include "lib/archive/archive_reader.h"
#include "lib/archive/archive_writer.h"
#include "lib/core/json.h"

static const char content[] = "8=FIXT.1.1\0019=5\00135=D\00110=000\001";

static void make_seal(struct ev_seal *s)
{
	struct ev_error err;
	ev_error_clear(&err);
	ev_seal_init(s);
	s->root = strdup("campaign");
	s->count = 2;
	s->members = calloc(2, sizeof *s->members);
	s->members[0] = (struct ev_member){.path = strdup("runs"), .type = EV_MEMBER_DIR, .mode = 0755};
	s->members[1] = (struct ev_member){.path = strdup("runs/1.bin"), .type = EV_MEMBER_FILE,
					  .mode = 0600, .size = sizeof content - 1};
	ev_sha256_buffer(content, sizeof content - 1, s->members[1].sha256, &err);
	ev_seal_finish(s);
}

/* Write an archive of the seal to path. @return its size, or -1. */
static long write_archive(const char *dir, const char *path, enum ev_compression c, int threads,
			  const struct ev_seal *s, const char *json, size_t len)
{
	struct ev_error err;
	ev_error_clear(&err);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct ev_archive_writer *w = NULL;
	ev_status st = ev_archive_writer_new(&w, fd, dirfd, path, c, s->root, len, threads, 0, &err);
	for (size_t i = 0; st == EV_OK && i < s->count; i++) {
		st = ev_archive_writer_begin(w, &s->members[i], &err);
		if (st == EV_OK && s->members[i].type == EV_MEMBER_FILE)
			st = ev_archive_writer_data(w, content, sizeof content - 1, &err);
	}
	if (st == EV_OK)
		st = ev_archive_writer_finish(w, json, len, &err);
	long size = st == EV_OK ? (long)ev_archive_writer_size(w) : -1;
	if (st != EV_OK)
		fprintf(stderr, "writer: %s\n", err.text);
	ev_archive_writer_free(w);
	close(fd);
	close(dirfd);
	return size;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	char *bytes = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	ev_file_read_all(path, 1 << 24, &bytes, len, &err);
	return (unsigned char *)bytes;
}

static unsigned findings;
static char last_subject[256], last_check[64];

static void note(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	findings++;
	snprintf(last_subject, sizeof last_subject, "%s", f->subject);
	snprintf(last_check, sizeof last_check, "%s", f->check);
}

int main(void)
{
	char dir[] = "/tmp/test_archive.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char one[300], three[300], gz[300];
	snprintf(one, sizeof one, "%s/one.tar.zst", dir);
	snprintf(three, sizeof three, "%s/three.tar.zst", dir);
	snprintf(gz, sizeof gz, "%s/a.tar.gz", dir);
	struct ev_seal s;
	make_seal(&s);
	char *json = NULL;
	size_t len = 0;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_seal_serialize(&s, &json, &len, &err), EV_OK);

	long n1 = write_archive(dir, one, EV_COMPRESS_ZSTD, 1, &s, json, len);
	long n3 = write_archive(dir, three, EV_COMPRESS_ZSTD, 3, &s, json, len);
	CHECK(n1 > 0);
	CHECK_INT_EQ(n1, n3);
	size_t l1 = 0, l3 = 0;
	unsigned char *b1 = slurp(one, &l1), *b3 = slurp(three, &l3);
	CHECK_INT_EQ(l1, (size_t)n1);
	CHECK(l1 == l3 && memcmp(b1, b3, l1) == 0);

	/* Frame 1: SEAL.json's entry; frame 2: the skippable pad; then members. */
	size_t f1 = ZSTD_findFrameCompressedSize(b1, l1);
	CHECK(!ZSTD_isError(f1));
	CHECK(!ZSTD_isSkippableFrame(b1, l1));
	CHECK(f1 < l1 && ZSTD_isSkippableFrame(b1 + f1, l1 - f1));
	static char head[1 << 16];
	size_t got = ZSTD_decompress(head, sizeof head, b1, f1);
	CHECK(!ZSTD_isError(got) && got >= 512 + len && got % 512 == 0);
	CHECK_STR_EQ(head, "SEAL.json"); /* the tar header's name field */
	CHECK(memcmp(head + 512, json, len) == 0);
	size_t f2 = ZSTD_findFrameCompressedSize(b1 + f1, l1 - f1);
	CHECK(!ZSTD_isError(f2) && f1 + f2 < l1);
	free(b1);
	free(b3);

	struct ev_archive_check res;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_archive_check(one, &s, json, len, note, NULL, NULL, NULL, &res, &err), EV_OK);
	CHECK_INT_EQ(findings, 0);
	CHECK_INT_EQ(res.members_checked, 2);
	CHECK_INT_EQ(res.archive_bytes, (uint64_t)n1);

	CHECK(write_archive(dir, gz, EV_COMPRESS_GZIP, 2, &s, json, len) > 0);
	CHECK_INT_EQ(ev_archive_check(gz, &s, json, len, note, NULL, NULL, NULL, &res, &err), EV_OK);
	CHECK_INT_EQ(findings, 0);

	/* The same archive against a seal whose file mode differs. */
	s.members[1].mode = 0644;
	char *json2 = NULL;
	size_t len2 = 0;
	ev_seal_serialize(&s, &json2, &len2, &err);
	CHECK_INT_EQ(ev_archive_check(one, &s, json2, len2, note, NULL, NULL, NULL, &res, &err), EV_MISMATCH);
	CHECK_INT_EQ(findings, 2); /* the embedded SEAL.json, then the member */
	CHECK_STR_EQ(last_subject, "runs/1.bin");
	CHECK_STR_EQ(last_check, "mode");

	free(json);
	free(json2);
	ev_seal_free(&s);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return check_exit("test_archive_writer_puts_seal_first_and_ignores_threads");
}
