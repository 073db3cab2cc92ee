/* SPDX-License-Identifier: Apache-2.0 */
/* Two receipts are compared item by item over what "comparable" covers:
 * equal receipts have no difference, and each kind of difference (an
 * input's digest, a fact, a check only one side has, a check's result,
 * the result) is named once; paths, hosts and times are not compared. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_diff.h"

#define MAX_SEEN 16

struct seen {
	unsigned count;
	char line[MAX_SEEN][4 * EV_FINDING_VALUE_MAX];
};

static void note(void *ctx, const struct ev_finding *f)
{
	struct seen *s = ctx;
	if (s->count < MAX_SEEN)
		snprintf(s->line[s->count], sizeof s->line[0], "%s|%s|%s|%s", f->check, f->subject,
			 f->expected, f->found);
	s->count++;
}

static json_t *receipt(const char *host, const char *archive_sha, int tampered)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = ev_receipt_new("replica", "replicate", NULL, &err);
	json_object_set_new(r, "host", json_string(host));
	ev_receipt_add_input(r, "SEAL.json", host, "5e", &err);
	ev_receipt_add_input(r, "archive", host, archive_sha, &err);
	ev_receipt_set_fact(r, "members", json_integer(3), &err);
	if (tampered) {
		struct ev_finding f;
		ev_finding_make(&f, "runs/A-1/journal/1.bin", "sha256", "content differs (SHA-256)",
				"aa", "bb");
		ev_receipt_add_finding(r, &f, &err);
	}
	ev_receipt_add_check(r, "members", !tampered,
			     tampered ? "3 members expected, 1 findings" : "3 members expected, 0 findings",
			     &err);
	ev_receipt_finish(r, &err);
	CHECK_INT_EQ(err.status, EV_OK);
	return r;
}

int main(void)
{
	struct seen s = {0};
	json_t *a = receipt("hostA", "11", 0), *b = receipt("hostB", "11", 0);
	CHECK_INT_EQ(ev_receipt_diff(a, b, note, &s), 0);
	CHECK_STR_EQ(json_string_value(json_object_get(a, "comparable")),
		     json_string_value(json_object_get(b, "comparable")));

	json_t *c = receipt("hostC", "22", 1);
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_receipt_diff(a, c, note, &s), 4);
	CHECK_STR_EQ(s.line[0], "differs|input archive|11|22");
	CHECK_STR_EQ(s.line[1], "differs|check members|pass: 3 members expected, 0 findings|"
				"fail: 3 members expected, 1 findings");
	CHECK_STR_EQ(s.line[2], "only-in-one|check sha256:runs/A-1/journal/1.bin||"
				"fail: content differs (SHA-256) (expected aa, found bb)");
	CHECK_STR_EQ(s.line[3], "differs|result|pass|fail");

	/* The other way round, the extra check is on the reference side (and
	 * comes first, in the reference receipt's own order). */
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_receipt_diff(c, a, note, &s), 4);
	CHECK_STR_EQ(s.line[1], "only-in-one|check sha256:runs/A-1/journal/1.bin|"
				"fail: content differs (SHA-256) (expected aa, found bb)|");

	json_t *d = receipt("hostD", "11", 0);
	json_object_set_new(json_object_get(d, "facts"), "members", json_integer(4));
	json_object_set_new(json_object_get(d, "facts"), "extra", json_pack("{s:i}", "n", 1));
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_receipt_diff(a, d, note, &s), 2);
	CHECK_STR_EQ(s.line[0], "differs|fact members|3|4");
	CHECK_STR_EQ(s.line[1], "only-in-one|fact extra||{\"n\":1}");

	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
	return check_exit("test_receipt_diff_names_each_difference");
}
