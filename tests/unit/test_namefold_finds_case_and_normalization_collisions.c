/* SPDX-License-Identifier: Apache-2.0 */
/* Names that differ only in case or Unicode normalization are reported as
 * one collision per pair, with both names byte by byte; distinct names and
 * exact duplicates are not collisions. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/archive/namefold.h"

struct seen {
	unsigned count;
	char subject[4][128];
	char found[4][EV_FINDING_VALUE_MAX];
};

static void note(void *ctx, const struct ev_finding *f)
{
	struct seen *s = ctx;
	if (s->count < 4) {
		snprintf(s->subject[s->count], sizeof s->subject[0], "%s", f->subject);
		snprintf(s->found[s->count], sizeof s->found[0], "%s", f->found);
	}
	CHECK_STR_EQ(f->check, "collision");
	s->count++;
}

static unsigned collisions(const char *const *names, struct seen *s)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_namefold *set = ev_namefold_new();
	CHECK(set != NULL);
	for (size_t i = 0; names[i]; i++)
		CHECK_INT_EQ(ev_namefold_add(set, names[i], &err), EV_OK);
	memset(s, 0, sizeof *s);
	unsigned n = ev_namefold_report(set, note, s);
	ev_namefold_free(set);
	CHECK_INT_EQ(n, s->count);
	return n;
}

int main(void)
{
	struct seen s;

	const char *const none[] = {NULL};
	CHECK_INT_EQ(collisions(none, &s), 0);

	const char *const distinct[] = {"runs/A-1/journal/1.bin", "runs/A-2/journal/1.bin",
					 "r\xC3\xA9sum\xC3\xA9.txt", "resume.txt", NULL};
	CHECK_INT_EQ(collisions(distinct, &s), 0);

	const char *const cased[] = {"runs/README", "runs/readme", "runs/other", NULL};
	CHECK_INT_EQ(collisions(cased, &s), 1);
	CHECK_STR_EQ(s.subject[0], "runs/readme");
	CHECK_STR_EQ(s.found[0], "runs/readme and runs/README");

	/* "café": precomposed U+00E9 (NFC) and e + U+0301 (NFD). */
	const char *const normalized[] = {"caf\xC3\xA9", "cafe\xCC\x81", NULL};
	CHECK_INT_EQ(collisions(normalized, &s), 1);
	CHECK_STR_EQ(s.found[0], "caf\\xC3\\xA9 and cafe\\xCC\\x81");

	/* Full case folding: "Straße" and "STRASSE" fold to "strasse". */
	const char *const folded[] = {"Stra\xC3\x9F" "e", "STRASSE", NULL};
	CHECK_INT_EQ(collisions(folded, &s), 1);

	/* A whole group: three spellings are two collisions with the first. */
	const char *const group[] = {"Log", "LOG", "log", NULL};
	CHECK_INT_EQ(collisions(group, &s), 2);

	/* The same bytes twice are a duplicate, which another check reports. */
	const char *const dup[] = {"a/b", "a/b", "A/b", NULL};
	CHECK_INT_EQ(collisions(dup, &s), 1);

	return check_exit("test_namefold_finds_case_and_normalization_collisions");
}
