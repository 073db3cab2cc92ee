/* SPDX-License-Identifier: Apache-2.0 */
/* outdir_receipt: an OUTDIR's outputs and its receipt (outdir_receipt.h). */
#include "config.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>

#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/common/outdir_receipt.h"

ev_status ev_outdir_receipt_tmpdir(const struct ev_outdir *od, const char *out, char *tmpdir, size_t cap,
				   struct ev_error *err)
{
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", out);
	if (ev_path_join(tmpdir, cap, dirname(parent), od->tmp_name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", out);
	return EV_OK;
}

ev_status ev_outdir_receipt_add(const char *tmpdir, const char *out, const char *name, const char *bytes, size_t len,
				json_t *receipt, struct ev_error *err)
{
	char path[PATH_MAX], final[PATH_MAX];
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	if (ev_path_join(path, sizeof path, tmpdir, name) != 0 || ev_path_join(final, sizeof final, out, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", out);
	ev_status st = ev_publish_bytes(path, bytes, len, 0644, err);
	if (st == EV_OK && (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK) {
		ev_sha256_hex(d, hex);
		st = ev_receipt_add_output(receipt, name, final, hex, err);
	}
	return st;
}

ev_status ev_outdir_receipt_commit(struct ev_outdir *od, int *opened, const char *tmpdir, const char *out,
				   json_t *receipt, const struct ev_signing_key *key, volatile sig_atomic_t *interrupted,
				   struct ev_error *err)
{
	char rpath[PATH_MAX];
	ev_status st = ev_receipt_finish_signed(receipt, key, err);
	if (st != EV_OK)
		return st;
	if (ev_path_join(rpath, sizeof rpath, tmpdir, "receipt.json") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", out);
	if ((st = ev_publish_json(rpath, receipt, err)) != EV_OK)
		return st;
	if (*interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", out);
	if ((st = ev_outdir_commit(od, 0755, err)) == EV_OK)
		*opened = 0;
	return st;
}
