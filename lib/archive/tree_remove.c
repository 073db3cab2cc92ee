/* SPDX-License-Identifier: Apache-2.0 */
/* tree_remove: see tree_remove.h for what "provably unchanged" means. */
#include "config.h"

#include "lib/archive/tree_remove.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/sha256.h"

struct removal {
	const struct ev_tree *tree;
	const struct ev_seal *expected;
	struct timespec recent;       /* change times from here on are rehashed */
	ev_finding_fn on_kept;
	void *ctx;
	struct ev_tree_removal *out;
	unsigned char *holds_kept;    /* per entry: a directory something kept is in */
	volatile sig_atomic_t *interrupted;
};

static int ts_equal(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int by_path(const void *key, const void *entry)
{
	return strcmp(key, ((const struct ev_tree_entry *)entry)->m.path);
}

/* Entry i stays: so do the directories above it. */
static void keep(struct removal *r, size_t i)
{
	r->out->kept++;
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", r->tree->entries[i].m.path);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	const struct ev_tree_entry *p = bsearch(parent, r->tree->entries, r->tree->count,
						sizeof *r->tree->entries, by_path);
	if (p)
		r->holds_kept[p - r->tree->entries] = 1;
}

static void keep_because(struct removal *r, size_t i, const char *check, const char *message,
			 const char *expected, const char *found)
{
	keep(r, i);
	ev_finding_emit(r->on_kept, r->ctx, r->tree->entries[i].m.path, check, message, expected, found);
}

static void utc(const struct timespec *t, char *buf, size_t cap)
{
	struct tm tm;
	char day[32] = "?";
	if (gmtime_r(&t->tv_sec, &tm))
		strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%09ldZ", day, (long)t->tv_nsec);
}

static void describe(char *buf, size_t cap, ino_t ino, uint64_t size, const struct timespec *mtime,
		     const struct timespec *ctime)
{
	char m[64], c[64];
	utc(mtime, m, sizeof m);
	utc(ctime, c, sizeof c);
	snprintf(buf, cap, "inode %llu, %llu bytes, modified %s, changed %s", (unsigned long long)ino,
		 (unsigned long long)size, m, c);
}

/* The file at dfd/base, entry i: removed, kept, or an error. */
static ev_status remove_file(struct removal *r, size_t i, int dfd, const char *base,
			     struct ev_error *err)
{
	const struct ev_tree_entry *e = &r->tree->entries[i];
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			keep_because(r, i, "changed", "is no longer where it was checked; another process "
				     "moved or removed it", NULL, NULL);
			return EV_OK;
		}
		if (errno == ELOOP || errno == ENXIO) {
			keep_because(r, i, "changed", "was replaced by a link or a special file after it "
				     "was checked; kept", "regular file", NULL);
			return EV_OK;
		}
		return ev_error_errno(err, errno, "%s: cannot open it to prove it unchanged", e->m.path);
	}
	struct stat sb;
	char want[200], have[200];
	if (fstat(fd, &sb) != 0) {
		int saved = errno;
		close(fd);
		return ev_error_errno(err, saved, "%s: cannot stat", e->m.path);
	}
	if (!S_ISREG(sb.st_mode) || sb.st_ino != e->ino || sb.st_dev != e->dev ||
	    (uint64_t)sb.st_size != e->m.size || !ts_equal(&sb.st_mtim, &e->mtime) ||
	    !ts_equal(&sb.st_ctim, &e->ctime)) {
		describe(want, sizeof want, e->ino, e->m.size, &e->mtime, &e->ctime);
		describe(have, sizeof have, sb.st_ino, (uint64_t)sb.st_size, &sb.st_mtim, &sb.st_ctim);
		close(fd);
		keep_because(r, i, "changed", "was written to or replaced after it was checked; kept",
			     want, have);
		return EV_OK;
	}
	int leased = fcntl(fd, F_SETLEASE, F_WRLCK) == 0;
	if (!leased) {
		if (errno == EAGAIN || errno == EBUSY) {
			close(fd);
			keep_because(r, i, "open",
				     "is open in another process, which could still write to it; kept "
				     "(fuser or lsof names the process)",
				     NULL, NULL);
			return EV_OK;
		}
		if (!r->out->unleased++)
			snprintf(r->out->unleased_why, sizeof r->out->unleased_why, "%s", strerror(errno));
	}
	if (!ts_before(&sb.st_ctim, &r->recent)) {
		long m = ev_seal_find(r->expected, e->m.path);
		uint8_t digest[EV_SHA256_LEN];
		uint64_t size = 0;
		ev_status st = ev_sha256_fd_until(fd, e->m.path, digest, &size, r->interrupted, err);
		if (st != EV_OK) {
			close(fd);
			return st;
		}
		r->out->rehashed++;
		struct stat after;
		if (m < 0 || size != e->m.size ||
		    memcmp(digest, r->expected->members[m].sha256, EV_SHA256_LEN) != 0 ||
		    fstat(fd, &after) != 0 || !ts_equal(&after.st_ctim, &e->ctime)) {
			char hex[EV_SHA256_HEX_LEN + 1], sealed[EV_SHA256_HEX_LEN + 1] = "";
			ev_sha256_hex(digest, hex);
			if (m >= 0)
				ev_sha256_hex(r->expected->members[m].sha256, sealed);
			close(fd);
			keep_because(r, i, "changed",
				     "its content changed after it was checked (it was written to within "
				     "the same clock tick); kept",
				     sealed, hex);
			return EV_OK;
		}
	}
	if (leased && fcntl(fd, F_GETLEASE) != F_WRLCK) {
		close(fd);
		keep_because(r, i, "open", "another process began to open it while it was being "
			     "removed; kept", NULL, NULL);
		return EV_OK;
	}
	if (unlinkat(dfd, base, 0) != 0) {
		int saved = errno;
		close(fd);
		return ev_error_errno(err, saved, "%s: cannot remove", e->m.path);
	}
	/* An opener that found the name just before it went waits on the
	 * lease and gets the file without a name: nothing can give it one
	 * back, so it is said. */
	int raced = leased && fcntl(fd, F_GETLEASE) != F_WRLCK;
	close(fd);
	r->out->removed[i] = 1;
	if (raced)
		ev_finding_emit(r->on_kept, r->ctx, e->m.path, "open",
				"another process opened it at the moment it was removed: its bytes up to "
				"then matched the seal, what it writes now goes to a file without a name",
				NULL, NULL);
	return EV_OK;
}

