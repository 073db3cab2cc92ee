/* SPDX-License-Identifier: Apache-2.0 */
/* The member-path model accepts ordinary relative UTF-8 paths and refuses,
 * with the right reason, every form that could escape or mislead. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/core/path.h"

static const char *problem(const char *p)
{
	return ev_path_problem(p, strlen(p));
}

int main(void)
{
	CHECK(problem("a") == NULL);
	CHECK(problem("runs/A-1/journal/0.bin") == NULL);
	CHECK(problem("r\xC3\xA9sum\xC3\xA9/\xE6\x97\xA5\xE6\x9C\xAC.txt") == NULL);
	CHECK(problem("..a/b..") == NULL);

	CHECK_STR_EQ(problem(""), "is empty");
	CHECK_STR_EQ(problem("/etc/passwd"), "is absolute");
	CHECK_STR_EQ(problem("a//b"), "has an empty component (leading, trailing or doubled '/')");
	CHECK_STR_EQ(problem("a/"), "has an empty component (leading, trailing or doubled '/')");
	CHECK_STR_EQ(problem("./a"), "has a '.' or '..' component");
	CHECK_STR_EQ(problem("a/../../b"), "has a '.' or '..' component");
	CHECK_STR_EQ(problem(".."), "has a '.' or '..' component");
	CHECK_STR_EQ(problem("a\\b"), "holds a backslash");
	CHECK_STR_EQ(problem("a\x01" "b"), "holds a control character");
	CHECK_STR_EQ(problem("a\x7f"), "holds a control character");
	CHECK_STR_EQ(problem("a\xC2\x85"), "holds a control character"); /* U+0085 */
	CHECK_STR_EQ(problem("\xFF"), "is not valid UTF-8");
	CHECK_STR_EQ(problem("\xC0\xAF"), "is not valid UTF-8");         /* overlong '/' */
	CHECK_STR_EQ(problem("\xED\xA0\x80"), "is not valid UTF-8");     /* surrogate */
	CHECK_STR_EQ(problem("\xF4\x90\x80\x80"), "is not valid UTF-8"); /* > U+10FFFF */
	CHECK_STR_EQ(problem("\xE6\x97"), "is not valid UTF-8");         /* cut short */
	/* "café" decomposed (e + U+0301) is refused, precomposed accepted. */
	CHECK_STR_EQ(problem("cafe\xCC\x81"), "is not in Unicode normalization form C (NFC)");
	CHECK(problem("caf\xC3\xA9") == NULL);
	CHECK_STR_EQ(problem("a/\xE2\x84\xAB"), "is not in Unicode normalization form C (NFC)"); /* U+212B ANGSTROM SIGN */
	CHECK_STR_EQ(ev_path_problem("a\0b", 3), "holds a control character");

	char *longname = malloc(300);
	memset(longname, 'x', 256);
	longname[256] = '\0';
	CHECK_STR_EQ(problem(longname), "has a component longer than 255 bytes");
	longname[255] = '\0';
	CHECK(problem(longname) == NULL);
	free(longname);
	char *longpath = malloc(5000);
	for (int i = 0; i < 4096; i += 2)
		memcpy(longpath + i, "a/", 2);
	longpath[4096] = '\0';
	CHECK_STR_EQ(problem(longpath), "is longer than 4095 bytes");
	free(longpath);

	CHECK_STR_EQ(ev_path_component_problem("a/b", 3), "holds a '/'");
	CHECK(ev_path_component_problem("campaign", 8) == NULL);

	char out[64];
	ev_path_quote("a\x01\xFF" "b\\", 5, out, sizeof out);
	CHECK_STR_EQ(out, "a\\x01\\xFFb\\x5C");
	ev_path_quote("\xC3\xA9t\xC3\xA9", 5, out, sizeof out);
	CHECK_STR_EQ(out, "\xC3\xA9t\xC3\xA9");
	ev_path_quote("abcdefghij", 10, out, 8);
	CHECK_STR_EQ(out, "abcd...");
	return check_exit("test_path_rejects_unsafe_names");
}
