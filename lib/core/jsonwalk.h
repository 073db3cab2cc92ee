/* SPDX-License-Identifier: Apache-2.0 */
/* jsonwalk: every file named *.json beneath a directory, in one order that
 * is the same on every run and host: each directory's names sorted byte
 * by byte, a directory entered where its name falls, at most 16 levels
 * down. Links are never followed (a link named *.json is passed by in
 * silence); hidden temporaries (".NAME.tmp-...", what lib/core/publish
 * writes before its rename) are passed by. What `replicate status` and the
 * catalog's index read. No global state.
 */
#ifndef EV_JSONWALK_H
#define EV_JSONWALK_H

#include <sys/stat.h>

#include "lib/core/status.h"

/* One file: sb is its lstat; a FIFO, a device or a socket named *.json is
 * given too (S_ISREG false), for the caller to name and never open.
 * @return EV_OK to go on; any other status stops the walk with it. */
typedef ev_status (*ev_jsonwalk_fn)(void *ctx, const char *path, const struct stat *sb, struct ev_error *err);

/* @return EV_OK; EV_ERROR (a directory that cannot be read, named); or
 * what fn returned. */
ev_status ev_jsonwalk(const char *dir, ev_jsonwalk_fn fn, void *ctx, struct ev_error *err);

/* Walk order of two paths as the walk meets them: '/' sorts before every
 * other byte, so "a/b" comes before "a-c", as a directory "a" is entered
 * before the name "a-c" is reached. */
int ev_jsonwalk_order(const char *a, const char *b);

#endif
