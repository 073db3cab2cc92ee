/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the stack options' rendering: per cell and side, each
 * option requested against each run's effective value, a flagged value
 * marked (lib/usecase/audit/campaign/audit_campaign_options.c read them). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/campaign.h"

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One table per cell and side: option, requested, each run's effective
 * value; a flagged value marked. */
void audit_campaign_write_stack_options(const json_t *options, struct ev_textbuf *t, int html)
{
	if (!options)
		return;
	if (html)
		ev_textbuf_add(t, "<h2>Stack options: requested and effective</h2>\n");
	else
		ev_textbuf_add(t, "\n## Stack options: requested and effective\n\n"
			       "Per cell and side: what the side asked for (its EF_ environment and Onload profile) and\n"
			       "what its stack used in each run, as its observer printed it. A value unlike the\n"
			       "request, or unlike the cell's other runs, is marked DIFFERS; \"-\" is an option a\n"
			       "run's stack did not show.\n");
	const char *cell, *side;
	json_t *c, *s;
	json_object_foreach((json_t *)options, cell, c)
		json_object_foreach(c, side, s) {
			json_t *runs = json_object_get(s, "runs"), *req = json_object_get(s, "requested");
			json_t *names = json_object(), *eff, *v;
			const char *run, *name;
			json_object_foreach(runs, run, eff)
				json_object_foreach(eff, name, v)
					json_object_set_new(names, name, json_true());
			json_object_foreach(req, name, v)
				json_object_set_new(names, name, json_true());
			if (html) {
				ev_textbuf_add(t, "<h3>Cell ");
				ev_textbuf_escaped(t, cell);
				ev_textbuf_add(t, ", %s</h3>\n<table><tr><th>option</th><th>requested</th>", side);
				json_object_foreach(runs, run, eff) {
					ev_textbuf_add(t, "<th>");
					ev_textbuf_escaped(t, run);
					ev_textbuf_add(t, "</th>");
				}
				ev_textbuf_add(t, "</tr>\n");
			} else {
				ev_textbuf_add(t, "\n### Cell %s, %s\n\n| option | requested |", cell, side);
				json_object_foreach(runs, run, eff)
					ev_textbuf_add(t, " %s |", run);
				ev_textbuf_add(t, "\n| --- | --- |");
				json_object_foreach(runs, run, eff)
					ev_textbuf_add(t, " --- |");
				ev_textbuf_add(t, "\n");
			}
			/* names in order, for a stable table */
			const char *sorted[512];
			size_t n = 0;
			json_object_foreach(names, name, v)
				if (n < 512)
					sorted[n++] = name;
			qsort(sorted, n, sizeof *sorted, by_string);
			for (size_t k = 0; k < n; k++) {
				const char *want = json_string_value(json_object_get(req, sorted[k]));
				if (html) {
					ev_textbuf_add(t, "<tr><td>");
					ev_textbuf_escaped(t, sorted[k]);
					ev_textbuf_add(t, "</td><td>");
					ev_textbuf_escaped(t, want ? want : "-");
					ev_textbuf_add(t, "</td>");
				} else {
					ev_textbuf_add(t, "| %s | %s |", sorted[k], want ? want : "-");
				}
				json_object_foreach(runs, run, eff) {
					const char *val = json_is_null(eff) ? "not observed" : json_string_value(json_object_get(eff, sorted[k]));
					int differs = 0;
					size_t f;
					json_t *fl;
					json_array_foreach(json_object_get(s, "flagged"), f, fl)
						differs |= strcmp(json_string_value(json_object_get(fl, "run")), run) == 0 &&
							   strcmp(json_string_value(json_object_get(fl, "option")), sorted[k]) == 0;
					if (html) {
						ev_textbuf_add(t, differs ? "<td class=\"differs\">" : "<td>");
						ev_textbuf_escaped(t, val ? val : "-");
						ev_textbuf_add(t, differs ? " DIFFERS</td>" : "</td>");
					} else {
						ev_textbuf_add(t, " %s%s |", val ? val : "-", differs ? " DIFFERS" : "");
					}
				}
				ev_textbuf_add(t, html ? "</tr>\n" : "\n");
			}
			if (html)
				ev_textbuf_add(t, "</table>\n");
			json_decref(names);
		}
}
