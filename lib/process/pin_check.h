/* SPDX-License-Identifier: Apache-2.0 */
/* pin_check: a program or launcher is run only when it is the file the plan
 * pinned: an absolute path to a regular file, not a symbolic link, owned
 * by root or by the user running capture, writable by its owner alone, and
 * with the SHA-256 the plan's "pins" give it. The check runs before each
 * launch; its stat is kept so that the file can be seen not to have
 * changed between the check and the launch.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_PIN_CHECK_H
#define EV_PIN_CHECK_H

#include <jansson.h>
#include <sys/stat.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_pinned_binary {
	char path[4096];
	char sha256[EV_SHA256_HEX_LEN + 1];
	struct stat st;
};

/* Check path against pins (an object of path: SHA-256 hex, may be NULL).
 * @return EV_OK; EV_REFUSED naming the path, what was expected and what
 * was found, and what to do; EV_ERROR when it cannot be read. */
ev_status ev_pin_check(const json_t *pins, const char *path, struct ev_pinned_binary *out,
		     struct ev_error *err);

/* Is the file at b->path still the one checked (device, inode, size,
 * mtime and ctime)? @return 1 yes, 0 no. */
int ev_pins_unchanged(const struct ev_pinned_binary *b);

/* The binary as run.json records it (path, sha256, owner, mode). */
json_t *ev_pins_json(const struct ev_pinned_binary *b);

#endif
