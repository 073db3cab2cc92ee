/* SPDX-License-Identifier: Apache-2.0 */
/* replicate push: the options read, lib/usecase/replicate/replicate_push called in
 * its two steps, and what each destination and the receipts' judgement
 * say printed. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/archive/seal.h"
#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/replicate/replicate_push.h"
#include "replicate/remote_cli.h"
#include "replicate/replicate.h"

#define DEFAULT_IDLE_SECONDS 60

struct push_opts {
	struct ev_replicate_push push;
	struct replicate_remote_cli r;
	const char *to[EV_PUSH_MAX_DESTINATIONS];
};

static void on_receipt_finding(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct push_opts *o = ctx;
	replicate_remote_finding(&o->r, receipt_path, f);
}

static void show_destination(void *ctx, const struct ev_push_destination *d)
{
	const struct push_opts *o = ctx;
	if (o->r.json)
		return;
	printf("%s: %s\n", d->local_check ? "here" : d->ep.spec, d->outcome == EV_PUSH_UNREACHABLE ? "error" : d->message);
	if (d->outcome == EV_PUSH_UNREACHABLE)
		fprintf(stderr, TOOL ": %s\n", d->message);
}

/* A verification that ended before the signal wrote a true receipt: it
 * stays, and is said (here and at the destination), so that "no receipt"
 * is exact; where it cannot be known, where to look is said. */
static void show_interrupted(const struct ev_replicate_push *p)
{
	int kept = 0, maybe = 0;
	for (size_t i = 0; i < p->ndests; i++) {
		const struct ev_push_destination *d = &p->dests[i];
		const char *where = d->local_check ? "here" : d->ep.spec;
		int judged = d->outcome == EV_PUSH_VERIFIED || d->outcome == EV_PUSH_FAILED_CHECK;
		if (judged) {
			fprintf(stderr, TOOL ": %s: verified before the signal; its receipt stays: %s\n", where,
				d->receipt_path);
			kept++;
		}
		if (d->verifier_receipt[0] && !d->local_check) {
			fprintf(stderr, TOOL ": %s: its verifier's receipt stays there: %s%s%s\n", where,
				d->ep.host ? d->ep.host : "", d->ep.host ? ":" : "", d->verifier_receipt);
			kept++;
		} else if (d->verifier_receipt[0] && !judged) {
			fprintf(stderr, TOOL ": %s: its verifier wrote a receipt before the signal; it stays: %s\n",
				where, d->verifier_receipt);
			kept++;
		} else if (d->verifier_unsure) {
			fprintf(stderr, TOOL ": %s: its verifier was stopped before it said it wrote a receipt; "
				"look for replica-*.json in %s in case it published one just then\n", where,
				d->local_check ? p->receipts : d->ep.dir);
			maybe++;
		}
	}
	fprintf(stderr, TOOL ": interrupted by a signal; every helper was stopped, %s, nothing "
		"is claimed (what was stored stays; a new push resumes it)\n",
		kept ? "every receipt that exists is named above" : maybe ? "no receipt is known to exist" :
		       "no receipt written");
}

static void print_json(const struct push_opts *o)
{
	json_t *doc = ev_replicate_push_json(&o->push, o->r.findings);
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_json_print(doc, stdout, &err) != EV_OK)
		ev_cli_error(TOOL, &err);
	json_decref(doc);
}

static int run_push(struct push_opts *o)
{
	struct ev_replicate_push *p = &o->push;
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": pushing", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	p->tool = TOOL;
	p->on_finding = on_receipt_finding;
	p->on_destination = show_destination;
	p->ctx = o;
	p->meter = &meter;
	p->interrupted = &ev_cli_interrupted;
	o->r.findings = json_array();
	int code = 2;
	int ran = 0;
	ev_status st = ev_replicate_push_prepare(p, &err);
	if (st == EV_OK) {
		ran = 1;
		char total[32];
		ev_format_bytes(p->files[1].size, total, sizeof total);
		if (!o->r.json)
			printf("pushing %s (%s) to %zu destination%s\n", p->archive, total, p->n_to, p->n_to == 1 ? "" : "s");
		fflush(stdout);
		st = ev_replicate_push_run(p, &err);
		ev_progress_done(&progress);
	}
	if (st == EV_INTERRUPTED && ran) {
		show_interrupted(p);
	} else if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
	} else {
		if (p->judged != EV_OK)
			ev_cli_error(TOOL, &p->judge_err);
		if (o->r.json)
			print_json(o);
		else if (p->nreceipts && p->agree)
			printf("AGREE: %zu receipts, comparable %s\n", p->nreceipts, p->set.items[0].comparable);
		else if (p->nreceipts)
			printf("DIFFER: the receipts do not agree; %u problem%s named above\n", o->r.count,
			       o->r.count == 1 ? "" : "s");
		code = p->failed || !p->agree ? 1 : p->unreachable ? 2 : 0;
	}
	json_decref(o->r.findings);
	ev_replicate_push_free(p);
	return code;
}

int replicate_push_main(int argc, char **argv)
{
	struct push_opts o = {.push.transport = {.ssh = "ssh", .remote_replicate = "replicate",
						 .idle_seconds = DEFAULT_IDLE_SECONDS}};
	struct ev_replicate_push *p = &o.push;
	struct ev_transport *t = &p->transport;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "push");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&replicate_tool, "push");
		case REPLICATE_PUSH_OPT_LOG: p->log = optarg; break;
		case REPLICATE_PUSH_OPT_JSON: o.r.json = 1; break;
		case REPLICATE_PUSH_OPT_REMOTE_SIGN_KEY: p->remote_sign_key = optarg; break;
		case REPLICATE_PUSH_OPT_SIGN_KEY: p->sign_key = optarg; break;
		case REPLICATE_PUSH_OPT_REMOTE_REPLICATE: t->remote_replicate = optarg; break;
		case REPLICATE_PUSH_OPT_RECEIPT_DIR: p->receipts = optarg; break;
		case REPLICATE_PUSH_OPT_RECEIPTS:
			return ev_cli_usage(&replicate_tool, "push",
					    "--receipts names the receipts prune judges; push keeps its receipts in "
					    "--receipt-dir DIR");
		case REPLICATE_PUSH_OPT_SEAL_SHA256: p->seal_sha256 = optarg; break;
		case REPLICATE_PUSH_OPT_SEAL: p->seal = optarg; break;
		case REPLICATE_PUSH_OPT_TO:
			if (p->n_to == EV_PUSH_MAX_DESTINATIONS)
				return ev_cli_usage(&replicate_tool, "push", "at most %d destinations", EV_PUSH_MAX_DESTINATIONS);
			o.to[p->n_to++] = optarg;
			break;
		default:
			switch (replicate_remote_option(&o.r, t, &opts, c, optarg, "push")) {
			case 1: break;
			case -1: return 2;
			default: return ev_cli_usage(&replicate_tool, "push", "%s", ev_cli_option_problem(argv));
			}
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&replicate_tool, "push", optind == argc ? "no ARCHIVE given" : "more than one ARCHIVE given");
	p->archive = argv[optind];
	if (!p->seal)
		return ev_cli_usage(&replicate_tool, "push", "no seal given (--seal SEAL.json)");
	if (!p->n_to)
		return ev_cli_usage(&replicate_tool, "push", "no destination given (--to [HOST:]DIR)");
	if (!p->receipts)
		p->receipts = EV_RECEIPT_DEFAULT_DIR;
	p->to = o.to;
	p->trust_files = o.r.trust;
	p->n_trust = o.r.n_trust;
	ev_cli_catch_signals();
	return run_push(&o);
}
