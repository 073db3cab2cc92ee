/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_read: each field of a receipt as ev_receipt_new and
 * ev_receipt_finish write it, read back by its accessor; the digest of a
 * named input or output; a fact and the coverage; and NULL (never a
 * crash) for a field that is absent or of another type. */
#include "config.h"

#include "check.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = ev_receipt_new("audit", "audit", NULL, &err);
	CHECK(r != NULL);
	const char *a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	const char *b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	CHECK_INT_EQ(ev_receipt_add_input(r, "plan", "/x/plan.json", a, &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_add_input(r, "SEAL.json", "/x/SEAL.json", b, &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_add_output(r, "summary.json", "/y/summary.json", b, &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_set_fact(r, "coverage", json_pack("{s:[s]}", "recomputed", "all"), &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_set_fact(r, "runs", json_integer(8), &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_add_check(r, "grade", 1, "quiet", &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_finish(r, &err), EV_OK);

	CHECK_STR_EQ(ev_receipt_kind(r), "audit");
	CHECK_STR_EQ(ev_receipt_tool_name(r), "audit");
	CHECK_STR_EQ(ev_receipt_result(r), "pass");
	CHECK(ev_receipt_passed(r));
	CHECK(ev_receipt_host(r) != NULL && ev_receipt_finished(r) != NULL);
	char hex[65];
	CHECK_INT_EQ(ev_receipt_comparable(r, hex, &err), EV_OK);
	CHECK_STR_EQ(ev_receipt_comparable_digest(r), hex);
	CHECK_INT_EQ(json_array_size(ev_receipt_inputs(r)), 2);
	CHECK_INT_EQ(json_array_size(ev_receipt_outputs(r)), 1);
	CHECK_INT_EQ(json_array_size(ev_receipt_checks(r)), 1);
	CHECK_STR_EQ(ev_receipt_input_sha256(r, "plan"), a);
	CHECK_STR_EQ(ev_receipt_input_sha256(r, "SEAL.json"), b);
	CHECK_STR_EQ(ev_receipt_output_sha256(r, "summary.json"), b);
	CHECK(ev_receipt_input_sha256(r, "summary.json") == NULL);
	CHECK(ev_receipt_output_sha256(r, "plan") == NULL);
	CHECK_INT_EQ(json_integer_value(ev_receipt_fact(r, "runs")), 8);
	CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(ev_receipt_coverage(r), "recomputed"), 0)), "all");
	CHECK(ev_receipt_fact(r, "grade") == NULL);

	/* a failed check: not passed */
	CHECK_INT_EQ(ev_receipt_add_check(r, "statistics", 0, "differs", &err), EV_OK);
	CHECK_INT_EQ(ev_receipt_finish(r, &err), EV_OK);
	CHECK_STR_EQ(ev_receipt_result(r), "fail");
	CHECK(!ev_receipt_passed(r));

	/* absent or mistyped: NULL, 0 */
	json_t *odd = json_pack("{s:i, s:s, s:{s:i}, s:[{s:i}], s:i}", "kind", 3, "inputs", "none", "tool", "name", 4,
				"outputs", "name", 5, "facts", 6);
	CHECK(ev_receipt_kind(odd) == NULL && ev_receipt_result(odd) == NULL && !ev_receipt_passed(odd));
	CHECK(ev_receipt_tool_name(odd) == NULL && ev_receipt_host(odd) == NULL);
	CHECK(ev_receipt_inputs(odd) == NULL && ev_receipt_checks(odd) == NULL);
	CHECK(ev_receipt_input_sha256(odd, "plan") == NULL && ev_receipt_output_sha256(odd, "plan") == NULL);
	CHECK(ev_receipt_fact(odd, "runs") == NULL && ev_receipt_coverage(NULL) == NULL);
	json_decref(odd);
	json_decref(r);
	return check_exit("test_receipt_read_gives_each_field_or_null");
}
