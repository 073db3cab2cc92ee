/* SPDX-License-Identifier: Apache-2.0 */
/* A registered campaign's session on the record (parts.h): its start
 * written in the campaign directory and appended to the receipt log before
 * the first pair, its end whatever ends the session. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/campaign/session.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/stop.h"
#include "lib/usecase/capture/parts.h"
#include "lib/usecase/replicate/receipt_log.h"

/* doc written in the campaign directory as STEM.json (STEM-2.json, ...:
 * never replacing one), its digest into sha, then appended to the log. */
static ev_status record(struct capture_session *c, const json_t *doc, const char *stem, char sha[EV_SHA256_HEX_LEN + 1],
			struct ev_error *err)
{
	char *bytes = NULL, path[PATH_MAX + 64];
	size_t len = 0;
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_json_dump(doc, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_json_sha256(doc, digest, err);
	if (st == EV_OK)
		st = ev_publish_fresh(c->in->dir, stem, "json", bytes, len, 0644, path, sizeof path, err);
	free(bytes);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(digest, sha);
	struct ev_receipt_log l = {.dir = c->in->log_dir, .sign_key = c->in->sign_key};
	const char *files[] = {path};
	return ev_receipt_log_append(&l, files, 1, err);
}

/* from, copied to dir/name when it is not there yet; a file there is left
 * as it is (the audit holds it to the registration's digest). */
static ev_status keep_copy(const char *from, const char *dir, const char *name, struct ev_error *err)
{
	char to[PATH_MAX], *bytes = NULL;
	size_t len = 0;
	if (ev_path_join(to, sizeof to, dir, name) != 0)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", dir);
	if (access(to, F_OK) == 0)
		return EV_OK;
	ev_status st = ev_file_read_all(from, EV_JSON_MAX_BYTES, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_publish_bytes(to, bytes, len, 0644, err);
	free(bytes);
	return st;
}

ev_status ev_capture_keep_registration(struct capture_session *c, struct ev_error *err)
{
	const char *dir = c->in->dir, *given = c->in->registration;
	char kept[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
	uint8_t d[EV_SHA256_LEN];
	if (ev_path_join(kept, sizeof kept, dir, "registration.json") != 0)
		return ev_error_set(err, EV_REFUSED, "%s: path too long", dir);
	if (access(kept, F_OK) == 0) {
		ev_status st = ev_sha256_path(kept, d, NULL, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(d, hex);
		if (!given)
			return ev_error_set(err, EV_REFUSED, "%s: the campaign is registered (its registration.json has SHA-256 "
					    "%s): run it with --registration and --log, so that this session is on the record "
					    "with the others", dir, hex);
		if (strcmp(hex, c->registration_sha256) != 0)
			return ev_error_set(err, EV_REFUSED, "%s: the campaign was run under another registration (its "
					    "registration.json has SHA-256 %s, %s has %s); a campaign's registration cannot "
					    "change: choose a new directory", dir, hex, given, c->registration_sha256);
	}
	if (!given)
		return EV_OK;
	static const char *const beside[] = {"", ".tsq", ".tsr"};
	for (int i = 0; i < 3; i++) {
		char from[PATH_MAX], name[64];
		snprintf(from, sizeof from, "%s%s", given, beside[i]);
		snprintf(name, sizeof name, "registration.json%s", beside[i]);
		if (i > 0 && access(from, F_OK) != 0)
			continue;
		ev_status st = keep_copy(from, dir, name, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

ev_status ev_capture_session_begin(struct capture_session *c, struct ev_error *err)
{
	if (!c->registration_sha256[0] || !c->in->log_dir)
		return EV_OK;
	c->session_start = ev_session_start(c->registration_sha256, c->plan.sha256, c->in->dir, c->host, c->boot_id);
	if (!c->session_start)
		return ev_error_set(err, EV_ERROR, "out of memory");
	ev_status st = record(c, c->session_start, "session-start", c->session_start_sha256, err);
	if (st != EV_OK) {
		json_decref(c->session_start);
		c->session_start = NULL;
	}
	return st;
}

/* Signals are held and the stop flag set aside from the end's first byte
 * to its log entry: a signal cannot leave a session started and never
 * ended. */
ev_status ev_capture_session_end(struct capture_session *c, ev_status st, const struct ev_error *why,
				 struct ev_error *err)
{
	if (!c->session_start)
		return EV_OK;
	const char *result = st == EV_OK ? (c->in->all_ok ? "ok" : "failed")
			     : *c->in->interrupted || st == EV_INTERRUPTED ? "interrupted" : "error";
	char receipt[EV_SHA256_HEX_LEN + 1] = "";
	uint8_t d[EV_SHA256_LEN];
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (c->in->receipt_path[0] && ev_sha256_path(c->in->receipt_path, d, NULL, &ignored) == EV_OK)
		ev_sha256_hex(d, receipt);
	json_t *end = ev_session_end(c->session_start, c->session_start_sha256, result, &c->tally,
				     receipt[0] ? receipt : NULL, st == EV_OK ? NULL : why->text);
	if (!end)
		return ev_error_set(err, EV_ERROR, "out of memory");
	sigset_t before;
	ev_stop_hold_signals(&before);
	const volatile sig_atomic_t *flag = ev_stop_flag();
	ev_stop_on(NULL);
	char sha[EV_SHA256_HEX_LEN + 1];
	ev_status written = record(c, end, "session-end", sha, err);
	ev_stop_on(flag);
	ev_stop_release_signals(&before);
	json_decref(end);
	return written;
}
