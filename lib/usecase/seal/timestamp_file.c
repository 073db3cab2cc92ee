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
#include "lib/receipt/timestamp_beside.h"
#include "lib/remote/http.h"
#include "lib/usecase/seal/timestamp_file.h"

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
	ev_status st = ev_timestamp_file_digest(t->file, d, err);
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
		if ((st = ev_http_post(t->tsa_url, "application/timestamp-query", tsq, qlen, EV_TIMESTAMP_REPLY_MAX,
				       t->timeout_seconds ? t->timeout_seconds : 30, &tsr, &rlen, err)) != EV_OK) {
			unlink(t->tsq);
			goto out;
		}
		st = ev_timestamp_verify(d, (unsigned char *)tsq, qlen, (unsigned char *)tsr, rlen, t->tsa_ca, &t->verdict,
					 t->why, sizeof t->why, err);
	} else {
		/* a reply brought from elsewhere, or the one stored: held to FILE.tsq */
		if (t->mode == EV_TIMESTAMP_REPLY && (st = refuse_existing(t->tsr, err)) != EV_OK)
			goto out;
		st = ev_timestamp_beside_verify(t->file, d, t->mode == EV_TIMESTAMP_REPLY ? t->reply : NULL, t->tsa_ca,
						&t->verdict, t->why, sizeof t->why, &tsr, &rlen, err);
	}
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
