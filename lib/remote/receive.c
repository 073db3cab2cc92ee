/* SPDX-License-Identifier: Apache-2.0 */
/* receive: the far end of a push (transport.c is the near one). Stores
 * one file in DIR from the sender's stream, resumably, and publishes it
 * only once it is complete and hashes to the SHA-256 the sender named.
 *
 * The conversation (each line ends in \n; see doc/formats.md):
 *   receiver: "have-final"        DIR/NAME is already that file: nothing to send
 *   receiver: "have K HEX"        K bytes of a previous try are kept in
 *                                 DIR/.NAME.partial, HEX is their SHA-256
 *                                 ("-" when K is 0)
 *   sender:   "from K'"           K' is K (resume: the prefixes agree) or 0
 *   sender:   SIZE - K' bytes, then end of input
 *   receiver: "stored HEX"        published at DIR/NAME
 * Any refusal is an error (replicate receive: on stderr, exit status 2),
 * and nothing is published.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/publish.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/remote/receive.h"

#define COPY_CHUNK ((size_t)1 << 20)
#define LINE_MAX_BYTES 128

struct receiver {
	int in, out;           /* the sender's stream, and the answers to it */
	const char *dir, *name;
	uint64_t size;
	const char *sha;
	char display[4200];
	char partial[300];
	int dirfd, fd;
	unsigned char *buf;
	struct ev_sha256 *hash;
};

static ev_status mkdir_parents(const char *dir, struct ev_error *err)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return ev_error_set(err, EV_ERROR, "%s: path too long", dir);
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return ev_error_errno(err, errno, "%s: cannot create the directory", path);
		*p = saved;
		if (!saved)
			return EV_OK;
	}
}

static ev_status say(const struct receiver *r, const char *line, struct ev_error *err)
{
	return ev_write_all(r->out, line, strlen(line), "the answer to the sender", err);
}

