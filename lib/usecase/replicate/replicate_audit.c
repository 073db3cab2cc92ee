/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_audit: one thread per host runs audit campaign against the
 * copy there and brings its receipt and summary back; the receipts are
 * judged together once all ended (replicate_audit.h). */
#include "config.h"

#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/archive/seal.h"
#include "lib/campaign/summary.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"
#include "lib/remote/child.h"
#include "lib/usecase/replicate/replicate_audit.h"

/* A receipt and a summary of thousands of runs, each one line. */
#define OUT_MAX ((size_t)256 << 20)

static void join_path(char *out, size_t cap, const char *dir, const char *name)
{
	snprintf(out, cap, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

/* The two lines the far audit printed: its receipt, then summary.json. */
static ev_status split_output(const struct ev_replicate_audit_host *h, const struct ev_child *c, json_t **receipt,
			      const char **summary, size_t *summary_len, struct ev_error *err)
{
	const char *nl = memchr(c->outbuf, '\n', c->outlen);
	if (!nl || nl + 1 >= c->outbuf + c->outlen)
		return ev_error_set(err, EV_ERROR, "%s: audit campaign printed no receipt and summary (%zu bytes on stdout)",
				    h->ep.spec, c->outlen);
	size_t first = (size_t)(nl + 1 - c->outbuf);
	ev_status st = ev_json_parse(c->outbuf, first, h->ep.spec, EV_RECEIPT_FORMAT, EV_JSON_REQUIRE_CANONICAL, receipt,
				     err);
	if (st != EV_OK)
		return st;
	*summary = c->outbuf + first;
	*summary_len = c->outlen - first;
	return EV_OK;
}

/* Its receipt here (audit-LABEL-TIME.json), and its summary beside it. */
static ev_status keep(struct ev_replicate_audit_host *h, const json_t *receipt, const char *summary, size_t len,
		      struct ev_error *err)
{
	const struct ev_replicate_audit *a = h->run;
	char stem[160], label[128];
	ev_path_label(strncmp(h->ep.spec, "./", 2) == 0 ? h->ep.spec + 2 : h->ep.spec, label, sizeof label);
	snprintf(stem, sizeof stem, "audit-%s", label);
	ev_status st = ev_json_parse(summary, len, h->ep.spec, EV_CAMPAIGN_SUMMARY_FORMAT, EV_JSON_REQUIRE_CANONICAL,
				     &h->summary, err);
	if (st == EV_OK)
		st = ev_receipt_write_chosen(receipt, NULL, a->receipts, stem, h->receipt_path, sizeof h->receipt_path, err);
	if (st != EV_OK) {
		h->receipt_path[0] = '\0';
		return st;
	}
	size_t n = strlen(h->receipt_path);
	snprintf(h->summary_path, sizeof h->summary_path, "%.*s.summary.json", (int)(n > 5 ? n - 5 : n), h->receipt_path);
	if ((st = ev_publish_bytes(h->summary_path, summary, len, 0644, err)) != EV_OK)
		h->summary_path[0] = '\0';
	return st;
}

/* audit campaign on the copy at h, its receipt and summary kept here. */
static ev_status audit_there(struct ev_replicate_audit_host *h, struct ev_error *err)
{
	const struct ev_replicate_audit *a = h->run;
	char seal_path[PATH_MAX], archive_path[PATH_MAX];
	char *args[20];
	size_t n = 0;
	join_path(seal_path, sizeof seal_path, h->ep.dir, EV_SEAL_FILENAME);
	join_path(archive_path, sizeof archive_path, h->ep.dir, a->archive_name ? a->archive_name : "archive.tar.zst");
	join_path(h->outdir, sizeof h->outdir, h->ep.dir, a->stamp);
	args[n++] = (char *)"campaign";
	args[n++] = (char *)"--seal";
	args[n++] = seal_path;
	args[n++] = (char *)"--seal-sha256";
	args[n++] = (char *)a->seal_hex;
	args[n++] = (char *)"-o";
	args[n++] = h->outdir;
	args[n++] = (char *)"--print-receipt";
	args[n++] = (char *)"--stop-when-stdin-closes";
	if (a->remote_sign_key) {
		args[n++] = (char *)"--sign-key";
		args[n++] = (char *)a->remote_sign_key;
	}
	args[n++] = archive_path;
	args[n] = NULL;
	/* its progress line on stderr keeps a long audit from looking idle */
	static char progress_env[] = "EVIDENCE_PROGRESS=always";
	struct ev_remote_command cmd;
	ev_remote_command_build(&a->transport, &h->ep, progress_env, args, &cmd);
	struct ev_child c;
	ev_status st = ev_child_start(&c, cmd.argv, progress_env, OUT_MAX, a->transport.idle_seconds, h->ep.spec,
				      a->interrupted, err);
	if (st != EV_OK)
		return st;
	c.doing = "auditing the copy";
	c.far_tool = "audit";
	c.progress_marks[0] = "auditing runs: ";
	c.progress_marks[1] = "reading the archive: ";
	c.progress_marks[2] = "auditing the journals: ";
	int code = -1;
	if ((st = ev_child_read_all(&c, err)) == EV_OK)
		st = ev_child_wait(&c, &code, err);
	if (st == EV_INTERRUPTED) {
		if (ev_child_stop(&c, EV_AUDIT_STOP_GRACE_SECONDS, &code)) {
			h->at_stop = EV_AT_STOP_STOPPED;
			st = EV_OK; /* what it sent says whether it had published */
		} else {
			h->at_stop = EV_AT_STOP_KILLED;
		}
	}
	/* audit campaign prints its receipt only once its OUTDIR is in place */
	h->published_there = c.outlen && memchr(c.outbuf, '\n', c.outlen) != NULL;
	if (st != EV_OK) {
		ev_child_free(&c);
		return st;
	}
	char why[512] = "";
	ev_child_last_error(&c, why, sizeof why);
	json_t *receipt = NULL;
	const char *summary = NULL;
	size_t len = 0;
	if (st == EV_OK && code == 1 && c.outlen == 0) {
		/* stopped before any output: a copy that does not match its seal */
		h->outcome = EV_HOST_FAILED;
		snprintf(h->message, sizeof h->message, "FAIL, no receipt: %s", why[0] ? why : "audit campaign ended with status 1");
	} else {
		if (st == EV_OK && code == 255 && h->ep.host) /* ssh's own: the audit never ran, or its link broke */
			st = ev_error_set(err, EV_ERROR, "%s: ssh failed (status 255)%s%s", h->ep.spec, why[0] ? ": " : "", why);
		else if (st == EV_OK && code != 0 && code != 1)
			st = ev_error_set(err, EV_ERROR, "%s: audit campaign ended with status %d%s%s", h->ep.spec, code,
					  why[0] ? ": " : "", why);
		if (st == EV_OK)
			st = split_output(h, &c, &receipt, &summary, &len, err);
		if (st == EV_OK && *a->interrupted)
			st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal", h->ep.spec);
		if (st == EV_OK)
			st = keep(h, receipt, summary, len, err);
		if (st == EV_OK) {
			const char *result = ev_receipt_result(receipt);
			int pass = result && strcmp(result, "pass") == 0;
			h->outcome = pass ? EV_HOST_PASSED : EV_HOST_FAILED;
			snprintf(h->message, sizeof h->message, "%s; receipt %s", pass ? "pass" : "FAIL", h->receipt_path);
		}
	}
	json_decref(receipt);
	ev_child_free(&c);
	return st;
}

static void *host_main(void *arg)
{
	struct ev_replicate_audit_host *h = arg;
	struct ev_error err;
	ev_error_clear(&err);
	if (audit_there(h, &err) != EV_OK) {
		h->outcome = EV_HOST_UNREACHABLE;
		snprintf(h->message, sizeof h->message, "%s", err.text);
	}
	atomic_store(&h->finished, 1);
	return NULL;
}

/* The audit run for a local DIR: beside this executable when installed
 * (bindir), or in the build tree (replicate/../audit/audit). */
static ev_status find_local_audit(struct ev_transport *t, struct ev_error *err)
{
	if (t->self_exe[0])
		return EV_OK;
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return ev_error_set(err, EV_ERROR, "cannot find my own executable (/proc/self/exe)");
	self[len] = '\0';
	const char *dir = dirname(self);
	static const char *const beside[] = {"audit", "../audit/audit"};
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX];
		if (ev_path_join(path, sizeof path, dir, beside[i]) == 0 && access(path, X_OK) == 0) {
			snprintf(t->self_exe, sizeof t->self_exe, "%s", path);
			return EV_OK;
		}
	}
	return ev_error_set(err, EV_USAGE, "%s: no audit program beside replicate (%s/audit) to audit a local "
			    "directory", dir, dir);
}

