/* SPDX-License-Identifier: Apache-2.0 */
/* evidence: the public API (evidence.h), each call over the use case the
 * tool's command runs, without its printing. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/api/evidence.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/seal/archive_verify.h"
#include "lib/usecase/audit/journal/audit_journal.h"
#include "lib/usecase/seal/seal_create.h"
#include "lib/usecase/seal/tree_verify.h"

struct relay {
	evidence_finding_fn fn;
	void *ctx;
	unsigned long long n;
};

static void relay(void *ctx, const struct ev_finding *f)
{
	struct relay *r = ctx;
	r->n++;
	if (!r->fn)
		return;
	struct evidence_finding out = {f->subject ? f->subject : "", f->check ? f->check : "", f->message ? f->message : "",
				       f->expected, f->found};
	r->fn(r->ctx, &out);
}

/* The outcome of a call: its status as the tools' exit code, its error. */
static int outcome(ev_status st, const struct ev_error *err, unsigned long long findings, struct evidence_outcome *out)
{
	out->findings = findings;
	out->error[0] = '\0';
	if (st >= EV_ERROR)
		snprintf(out->error, sizeof out->error, "%s", err->text[0] ? err->text : "failed");
	return st == EV_OK ? EVIDENCE_OK : st == EV_MISMATCH ? EVIDENCE_FINDINGS : EVIDENCE_ERROR;
}

static int pin_ok(const char *pin, struct ev_error *err)
{
	if (pin && !ev_sha256_hex_valid(pin)) {
		ev_error_set(err, EV_USAGE, "seal_sha256: expected 64 lower-case hex digits, found '%s'", pin);
		return 0;
	}
	return 1;
}

const char *evidence_version(void)
{
	return PACKAGE_VERSION;
}

int evidence_seal_create(const char *tree, const char *outdir, evidence_finding_fn fn, void *ctx,
			 struct evidence_outcome *out)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct relay r = {fn, ctx, 0};
	struct ev_seal_create sc = {.dir = tree, .outdir = outdir, .on_refusal = relay, .ctx = &r};
	ev_seal_archive_opts_init(&sc.archive);
	ev_status st = ev_seal_create(&sc, &err);
	ev_seal_create_free(&sc);
	if (st != EV_OK && r.n) /* refused members: findings, and nothing written */
		st = EV_MISMATCH;
	return outcome(st, &err, r.n, out);
}

int evidence_seal_verify(const char *seal_json, const char *seal_sha256, const char *tree, evidence_finding_fn fn,
			 void *ctx, struct evidence_outcome *out)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct relay r = {fn, ctx, 0};
	if (!pin_ok(seal_sha256, &err))
		return outcome(EV_USAGE, &err, 0, out);
	json_t *receipt = ev_receipt_new("verify", "libevidence", NULL, &err);
	struct ev_tree_verify v = {.dir = tree, .dir_input = "tree", .seal = seal_json, .seal_sha256 = seal_sha256,
				   .pin_is_a_check = 1, .on_finding = relay, .ctx = &r};
	ev_status st = receipt ? ev_tree_verify_expect(&v, receipt, &err) : err.status;
	if (st == EV_OK)
		st = ev_tree_verify_check(&v, &err);
	if (st == EV_OK && r.n)
		st = EV_MISMATCH;
	ev_tree_verify_free(&v);
	json_decref(receipt);
	return outcome(st, &err, r.n, out);
}

int evidence_archive_verify(const char *seal_json, const char *seal_sha256, const char *archive,
			    evidence_finding_fn fn, void *ctx, struct evidence_outcome *out)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct relay r = {fn, ctx, 0};
	if (!pin_ok(seal_sha256, &err))
		return outcome(EV_USAGE, &err, 0, out);
	json_t *receipt = ev_receipt_new("replica", "libevidence", NULL, &err);
	struct ev_archive_verify v = {.archive = archive, .seal = seal_json, .seal_sha256 = seal_sha256,
				      .on_finding = relay, .ctx = &r};
	ev_status st = receipt ? ev_archive_verify(&v, receipt, &err) : err.status;
	if (st == EV_OK && r.n)
		st = EV_MISMATCH;
	ev_archive_verify_free(&v);
	json_decref(receipt);
	return outcome(st, &err, r.n, out);
}

int evidence_receipt_read(const char *path, const char *trust_file, struct evidence_receipt *rc,
			  struct evidence_outcome *out)
{
	struct ev_error err;
	ev_error_clear(&err);
	memset(rc, 0, sizeof *rc);
	json_t *doc = NULL;
	struct ev_trust *trust = NULL;
	ev_status st = ev_receipt_load(path, &doc, NULL, &err);
	if (st == EV_OK && trust_file) {
		if (!(trust = ev_trust_new()))
			st = ev_error_set(&err, EV_ERROR, "out of memory");
		else
			st = ev_trust_add_file(trust, trust_file, &err);
	}
	if (st == EV_OK) {
		snprintf(rc->kind, sizeof rc->kind, "%s", ev_receipt_kind(doc) ?: "");
		snprintf(rc->result, sizeof rc->result, "%s", ev_receipt_result(doc) ?: "");
		snprintf(rc->host, sizeof rc->host, "%s", ev_receipt_host(doc) ?: "");
		snprintf(rc->finished, sizeof rc->finished, "%s", ev_receipt_finished(doc) ?: "");
		snprintf(rc->comparable, sizeof rc->comparable, "%s", ev_receipt_comparable_digest(doc) ?: "");
		struct ev_error ignored;
		ev_error_clear(&ignored);
		rc->intact = ev_receipt_comparable_holds(doc, &ignored) == 1;
		if (trust) {
			char why[256];
			ev_error_clear(&ignored);
			rc->trusted = ev_receipt_check_signature(doc, trust, rc->signer, why, sizeof why, &ignored) == EV_OK;
		}
		if (!rc->intact || (trust && !rc->trusted))
			st = EV_MISMATCH;
	}
	ev_trust_free(trust);
	json_decref(doc);
	return outcome(st, &err, st == EV_MISMATCH, out);
}

int evidence_audit_journal_pair(const char *sender, const char *receiver, const char *receipt_path,
				struct evidence_outcome *out)
{
	struct ev_error err;
	ev_error_clear(&err);
	volatile sig_atomic_t never = 0; /* no signal of ours: the caller's process is its own */
	struct ev_audit_journal run;
	ev_audit_journal_init(&run);
	run.receipt = receipt_path;
	run.interrupted = &never;
	const char *senders[1] = {sender}, *receivers[1] = {receiver};
	ev_status st = ev_audit_journal_prepare(&run, senders, receivers, 1, receiver ? 1 : 0, &err);
	json_t *receipt = st == EV_OK ? ev_receipt_new("audit", "libevidence", NULL, &err) : NULL;
	if (st == EV_OK && !receipt)
		st = err.status;
	if (st == EV_OK)
		st = ev_audit_journal_run(&run, receipt, &err);
	unsigned long long n = run.findings;
	json_decref(receipt);
	ev_audit_journal_free(&run);
	return outcome(st, &err, n, out);
}
