/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the provenance: where and how the campaign ran, as
 * capture recorded it (policy.json, its receipts), shown on top of the
 * report and kept in summary.json; and, with --seal, every file the
 * audit read held against the seal it names. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/usecase/audit/campaign/parts.h"
#include "lib/archive/seal.h"
#include "lib/core/json.h"
#include "lib/core/input.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

static json_t *text_or_null(const json_t *v)
{
	return json_is_string(v) ? json_incref((json_t *)v) : json_null();
}

static ev_status add_input(json_t *receipt, const char *name, const char *path, const uint8_t d[EV_SHA256_LEN],
			   struct ev_error *err)
{
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_sha256_hex(d, hex);
	return ev_receipt_add_input(receipt, name, path, hex, err);
}

/* The OS policy capture recorded before its first run (read, and made
 * an input, with the grading: audit_campaign_grade.c). */
static ev_status policy_facts(struct ev_audit_campaign *ca, json_t *out, struct ev_error *err)
{
	(void)err;
	const struct ev_policy *p = ca->npolicies ? &ca->policies[0] : NULL;
	if (!p) {
		json_object_set_new(out, "policy", json_string("none: the campaign has no policy.json"));
		return EV_OK;
	}
	const json_t *kernel = ev_policy_value(p, "kernel");
	json_object_set_new(out, "host", text_or_null(ev_policy_value(p, "host")));
	json_object_set_new(out, "kernel", kernel ? json_pack("{s:s?, s:s?}", "release", ev_policy_kernel(p, "release"),
							      "version", ev_policy_kernel(p, "version"))
						  : json_null());
	json_object_set_new(out, "cpu_model", text_or_null(ev_policy_value(p, "cpu_model")));
	json_object_set_new(out, "os", text_or_null(ev_policy_value(p, "os")));
	json_t *governors = json_object();
	const char *cpu;
	json_t *v;
	json_object_foreach((json_t *)ev_policy_cpus(p), cpu, v)
		json_object_set(governors, cpu, (json_t *)ev_policy_cpu_value(p, cpu, "governor"));
	json_t *policy = json_object();
	static const char *const shown[] = {"clocksource", "turbo", "isolation", "transparent_hugepage", "numa_balancing",
					    "nmi_watchdog", "tuned_profile", NULL};
	for (size_t i = 0; shown[i]; i++) {
		json_object_set(policy, shown[i], ev_policy_value(p, shown[i]) ? (json_t *)ev_policy_value(p, shown[i]) : json_null());
		if (!strcmp(shown[i], "turbo"))
			json_object_set_new(policy, "governors", governors);
	}
	const json_t *dma = ev_policy_value(p, "cpu_dma_latency_us");
	json_object_set(policy, "cpu_dma_latency_us_before", dma ? (json_t *)dma : json_null());
	json_object_set_new(out, "policy", policy);
	return EV_OK;
}

/* Each capture session's receipt: its host, result, what it could not do,
 * and the PM QoS each arm held. */
static ev_status capture_facts(struct ev_audit_campaign *ca, json_t *out, struct ev_error *err)
{
	DIR *d = opendir(ca->dir);
	json_t *sessions = json_array(), *pmqos = json_object();
	struct dirent *de;
	ev_status st = EV_OK;
	char *names[64];
	size_t n = 0;
	while (d && (de = readdir(d)) && n < 64)
		if (strncmp(de->d_name, "receipt-capture", 15) == 0 && strstr(de->d_name, ".json"))
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && names[j] && names[j - 1] && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n && st == EV_OK; i++) {
		char path[PATH_MAX];
		json_t *r = NULL;
		uint8_t dg[EV_SHA256_LEN];
		if (!names[i] || ev_path_join(path, sizeof path, ca->dir, names[i]) != 0)
			continue;
		if ((st = ev_input_check_beneath(ca->dir, names[i], ca->dir, NULL, err)) != EV_OK ||
		    (st = ev_receipt_load(path, &r, dg, err)) != EV_OK)
			break;
		add_input(ca->receipt, names[i], path, dg, err);
		int intact = ev_receipt_comparable_holds(r, err) == 1;
		json_array_append_new(sessions, json_pack("{s:s, s:s?, s:s?, s:s?, s:b, s:O}", "receipt", names[i], "host",
							  ev_receipt_host(r), "result", ev_receipt_result(r), "finished",
							  ev_receipt_finished(r), "intact", intact, "degraded",
							  ev_receipt_fact(r, "degraded") ?: json_null()));
		size_t k;
		json_t *arm;
		json_array_foreach(ev_receipt_fact(r, "arms"), k, arm) {
			const json_t *q = json_object_get(arm, "cpu_dma_latency");
			const char *name = json_string_value(json_object_get(arm, "name"));
			if (name)
				json_object_set_new(pmqos, name, q ? json_incref((json_t *)q) : json_string("not requested"));
		}
		json_decref(r);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	json_object_set_new(out, "captures", sessions);
	json_object_set_new(out, "pm_qos", pmqos);
	return st;
}