static ev_status remove_other(struct removal *r, size_t i, int dfd, const char *base,
			      struct ev_error *err)
{
	const struct ev_tree_entry *e = &r->tree->entries[i];
	struct stat sb;
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT) {
			keep_because(r, i, "changed", "is no longer where it was checked; another process "
				     "moved or removed it", NULL, NULL);
			return EV_OK;
		}
		return ev_error_errno(err, errno, "%s: cannot stat", e->m.path);
	}
	if (sb.st_ino != e->ino || sb.st_dev != e->dev) {
		keep_because(r, i, "changed", "was replaced after it was checked; kept", NULL, NULL);
		return EV_OK;
	}
	int dir = S_ISDIR(sb.st_mode);
	if (unlinkat(dfd, base, dir ? AT_REMOVEDIR : 0) == 0) {
		r->out->removed[i] = 1;
		return EV_OK;
	}
	if (dir && (errno == ENOTEMPTY || errno == EEXIST)) {
		if (r->holds_kept[i])
			keep(r, i);
		else
			keep_because(r, i, "added", "holds entries that were not there when it was "
				     "checked; kept with them", NULL, NULL);
		return EV_OK;
	}
	return ev_error_errno(err, errno, "%s: cannot remove", e->m.path);
}

ev_status ev_tree_remove_unchanged(const struct ev_tree *tree, const struct ev_seal *expected,
				   const struct timespec *scanned_at, ev_finding_fn on_kept, void *ctx,
				   struct ev_tree_removal *out, volatile sig_atomic_t *interrupted,
				   struct ev_error *err)
{
	struct removal r = {
		.tree = tree,
		.expected = expected,
		.recent = {scanned_at->tv_sec - EV_TREE_REMOVE_CTIME_SLACK_SEC, scanned_at->tv_nsec},
		.on_kept = on_kept,
		.ctx = ctx,
		.out = out,
		.interrupted = interrupted,
	};
	out->kept = out->rehashed = out->unleased = 0;
	out->unleased_why[0] = '\0';
	memset(out->removed, 0, tree->count);
	if (tree->count && !(r.holds_kept = calloc(tree->count, 1)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	/* A lease break is told with SIGIO, whose default ends the process;
	 * the break is read from F_GETLEASE instead. */
	struct sigaction ignore = {.sa_handler = SIG_IGN}, saved_sigio;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGIO, &ignore, &saved_sigio);
	ev_status st = EV_OK;
	for (size_t i = tree->count; i-- > 0 && st == EV_OK;) {
		if (interrupted && *interrupted) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal");
			break;
		}
		const struct ev_tree_entry *e = &tree->entries[i];
		const char *base;
		int dfd = ev_tree_open_parent(tree, e->m.path, &base);
		if (dfd < 0) {
			st = ev_error_errno(err, errno, "%s: cannot open the directory that holds it",
					    e->m.path);
			break;
		}
		st = e->m.type == EV_MEMBER_FILE ? remove_file(&r, i, dfd, base, err)
						 : remove_other(&r, i, dfd, base, err);
		close(dfd);
	}
	sigaction(SIGIO, &saved_sigio, NULL);
	free(r.holds_kept);
	return st;
}
