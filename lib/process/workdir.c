/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/workdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/path.h"
#include "lib/core/sha256.h"

/* mkdir of each missing directory of rel below base (rel itself too when
 * whole), given to the side's user when it drops to one. */
static ev_status make_dirs(const char *base, const char *rel, int whole, const struct ev_side_cred *cred,
			   struct ev_error *err)
{
	char path[PATH_MAX];
	if (ev_path_join(path, sizeof path, base, rel) != 0)
		return ev_error_set(err, EV_REFUSED, "%s/%s: path too long", base, rel);
	for (char *p = path + strlen(base) + 1;; p++) {
		char *slash = strchr(p, '/');
		if (!slash && !whole)
			break;
		if (slash)
			*slash = 0;
		if (mkdir(path, 0755) == 0) {
			if (cred->drop && chown(path, cred->uid, cred->gid) != 0)
				return ev_error_errno(err, errno, "%s: cannot give it to user %s", path, cred->user);
		} else if (errno != EEXIST) {
			return ev_error_errno(err, errno, "%s: cannot create", path);
		}
		if (!slash)
			break;
		*slash = '/';
		p = slash;
	}
	return EV_OK;
}

/* Copy the checked file from to to (a new file), hashing what is written. */
static ev_status copy_hashed(const char *from, const char *to, char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (in < 0)
		return ev_error_errno(err, errno, "%s: cannot open it", from);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = errno;
		close(in);
		return ev_error_errno(err, e, "%s: cannot create", to);
	}
	struct ev_sha256 *ctx = ev_sha256_new();
	ev_status st = ctx ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	char buf[65536];
	ssize_t n;
	while (st == EV_OK && (n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				st = ev_error_errno(err, errno, "%s: cannot read", from);
			continue;
		}
		for (ssize_t done = 0; st == EV_OK && done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				st = ev_error_errno(err, errno, "%s: cannot write", to);
			done += w > 0 ? w : 0;
		}
		if (st == EV_OK)
			st = ev_sha256_update(ctx, buf, (size_t)n, err);
	}
	uint8_t d[EV_SHA256_LEN];
	if (st == EV_OK)
		st = ev_sha256_final(ctx, d, err);
	if (st == EV_OK)
		ev_sha256_hex(d, hex);
	if (close(out) != 0 && st == EV_OK)
		st = ev_error_errno(err, errno, "%s: cannot write", to);
	close(in);
	ev_sha256_free(ctx);
	return st;
}

ev_status ev_workdir_prepare(const char *run_dir, const struct ev_plan_side *side, const struct ev_side_cred *cred,
				  const json_t *pins, json_t **inputs, struct ev_error *err)
{
	*inputs = NULL;
	ev_status st = make_dirs(run_dir, side->work, 1, cred, err);
	const char *name;
	json_t *v;
	json_object_foreach((json_t *)side->outputs, name, v)
		if (st == EV_OK)
			st = make_dirs(run_dir, json_string_value(v), 0, cred, err);
	if (st != EV_OK || !side->inputs)
		return st;
	char work[PATH_MAX];
	if (ev_path_join(work, sizeof work, run_dir, side->work) != 0)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", run_dir);
	*inputs = json_array();
	json_object_foreach((json_t *)side->inputs, name, v) {
		const char *from = json_string_value(v);
		/* the run checked every pinned file just before (path, kind, owner,
		 * mode, SHA-256); the bytes copied must hash to the pin, so a file
		 * changed since is never what the side reads */
		const char *pinned = json_string_value(json_object_get(pins, from));
		char to[PATH_MAX], copied[EV_SHA256_HEX_LEN + 1];
		if (!pinned)
			return ev_error_set(err, EV_REFUSED, "%s input %s: %s is not pinned in the plan", side->role, name, from);
		if ((st = make_dirs(work, name, 0, cred, err)) != EV_OK)
			return st;
		if (ev_path_join(to, sizeof to, work, name) != 0)
			return ev_error_set(err, EV_REFUSED, "%s/%s: path too long", work, name);
		if ((st = copy_hashed(from, to, copied, err)) != EV_OK)
			return st;
		if (strcmp(copied, pinned) != 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s input %s: %s changed while it was copied (pinned %s, copied %s): what "
					    "the side would read is not what was checked", side->role, name, from,
					    pinned, copied);
		json_array_append_new(*inputs, json_pack("{s:s, s:s, s:s}", "name", name, "path", from, "sha256", copied));
	}
	return EV_OK;
}
