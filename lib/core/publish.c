/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/stop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Who is told of each publication: the process's one observer (lib/cli's
 * catalog hook), set before any thread starts. */
static ev_publish_observer observer;
static void *observer_ctx;

void ev_publish_observe(ev_publish_observer fn, void *ctx)
{
	observer = fn;
	observer_ctx = ctx;
}

static void announce(int dirfd, const char *name)
{
	if (!observer)
		return;
	char dir[PATH_MAX], link[64], path[PATH_MAX * 2];
	ssize_t n;
	if (name[0] == '/') {
		observer(name, observer_ctx);
		return;
	}
	snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
	if (dirfd == AT_FDCWD ? !getcwd(dir, sizeof dir) : (n = readlink(link, dir, sizeof dir - 1)) < 0)
		return;
	if (dirfd != AT_FDCWD)
		dir[n] = '\0';
	if (ev_path_join(path, sizeof path, dir, name) == 0) /* PATH_MAX twice: always, in practice */
		observer(path, observer_ctx);
}

static mode_t current_umask(void)
{
	/* umask(2) can only be read by setting it; done once per output, not on
	 * a hot path, and put back at once. */
	mode_t m = umask(022);
	umask(m);
	return m;
}

ev_status ev_write_all(int fd, const void *buf, size_t len, const char *name,
		       struct ev_error *err)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ev_error_errno(err, errno, "%s: write failed", name);
		}
		p += n;
		len -= (size_t)n;
	}
	return EV_OK;
}

/* What became of an output whose directory could not be synced, after
 * the error that says why. */
static void append(struct ev_error *err, const char *what)
{
	size_t n = strlen(err->text);
	snprintf(err->text + n, sizeof err->text - n, "%s", what);
}

ev_status ev_fsync_dir(int dirfd, const char *name, struct ev_error *err)
{
	if (fsync(dirfd) != 0 && errno != EINVAL)
		return ev_error_errno(err, errno, "%s: fsync of directory failed", name);
	return EV_OK;
}

/* Move tmp to final inside dirfd, failing with EEXIST rather than replacing. */
static int rename_noreplace(int dirfd, const char *tmp, const char *final)
{
	if (renameat2(dirfd, tmp, dirfd, final, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* The file system cannot rename without replacing: link(2) never
	 * replaces, then the temporary name goes. (Not for directories.) */
	if (linkat(dirfd, tmp, dirfd, final, 0) != 0)
		return -1;
	unlinkat(dirfd, tmp, 0);
	return 0;
}

/* Split path into a directory (opened) and a final component. */
static ev_status open_parent(const char *path, int *dirfd, char **base, struct ev_error *err)
{
	char *a = strdup(path), *b = strdup(path);
	ev_status st = EV_OK;
	if (!a || !b) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", path);
		goto out;
	}
	const char *dir = dirname(a);
	const char *name = basename(b);
	if (!*name || strcmp(name, "/") == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		st = ev_error_set(err, EV_USAGE, "%s: not a usable output name", path);
		goto out;
	}
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		st = ev_error_errno(err, errno, "%s: cannot open the directory that should hold it (%s)",
				    path, dir);
		goto out;
	}
	*base = strdup(name);
	if (!*base) {
		close(*dirfd);
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", path);
	}
out:
	free(a);
	free(b);
	return st;
}

/* Replace the six bytes at suffix with random letters and digits. */
static void randomize_suffix(char *suffix)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		for (size_t i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)(rand() ^ getpid());
	for (size_t i = 0; i < sizeof r; i++)
		suffix[i] = alphabet[r[i] % 36];
}

static char *make_tmp_template(const char *final_name)
{
	size_t n = strlen(final_name) + 16;
	char *t = malloc(n);
	if (t)
		snprintf(t, n, ".%s.tmp-XXXXXX", final_name);
	return t;
}

static ev_status refuse_existing(int dirfd, const char *name, const char *display,
				 struct ev_error *err)
{
	struct stat sb;
	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: already exists; evidence is never overwritten (choose a new name)",
				    display);
	if (errno != ENOENT)
		return ev_error_errno(err, errno, "%s: cannot check whether it exists", display);
	return EV_OK;
}

