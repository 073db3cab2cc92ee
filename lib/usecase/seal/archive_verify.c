/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/archive_verify.h"

static void count_finding(void *ctx, const struct ev_finding *f)
{
	struct ev_archive_verify *v = ctx;
	v->findings++;
	v->on_finding(v->ctx, f);
}

ev_status ev_archive_verify(struct ev_archive_verify *v, json_t *receipt, struct ev_error *err)
{
	char *seal_bytes = NULL;
	size_t seal_len = 0;
	ev_seal_init(&v->seal_doc);
	v->seal_hex[0] = v->archive_hex[0] = v->coverage[0] = '\0';
	v->findings = 0;
	v->seal_unpinned = 0;

	ev_status st = ev_seal_load_pinned(v->seal, v->seal_sha256, &v->seal_doc, v->seal_hex, &seal_bytes,
					   &seal_len, err);
	if (v->seal_hex[0])
		ev_receipt_add_input(receipt, EV_SEAL_FILENAME, v->seal_recorded ? v->seal_recorded : v->seal,
				     v->seal_hex, err);
	if (v->seal_sha256 && (st == EV_OK || st == EV_MISMATCH))
		ev_receipt_check_pin(receipt, v->seal, "seal-sha256",
				     "SEAL.json is not the pinned seal; nothing else was checked",
				     "SEAL.json bytes hash to the pinned value", v->seal_sha256, v->seal_hex,
				     count_finding, v, err);
	if (st == EV_MISMATCH)
		v->seal_unpinned = 1;
	if (st != EV_OK)
		goto out;

	ev_meter_goal(v->meter, v->seal_doc.bytes, v->seal_doc.files);
	st = ev_archive_check(v->archive, &v->seal_doc, seal_bytes, seal_len, count_finding, v, v->meter,
			      v->interrupted, &v->check, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (v->interrupted && *v->interrupted) {
		st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; no receipt written");
		goto out;
	}
	ev_sha256_hex(v->check.archive_sha256, v->archive_hex);
	ev_receipt_add_input(receipt, "archive", v->archive_recorded ? v->archive_recorded : v->archive,
			     v->archive_hex, err);
	if (v->archive_sha256)
		ev_receipt_check_pin(receipt, v->archive, "archive-sha256",
				     "the archive is not the one pushed (its SHA-256 differs)",
				     "the archive's bytes hash to the pinned value", v->archive_sha256, v->archive_hex,
				     count_finding, v, err);
	char detail[128];
	snprintf(detail, sizeof detail, "%zu members expected, %" PRIu64 " finding%s", v->seal_doc.count,
		 v->findings, v->findings == 1 ? "" : "s");
	json_t *coverage = ev_archive_coverage(&v->check, v->seal_sha256 != NULL,
					       v->archive_pin_offered ? v->archive_sha256 != NULL : -1,
					       v->coverage, sizeof v->coverage);
	if ((st = ev_receipt_set_fact(receipt, "coverage", coverage, err)) == EV_OK &&
	    (st = ev_receipt_add_check(receipt, "members", v->findings == 0, detail, err)) == EV_OK)
		st = v->findings ? EV_MISMATCH : EV_OK;
out:
	free(seal_bytes);
	return st;
}

void ev_archive_verify_free(struct ev_archive_verify *v)
{
	ev_seal_free(&v->seal_doc);
}
