/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp_beside: FILE.tsq and FILE.tsr beside FILE (timestamp_beside.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/receipt/timestamp_beside.h"

int ev_timestamp_present(const char *file)
{
	char path[PATH_MAX + 8];
	struct stat sb;
	snprintf(path, sizeof path, "%s.tsr", file);
	return lstat(path, &sb) == 0;
}

ev_status ev_timestamp_file_digest(const char *file, uint8_t d[EV_SHA256_LEN], struct ev_error *err)
{
	int fd = ev_input_open(file, "file to timestamp", err);
	if (fd < 0)
		return err->status;
	uint64_t size = 0;
	ev_status st = ev_sha256_fd_until(fd, file, d, &size, NULL, err);
	close(fd);
	return st;
}

static ev_status read_small(const char *path, const char *what, char **bytes, size_t *len, struct ev_error *err)
{
	int fd = ev_input_open(path, what, err);
	if (fd < 0)
		return err->status;
	close(fd);
	return ev_file_read_all(path, EV_TIMESTAMP_REPLY_MAX, bytes, len, err);
}

ev_status ev_timestamp_beside_verify(const char *file, const uint8_t d[EV_SHA256_LEN], const char *reply,
				     const char *ca, struct ev_timestamp_verdict *v, char *why, size_t cap,
				     char **reply_bytes, size_t *reply_len, struct ev_error *err)
{
	char tsq_path[PATH_MAX + 8], tsr_path[PATH_MAX + 8], *tsq = NULL, *tsr = NULL;
	size_t qlen = 0, rlen = 0;
	snprintf(tsq_path, sizeof tsq_path, "%s.tsq", file);
	snprintf(tsr_path, sizeof tsr_path, "%s.tsr", file);
	ev_status st = read_small(tsq_path, "timestamp request", &tsq, &qlen, err);
	if (st == EV_OK)
		st = read_small(reply ? reply : tsr_path, "timestamp reply", &tsr, &rlen, err);
	if (st == EV_OK)
		st = ev_timestamp_verify(d, (unsigned char *)tsq, qlen, (unsigned char *)tsr, rlen, ca, v, why, cap, err);
	if (st == EV_OK && reply_bytes) {
		*reply_bytes = tsr;
		*reply_len = rlen;
		tsr = NULL;
	}
	free(tsq);
	free(tsr);
	return st;
}

ev_status ev_timestamp_check(const char *file, const char *ca, struct ev_timestamp_verdict *v, char *why, size_t cap,
			     struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	memset(v, 0, sizeof *v);
	why[0] = '\0';
	ev_status st = ev_timestamp_file_digest(file, d, err);
	if (st == EV_OK)
		st = ev_timestamp_beside_verify(file, d, NULL, ca, v, why, cap, NULL, NULL, err);
	if (st == EV_MISMATCH)
		ev_error_set(err, EV_MISMATCH, "%s: %s", file, why);
	else if (st != EV_OK)
		snprintf(why, cap, "%s", err->text);
	return st;
}
