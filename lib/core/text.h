/* text: lines of a text file held in memory, as the readers of tools'
 * printed output take them (Onload's dumps, perf report's rows, a
 * series' CSV twin): one line at a time without its newline, and a span
 * without the blanks around it; and a byte count as people read it. No
 * global state. */
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

/* Human-readable byte count ("1.5 GiB") into buf. */
void ev_format_bytes(uint64_t bytes, char *buf, size_t cap);

#endif
