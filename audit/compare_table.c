/* SPDX-License-Identifier: Apache-2.0 */
/* compare_table: one table, two renderings (compare_table.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/compare_table.h"
#include "lib/core/grow.h"

void audit_compare_table_init(struct compare_table *t, size_t ncols, const char *const *head, const int *right,
			const int *in_unit, const char *unit)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols > COMPARE_TABLE_MAX_COLUMNS ? COMPARE_TABLE_MAX_COLUMNS : ncols;
	for (size_t i = 0; i < t->ncols; i++) {
		size_t n = strlen(head[i]) + (unit ? strlen(unit) + 4 : 0) + 1;
		if (!(t->head[i] = malloc(n)))
			t->oom = 1;
		else if (in_unit[i] && unit)
			snprintf(t->head[i], n, "%s (%s)", head[i], unit);
		else
			snprintf(t->head[i], n, "%s", head[i]);
		t->right[i] = right[i];
	}
}

void audit_compare_table_row(struct compare_table *t, const char *const *row)
{
	if (t->oom)
		return;
	if (ev_grow_array(&t->cells, &t->cap, (t->nrows + 1) * t->ncols, sizeof *t->cells) != 0) {
		t->oom = 1;
		return;
	}
	for (size_t i = 0; i < t->ncols; i++)
		if (!(t->cells[t->nrows * t->ncols + i] = strdup(row[i] ? row[i] : "")))
			t->oom = 1;
	t->nrows++;
}

static const char *cell(const struct compare_table *t, size_t row, size_t col)
{
	return t->cells[row * t->ncols + col] ? t->cells[row * t->ncols + col] : "";
}

void audit_compare_table_text(const struct compare_table *t, struct ev_textbuf *out)
{
	size_t w[COMPARE_TABLE_MAX_COLUMNS];
	if (t->oom) {
		out->oom = 1;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = audit_text_chars(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++)
			w[c] = audit_text_chars(cell(t, r, c)) > w[c] ? audit_text_chars(cell(t, r, c)) : w[c];
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = r ? cell(t, r - 1, c) : t->head[c];
			int pad = (int)(w[c] - audit_text_chars(s));
			int last = c + 1 == t->ncols;
			if (t->right[c])
				ev_textbuf_add(out, "%*s%s", pad, "", s);
			else
				ev_textbuf_add(out, "%s%*s", s, last ? 0 : pad, "");
			ev_textbuf_add(out, last ? "\n" : "  ");
		}
	}
}

static void markdown_cell(struct ev_textbuf *out, const char *s)
{
	ev_textbuf_add(out, " ");
	for (; *s; s++)
		if (*s == '|')
			ev_textbuf_add(out, "\\|");
		else
			ev_textbuf_add(out, "%c", *s);
	ev_textbuf_add(out, " |");
}

void audit_compare_table_markdown(const struct compare_table *t, struct ev_textbuf *out)
{
	if (t->oom) {
		out->oom = 1;
		return;
	}
	ev_textbuf_add(out, "|");
	for (size_t c = 0; c < t->ncols; c++)
		markdown_cell(out, t->head[c]);
	ev_textbuf_add(out, "\n|");
	for (size_t c = 0; c < t->ncols; c++)
		ev_textbuf_add(out, t->right[c] ? " ---: |" : " --- |");
	ev_textbuf_add(out, "\n");
	for (size_t r = 0; r < t->nrows; r++) {
		ev_textbuf_add(out, "|");
		for (size_t c = 0; c < t->ncols; c++)
			markdown_cell(out, cell(t, r, c));
		ev_textbuf_add(out, "\n");
	}
}

void audit_compare_table_html(const struct compare_table *t, struct ev_textbuf *out, const char *cls, const char *caption)
{
	if (t->oom) {
		out->oom = 1;
		return;
	}
	ev_textbuf_add(out, "<div class=\"wide\"><table class=\"%s\"><caption>", cls);
	ev_textbuf_escaped(out, caption);
	ev_textbuf_add(out, "</caption><thead><tr>");
	for (size_t c = 0; c < t->ncols; c++) {
		ev_textbuf_add(out, "<th>");
		ev_textbuf_escaped(out, t->head[c]);
		ev_textbuf_add(out, "</th>");
	}
	ev_textbuf_add(out, "</tr></thead><tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		ev_textbuf_add(out, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			ev_textbuf_add(out, "<td>");
			ev_textbuf_escaped(out, cell(t, r, c));
			ev_textbuf_add(out, "</td>");
		}
		ev_textbuf_add(out, "</tr>\n");
	}
	ev_textbuf_add(out, "</tbody></table></div>\n");
}

void audit_compare_table_free(struct compare_table *t)
{
	for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (size_t i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->cells);
	memset(t, 0, sizeof *t);
}
