#include "config.h"

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
