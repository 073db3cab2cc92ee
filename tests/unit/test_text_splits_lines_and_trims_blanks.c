/* SPDX-License-Identifier: Apache-2.0 */
/* text: lines without their newline, the last one with or without one,
 * empty lines kept; a span trimmed of spaces and tabs at both ends and of
 * a carriage return at its end only. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "lib/core/text.h"

static int span_is(const char *s, const char *e, const char *want)
{
	return (size_t)(e - s) == strlen(want) && memcmp(s, want, strlen(want)) == 0;
}

int main(void)
{
	const char text[] = "a\n\n  b c \r\n\tlast";
	const char *at = text, *end = text + strlen(text), *s, *e;
	const char *want[] = {"a", "", "  b c \r", "\tlast"};
	size_t n = 0;
	while (ev_text_next_line(&at, end, &s, &e)) {
		CHECK(n < 4 && span_is(s, e, want[n]));
		n++;
	}
	CHECK_INT_EQ(n, 4);
	CHECK_INT_EQ(ev_text_next_line(&at, end, &s, &e), 0);

	const char two[] = "x\n";
	at = two;
	n = 0;
	while (ev_text_next_line(&at, two + 2, &s, &e))
		n++;
	CHECK_INT_EQ(n, 1);

	const char *t = "  b c \r", *te = t + strlen(t);
	ev_text_trim(&t, &te);
	CHECK(span_is(t, te, "b c"));
	t = "\rkept";
	te = t + strlen(t);
	ev_text_trim(&t, &te);
	CHECK(span_is(t, te, "\rkept"));
	t = " \t ";
	te = t + strlen(t);
	ev_text_trim(&t, &te);
	CHECK(t == te);
	return check_exit("test_text_splits_lines_and_trims_blanks");
}
