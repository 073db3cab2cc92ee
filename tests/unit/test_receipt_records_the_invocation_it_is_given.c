/* SPDX-License-Identifier: Apache-2.0 */
/* A receipt records how its tool was run from the argv it is handed (the
 * tool's main's, through ev_cli_main), with the working directory, not
 * from what the process happens to be: no argv, no invocation; an
 * argument that is not UTF-8 (which could not be run again), none either. */
#include "config.h"

#include <limits.h>
#include <unistd.h>

#include "check.h"
#include "lib/receipt/receipt.h"

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);

	char *argv[] = {"seal", "verify", "--seal", "out/SEAL.json", "a tree", NULL};
	struct ev_invocation how = {5, argv};
	json_t *r = ev_receipt_new("verify", "seal", &how, &err);
	CHECK(r != NULL);
	json_t *inv = json_object_get(r, "invocation");
	CHECK_INT_EQ(json_array_size(json_object_get(inv, "argv")), 5);
	for (size_t i = 0; i < 5; i++)
		CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(inv, "argv"), i)), argv[i]);
	CHECK_STR_EQ(json_string_value(json_object_get(inv, "cwd")), cwd);
	json_decref(r);

	r = ev_receipt_new("verify", "seal", NULL, &err);
	CHECK(r != NULL && json_object_get(r, "invocation") == NULL);
	json_decref(r);

	char *latin1[] = {"seal", "verify", "caf\xe9", NULL};
	struct ev_invocation odd = {3, latin1};
	r = ev_receipt_new("verify", "seal", &odd, &err);
	CHECK(r != NULL && json_object_get(r, "invocation") == NULL);
	json_decref(r);
	return check_exit("test_receipt_records_the_invocation_it_is_given");
}
