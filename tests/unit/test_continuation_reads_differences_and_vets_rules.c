/* SPDX-License-Identifier: Apache-2.0 */
/* A receipt's differences are its findings: "<check>:<subject>" checks
 * with their values, audit's first_findings, and plain failed checks
 * unless findings explain them ("members" by member findings). An accept
 * rule is refused when it would accept an empty or any value, names a
 * check the original did not fail, or accepts none of its findings; it
 * matches the found value in full, never a part of it. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/receipt/continuation.h"
#include "lib/receipt/receipt.h"

static json_t *failed_integration(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = ev_receipt_new("integration", "seal", NULL, &err);
	struct ev_finding f;
	ev_finding_make(&f, "results/run.log", "sha256", "content differs (SHA-256)", "aa", "bb");
	ev_receipt_add_finding(r, &f, &err);
	ev_finding_make(&f, "results/go.sh", "executable", "the executable bit differs", "100755", "100644");
	ev_receipt_add_finding(r, &f, &err);
	ev_receipt_add_check(r, "members", 0, "2 members, 2 findings", &err);
	ev_receipt_add_check(r, "count", 0, "expected 23, found 22", &err);
	ev_receipt_add_check(r, "order", 1, "in order", &err);
	ev_receipt_finish(r, &err);
	return r;
}

static json_t *failed_audit(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = ev_receipt_new("audit", "audit", NULL, &err);
	json_t *first = json_pack("[{s:s, s:i, s:s, s:s, s:i, s:i, s:i, s:s, s:s}]", "rule", "enum-value", "pair", 1,
				  "side", "sender", "file", "1.bin", "offset", 1002, "record", 5, "tag", 54,
				  "expected", "one of the dictionary's values", "found", "54=Z");
	ev_receipt_set_fact(r, "first_findings", first, &err);
	ev_receipt_add_check(r, "enum-value", 0, "1 finding", &err);
	ev_receipt_add_check(r, "checksum", 1, "0 findings", &err);
	ev_receipt_finish(r, &err);
	return r;
}

static void test_differences_of_a_member_receipt(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = failed_integration();
	struct ev_difference *d = NULL;
	size_t n = 0;
	CHECK_INT_EQ(ev_receipt_differences(r, &d, &n, &err), EV_OK);
	CHECK_INT_EQ(n, 3); /* two findings, "count"; "members" is explained by them */
	CHECK_STR_EQ(d[0].check, "sha256");
	CHECK_STR_EQ(d[0].subject, "results/run.log");
	CHECK_STR_EQ(d[0].expected, "aa");
	CHECK_STR_EQ(d[0].found, "bb");
	CHECK_STR_EQ(d[1].check, "executable");
	CHECK_STR_EQ(d[1].found, "100644");
	CHECK_STR_EQ(d[2].check, "count");
	CHECK_STR_EQ(d[2].subject, "");
	CHECK_STR_EQ(d[2].found, "expected 23, found 22");
	ev_differences_free(d, n);
	json_decref(r);
}

static void test_differences_of_an_audit_receipt(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = failed_audit();
	struct ev_difference *d = NULL;
	size_t n = 0;
	CHECK_INT_EQ(ev_receipt_differences(r, &d, &n, &err), EV_OK);
	CHECK_INT_EQ(n, 1); /* the rule's check is explained by its finding */
	CHECK_STR_EQ(d[0].check, "enum-value");
	CHECK_STR_EQ(d[0].subject, "pair 1 sender 1.bin at byte 1002 record 5 tag 54");
	CHECK_STR_EQ(d[0].found, "54=Z");
	ev_differences_free(d, n);
	json_decref(r);
}

