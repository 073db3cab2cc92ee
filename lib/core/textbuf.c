/* SPDX-License-Identifier: Apache-2.0 */
/* textbuf: text that grows as it is written (textbuf.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/textbuf.h"

void ev_textbuf_add(struct ev_textbuf *t, const char *fmt, ...)
{
	if (t->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = 1;
			return;
		}
		if (t->s && t->n + (size_t)n < t->cap) {
			t->n += (size_t)n;
			return;
		}
		size_t cap = (t->cap ? t->cap * 2 : 65536) + (size_t)n;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->oom = 1;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

void ev_textbuf_escaped(struct ev_textbuf *t, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': ev_textbuf_add(t, "&amp;"); break;
		case '<': ev_textbuf_add(t, "&lt;"); break;
		case '>': ev_textbuf_add(t, "&gt;"); break;
		case '"': ev_textbuf_add(t, "&quot;"); break;
		default: ev_textbuf_add(t, "%c", *s);
		}
	}
}

void ev_textbuf_free(struct ev_textbuf *t)
{
	free(t->s);
	memset(t, 0, sizeof *t);
}