static ev_status prepare(struct ev_replicate_audit *a, struct ev_error *err)
{
	struct stat sb;
	if (stat(a->receipts, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "%s: the receipt directory (--receipt-dir) does not exist", a->receipts);
	if (a->archive_name && (a->archive_name[0] == '.' || strchr(a->archive_name, '/')))
		return ev_error_set(err, EV_USAGE, "--archive-name %s: a file name in each DIR, not starting with '.'",
				    a->archive_name);
	/* the seal here pins every copy's: its digest, checked before anything runs */
	struct ev_seal seal;
	ev_seal_init(&seal);
	ev_status st = ev_seal_load_pinned(a->seal, a->seal_sha256, &seal, a->seal_hex, NULL, NULL, err);
	if (st == EV_MISMATCH)
		st = ev_seal_refuse_unpinned(a->seal, a->seal_hex, a->seal_sha256, err);
	ev_seal_free(&seal);
	if (st != EV_OK)
		return st;
	a->hosts = calloc(a->n_at, sizeof *a->hosts);
	if (!a->hosts)
		return ev_error_set(err, EV_ERROR, "out of memory");
	a->nhosts = a->n_at;
	int local = 0;
	for (size_t i = 0; i < a->n_at; i++) {
		a->hosts[i].run = a;
		if (ev_endpoint_parse(&a->hosts[i].ep, a->at[i]) != 0)
			return ev_error_set(err, EV_USAGE, "%s: expected HOST:DIR or a local DIR", a->at[i]);
		local |= !a->hosts[i].ep.host;
	}
	if (local && (st = find_local_audit(&a->transport, err)) != EV_OK)
		return st;
	if (!a->transport.remote_replicate)
		a->transport.remote_replicate = "audit";
	a->transport.stop = a->interrupted;
	/* to the millisecond: two audits of one copy in one second keep apart */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	char when[24];
	strftime(when, sizeof when, "%Y%m%dT%H%M%S", &tm);
	snprintf(a->stamp, sizeof a->stamp, "audit-%s.%03dZ", when, (int)(now.tv_nsec / 1000000) % 1000);
	return EV_OK;
}

static ev_status run_hosts(struct ev_replicate_audit *a, struct ev_error *err)
{
	for (size_t i = 0; i < a->nhosts; i++)
		if (pthread_create(&a->hosts[i].thread, NULL, host_main, &a->hosts[i]) != 0) {
			for (size_t k = 0; k < i; k++)
				pthread_join(a->hosts[k].thread, NULL);
			return ev_error_set(err, EV_ERROR, "cannot start a thread");
		}
	for (size_t i = 0; i < a->nhosts; i++)
		pthread_join(a->hosts[i].thread, NULL);
	return EV_OK;
}

/* The first value where summary a differs from b, in the order a reader
 * looks: the runs by name (what each recomputed), then the cells by arm
 * and cell, then anything else. */
static int first_statistic(const json_t *a, const json_t *b, char *where, size_t cap, char *va, char *vb, size_t vcap)
{
	char path[400];
	static const char *const lists[][3] = {{"runs", "name", NULL}, {"cells", "arm", "cell"}};
	for (size_t l = 0; l < 2; l++) {
		const json_t *la = json_object_get(a, lists[l][0]), *lb = json_object_get(b, lists[l][0]);
		size_t i, k;
		json_t *ea, *eb;
		json_array_foreach(la, i, ea) {
			const char *ka = json_string_value(json_object_get(ea, lists[l][1]));
			const char *ka2 = lists[l][2] ? json_string_value(json_object_get(ea, lists[l][2])) : NULL;
			const json_t *match = NULL;
			json_array_foreach(lb, k, eb) {
				const char *kb = json_string_value(json_object_get(eb, lists[l][1]));
				const char *kb2 = lists[l][2] ? json_string_value(json_object_get(eb, lists[l][2])) : NULL;
				if (ka && kb && strcmp(ka, kb) == 0 && (!lists[l][2] || (ka2 && kb2 && strcmp(ka2, kb2) == 0)))
					match = eb;
			}
			char name[160];
			snprintf(name, sizeof name, lists[l][2] ? "%s %s/%s" : "%s %s", l ? "cell" : "run", ka ? ka : "?",
				 ka2 ? ka2 : "?");
			if (!match) {
				snprintf(where, cap, "%s", name);
				snprintf(va, vcap, "present");
				snprintf(vb, vcap, "absent");
				return 1;
			}
			/* the statistics before everything else said of them */
			static const char *const first[] = {"recomputed", "median_of_runs", "native"};
			for (size_t f = 0; f < 3; f++) {
				const json_t *fa = json_object_get(ea, first[f]), *fb = json_object_get(match, first[f]);
				if ((fa || fb) && ev_json_first_difference(fa, fb, path, sizeof path, va, vb, vcap)) {
					snprintf(where, cap, "%s: %s%s%s", name, first[f], path[0] ? "." : "", path);
					return 1;
				}
			}
			if (ev_json_first_difference(ea, match, path, sizeof path, va, vb, vcap)) {
				snprintf(where, cap, "%s: %s", name, path);
				return 1;
			}
		}
	}
	if (ev_json_first_difference(a, b, path, sizeof path, va, vb, vcap)) {
		snprintf(where, cap, "%s", path[0] ? path : "(the whole document)");
		return 1;
	}
	return 0;
}

/* Every host whose comparable digest is not the first audited host's:
 * the first value where the summaries differ. */
static void name_differences(struct ev_replicate_audit *a)
{
	const struct ev_replicate_audit_host *first = NULL;
	const char *agreed = NULL;
	for (size_t i = 0; i < a->nhosts; i++) {
		const struct ev_replicate_audit_host *h = &a->hosts[i];
		if (!h->summary || !h->receipt_path[0])
			continue;
		const char *c = NULL;
		for (size_t k = 0; k < a->set.count; k++)
			if (strcmp(a->set.items[k].path, h->receipt_path) == 0)
				c = a->set.items[k].comparable;
		if (!first) {
			first = h;
			agreed = c;
			continue;
		}
		if (!c || !agreed || strcmp(c, agreed) == 0 || !a->on_difference)
			continue;
		char where[600], here[256], there[256], text[1400];
		if (first_statistic(h->summary, first->summary, where, sizeof where, here, there, sizeof here))
			snprintf(text, sizeof text, "its summary differs first at %s: %s here, %s on %s", where, here, there,
				 first->ep.spec);
		else
			snprintf(text, sizeof text, "its summary is %s's, byte for byte; its receipt differs (see above)",
				 first->ep.spec);
		a->on_difference(a->ctx, h, text);
	}
}

static ev_status judge(struct ev_replicate_audit *a, struct ev_error *err)
{
	char *paths[EV_AUDIT_MAX_HOSTS];
	struct ev_trust *trust = NULL;
	for (size_t i = 0; i < a->nhosts; i++)
		if (a->hosts[i].receipt_path[0])
			paths[a->nreceipts++] = a->hosts[i].receipt_path;
	ev_status st = ev_trust_from_files((const char *const *)a->trust_files, a->n_trust, &trust, err);
	if (st != EV_OK)
		return st;
	ev_error_clear(&a->judge_err);
	a->judged = EV_OK;
	if (a->nreceipts)
		a->problems = ev_receipt_set_load(&a->set, paths, a->nreceipts, trust, a->on_finding, a->ctx, &a->judged,
						  &a->judge_err);
	if (a->judged != EV_OK) {
		a->failed = 1;
	} else if (a->nreceipts) {
		a->differing = ev_receipt_set_disagreements(&a->set, a->on_finding, a->ctx);
		if (a->differing)
			name_differences(a);
	}
	a->agree = a->judged == EV_OK && a->nreceipts == a->nhosts && a->differing == 0 && a->problems == 0;
	ev_trust_free(trust);
	return EV_OK;
}

ev_status ev_replicate_audit_run(struct ev_replicate_audit *a, struct ev_error *err)
{
	ev_status st = prepare(a, err);
	if (st == EV_OK)
		st = run_hosts(a, err);
	if (st != EV_OK)
		return st;
	if (*a->interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal");
	for (size_t i = 0; i < a->nhosts; i++) {
		const struct ev_replicate_audit_host *h = &a->hosts[i];
		a->failed |= h->outcome == EV_HOST_FAILED;
		a->unreachable |= h->outcome == EV_HOST_UNREACHABLE;
		if (a->on_host)
			a->on_host(a->ctx, h);
	}
	return judge(a, err);
}

void ev_replicate_audit_free(struct ev_replicate_audit *a)
{
	for (size_t i = 0; a->hosts && i < a->nhosts; i++) {
		free(a->hosts[i].ep.host);
		free(a->hosts[i].ep.dir);
		json_decref(a->hosts[i].summary);
	}
	free(a->hosts);
	a->hosts = NULL;
	ev_receipt_set_free(&a->set);
}

json_t *ev_replicate_audit_json(const struct ev_replicate_audit *a, json_t *findings)
{
	static const char *const names[] = {"pending", "pass", "fail", "error"};
	json_t *list = json_array();
	for (size_t i = 0; i < a->nhosts; i++) {
		const struct ev_replicate_audit_host *h = &a->hosts[i];
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?}", "at", h->ep.spec, "status",
						      names[h->outcome], "message", h->message, "outdir", h->outdir,
						      "receipt", h->receipt_path[0] ? h->receipt_path : NULL, "summary",
						      h->summary_path[0] ? h->summary_path : NULL));
	}
	return json_pack("{s:s, s:s, s:o, s:b, s:O}", "format", EV_REPLICA_AUDITS_FORMAT, "seal_sha256", a->seal_hex,
			 "hosts", list, "agree", a->agree, "findings", findings);
}
