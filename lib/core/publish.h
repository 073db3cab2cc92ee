/* SPDX-License-Identifier: Apache-2.0 */
/* publish: outputs that are either complete at their final name or absent.
 *
 * doc/design.md principle 2. A file is written under a temporary name in the
 * same directory, fsync'ed, then moved to its final name with
 * renameat2(RENAME_NOREPLACE) (link + unlink where the file system lacks
 * it), and the directory is fsync'ed. An existing final name is never
 * replaced: evidence is append-only.
 *
 * The same is offered for a whole directory of outputs (ev_outdir): built
 * under a hidden temporary name beside the final one and moved in one step,
 * so a reader sees all of the outputs or none.
 *
 * Temporary names start with "." and hold ".tmp-"; a process killed before
 * publishing leaves only such a name behind.
 *
 * Once the process's stop flag (lib/core/stop) is set, no file reaches
 * its final name: a receipt whose bytes were written and synced when the
 * signal came is removed, never published, so that a late signal can
 * never leave a "pass" behind (doc/design.md, principle 5). The one other
 * global is the observer told of each publication (ev_publish_observe).
 */
#ifndef EV_PUBLISH_H
#define EV_PUBLISH_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "lib/core/status.h"

struct ev_outfile {
	int fd;              /* open for writing while the file is being built */
	int dirfd;           /* the directory that will hold it */
	char *final_name;    /* the name inside dirfd */
	char *tmp_name;      /* the temporary name inside dirfd */
	char *display;       /* path shown in messages */
};

/* Start a file that will be published at `path`. Fails with EV_REFUSED when
 * `path` already exists. mode is applied (less the umask) on publish.
 * On failure nothing is left on disk. */
ev_status ev_outfile_open(struct ev_outfile *of, const char *path, struct ev_error *err);

/* Start a file named `name` inside an already open directory. */
ev_status ev_outfile_openat(struct ev_outfile *of, int dirfd, const char *name,
			    const char *display, struct ev_error *err);

/* Write all of buf to the file. */
ev_status ev_outfile_write(struct ev_outfile *of, const void *buf, size_t len,
			   struct ev_error *err);

/* fsync, set mode, move to the final name without replacing, fsync the
 * directory. On failure the temporary file is removed. Frees of either way.
 * EV_INTERRUPTED (nothing published) when the stop flag is set once the
 * bytes are synced. */
ev_status ev_outfile_commit(struct ev_outfile *of, mode_t mode, struct ev_error *err);

/* Move a complete, fsync'ed file inside dirfd from tmp_name to final_name
 * without replacing anything (EV_REFUSED when final_name exists), then
 * fsync the directory; when that sync fails, the file goes back to
 * tmp_name (a name a crash may lose is not claimed) and err says so. For
 * outputs built under a name of their own, such as a resumable transfer's
 * partial file. display is used in errors. */
ev_status ev_publish_at(int dirfd, const char *tmp_name, const char *final_name,
			const char *display, struct ev_error *err);

/* Who is told the absolute path of every file and output directory once
 * it is in place (after the rename and the directory's fsync): one
 * observer per process, set before any thread starts (NULL: none). What
 * lib/cli uses to add a command's receipts to the catalog; the library
 * itself never sets it. */
typedef void (*ev_publish_observer)(const char *path, void *ctx);
void ev_publish_observe(ev_publish_observer fn, void *ctx);

/* Remove the temporary file and free of. Safe on a zeroed or committed of. */
void ev_outfile_abort(struct ev_outfile *of);

/* Publish a whole buffer in dir under the first free name of
 * "STEM.EXT", "STEM-2.EXT", ... "STEM-1000.EXT" (never replacing one); the
 * path used goes to path_out (cap bytes). For documents a session writes
 * again when it is run again (receipts, snapshots). */
ev_status ev_publish_fresh(const char *dir, const char *stem, const char *ext, const void *buf,
			   size_t len, mode_t mode, char *path_out, size_t cap, struct ev_error *err);

/* Publish a whole buffer at path, atomically. */
ev_status ev_publish_bytes(const char *path, const void *buf, size_t len, mode_t mode,
			   struct ev_error *err);

/* Publish doc's canonical JSON (lib/core/json) at path, atomically, mode
 * 0644: how every document evidence writes reaches its name. */
ev_status ev_publish_json(const char *path, const json_t *doc, struct ev_error *err);

struct ev_outdir {
	int dirfd;          /* the temporary directory, open */
	int parentfd;       /* its parent */
	char *final_name;
	char *tmp_name;
	char *display;
};

/* Create a hidden temporary directory beside `path`, which must not exist
 * (EV_REFUSED when it does). */
ev_status ev_outdir_open(struct ev_outdir *od, const char *path, struct ev_error *err);

/* fsync the directory, move it to its final name without replacing, fsync
 * the parent. Files inside must already be complete and fsync'ed. */
ev_status ev_outdir_commit(struct ev_outdir *od, mode_t mode, struct ev_error *err);

/* Remove the temporary directory and the plain files in it; free od. */
void ev_outdir_abort(struct ev_outdir *od);

/* Write len bytes to fd (retrying short writes and EINTR). */
ev_status ev_write_all(int fd, const void *buf, size_t len, const char *name,
		       struct ev_error *err);

/* fsync a directory by path. */
ev_status ev_fsync_dir(int dirfd, const char *name, struct ev_error *err);

#endif
