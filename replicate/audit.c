/* SPDX-License-Identifier: Apache-2.0 */
/* replicate audit: the options read, lib/usecase/replicate/replicate_audit called,
 * and what each host's audit and the receipts' judgement say printed. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/replicate/replicate_audit.h"
#include "replicate/remote_cli.h"
#include "replicate/replicate.h"

#define DEFAULT_IDLE_SECONDS 60

struct audit_opts {
	struct ev_replicate_audit audit;
	struct replicate_remote_cli r;
	const char *at[EV_AUDIT_MAX_HOSTS];
};

static void on_receipt_finding(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct audit_opts *o = ctx;
	replicate_remote_finding(&o->r, receipt_path, f);
}

static void on_difference(void *ctx, const struct ev_replicate_audit_host *h, const char *text)
{
	struct audit_opts *o = ctx;
	o->r.count++;
	if (o->r.json)
		json_array_append_new(o->r.findings, json_pack("{s:s, s:s, s:s}", "host", h->ep.spec, "check", "summary",
							     "message", text));
	else
		fprintf(stderr, TOOL ": %s: %s\n", h->ep.spec, text);
}

static void show_host(void *ctx, const struct ev_replicate_audit_host *h)
{
	const struct audit_opts *o = ctx;
	if (o->r.json)
		return;
	printf("%s: %s\n", h->ep.spec, h->outcome == EV_HOST_UNREACHABLE ? "error" : h->message);
	if (h->outcome == EV_HOST_UNREACHABLE)
		fprintf(stderr, TOOL ": %s\n", h->message);
}

/* What exists of one host's audit after a signal, as far as it is known:
 * an audit that ended before it noticed stays (its OUTDIR there, its
 * receipt here once kept), and is said, like push's verifications. */
static void show_at_stop(const struct ev_replicate_audit_host *h)
{
	if (!h->outdir[0])
		return; /* never started */
	if (h->receipt_path[0])
		fprintf(stderr, TOOL ": %s: audited before the signal; its OUTDIR stays there (%s) and its receipt here: %s\n",
			h->ep.spec, h->outdir, h->receipt_path);
	else if (h->published_there)
		fprintf(stderr, TOOL ": %s: audited before the signal; its OUTDIR stays there (%s), its receipt was not kept "
			"here (it is OUTDIR/receipt.json)\n", h->ep.spec, h->outdir);
	else if (h->at_stop == EV_AT_STOP_STOPPED)
		fprintf(stderr, TOOL ": %s: its audit was stopped; it published no OUTDIR (%s)\n", h->ep.spec, h->outdir);
	else if (h->at_stop == EV_AT_STOP_KILLED)
		fprintf(stderr, TOOL ": %s: its audit did not end within %.1f s of the signal and was killed; look for %s "
			"there in case it published it just then (an OUTDIR is whole or absent)\n", h->ep.spec,
			EV_AUDIT_STOP_GRACE_SECONDS, h->outdir);
	else if (h->outcome == EV_HOST_UNREACHABLE)
		fprintf(stderr, TOOL ": %s\n", h->message);
	else
		fprintf(stderr, TOOL ": %s: %s\n", h->ep.spec, h->message);
}

static void print_json(const struct audit_opts *o)
{
	json_t *doc = ev_replicate_audit_json(&o->audit, o->r.findings);
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_json_print(doc, stdout, &err) != EV_OK)
		ev_cli_error(TOOL, &err);
	json_decref(doc);
}

static size_t passed(const struct ev_replicate_audit *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nhosts; i++)
		n += a->hosts[i].outcome == EV_HOST_PASSED;
	return n;
}

static int run_audit(struct audit_opts *o)
{
	struct ev_replicate_audit *a = &o->audit;
	struct ev_error err;
	ev_error_clear(&err);
	a->on_finding = on_receipt_finding;
	a->on_difference = on_difference;
	a->on_host = show_host;
	a->ctx = o;
	a->interrupted = &ev_cli_interrupted;
	o->r.findings = json_array();
	int code = 2;
	if (!o->r.json)
		printf("auditing the campaign sealed in %s on %zu host%s, each against its copy\n", a->seal, a->n_at,
		       a->n_at == 1 ? "" : "s");
	fflush(stdout);
	ev_status st = ev_replicate_audit_run(a, &err);
	if (st == EV_INTERRUPTED) {
		ev_cli_error(TOOL, &err);
		for (size_t i = 0; i < a->nhosts; i++)
			show_at_stop(&a->hosts[i]);
	} else if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
	} else {
		if (a->judged != EV_OK)
			ev_cli_error(TOOL, &a->judge_err);
		if (o->r.json)
			print_json(o);
		else if (a->nreceipts && a->agree)
			printf("AGREE: %zu audits, comparable %s\n", a->nreceipts, a->set.items[0].comparable);
		else if (a->nreceipts > 1 && a->differing)
			printf("DIFFER: the audits do not agree; %u difference%s named above\n", o->r.count,
			       o->r.count == 1 ? "" : "s");
		else
			printf("FAIL: %zu of %zu hosts audited their copy and passed\n", passed(a), a->nhosts);
		code = a->failed || (a->nreceipts && !a->agree && !a->unreachable) ? 1 : a->unreachable ? 2 : 0;
	}
	json_decref(o->r.findings);
	ev_replicate_audit_free(a);
	return code;
}

int replicate_audit_main(int argc, char **argv)
{
	struct audit_opts o = {.audit.transport = {.ssh = "ssh", .idle_seconds = DEFAULT_IDLE_SECONDS}};
	struct ev_replicate_audit *a = &o.audit;
	struct ev_transport *t = &a->transport;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "audit");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case REPLICATE_AUDIT_OPT_ARCHIVE_NAME: a->archive_name = optarg; break;
		case EV_CLI_HELP: return ev_cli_help(&replicate_tool, "audit");
		case REPLICATE_AUDIT_OPT_JSON: o.r.json = 1; break;
		case REPLICATE_AUDIT_OPT_REMOTE_SIGN_KEY: a->remote_sign_key = optarg; break;
		case REPLICATE_AUDIT_OPT_REMOTE_AUDIT: t->remote_replicate = optarg; break;
		case REPLICATE_AUDIT_OPT_RECEIPT_DIR: a->receipts = optarg; break;
		case REPLICATE_AUDIT_OPT_SEAL_SHA256:
			a->seal_sha256 = optarg;
			break;
		case REPLICATE_AUDIT_OPT_SEAL: a->seal = optarg; break;
		default:
			switch (replicate_remote_option(&o.r, t, &opts, c, optarg, "audit")) {
			case 1: break;
			case -1: return 2;
			default: return ev_cli_usage(&replicate_tool, "audit", "%s", ev_cli_option_problem(argv));
			}
		}
	}
	if (!a->seal)
		return ev_cli_usage(&replicate_tool, "audit", "no seal given (--seal SEAL.json)");
	if (optind == argc)
		return ev_cli_usage(&replicate_tool, "audit", "no host given ([HOST:]DIR, where push put the copy)");
	if (argc - optind > EV_AUDIT_MAX_HOSTS)
		return ev_cli_usage(&replicate_tool, "audit", "at most %d hosts", EV_AUDIT_MAX_HOSTS);
	for (int i = optind; i < argc; i++)
		o.at[a->n_at++] = argv[i];
	if (!a->receipts)
		a->receipts = EV_RECEIPT_DEFAULT_DIR;
	a->at = o.at;
	a->trust_files = o.r.trust;
	a->n_trust = o.r.n_trust;
	ev_cli_catch_signals();
	return run_audit(&o);
}
