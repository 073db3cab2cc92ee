/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/pin_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ev_status ev_pin_check(const json_t *pins, const char *path, struct ev_pinned_binary *out,
		     struct ev_error *err)
{
	memset(out, 0, sizeof *out);
	if (snprintf(out->path, sizeof out->path, "%s", path) >= (int)sizeof out->path)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", path);
	struct stat ls;
	if (lstat(path, &ls) != 0)
		return ev_error_errno(err, errno, "%s: cannot check it", path);
	if (S_ISLNK(ls.st_mode)) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = 0;
		return ev_error_set(err, EV_REFUSED,
				    "%s: a symbolic link (to %s); a program is pinned as the file itself: "
				    "name the file it points to in the plan", path, target);
	}
	/* a FIFO or a device is refused before it is opened: opening one can
	 * wait for ever */
	if (!S_ISREG(ls.st_mode))
		return ev_error_set(err, EV_REFUSED, "%s: not a regular file", path);
	/* Hash through the descriptor that was checked: what is hashed is what
	 * was stat'ed. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open it", path);
	ev_status st = EV_OK;
	if (fstat(fd, &out->st) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot check it", path);
		goto out;
	}
	if (!S_ISREG(out->st.st_mode)) {
		st = ev_error_set(err, EV_REFUSED, "%s: not a regular file", path);
		goto out;
	}
	if (out->st.st_uid != 0 && out->st.st_uid != geteuid()) {
		st = ev_error_set(err, EV_REFUSED,
				  "%s: owned by uid %u (expected root or uid %u, who runs capture): "
				  "someone else could replace it", path, (unsigned)out->st.st_uid,
				  (unsigned)geteuid());
		goto out;
	}
	if (out->st.st_mode & (S_IWGRP | S_IWOTH)) {
		st = ev_error_set(err, EV_REFUSED,
				  "%s: group- or world-writable (mode %04o; expected no write bit but the "
				  "owner's): chmod go-w it, then pin it again", path,
				  (unsigned)(out->st.st_mode & 07777));
		goto out;
	}
	uint8_t digest[EV_SHA256_LEN];
	if ((st = ev_sha256_fd(fd, path, digest, NULL, err)) != EV_OK)
		goto out;
	ev_sha256_hex(digest, out->sha256);
	const char *want = pins ? json_string_value(json_object_get(pins, path)) : NULL;
	if (!want)
		st = ev_error_set(err, EV_REFUSED,
				  "%s: not pinned in the plan (its SHA-256 is %s); 'capture pin PLAN -o "
				  "PINNED' pins every program and input as it is now", path, out->sha256);
	else if (strcmp(want, out->sha256) != 0)
		st = ev_error_set(err, EV_REFUSED,
				  "%s: SHA-256 differs from the plan's pin (expected %s, found %s): the "
				  "file changed since it was pinned", path, want, out->sha256);
out:
	close(fd);
	return st;
}

int ev_pins_unchanged(const struct ev_pinned_binary *b)
{
	struct stat now;
	return lstat(b->path, &now) == 0 && now.st_dev == b->st.st_dev && now.st_ino == b->st.st_ino &&
	       now.st_size == b->st.st_size && now.st_mtim.tv_sec == b->st.st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == b->st.st_mtim.tv_nsec && now.st_ctim.tv_sec == b->st.st_ctim.tv_sec &&
	       now.st_ctim.tv_nsec == b->st.st_ctim.tv_nsec;
}

json_t *ev_pins_json(const struct ev_pinned_binary *b)
{
	char mode[8];
	snprintf(mode, sizeof mode, "%04o", (unsigned)(b->st.st_mode & 07777));
	return json_pack("{s:s, s:s, s:I, s:s, s:I}", "path", b->path, "sha256", b->sha256, "uid",
			 (json_int_t)b->st.st_uid, "mode", mode, "size", (json_int_t)b->st.st_size);
}