ev_status ev_outfile_openat(struct ev_outfile *of, int dirfd, const char *name,
			    const char *display, struct ev_error *err)
{
	memset(of, 0, sizeof *of);
	of->fd = -1;
	of->dirfd = -1;
	ev_status st = refuse_existing(dirfd, name, display, err);
	if (st != EV_OK)
		return st;
	of->dirfd = dup(dirfd);
	of->final_name = strdup(name);
	of->display = strdup(display);
	of->tmp_name = make_tmp_template(name);
	if (of->dirfd < 0 || !of->final_name || !of->display || !of->tmp_name) {
		ev_outfile_abort(of);
		return ev_error_set(err, EV_ERROR, "%s: out of memory or descriptors", display);
	}
	/* mkostemp(3) wants a path; names are tried here relative to dirfd so
	 * that the directory cannot be swapped between the check and the create. */
	size_t n = strlen(of->tmp_name);
	for (int attempt = 0; attempt < 100; attempt++) {
		randomize_suffix(of->tmp_name + n - 6);
		of->fd = openat(of->dirfd, of->tmp_name,
				O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (of->fd >= 0)
			return EV_OK;
		if (errno != EEXIST)
			break;
	}
	st = ev_error_errno(err, errno, "%s: cannot create a temporary file beside it", display);
	free(of->tmp_name);
	of->tmp_name = NULL;
	ev_outfile_abort(of);
	return st;
}

ev_status ev_outfile_open(struct ev_outfile *of, const char *path, struct ev_error *err)
{
	int dirfd = -1;
	char *base = NULL;
	memset(of, 0, sizeof *of);
	of->fd = -1;
	of->dirfd = -1;
	ev_status st = open_parent(path, &dirfd, &base, err);
	if (st != EV_OK)
		return st;
	st = ev_outfile_openat(of, dirfd, base, path, err);
	close(dirfd);
	free(base);
	return st;
}

ev_status ev_outfile_write(struct ev_outfile *of, const void *buf, size_t len,
			   struct ev_error *err)
{
	return ev_write_all(of->fd, buf, len, of->display, err);
}

static void outfile_free(struct ev_outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->final_name);
	free(of->tmp_name);
	free(of->display);
	memset(of, 0, sizeof *of);
	of->fd = -1;
	of->dirfd = -1;
}

ev_status ev_outfile_commit(struct ev_outfile *of, mode_t mode, struct ev_error *err)
{
	ev_status st = EV_OK;
	if (fchmod(of->fd, mode & ~current_umask()) != 0)
		st = ev_error_errno(err, errno, "%s: cannot set mode", of->display);
	else if (fsync(of->fd) != 0)
		st = ev_error_errno(err, errno, "%s: fsync failed", of->display);
	else if (close(of->fd) != 0) {
		of->fd = -1;
		st = ev_error_errno(err, errno, "%s: close failed", of->display);
	}
	of->fd = -1;
	/* the last moment a signal can keep the file from its name: a
	 * signal that came while the bytes were written or synced wins */
	if (st == EV_OK && ev_stop_requested())
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed, not published",
				  of->display);
	if (st == EV_OK && rename_noreplace(of->dirfd, of->tmp_name, of->final_name) != 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			st = ev_error_set(err, EV_REFUSED,
					  "%s: appeared while it was being written; left as it is, "
					  "nothing replaced",
					  of->display);
		else
			st = ev_error_errno(err, errno, "%s: cannot move into place", of->display);
	}
	if (st != EV_OK) {
		ev_outfile_abort(of);
		return st;
	}
	free(of->tmp_name);
	of->tmp_name = NULL;
	st = ev_fsync_dir(of->dirfd, of->display, err);
	if (st == EV_OK) {
		announce(of->dirfd, of->final_name);
	} else if (unlinkat(of->dirfd, of->final_name, 0) == 0) {
		/* its name may not survive a crash: a file claimed and then lost
		 * is worse than one refused now */
		append(err, "; taken back out of place: nothing is published");
	} else {
		append(err, "; it is in place but not known to survive a crash (removing it failed): do not trust it");
	}
	outfile_free(of);
	return st;
}

ev_status ev_publish_at(int dirfd, const char *tmp_name, const char *final_name,
			const char *display, struct ev_error *err)
{
	if (rename_noreplace(dirfd, tmp_name, final_name) != 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			return ev_error_set(err, EV_REFUSED,
					    "%s: appeared while it was being written; left as it is, "
					    "nothing replaced",
					    display);
		return ev_error_errno(err, errno, "%s: cannot move into place", display);
	}
	ev_status st = ev_fsync_dir(dirfd, display, err);
	char back[PATH_MAX + 64];
	if (st == EV_OK) {
		announce(dirfd, final_name);
	} else if (rename_noreplace(dirfd, final_name, tmp_name) == 0) {
		/* as ev_outfile_commit: not claimed where a crash may lose it; the
		 * caller's temporary keeps the bytes (receive resumes from it) */
		snprintf(back, sizeof back, "; taken back out of place, to %s: nothing is published", tmp_name);
		append(err, back);
	} else {
		append(err, "; it is in place but not known to survive a crash (taking it back failed): do not trust it");
	}
	return st;
}

void ev_outfile_abort(struct ev_outfile *of)
{
	if (of->tmp_name && of->dirfd >= 0)
		unlinkat(of->dirfd, of->tmp_name, 0);
	outfile_free(of);
}

