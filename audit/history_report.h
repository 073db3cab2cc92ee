/* SPDX-License-Identifier: Apache-2.0 */
/* history_report: audit history's page: per series a trend (every
 * campaign a point with its run range, each change marked with its p-value
 * and ratio), the campaigns compared and those listed apart. One HTML
 * file, no script, nothing fetched. Only audit/ includes this. */
#ifndef AUDIT_HISTORY_REPORT_H
#define AUDIT_HISTORY_REPORT_H

#include <jansson.h>

#include "lib/core/textbuf.h"

/* The page of an evidence-history/1 document. */
void audit_history_write_html(const json_t *doc, struct ev_textbuf *t);

#endif
