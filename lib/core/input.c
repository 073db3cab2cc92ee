#include "config.h"
#include "lib/core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
