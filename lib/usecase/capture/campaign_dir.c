/* SPDX-License-Identifier: Apache-2.0 */
/* campaign_dir: the campaign directory made, or recognised as this plan's
 * and resumed, and the runs an earlier session made in it (parts.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/usecase/capture/parts.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/input.h"
#include "lib/core/json.h"

/* Create the campaign directory, or recognise it as this plan's. */

/* A directory capture makes or resumes into, as capture made it: a
 * directory, not a symbolic link (that would send every run, created and
 * chowned as root, wherever it points), owned by whoever runs capture. */
static ev_status own_directory(const char *path, struct ev_error *err)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return ev_error_errno(err, errno, "%s: cannot stat", path);
	if (!S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_REFUSED, "%s: %s, not a directory; refused: capture never follows a link in a "
				    "campaign (move it away and run again)", path, ev_input_kind((unsigned)sb.st_mode));
	if (sb.st_uid != geteuid())
		return ev_error_set(err, EV_REFUSED, "%s: owned by uid %u, not by uid %u who runs capture; refused: not a "
				    "directory this capture made", path, (unsigned)sb.st_uid, (unsigned)geteuid());
	return EV_OK;
}

/* A new campaign directory, made whole or not at all: plan.json (the
 * plan's bytes as given) is published in a hidden directory beside it
 * (.NAME.tmp-XXXXXX), which is then renamed to NAME without replacing and
 * the parent synced. A crash or a failed write before that leaves only
 * the hidden directory, never a NAME without its plan that the same
 * command would refuse to resume. */
static ev_status make_campaign_dir(struct capture_session *c, struct ev_error *err)
{
	char parent_buf[PATH_MAX], base_buf[PATH_MAX], tmp[PATH_MAX + 32], plan[PATH_MAX + 48];
	snprintf(parent_buf, sizeof parent_buf, "%s", c->in->dir);
	snprintf(base_buf, sizeof base_buf, "%s", c->in->dir);
	const char *parent = dirname(parent_buf), *base = basename(base_buf);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp-XXXXXX", parent, base);
	if (!mkdtemp(tmp))
		return ev_error_errno(err, errno, "%s: cannot create the campaign directory", c->in->dir);
	mode_t mask = umask(022); /* read back at once: mkdtemp made it 0700, mkdir would honour it */
	umask(mask);
	ev_status st = chmod(tmp, 0755 & ~mask) == 0 ? EV_OK : ev_error_errno(err, errno, "%s: cannot set its mode", tmp);
	char *bytes = NULL;
	size_t len = 0;
	snprintf(plan, sizeof plan, "%s/plan.json", tmp);
	if (st == EV_OK && (st = ev_file_read_all(c->in->plan_path, EV_JSON_MAX_BYTES, &bytes, &len, err)) == EV_OK)
		st = ev_publish_bytes(plan, bytes, len, 0644, err);
	free(bytes);
	if (st == EV_OK && renameat2(AT_FDCWD, tmp, AT_FDCWD, c->in->dir, RENAME_NOREPLACE) != 0)
		st = ev_error_errno(err, errno, "%s: cannot move the new campaign directory into place", c->in->dir);
	int parentfd = st == EV_OK ? open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (st == EV_OK && parentfd < 0)
		st = ev_error_errno(err, errno, "%s: cannot open the directory that holds it", c->in->dir);
	if (st == EV_OK && (st = ev_fsync_dir(parentfd, c->in->dir, err)) != EV_OK &&
	    renameat2(AT_FDCWD, c->in->dir, AT_FDCWD, tmp, RENAME_NOREPLACE) != 0)
		snprintf(tmp, sizeof tmp, "%s", c->in->dir); /* could not be taken back: removed below */
	if (parentfd >= 0)
		close(parentfd);
	if (st != EV_OK) {
		snprintf(plan, sizeof plan, "%s/plan.json", tmp);
		unlink(plan);
		rmdir(tmp);
		size_t at = strlen(err->text);
		snprintf(err->text + at, sizeof err->text - at, "; nothing was captured");
	}
	return st;
}

