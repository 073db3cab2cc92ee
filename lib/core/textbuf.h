/* SPDX-License-Identifier: Apache-2.0 */
/* textbuf: text that grows as it is written (a report, an SVG chart, the
 * lines a use case hands its tool to print), printf-style.
 *
 * On allocation failure the buffer stops growing and says so (oom): the
 * writer goes on without checking each call, and reports it once at the
 * end. A zeroed struct is an empty buffer. No global state.
 */
#ifndef EV_TEXTBUF_H
#define EV_TEXTBUF_H

#include <stddef.h>

struct ev_textbuf {
	char *s;      /* NUL-terminated once anything was added; NULL before */
	size_t n, cap;
	int oom;
};

void ev_textbuf_add(struct ev_textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s with &, <, >, " escaped (for HTML and SVG). */
void ev_textbuf_escaped(struct ev_textbuf *t, const char *s);

void ev_textbuf_free(struct ev_textbuf *t);

#endif
