/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the grade's renderings: the closing line and the Grade
 * section of summary.md and report.html, every failed or unknown
 * condition named with its evidence and the runs it holds for
 * (lib/usecase/audit/campaign/audit_campaign_grade.c graded them). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/campaign.h"

static size_t count_with(const json_t *conditions, const char *verdict)
{
	size_t i, n = 0;
	json_t *c;
	json_array_foreach(conditions, i, c) n += !strcmp(json_string_value(json_object_get(c, "verdict")), verdict);
	return n;
}

void audit_campaign_grade_line(const struct ev_audit_campaign *ca, FILE *to)
{
	const json_t *conditions = json_object_get(ca->grade, "conditions");
	const json_t *rules = json_object_get(ca->grade, "rules");
	fprintf(to, "grade: %s by the rules %s version %" JSON_INTEGER_FORMAT " (%s): %zu condition%s failed, %zu unknown%s\n",
		json_string_value(json_object_get(ca->grade, "grade")), json_string_value(json_object_get(rules, "name")),
		json_integer_value(json_object_get(rules, "version")), ca->grade_rules_from,
		count_with(conditions, "fail"), count_with(conditions, "fail") == 1 ? "" : "s",
		count_with(conditions, "unknown"),
		strcmp(json_string_value(json_object_get(ca->grade, "grade")), "quiet") ? " (each named under Grade)" : "");
}

/* Evidence is a stranger's text: in a Markdown cell, no '|' or line break. */
static void md_text(struct ev_textbuf *t, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			ev_textbuf_add(t, "\\|");
		else if (*s == '\n' || *s == '\r')
			ev_textbuf_add(t, " ");
		else
			ev_textbuf_add(t, "%c", *s);
	}
}

void audit_campaign_write_grade(const struct ev_audit_campaign *ca, struct ev_textbuf *t, int html)
{
	const json_t *g = ca->grade, *rules = json_object_get(g, "rules");
	const char *grade = json_string_value(json_object_get(g, "grade"));
	if (html)
		ev_textbuf_add(t, "<section id=\"grade\"><h2>Grade: %s</h2>\n<p>", grade);
	else
		ev_textbuf_add(t, "## Grade: %s\n\n", grade);
	ev_textbuf_add(t, "By the rules %s version %" JSON_INTEGER_FORMAT " (%s, SHA-256 %.16s…): quiet needs every graded\n"
		       "condition met in every run; a condition whose evidence was not recorded is unknown, and unknown\n"
		       "is never quiet. A diagnostic campaign's numbers describe what ran, not the timing of an\n"
		       "undisturbed pair.%s",
		       json_string_value(json_object_get(rules, "name")), json_integer_value(json_object_get(rules, "version")),
		       ca->grade_rules_from, ca->grade_rules_sha256, html ? "</p>\n" : "\n\n");
	ev_textbuf_add(t, html ? "<div class=\"wide\"><table class=\"grade\"><thead><tr><th>condition</th><th>verdict</th>"
				 "<th>evidence</th></tr></thead><tbody>\n"
			       : "| condition | verdict | evidence |\n| --- | --- | --- |\n");
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(g, "conditions"), i, c) {
		const char *verdict = json_string_value(json_object_get(c, "verdict"));
		const json_t *ev = json_object_get(c, "evidence");
		if (html)
			ev_textbuf_add(t, "<tr%s><td>%s</td><td>%s</td><td>", !strcmp(verdict, "fail") || !strcmp(verdict, "unknown") ? " class=\"fail\"" : "",
				       json_string_value(json_object_get(c, "condition")), verdict); /* both ours, not the evidence's */
		else
			ev_textbuf_add(t, "| %s | %s | ", json_string_value(json_object_get(c, "condition")), verdict);
		size_t k;
		json_t *e;
		json_array_foreach(ev, k, e) {
			if (k == EV_CAMPAIGN_GRADE_SHOWN)
				break;
			char line[1200];
			snprintf(line, sizeof line, "%s%s (%s)", k ? "; " : "", json_string_value(json_object_get(e, "text")),
				 json_string_value(json_object_get(e, "runs")));
			if (html)
				ev_textbuf_escaped(t, line);
			else
				md_text(t, line);
		}
		if (json_array_size(ev) > EV_CAMPAIGN_GRADE_SHOWN)
			ev_textbuf_add(t, "; and %zu more (summary.json)", json_array_size(ev) - EV_CAMPAIGN_GRADE_SHOWN);
		if (!json_array_size(ev))
			ev_textbuf_add(t, "—");
		ev_textbuf_add(t, html ? "</td></tr>\n" : " |\n");
	}
	ev_textbuf_add(t, html ? "</tbody></table></div></section>\n" : "\n");
}

