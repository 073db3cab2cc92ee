/* SPDX-License-Identifier: Apache-2.0 */
/* compare_table: a table of text cells, written aligned for a terminal
 * or as a Markdown table (audit compare's two renderings of the same
 * rows, and the same as HTML). Only audit/ includes this. */
#ifndef AUDIT_COMPARE_TABLE_H
#define AUDIT_COMPARE_TABLE_H

#include <stddef.h>

#include "audit/svg.h"

#define COMPARE_TABLE_MAX_COLUMNS 12

struct compare_table {
	size_t ncols, nrows, cap; /* cap: cells, not rows */
	char *head[COMPARE_TABLE_MAX_COLUMNS]; /* copies */
	int right[COMPARE_TABLE_MAX_COLUMNS]; /* 1: a number, aligned right */
	char **cells;                          /* nrows * ncols copies; NULL once out of memory */
	int oom;
};

/* ncols (at most COMPARE_TABLE_MAX_COLUMNS) columns named head, numbers
 * where right[i] is set, each name followed by " (unit)" where in_unit[i]
 * is set; names and flags are copied. */
void audit_compare_table_init(struct compare_table *t, size_t ncols, const char *const *head, const int *right,
			const int *in_unit, const char *unit);

/* A row of ncols cells, copied. */
void audit_compare_table_row(struct compare_table *t, const char *const *row);

/* Columns padded to their widest cell (in UTF-8 characters), two spaces
 * apart, a header line first. */
void audit_compare_table_text(const struct compare_table *t, struct ev_textbuf *out);

/* A Markdown table, numbers right-aligned; '|' in a cell escaped. */
void audit_compare_table_markdown(const struct compare_table *t, struct ev_textbuf *out);

/* An HTML table of class cls with a caption, every cell escaped. */
void audit_compare_table_html(const struct compare_table *t, struct ev_textbuf *out, const char *cls, const char *caption);

void audit_compare_table_free(struct compare_table *t);

#endif
