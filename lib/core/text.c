/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/core/text.h"

int ev_text_next_line(const char **at, const char *end, const char **line, const char **line_end)
{
	if (*at >= end)
		return 0;
	const char *nl = memchr(*at, '\n', (size_t)(end - *at));
	*line = *at;
	*line_end = nl ? nl : end;
	*at = nl ? nl + 1 : end;
	return 1;
}

void ev_text_trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

void ev_format_bytes(uint64_t bytes, char *buf, size_t cap)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, cap, "%.1f %s", v, units[u]);
}

size_t ev_text_rename(char *s, const char *from, const char *to)
{
	if (!s || !from || !from[0])
		return 0;
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	if (nt > nf)
		return 0;
	char *w = s;
	for (const char *r = s; *r;) {
		if (strncmp(r, from, nf) == 0) {
			memmove(w, to, nt);
			w += nt;
			r += nf;
			n++;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return n;
}

size_t ev_strings_size(const char *const *from, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += from[i] ? strlen(from[i]) + 1 : 0;
	return total;
}

void ev_strings_copy(char *at, const char *const *from, const char **const *to, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = from[i] ? strlen(from[i]) + 1 : 0;
		*to[i] = from[i] ? memcpy(at, from[i], len) : NULL;
		at += len;
	}
}

int ev_text_word_in(const char *words, const char *word)
{
	size_t len = strlen(word);
	for (const char *w = words; *w;) {
		size_t n = strcspn(w, " ");
		if (n == len && strncmp(w, word, n) == 0)
			return 1;
		w += n + (w[n] == ' ');
	}
	return 0;
}
