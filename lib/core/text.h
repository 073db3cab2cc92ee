/* SPDX-License-Identifier: Apache-2.0 */
/* text: lines of a text file held in memory, as the readers of tools'
 * printed output take them (Onload's dumps, perf report's rows, a
 * series' CSV twin): one line at a time without its newline, and a span
 * without the blanks around it; a byte count as people read it; a private
 * path renamed in place; and many short strings kept as one allocation.
 * No global state. */
#ifndef EV_TEXT_H
#define EV_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The next line of [*at, end) into [*line, *line_end), without its '\n';
 * *at moves past it. @return 0 when nothing is left, else 1. */
int ev_text_next_line(const char **at, const char *end, const char **line, const char **line_end);

/* [*s, *e) without spaces and tabs at either end, nor a carriage return
 * at its end (a line written with CRLF). */
void ev_text_trim(const char **s, const char **e);

/* Is word one of words, a space-separated list ("p50 p95 p99")? */
int ev_text_word_in(const char *words, const char *word);

/* Human-readable byte count ("1.5 GiB") into buf. */
void ev_format_bytes(uint64_t bytes, char *buf, size_t cap);

/* Every occurrence of from in s replaced by to, in place: to must be no
 * longer than from (a private directory's path giving way to the name a
 * user knows, as an audit from an archive shows its copies). from "" or
 * NULL: s is left alone. @return how many were replaced. */
size_t ev_text_rename(char *s, const char *from, const char *to);

/* Many short strings kept as one allocation (a catalog's 100,000 rows are
 * each a dozen strings; one malloc apiece was most of what keeping them
 * cost). ev_strings_size: the bytes n strings take with their NULs (a
 * NULL one takes none). ev_strings_copy: each from[i] copied at at, one
 * after another, *to[i] pointed at its copy (NULL for a NULL one); at
 * must hold ev_strings_size(from, n) bytes. */
size_t ev_strings_size(const char *const *from, size_t n);
void ev_strings_copy(char *at, const char *const *from, const char **const *to, size_t n);

#endif
