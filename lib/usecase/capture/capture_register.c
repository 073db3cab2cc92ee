/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/usecase/capture/capture_register.h"

#include <stdio.h>
#include <string.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "lib/usecase/seal/timestamp_file.h"

static void appended(void *ctx, const char *file, size_t index, const char *proof_path, const char *tlog_proof_path)
{
	(void)file;
	(void)proof_path;
	(void)tlog_proof_path;
	*(size_t *)ctx = index;
}

/* err's text, prefixed: what was made before the step that failed. */
static ev_status after(struct ev_error *err, const char *made)
{
	char why[EV_ERROR_TEXT_MAX];
	snprintf(why, sizeof why, "%s", err->text);
	ev_status st = err->status;
	ev_error_clear(err);
	return ev_error_set(err, st, "%s (%s)", why, made);
}

static ev_status timestamped(struct ev_capture_register *o, struct ev_error *err)
{
	struct ev_timestamp_file t = {.mode = EV_TIMESTAMP_FETCH, .file = o->out, .tsa_url = o->tsa_url,
				      .tsa_ca = o->tsa_ca, .timeout_seconds = o->timeout_seconds};
	ev_status st = ev_timestamp_file(&t, err);
	if (st == EV_MISMATCH && !err->text[0])
		st = ev_error_set(err, EV_MISMATCH, "%s: the TSA's reply did not verify: %s", o->out, t.why);
	if (st == EV_OK) {
		o->stamp = t.verdict;
		snprintf(o->tsr, sizeof o->tsr, "%s", t.tsr);
	}
	return st;
}

static ev_status logged(struct ev_capture_register *o, struct ev_error *err)
{
	struct ev_receipt_log l = {.dir = o->log_dir, .sign_key = o->log_key,
				   .on_appended = appended, .ctx = &o->log_index};
	const char *files[] = {o->out};
	ev_status st = ev_receipt_log_append(&l, files, 1, err);
	if (st == EV_OK)
		snprintf(o->log_head, sizeof o->log_head, "%s", l.head_path);
	return st;
}

ev_status ev_capture_register(struct ev_capture_register *o, struct ev_error *err)
{
	struct ev_campaign_plan plan;
	ev_status st = ev_campaign_plan_load(o->plan_path, &plan, err);
	if (st != EV_OK)
		return st;
	snprintf(o->plan_name, sizeof o->plan_name, "%s", plan.name);
	json_t *doc = NULL;
	st = ev_registration_build(&plan, &o->claims, &doc, err);
	ev_campaign_plan_free(&plan);
	if (st != EV_OK)
		return st;
	uint8_t digest[EV_SHA256_LEN];
	if ((st = ev_json_sha256(doc, digest, err)) == EV_OK && o->interrupted && *o->interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal before %s was written; nothing written",
				  o->out);
	if (st == EV_OK)
		st = ev_publish_json(o->out, doc, err);
	json_decref(doc);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(digest, o->sha256);
	if (o->tsa_url) {
		if (o->interrupted && *o->interrupted)
			return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal: %s written, not timestamped%s; "
					    "seal timestamp finishes it", o->out, o->log_dir ? " nor logged" : "");
		if ((st = timestamped(o, err)) != EV_OK)
			return after(err, o->log_dir ? "the registration is written, neither timestamped nor logged"
					  : "the registration is written, not timestamped");
	}
	if (o->log_dir) {
		if (o->interrupted && *o->interrupted)
			return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal: %s written%s, not logged; replicate "
					    "log append finishes it", o->out, o->tsa_url ? " and timestamped" : "");
		if ((st = logged(o, err)) != EV_OK)
			return after(err, o->tsa_url ? "the registration is written and timestamped, not logged"
					  : "the registration is written, not logged");
	}
	return EV_OK;
}
