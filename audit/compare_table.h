/* compare_table: a table of text cells, written aligned for a terminal
 * or as a Markdown table (audit compare's two renderings of the same
 * rows). Only audit/ includes this. */
#ifndef AUDIT_COMPARE_TABLE_H
#define AUDIT_COMPARE_TABLE_H

#include <stddef.h>

#include "audit/svg.h"

#define COMPARE_TABLE_MAX_COLUMNS 12

struct compare_table {
	size_t ncols, nrows, cap;
	const char *head[COMPARE_TABLE_MAX_COLUMNS];
	int right[COMPARE_TABLE_MAX_COLUMNS]; /* 1: a number, aligned right */
	char **cells;                          /* nrows * ncols copies; NULL once out of memory */
	int oom;
};

/* ncols (at most COMPARE_TABLE_MAX_COLUMNS) columns named head; the
 * arrays are copied. */
void compare_table_init(struct compare_table *t, size_t ncols, const char *const *head, const int *right);

/* A row of ncols cells, copied. */
void compare_table_row(struct compare_table *t, const char *const *row);

/* Columns padded to their widest cell (in UTF-8 characters), two spaces
 * apart, a header line first. */
void compare_table_text(const struct compare_table *t, struct text *out);

/* A Markdown table, numbers right-aligned; '|' in a cell escaped. */
void compare_table_markdown(const struct compare_table *t, struct text *out);

void compare_table_free(struct compare_table *t);

#endif