/* Hash the first `bytes` bytes of fd from its start. */
static ev_status hash_prefix(struct receiver *r, uint64_t bytes, struct ev_error *err)
{
	uint64_t done = 0;
	while (done < bytes) {
		size_t want = bytes - done < COPY_CHUNK ? (size_t)(bytes - done) : COPY_CHUNK;
		ssize_t n = pread(r->fd, r->buf, want, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ev_error_errno(err, n < 0 ? errno : EIO, "%s/%s: cannot read it back",
					      r->dir, r->partial);
		if (ev_sha256_update(r->hash, r->buf, (size_t)n, err) != EV_OK)
			return err->status;
		done += (uint64_t)n;
	}
	return EV_OK;
}

/* Read one line from stdin byte by byte: what follows it is file data,
 * which must not be swallowed by a buffer. */
static ev_status read_line(const struct receiver *r, char *line, size_t cap, struct ev_error *err)
{
	int got = ev_fd_read_line(r->in, line, cap);
	if (got == -1)
		return ev_error_set(err, EV_ERROR, "the sender went away before saying where to start");
	if (got == -2)
		return ev_error_set(err, EV_ERROR, "the sender's reply is too long");
	return EV_OK;
}

/* DIR/NAME exists: the same file is accepted, anything else refused. */
static ev_status judge_existing(struct receiver *r, const struct stat *sb, struct ev_error *err)
{
	uint8_t digest[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	uint64_t size = 0;
	int fd = openat(r->dirfd, r->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (!S_ISREG(sb->st_mode) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return ev_error_set(err, EV_REFUSED, "%s: exists and is not a regular file; "
				    "nothing replaced", r->display);
	}
	ev_status st = ev_sha256_fd(fd, r->display, digest, &size, err);
	close(fd);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(digest, hex);
	if (size != r->size || strcmp(hex, r->sha) != 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: already holds a different file (expected %" PRIu64
				    " bytes with sha256 %s, found %" PRIu64 " bytes with sha256 %s); "
				    "evidence is never overwritten: push to a new directory",
				    r->display, r->size, r->sha, size, hex);
	return say(r, "have-final\n", err);
}

static ev_status open_partial(struct receiver *r, uint64_t *kept, struct ev_error *err)
{
	struct stat sb;
	r->fd = openat(r->dirfd, r->partial, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (r->fd < 0)
		return ev_error_errno(err, errno, "%s/%s: cannot open the partial file", r->dir,
				      r->partial);
	if (flock(r->fd, LOCK_EX | LOCK_NB) != 0)
		return ev_error_set(err, EV_REFUSED, "%s: another push to it is in progress; "
				    "try again when it ends", r->display);
	if (fstat(r->fd, &sb) != 0)
		return ev_error_errno(err, errno, "%s/%s: cannot stat", r->dir, r->partial);
	*kept = (uint64_t)sb.st_size;
	if (*kept > r->size) {
		if (ftruncate(r->fd, 0) != 0)
			return ev_error_errno(err, errno, "%s/%s: cannot truncate", r->dir, r->partial);
		*kept = 0;
	}
	return EV_OK;
}

/* Offer what a previous try left and learn where the sender starts. */
static ev_status agree_on_start(struct receiver *r, uint64_t kept, uint64_t *start,
				struct ev_error *err)
{
	char line[LINE_MAX_BYTES + EV_SHA256_HEX_LEN];
	char hex[EV_SHA256_HEX_LEN + 1] = "-";
	ev_status st;
	if (kept) {
		uint8_t digest[EV_SHA256_LEN];
		if ((st = hash_prefix(r, kept, err)) || (st = ev_sha256_peek(r->hash, digest, err)))
			return st;
		ev_sha256_hex(digest, hex);
	}
	snprintf(line, sizeof line, "have %" PRIu64 " %s\n", kept, hex);
	if ((st = say(r, line, err)) || (st = read_line(r, line, sizeof line, err)))
		return st;
	if (strncmp(line, "from ", 5) != 0)
		return ev_error_set(err, EV_ERROR, "the sender's reply is not 'from OFFSET' (found '%.40s')",
				    line);
	char *end;
	errno = 0;
	unsigned long long from = strtoull(line + 5, &end, 10);
	if (errno || *end || (from != 0 && from != kept))
		return ev_error_set(err, EV_ERROR, "the sender asked to start at '%s'; only 0 or %" PRIu64
				    " can be", line + 5, kept);
	if (from == 0 && kept) {
		if (ftruncate(r->fd, 0) != 0)
			return ev_error_errno(err, errno, "%s/%s: cannot truncate", r->dir, r->partial);
		if ((st = ev_sha256_reset(r->hash, err)) != EV_OK)
			return st;
	}
	*start = from;
	return EV_OK;
}

/* Append stdin to the partial file until the file is SIZE bytes long, then
 * expect the end of input. */
static ev_status take_bytes(struct receiver *r, uint64_t start, struct ev_error *err)
{
	uint64_t have = start;
	ev_status st;
	char partial[sizeof r->display + sizeof r->partial];
	snprintf(partial, sizeof partial, "%s/%s", r->dir, r->partial);
	if (lseek(r->fd, (off_t)start, SEEK_SET) < 0)
		return ev_error_errno(err, errno, "%s/%s: cannot seek", r->dir, r->partial);
	while (have < r->size) {
		size_t want = r->size - have < COPY_CHUNK ? (size_t)(r->size - have) : COPY_CHUNK;
		ssize_t n = read(r->in, r->buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ev_error_errno(err, errno, "stdin: read failed");
		if (n == 0) {
			/* Keep what arrived: the next push resumes from it. */
			fsync(r->fd);
			return ev_error_set(err, EV_ERROR,
					    "%s: incomplete: %" PRIu64 " of %" PRIu64 " bytes arrived; "
					    "they are kept in %s/%s and the next push resumes there",
					    r->display, have, r->size, r->dir, r->partial);
		}
		if ((st = ev_write_all(r->fd, r->buf, (size_t)n, partial, err)) ||
		    (st = ev_sha256_update(r->hash, r->buf, (size_t)n, err)))
			return st;
		have += (uint64_t)n;
	}
	ssize_t extra;
	while ((extra = read(STDIN_FILENO, r->buf, 1)) < 0 && errno == EINTR)
		;
	if (extra != 0)
		return ev_error_set(err, EV_ERROR, "%s: the sender sent more than the %" PRIu64
				    " bytes it announced; nothing published", r->display, r->size);
	return EV_OK;
}

static ev_status run_receive(struct receiver *r, struct ev_error *err)
{
	ev_status st;
	struct stat sb;
	uint64_t kept = 0, start = 0;
	if ((st = mkdir_parents(r->dir, err)) != EV_OK)
		return st;
	r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0)
		return ev_error_errno(err, errno, "%s: cannot open the directory", r->dir);
	if (fstatat(r->dirfd, r->name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		return judge_existing(r, &sb, err);
	if (errno != ENOENT)
		return ev_error_errno(err, errno, "%s: cannot check whether it exists", r->display);
	if ((st = open_partial(r, &kept, err)) || (st = agree_on_start(r, kept, &start, err)) ||
	    (st = take_bytes(r, start, err)))
		return st;

	uint8_t digest[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	if ((st = ev_sha256_final(r->hash, digest, err)) != EV_OK)
		return st;
	ev_sha256_hex(digest, hex);
	if (strcmp(hex, r->sha) != 0) {
		unlinkat(r->dirfd, r->partial, 0);
		return ev_error_set(err, EV_ERROR, "%s: the bytes that arrived hash differently "
				    "(expected sha256 %s, found %s); the partial file was removed, "
				    "push again", r->display, r->sha, hex);
	}
	mode_t mask = umask(022);
	umask(mask);
	if (fchmod(r->fd, 0644 & ~mask) != 0 || fsync(r->fd) != 0)
		return ev_error_errno(err, errno, "%s/%s: cannot finish the file", r->dir, r->partial);
	if ((st = ev_publish_at(r->dirfd, r->partial, r->name, r->display, err)) != EV_OK)
		return st;
	char line[LINE_MAX_BYTES];
	snprintf(line, sizeof line, "stored %s\n", hex);
	return say(r, line, err);
}

ev_status ev_receive_file(int in, int out, const char *dir, const char *name, uint64_t size, const char *sha256,
			  struct ev_error *err)
{
	struct receiver r = {.in = in, .out = out, .dir = dir, .name = name, .size = size, .sha = sha256,
			     .dirfd = -1, .fd = -1};
	if (ev_path_component_problem(name, strlen(name)) || name[0] == '.')
		return ev_error_set(err, EV_USAGE, "NAME: expected a plain file name, found '%s'", name);
	if (!ev_sha256_hex_valid(sha256))
		return ev_error_set(err, EV_USAGE, "SHA256: expected 64 lower-case hex digits");
	snprintf(r.display, sizeof r.display, "%s/%s", r.dir, r.name);
	snprintf(r.partial, sizeof r.partial, ".%s.partial", r.name);
	ev_status st = EV_OK;
	r.buf = malloc(COPY_CHUNK);
	r.hash = ev_sha256_new();
	if (!r.buf || !r.hash)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK)
		st = run_receive(&r, err);
	/* The next push offers what is kept by its digest, so bytes a failed
	 * write left wrong are found and sent again. */
	if (st != EV_OK && r.dirfd >= 0 && !strstr(err->text, r.partial) &&
	    faccessat(r.dirfd, r.partial, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		size_t used = strlen(err->text);
		snprintf(err->text + used, sizeof err->text - used, "; what arrived is kept in %s/%s, and the next "
			 "push resumes from it once its digest agrees", r.dir, r.partial);
	}
	if (r.fd >= 0)
		close(r.fd);
	if (r.dirfd >= 0)
		close(r.dirfd);
	free(r.buf);
	ev_sha256_free(r.hash);
	return st;
}
