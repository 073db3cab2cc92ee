/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp_file: a file's RFC 3161 timestamp requested, fetched,
 * verified and stored beside it (timestamp_file.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/remote/http.h"
#include "lib/usecase/seal/timestamp_file.h"

#define TSR_MAX ((size_t)1 << 20)

/* The SHA-256 of a regular file's bytes. */
static ev_status digest_of(const char *path, uint8_t d[EV_SHA256_LEN], struct ev_error *err)
{
	int fd = ev_input_open(path, "file to timestamp", err);
	if (fd < 0)
		return err->status;
	uint64_t size = 0;
	ev_status st = ev_sha256_fd_until(fd, path, d, &size, NULL, err);
	close(fd);
	return st;
}

static ev_status read_small(const char *path, const char *what, char **bytes, size_t *len, struct ev_error *err)
{
	int fd = ev_input_open(path, what, err);
	if (fd < 0)
		return err->status;
	close(fd);
	return ev_file_read_all(path, TSR_MAX, bytes, len, err);
}

static ev_status refuse_existing(const char *path, struct ev_error *err)
{
	struct stat sb;
	if (lstat(path, &sb) == 0)
		return ev_error_set(err, EV_REFUSED, "%s: already exists; a timestamp is never replaced", path);
	return EV_OK;
}

ev_status ev_timestamp_file(struct ev_timestamp_file *t, struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	char *tsq = NULL, *tsr = NULL;
	size_t qlen = 0, rlen = 0;
	snprintf(t->tsq, sizeof t->tsq, "%s.tsq", t->file);
	snprintf(t->tsr, sizeof t->tsr, "%s.tsr", t->file);
	ev_status st = digest_of(t->file, d, err);
	if (st != EV_OK)
		return st;
	if (t->mode == EV_TIMESTAMP_FETCH || t->mode == EV_TIMESTAMP_REQUEST) {
		if ((st = refuse_existing(t->tsr, err)) != EV_OK || (st = refuse_existing(t->tsq, err)) != EV_OK)
			return st;
		unsigned char *der = NULL;
		if ((st = ev_timestamp_request(d, &der, &qlen, err)) != EV_OK)
			return st;
		tsq = (char *)der;
		if ((st = ev_publish_bytes(t->tsq, tsq, qlen, 0644, err)) != EV_OK || t->mode == EV_TIMESTAMP_REQUEST)
			goto out;
		if ((st = ev_http_post(t->tsa_url, "application/timestamp-query", tsq, qlen, TSR_MAX,
				       t->timeout_seconds ? t->timeout_seconds : 30, &tsr, &rlen, err)) != EV_OK) {
			unlink(t->tsq);
			goto out;
		}
	} else {
		if ((st = read_small(t->tsq, "timestamp request", &tsq, &qlen, err)) != EV_OK)
			goto out;
		const char *reply = t->mode == EV_TIMESTAMP_REPLY ? t->reply : t->tsr;
		if (t->mode == EV_TIMESTAMP_REPLY && (st = refuse_existing(t->tsr, err)) != EV_OK)
			goto out;
		if ((st = read_small(reply, "timestamp reply", &tsr, &rlen, err)) != EV_OK)
			goto out;
	}
	st = ev_timestamp_verify(d, (unsigned char *)tsq, qlen, (unsigned char *)tsr, rlen, t->tsa_ca, &t->verdict, t->why,
				 sizeof t->why, err);
	if (st == EV_MISMATCH)
		st = ev_error_set(err, EV_MISMATCH, "%s: %s%s", t->file, t->why,
				  t->mode == EV_TIMESTAMP_VERIFY ? "" : "; nothing stored");
	if (st == EV_OK && t->mode != EV_TIMESTAMP_VERIFY)
		st = ev_publish_bytes(t->tsr, tsr, rlen, 0644, err);
	if (st != EV_OK && t->mode == EV_TIMESTAMP_FETCH && tsq)
		unlink(t->tsq); /* the request of a timestamp not stored goes too: nothing is left */
out:
	free(tsq);
	free(tsr);
	return st;
}

int ev_timestamp_present(const char *file)
{
	char path[PATH_MAX + 8];
	struct stat sb;
	snprintf(path, sizeof path, "%s.tsr", file);
	return lstat(path, &sb) == 0;
}

ev_status ev_timestamp_check(const char *file, const char *ca, struct ev_timestamp_verdict *v, char *why, size_t cap,
			     struct ev_error *err)
{
	struct ev_timestamp_file t = {.mode = EV_TIMESTAMP_VERIFY, .file = file, .tsa_ca = ca};
	ev_status st = ev_timestamp_file(&t, err);
	*v = t.verdict;
	snprintf(why, cap, "%s", st == EV_MISMATCH ? t.why : st == EV_OK ? "" : err->text);
	return st;
}