static void figure(struct ev_textbuf *t, const json_t *v, const char *unit, int html)
{
	if (json_is_integer(v))
		ev_textbuf_add(t, html ? "<td>%" JSON_INTEGER_FORMAT "%s</td>" : " %" JSON_INTEGER_FORMAT "%s |",
			       json_integer_value(v), unit);
	else
		ev_textbuf_add(t, html ? "<td>—</td>" : " — |");
}

void audit_campaign_write_interference(const struct ev_audit_campaign *ca, struct ev_textbuf *t, int html)
{
	ev_textbuf_add(t, html ? "<section id=\"interference\"><h2>Interference</h2>\n<p>"
			       : "## Interference\n\n");
	ev_textbuf_add(t, "What could stall a measured CPU, read before and after each run (doc/formats.md\n"
		       "\"Interference\"): SMIs, throttle counts and the lowest effective frequency (APERF/MPERF)\n"
		       "of its measured CPUs, the time the hypervisor stole from them, and the host's swapping and\n"
		       "pressure stalls (per mille of the run). — is not recorded on this host. A run that took an\n"
		       "SMI, was throttled, had time stolen or saw the host swap is marked.%s",
		       html ? "</p>\n" : "\n\n");
	ev_textbuf_add(t, html ? "<div class=\"wide\"><table class=\"interference\"><thead><tr><th>run</th><th>SMIs</th>"
				 "<th>throttled</th><th>frequency</th><th>steal</th><th>swapped pages</th>"
				 "<th>PSI cpu</th><th>PSI memory</th><th>PSI io</th><th>marked</th></tr></thead><tbody>\n"
			       : "| run | SMIs | throttled | frequency | steal | swapped pages | PSI cpu | PSI memory | PSI io | marked |\n"
				 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		const json_t *f = r->interference, *psi = json_object_get(f, "pressure_per_mille");
		const json_t *marked = json_object_get(f, "marked");
		int disturbed = json_array_size(marked) > 0;
		if (html) {
			ev_textbuf_add(t, "<tr%s><td>", disturbed ? " class=\"fail\"" : "");
			ev_textbuf_escaped(t, r->name);
			ev_textbuf_add(t, "</td>");
		} else {
			ev_textbuf_add(t, "| ");
			md_text(t, r->name);
			ev_textbuf_add(t, " |");
		}
		figure(t, json_object_get(f, "smi"), "", html);
		figure(t, json_object_get(f, "thermal_throttle"), "", html);
		figure(t, json_object_get(f, "effective_frequency_pct"), "%", html);
		figure(t, json_object_get(f, "steal_ms"), " ms", html);
		figure(t, json_object_get(f, "swapped_pages"), "", html);
		figure(t, json_object_get(psi, "cpu"), "‰", html);
		figure(t, json_object_get(psi, "memory"), "‰", html);
		figure(t, json_object_get(psi, "io"), "‰", html);
		ev_textbuf_add(t, html ? "<td>" : " ");
		size_t k;
		json_t *m;
		if (!html && disturbed)
			ev_textbuf_add(t, "**");
		json_array_foreach(marked, k, m) ev_textbuf_add(t, "%s%s", k ? ", " : "", json_string_value(m));
		if (!html && disturbed)
			ev_textbuf_add(t, "**");
		ev_textbuf_add(t, html ? "</td></tr>\n" : " |\n");
	}
	ev_textbuf_add(t, html ? "</tbody></table></div></section>\n" : "\n");
}
