/* SPDX-License-Identifier: Apache-2.0 */
/* audit compare --reference: a campaign's arm and cell held against a
 * vendor's published statistics (lib/usecase/audit/audit_reproduction), the
 * table rendered in Markdown and the verdict said. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/compare_reference.h"
#include "audit/svg.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/audit_reproduction.h"

static void show_finding(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
}

static json_t *decimal(double v)
{
	return ev_json_decimal_of(v == 0 ? 0 : v, 9);
}

static void markdown(struct ev_textbuf *t, const struct ev_compare_side *s, const struct ev_compare_group *g, const struct ev_reference *ref,
		     const struct ev_held_stat *h, size_t n, const char *said)
{
	const json_t *pub = json_object_get(ref->doc, "published");
	ev_textbuf_add(t, "# Campaign %s against the reference %s\n\n", s->campaign, ref->name);
	ev_textbuf_add(t, "- reference: %s, published at %s on %s (descriptor SHA-256 %s)\n", ref->name,
		       json_string_value(json_object_get(pub, "where")), json_string_value(json_object_get(pub, "when")),
		       ref->sha256);
	ev_textbuf_add(t, "- its statistics: %s (SHA-256 %s), read as %s's block%s%s\n", ref->stats_path, ref->stats_sha256,
		       ref->native.tool, ref->native.title[0] ? " " : "", ref->native.title);
	static const char *const parts[] = {"hardware", "stack"};
	for (int p = 0; p < 2; p++) {
		const char *key;
		json_t *v;
		ev_textbuf_add(t, "- its %s:", parts[p]);
		json_object_foreach(json_object_get(ref->doc, parts[p]), key, v)
			ev_textbuf_add(t, " %s %s;", key, json_string_value(v));
		ev_textbuf_add(t, "\n");
	}
	ev_textbuf_add(t, "- the campaign: %s (summary SHA-256 %s), arm %s cell %s, %zu run%s, %s\n\n", s->campaign, s->sha256,
		       g->arm, g->cell, g->n, g->n == 1 ? "" : "s", g->grade);
	ev_textbuf_add(t, "| statistic | campaign median (ns) | campaign runs (ns) | reference (ns, as printed) | campaign / reference |\n"
		       "| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < n; i++) {
		json_t *m = decimal(h[i].median), *lo = decimal(h[i].lo), *hi = decimal(h[i].hi), *r = decimal(h[i].ratio);
		ev_textbuf_add(t, "| %s | %s | %s-%s | %s | %s |\n", h[i].name, json_string_value(m), json_string_value(lo),
			       json_string_value(hi), h[i].printed, isnan(h[i].ratio) ? "none" : json_string_value(r));
		json_decref(m);
		json_decref(lo);
		json_decref(hi);
		json_decref(r);
	}
	ev_textbuf_add(t, "\nverdict: %s\n", said);
}

ev_status audit_compare_reference(struct ev_audit_reproduction *r, int json, struct ev_error *err)
{
	struct ev_textbuf md = {0};
	json_t *receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	r->on_finding = show_finding;
	r->interrupted = &ev_cli_interrupted;
	ev_status st = ev_audit_reproduction_run(r, receipt, err);
	if (st != EV_OK)
		goto out;
	markdown(&md, &r->side, &r->group, &r->ref, r->held, r->nheld, r->verdict);
	char registration[2048];
	ev_compare_registration_sentence(r->registration, registration, sizeof registration);
	ev_textbuf_add(&md, "%s\n", registration);
	if (md.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	struct ev_compare_output rendered[] = {{"reproduction.md", md.s, md.n}};
	st = ev_audit_reproduction_publish(r, receipt, rendered, 1, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (json)
		fwrite(r->bytes, 1, r->len, stdout);
	else
		fwrite(md.s, 1, md.n, stdout);
	fprintf(json ? stderr : stdout, "%s: %s; reproduction %s\n", st == EV_OK ? "OK" : "FAIL", r->verdict, r->out);
out:
	ev_audit_reproduction_free(r);
	ev_textbuf_free(&md);
	json_decref(receipt);
	return st;
}