ev_status ev_audit_campaign_read_provenance(struct ev_audit_campaign *ca, const char *name, struct ev_error *err)
{
	json_t *p = json_pack("{s:s, s:n, s:n, s:n, s:n, s:n}", "campaign", name ? name : "", "seal_sha256", "host",
			      "kernel", "cpu_model", "os");
	ca->provenance = p;
	if (ca->seal_hex[0])
		json_object_set_new(p, "seal_sha256", json_string(ca->seal_hex));
	json_object_set_new(p, "programs", ca->programs ? json_incref(ca->programs) : json_array());
	ev_status st = policy_facts(ca, p, err);
	if (st == EV_OK)
		st = capture_facts(ca, p, err);
	return st;
}

static int by_member_path(const void *key, const void *m)
{
	return strcmp(key, ((const struct ev_member *)m)->path);
}

/* path relative to dir, or NULL when it does not lie beneath it. */
static const char *beneath(const char *dir, const char *path)
{
	size_t dirlen = strlen(dir);
	while (dirlen > 1 && dir[dirlen - 1] == '/')
		dirlen--;
	if (!path || strncmp(path, dir, dirlen) != 0 || path[dirlen] != '/')
		return NULL;
	const char *rel = path + dirlen;
	while (*rel == '/') /* CAMPAIGN_DIR given as "dir/" */
		rel++;
	return rel;
}

/* path (an input's, as a receipt names it) relative to the campaign
 * directory, or NULL when it does not lie beneath it. From an archive,
 * the journals' receipt names the copies as the archive does, ROOT/PATH. */
static const char *relative(const struct ev_audit_campaign *ca, const char *path)
{
	const char *rel = beneath(ca->dir, path);
	if (!rel && ca->archive)
		rel = beneath(ca->seal.root, path);
	return rel;
}

static void each_of(const struct ev_audit_campaign *ca, const json_t *list, ev_audit_campaign_input_fn fn, void *ctx)
{
	size_t i;
	json_t *in;
	json_array_foreach(list, i, in) {
		const char *path = json_string_value(json_object_get(in, "path"));
		const char *hex = json_string_value(json_object_get(in, "sha256"));
		const char *rel = relative(ca, path);
		if (rel && hex)
			fn(ctx, rel, hex, path);
	}
}

ev_status ev_audit_campaign_each_input(struct ev_audit_campaign *ca, ev_audit_campaign_input_fn fn, void *ctx,
				    struct ev_error *err)
{
	each_of(ca, ev_receipt_inputs(ca->receipt), fn, ctx);
	if (!ca->journals_audited)
		return EV_OK;
	char path[PATH_MAX];
	json_t *journals = NULL;
	if (ev_path_join(path, sizeof path, ca->tmpdir, "audit-journal.json") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
	ev_status st = ev_receipt_load(path, &journals, NULL, err);
	if (st == EV_OK)
		each_of(ca, ev_receipt_inputs(journals), fn, ctx);
	json_decref(journals);
	return st;
}

struct seal_hold {
	const struct ev_audit_campaign *ca;
	size_t held, bad;
	char detail[PATH_MAX + 256]; /* the first bad one */
};

/* One input against the seal: counted in held or bad, named when bad. */
static void hold_input(void *ctx, const char *rel, const char *hex, const char *path)
{
	struct seal_hold *h = ctx;
	const struct ev_audit_campaign *ca = h->ca;
	const struct ev_member *m = bsearch(rel, ca->seal.members, ca->seal.count, sizeof *ca->seal.members,
					    by_member_path);
	char mine[EV_SHA256_HEX_LEN + 1] = "";
	if (m)
		ev_sha256_hex(m->sha256, mine);
	if (m && m->type == EV_MEMBER_FILE && strcmp(mine, hex) == 0) {
		h->held++;
		return;
	}
	h->bad++;
	const char *why = m ? "its SHA-256 is not the seal's (changed after sealing)" : "not a member of the seal";
	ev_audit_campaign_note(ca, "%s: %s", path, why);
	if (!h->detail[0])
		snprintf(h->detail, sizeof h->detail, "%s: %s", rel, why);
}

/* With --seal: every input read under the campaign directory, here and
 * in the journals' own receipt, is a member of the seal with its SHA-256. */
ev_status ev_audit_campaign_check_seal(struct ev_audit_campaign *ca, struct ev_error *err)
{
	if (!ca->seal_hex[0])
		return EV_OK;
	struct seal_hold h = {.ca = ca};
	ev_status st = ev_audit_campaign_each_input(ca, hold_input, &h, err);
	if (st != EV_OK)
		return st;
	char ok[128], whole[sizeof ca->copies.first + 96];
	snprintf(ok, sizeof ok, "%zu files read, each a member of the seal with its SHA-256", h.held);
	const char *detail = h.bad ? h.detail : ok;
	/* from an archive, the archive whole against its seal: what was not
	 * read counts as much as what was */
	if (!h.bad && ca->archive && ca->copies.findings) {
		snprintf(whole, sizeof whole, "the archive against its seal: %u finding%s, the first %s",
			 ca->copies.findings, ca->copies.findings == 1 ? "" : "s", ca->copies.first);
		detail = whole;
	}
	int bad = h.bad || (ca->archive && ca->copies.findings);
	return ev_receipt_add_check(ca->receipt, "inputs against the seal", !bad, detail, err);
}