ev_status ev_publish_json(const char *path, const json_t *doc, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_json_dump(doc, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_publish_bytes(path, bytes, len, 0644, err);
	free(bytes);
	return st;
}

ev_status ev_publish_bytes(const char *path, const void *buf, size_t len, mode_t mode,
			   struct ev_error *err)
{
	struct ev_outfile of;
	ev_status st = ev_outfile_open(&of, path, err);
	if (st != EV_OK)
		return st;
	if ((st = ev_outfile_write(&of, buf, len, err)) != EV_OK) {
		ev_outfile_abort(&of);
		return st;
	}
	return ev_outfile_commit(&of, mode, err);
}

static void outdir_free(struct ev_outdir *od)
{
	if (od->dirfd >= 0)
		close(od->dirfd);
	if (od->parentfd >= 0)
		close(od->parentfd);
	free(od->final_name);
	free(od->tmp_name);
	free(od->display);
	memset(od, 0, sizeof *od);
	od->dirfd = -1;
	od->parentfd = -1;
}

ev_status ev_outdir_open(struct ev_outdir *od, const char *path, struct ev_error *err)
{
	memset(od, 0, sizeof *od);
	od->dirfd = -1;
	od->parentfd = -1;
	ev_status st = open_parent(path, &od->parentfd, &od->final_name, err);
	if (st != EV_OK)
		return st;
	od->display = strdup(path);
	od->tmp_name = make_tmp_template(od->final_name);
	if (!od->display || !od->tmp_name) {
		outdir_free(od);
		return ev_error_set(err, EV_ERROR, "%s: out of memory", path);
	}
	if ((st = refuse_existing(od->parentfd, od->final_name, path, err)) != EV_OK) {
		outdir_free(od);
		return st;
	}
	size_t n = strlen(od->tmp_name);
	for (int attempt = 0; attempt < 100; attempt++) {
		randomize_suffix(od->tmp_name + n - 6);
		if (mkdirat(od->parentfd, od->tmp_name, 0700) == 0) {
			od->dirfd = openat(od->parentfd, od->tmp_name,
					   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (od->dirfd >= 0)
				return EV_OK;
			st = ev_error_errno(err, errno, "%s: cannot open the temporary directory",
					    path);
			unlinkat(od->parentfd, od->tmp_name, AT_REMOVEDIR);
			outdir_free(od);
			return st;
		}
		if (errno != EEXIST)
			break;
	}
	st = ev_error_errno(err, errno, "%s: cannot create a temporary directory beside it", path);
	outdir_free(od);
	return st;
}

ev_status ev_outdir_commit(struct ev_outdir *od, mode_t mode, struct ev_error *err)
{
	ev_status st = EV_OK;
	if (fchmod(od->dirfd, mode & ~current_umask()) != 0)
		st = ev_error_errno(err, errno, "%s: cannot set mode", od->display);
	else
		st = ev_fsync_dir(od->dirfd, od->display, err);
	if (st == EV_OK &&
	    renameat2(od->parentfd, od->tmp_name, od->parentfd, od->final_name,
		      RENAME_NOREPLACE) != 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			st = ev_error_set(err, EV_REFUSED,
					  "%s: appeared while the outputs were being written; left as "
					  "it is, nothing replaced",
					  od->display);
		else
			st = ev_error_errno(err, errno, "%s: cannot move the outputs into place",
					    od->display);
	}
	if (st != EV_OK) {
		ev_outdir_abort(od);
		return st;
	}
	st = ev_fsync_dir(od->parentfd, od->display, err);
	if (st == EV_OK) {
		announce(od->parentfd, od->final_name);
		outdir_free(od);
		return st;
	}
	/* its entry may not survive a crash: the outputs go back under their
	 * temporary name and are removed, as if never moved */
	if (renameat2(od->parentfd, od->final_name, od->parentfd, od->tmp_name, RENAME_NOREPLACE) == 0) {
		append(err, "; taken back out of place: nothing is published");
		ev_outdir_abort(od);
	} else {
		append(err, "; it is in place but not known to survive a crash (moving it back failed): do not trust it");
		outdir_free(od);
	}
	return st;
}

void ev_outdir_abort(struct ev_outdir *od)
{
	if (od->tmp_name && od->parentfd >= 0 && od->dirfd >= 0) {
		/* Only plain files we wrote ourselves live here. */
		int fd = dup(od->dirfd);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (d) {
			struct dirent *e;
			while ((e = readdir(d)) != NULL)
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					unlinkat(od->dirfd, e->d_name, 0);
			closedir(d);
		} else if (fd >= 0) {
			close(fd);
		}
		unlinkat(od->parentfd, od->tmp_name, AT_REMOVEDIR);
	}
	outdir_free(od);
}

#define FRESH_NAME_TRIES 1000

ev_status ev_publish_fresh(const char *dir, const char *stem, const char *ext, const void *buf,
			   size_t len, mode_t mode, char *path_out, size_t cap, struct ev_error *err)
{
	for (int n = 1; n <= FRESH_NAME_TRIES; n++) {
		int w = n == 1 ? snprintf(path_out, cap, "%s/%s.%s", dir, stem, ext)
			       : snprintf(path_out, cap, "%s/%s-%d.%s", dir, stem, n, ext);
		if (w < 0 || (size_t)w >= cap)
			return ev_error_set(err, EV_USAGE, "%s/%s.%s: path too long", dir, stem, ext);
		struct ev_error attempt;
		ev_error_clear(&attempt);
		ev_status one = ev_publish_bytes(path_out, buf, len, mode, &attempt);
		if (one == EV_OK)
			return EV_OK;
		if (one != EV_REFUSED || n == FRESH_NAME_TRIES)
			return ev_error_set(err, one, "%s", attempt.text);
	}
	return EV_OK;
}
