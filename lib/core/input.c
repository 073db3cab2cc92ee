/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/path.h"

const char *ev_input_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "a special file";
	}
}

static int refuse(const char *path, const char *what, unsigned mode, struct ev_error *err)
{
	ev_error_set(err, EV_USAGE, "%s: %s, not a regular file: a %s is read from a file, never waited on",
		     path, ev_input_kind(mode), what);
	return -1;
}

int ev_input_open(const char *path, const char *what, struct ev_error *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		ev_error_errno(err, errno, "%s: cannot open the %s", path, what);
		return -1;
	}
	if (!S_ISREG(sb.st_mode))
		return refuse(path, what, (unsigned)sb.st_mode, err);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ev_error_errno(err, errno, "%s: cannot open the %s", path, what);
		return -1;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) { /* replaced since the stat */
		int saved = errno;
		close(fd);
		if (!S_ISREG(sb.st_mode))
			return refuse(path, what, (unsigned)sb.st_mode, err);
		ev_error_errno(err, saved, "%s: cannot stat the %s", path, what);
		return -1;
	}
	/* a regular file: ordinary blocking reads from here */
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

/* A directory's entries, none a symbolic link. */
static ev_status entries_not_links(int dirfd, const char *where, const char *rel, struct ev_error *err)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return ev_error_errno(err, errno, "%s: '%s': cannot list the directory", where, rel);
	}
	struct dirent *e;
	ev_status st = EV_OK;
	while (st == EV_OK && (e = readdir(d)) != NULL) {
		struct stat sb;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: '%s/%s' is a symbolic link; refused: a file the evidence "
					  "names is read only from under its own directory, never through a link",
					  where, rel, e->d_name);
	}
	closedir(d);
	return st;
}

ev_status ev_input_check_beneath(const char *root, const char *rel, const char *where, int *absent,
				 struct ev_error *err)
{
	char quoted[512];
	if (absent)
		*absent = 0;
	const char *problem = ev_path_problem(rel, strlen(rel));
	if (problem) {
		ev_path_quote(rel, strlen(rel), quoted, sizeof quoted);
		return ev_error_set(err, EV_USAGE, "%s: '%s' %s; refused: a path the evidence names must be a "
				    "relative path under its own directory (no \"..\", not absolute)", where, quoted, problem);
	}
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open the directory", root);
	ev_status st = EV_OK;
	const char *at = rel;
	while (st == EV_OK && *at) {
		const char *slash = strchr(at, '/');
		size_t n = slash ? (size_t)(slash - at) : strlen(at);
		char comp[EV_PATH_COMPONENT_MAX + 1];
		memcpy(comp, at, n);
		comp[n] = 0;
		int next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat sb;
		if (next < 0) {
			if (errno == ENOENT || errno == ENOTDIR) {
				if (absent)
					*absent = 1;
			} else {
				st = ev_error_errno(err, errno, "%s: '%s': cannot open", where, rel);
			}
			break;
		}
		close(fd);
		fd = next;
		if (fstat(fd, &sb) != 0) {
			st = ev_error_errno(err, errno, "%s: '%s': cannot stat", where, rel);
			break;
		}
		if (S_ISLNK(sb.st_mode)) {
			ev_path_quote(rel, (size_t)(at - rel + (ptrdiff_t)n), quoted, sizeof quoted);
			st = ev_error_set(err, EV_USAGE, "%s: '%s' is a symbolic link; refused: a file the evidence names is "
					  "read only from under its own directory, never through a link", where, quoted);
			break;
		}
		at += n;
		while (*at == '/')
			at++;
		if (!*at && S_ISDIR(sb.st_mode)) {
			int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0) {
				st = ev_error_errno(err, errno, "%s: '%s': cannot open the directory", where, rel);
				break;
			}
			st = entries_not_links(dfd, where, rel, err);
			close(dfd);
		}
	}
	close(fd);
	return st;
}

int ev_fd_read_line(int fd, char *line, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t got = read(fd, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 >= cap)
			return -2;
		line[n++] = c;
	}
	line[n] = '\0';
	return 0;
}

ev_status ev_input_sha256_hex(const char *path, const char *what, char hex[EV_SHA256_HEX_LEN + 1],
			      struct ev_error *err)
{
	int fd = ev_input_open(path, what, err);
	if (fd < 0)
		return err->status;
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_sha256_fd(fd, path, digest, NULL, err);
	close(fd);
	if (st == EV_OK)
		ev_sha256_hex(digest, hex);
	return st;
}
