/* SPDX-License-Identifier: Apache-2.0 */
/* audit_profile: a run's profile read cold into a receipt
 * (audit_profile.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/audit/audit_profile.h"
#include "lib/usecase/audit/profile_side.h"

ev_status ev_audit_profile(struct ev_audit_profile *o, struct ev_error *err)
{
	char path[PATH_MAX], *receipt_path = o->receipt_path, *shown = o->shown;
	struct ev_archive_copies copies;
	char copy_dir[PATH_MAX];
	struct ev_run run = {0};
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	const char *run_dir = o->run_dir;
	ev_archive_copies_init(&copies);
	ev_status st = ev_receipt_refuse_existing(o->receipt, err);
	if (st != EV_OK)
		return st;
	struct ev_profile_ctx a = {ev_receipt_new("audit", "audit", o->invocation, err), o->shown, "", o->on_finding, o->ctx, o->interrupted, 0};
	if (!a.receipt)
		return err->status;
	snprintf(o->shown, sizeof o->shown, "%s", o->run_dir);
	if (o->seal) { /* the run's members copied out of the archive, checked on the way */
		st = ev_profile_extract(o->run_dir, o->seal, o->seal_sha256, o->run, a.receipt, o->on_archive_finding, o->ctx,
					o->interrupted, &copies, copy_dir, sizeof copy_dir, err);
		if (st != EV_OK) {
			ev_archive_copies_free(&copies);
			if (st == EV_MISMATCH && (ev_receipt_finish_signed(a.receipt, o->sign_key, err) != EV_OK ||
						  ev_receipt_write_chosen(a.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-profile",
									  receipt_path, sizeof o->receipt_path, err) != EV_OK))
				st = err->status;
			else if (st == EV_MISMATCH)
				o->archive_failed = 1;
			json_decref(a.receipt);
			return st;
		}
		run_dir = copy_dir;
		snprintf(o->shown, sizeof o->shown, "%s:%s", o->run_dir, o->run);
	}
	if (ev_path_join(path, sizeof path, run_dir, EV_RUN_FILENAME) != 0)
		st = ev_error_set(err, EV_USAGE, "%s: path too long", run_dir);
	if (st == EV_OK)
		st = ev_run_load(path, 0, &run, d, err);
	if (st != EV_OK) {
		json_decref(a.receipt);
		ev_archive_copies_free(&copies);
		return st;
	}
	ev_sha256_hex(d, hex);
	ev_receipt_add_input(a.receipt, "run", o->seal ? shown : path, hex, err);
	json_t *facts = json_object();
	size_t i, profiled = 0;
	json_t *proc;
	json_array_foreach(json_object_get(run.doc, "processes"), i, proc) {
		if (!json_object_get(proc, "profile"))
			continue;
		profiled++;
		if ((st = ev_profile_side(&a, run_dir, o->perf, proc, facts, err)) != EV_OK)
			break;
	}
	if (st == EV_OK && !profiled)
		st = ev_error_set(err, EV_REFUSED, "%s: no side of this run was profiled (run.json has no \"profile\")",
				  o->seal ? shown : path);
	if (st == EV_OK && *o->interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed");
	if (st == EV_OK) {
		ev_receipt_set_fact(a.receipt, "profile", facts, err);
		facts = NULL;
		ev_receipt_set_fact(a.receipt, "coverage",
				    json_pack("{s:[s], s:[s]}", "recomputed",
					      "each profiled side's perf.data held against run.json's SHA-256, read with perf report, "
					      "every row parsed: samples, lost samples, PIDs, shares by object and symbol, the split",
					      "not_checked",
					      "symbols are resolved by perf from the binaries on this host: a binary changed since the "
					      "run changes names, never counts"),
				    err);
		if ((st = ev_receipt_finish_signed(a.receipt, o->sign_key, err)) == EV_OK)
			st = ev_receipt_write_chosen(a.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-profile", receipt_path,
						     sizeof o->receipt_path, err);
	}
	if (st == EV_OK) {
		o->receipt_doc = json_incref(a.receipt);
		o->profiled = profiled;
		o->findings = a.findings;
		st = strcmp(ev_receipt_result(a.receipt), "pass") == 0 ? EV_OK : EV_MISMATCH;
	}
	json_decref(facts);
	json_decref(a.receipt);
	ev_run_free(&run);
	ev_archive_copies_free(&copies);
	return st;
}

void ev_audit_profile_free(struct ev_audit_profile *a)
{
	json_decref(a->receipt_doc);
	a->receipt_doc = NULL;
}