static void test_accept_rules_refused_when_too_broad_or_malformed(void)
{
	static const char *const refused[] = {"sha256=.*", "sha256=.+", "sha256=(x|.*)", "x=[[:print:]]*",
					      "sha256=(", "=value", "novalue"};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		struct ev_accept a;
		struct ev_error err;
		ev_error_clear(&err);
		CHECK_INT_EQ(ev_accept_parse(&a, refused[i], 0, &err), EV_USAGE);
		if (err.status != EV_USAGE)
			fprintf(stderr, "  for '%s'\n", refused[i]);
	}
	struct ev_accept a;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_accept_parse(&a, "x=", 1, &err), EV_USAGE);
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_accept_parse(&a, "log-line=[A-Z_]+: [0-9]+ \\(default: 0\\)", 0, &err), EV_OK);
	struct ev_difference hit = {"log-line", "s", "", "EF_POLL_USEC: 100000 (default: 0)"};
	struct ev_difference part = {"log-line", "s", "", "EF_POLL_USEC: 100000 (default: 0) and more"};
	struct ev_difference other = {"enum-value", "s", "", "EF_POLL_USEC: 100000 (default: 0)"};
	CHECK(ev_accept_matches(&a, &hit));
	CHECK(!ev_accept_matches(&a, &part)); /* in full, not a part */
	CHECK(!ev_accept_matches(&a, &other));
	ev_accept_free(&a);
}

static void test_accept_rules_vetted_against_the_original(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = failed_integration();
	struct ev_difference *d = NULL;
	size_t n = 0;
	ev_receipt_differences(r, &d, &n, &err);
	struct ev_accept a[2];
	ev_accept_parse(&a[0], "sha256=bb", 1, &err);
	ev_accept_parse(&a[1], "size=20", 1, &err);
	CHECK_INT_EQ(ev_accepts_vet(a, 1, d, n, &err), EV_OK);
	CHECK_INT_EQ(ev_accepts_vet(a, 2, d, n, &err), EV_REFUSED);
	CHECK(strstr(err.text, "did not fail check 'size'") != NULL);
	CHECK(strstr(err.text, "(it failed: sha256, executable, count)") != NULL);
	ev_accept_free(&a[1]);
	ev_error_clear(&err);
	ev_accept_parse(&a[1], "executable=100600", 1, &err);
	CHECK_INT_EQ(ev_accepts_vet(&a[1], 1, d, n, &err), EV_REFUSED);
	CHECK(strstr(err.text, "accepts none of the original's 'executable' findings (one found '100644' at results/go.sh)") !=
	      NULL);
	ev_accept_free(&a[0]);
	ev_accept_free(&a[1]);
	ev_differences_free(d, n);
	json_decref(r);
}

static void test_same_inputs_compares_digests_and_trees(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *a = ev_receipt_new("integration", "seal", NULL, &err), *b = ev_receipt_new("integration", "seal", NULL, &err);
	ev_receipt_add_input(a, "selection", "sel.json", "aa", &err);
	ev_receipt_add_input(b, "selection", "other/sel.json", "aa", &err);
	char why[256];
	CHECK(ev_receipt_same_inputs(a, b, why, sizeof why));
	json_object_set_new(json_array_get(json_object_get(a, "inputs"), 0), "git_tree", json_string("t1"));
	CHECK(!ev_receipt_same_inputs(a, b, why, sizeof why));
	CHECK_STR_EQ(why, "input selection (other/sel.json) was git tree t1, now ");
	ev_receipt_add_input(b, "extra", NULL, NULL, &err);
	json_object_del(json_array_get(json_object_get(a, "inputs"), 0), "git_tree");
	CHECK(!ev_receipt_same_inputs(a, b, why, sizeof why));
	CHECK_STR_EQ(why, "input extra is new");
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	test_differences_of_a_member_receipt();
	test_differences_of_an_audit_receipt();
	test_accept_rules_refused_when_too_broad_or_malformed();
	test_accept_rules_vetted_against_the_original();
	test_same_inputs_compares_digests_and_trees();
	return check_exit("test_continuation_reads_differences_and_vets_rules");
}