ev_status ev_capture_open_campaign(struct capture_session *c, int *resumed, struct ev_error *err)
{
	char path[PATH_MAX + 32];
	struct stat sb;
	*resumed = 0;
	if (ev_path_join(path, sizeof path, c->in->dir, "plan.json") != 0)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
	if (stat(c->in->dir, &sb) == 0) {
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		if (!S_ISDIR(sb.st_mode))
			return ev_error_set(err, EV_REFUSED, "%s: exists and is not a directory", c->in->dir);
		if (access(path, F_OK) != 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s: exists and holds no plan.json: not a campaign to resume; choose a new "
					    "directory", c->in->dir);
		ev_status st = ev_sha256_path(path, d, NULL, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(d, hex);
		if (strcmp(hex, c->plan.sha256) != 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s: holds the campaign of another plan (its plan.json has SHA-256 %s, %s has "
					    "%s); a campaign's plan cannot change: choose a new directory", c->in->dir, hex,
					    c->in->plan_path, c->plan.sha256);
		*resumed = 1;
	} else {
		if (errno != ENOENT)
			return ev_error_errno(err, errno, "%s", c->in->dir);
		ev_status st = make_campaign_dir(c, err);
		if (st != EV_OK)
			return st;
	}
	static const char *const subs[] = {"runs", "interrupted"};
	for (int i = 0; i < 2; i++) {
		if (ev_path_join(path, sizeof path, c->in->dir, subs[i]) != 0)
			return ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return ev_error_errno(err, errno, "%s: cannot create", path);
		ev_status st = own_directory(path, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

/* A run done in an earlier session: its run.json's verdict. @return 1
 * when it exists (summary set), 0 when the run is to be made, -1 on an
 * error (err set). A directory without run.json was cut short: it is
 * moved to interrupted/ (kept, never deleted). */
int ev_capture_earlier_run(struct capture_session *c, const struct ev_plan_run *r, json_t **summary,
		       struct ev_error *err)
{
	char runs[PATH_MAX], dir[PATH_MAX], rec[PATH_MAX];
	if (ev_path_join(runs, sizeof runs, c->in->dir, "runs") != 0 || ev_path_join(dir, sizeof dir, runs, r->name) != 0 ||
	    ev_path_join(rec, sizeof rec, dir, EV_RUN_FILENAME) != 0) {
		ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
		return -1;
	}
	struct stat sb;
	if (lstat(dir, &sb) != 0)
		return 0;
	if (own_directory(dir, err) != EV_OK)
		return -1;
	if (access(rec, F_OK) == 0) {
		struct ev_run run;
		uint8_t d[EV_SHA256_LEN];
		if (ev_run_load(rec, EV_JSON_REQUIRE_CANONICAL, &run, d, err) != EV_OK)
			return -1;
		const char *result = ev_run_string(&run, "result");
		*summary = json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s}", "order_index", (json_int_t)r->index,
				     "name", r->name, "arm", r->arm->name, "cell", r->cell->name, "repeat",
				     (int)r->repeat, "result", result ? result : "unknown", "session", "earlier");
		const char *failure = ev_run_string(&run, "failure");
		if (failure)
			json_object_set_new(*summary, "failure", json_string(failure));
		ev_run_free(&run);
		return 1;
	}
	for (int n = 1; n < 1000; n++) {
		char aside[PATH_MAX], name[EV_PLAN_RUN_NAME_MAX + 16], sub[PATH_MAX];
		snprintf(name, sizeof name, "%s.%d", r->name, n);
		if (ev_path_join(sub, sizeof sub, c->in->dir, "interrupted") != 0 || ev_path_join(aside, sizeof aside, sub, name) != 0) {
			ev_error_set(err, EV_REFUSED, "%s: path too long", c->in->dir);
			return -1;
		}
		if (renameat2(AT_FDCWD, dir, AT_FDCWD, aside, RENAME_NOREPLACE) == 0) {
			ev_capture_note(c, "%s was cut short in an earlier session: kept as %s, run again",
					r->name, aside + strlen(c->in->dir) + 1);
			return 0;
		}
		if (errno != EEXIST) {
			ev_error_errno(err, errno, "%s: cannot move the interrupted run aside", dir);
			return -1;
		}
	}
	ev_error_set(err, EV_ERROR, "%s: too many interrupted copies", dir);
	return -1;
}

