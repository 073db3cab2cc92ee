/* SPDX-License-Identifier: Apache-2.0 */
/* ev_json_first_difference: the path of the first value where two
 * documents differ, in the first one's key order, arrays index by index,
 * with each side's value; a key only one side has; equal documents give
 * none. */
#include "config.h"

#include <string.h>

#include <jansson.h>

#include "check.h"
#include "lib/core/json.h"

static json_t *doc(const char *text)
{
	json_error_t e;
	return json_loads(text, JSON_DECODE_ANY, &e);
}

int main(void)
{
	char path[128], a[64], b[64];
	json_t *x = doc("{\"cells\":[{\"p99\":\"10.5\"}],\"runs\":[{\"name\":\"r1\",\"max\":7},{\"name\":\"r2\",\"max\":9}]}");
	json_t *y = doc("{\"cells\":[{\"p99\":\"10.5\"}],\"runs\":[{\"name\":\"r1\",\"max\":7},{\"name\":\"r2\",\"max\":8}]}");
	CHECK(x && y);
	CHECK_INT_EQ(ev_json_first_difference(x, y, path, sizeof path, a, b, sizeof a), 1);
	CHECK_STR_EQ(path, "runs[1].max");
	CHECK_STR_EQ(a, "9");
	CHECK_STR_EQ(b, "8");
	CHECK_INT_EQ(ev_json_first_difference(x, x, path, sizeof path, a, b, sizeof a), 0);

	json_t *more = doc("{\"k\":1,\"extra\":[1]}"), *less = doc("{\"k\":1}");
	CHECK_INT_EQ(ev_json_first_difference(less, more, path, sizeof path, a, b, sizeof a), 1);
	CHECK_STR_EQ(path, "extra");
	CHECK_STR_EQ(a, "absent");
	CHECK_STR_EQ(b, "[1]");
	CHECK_INT_EQ(ev_json_first_difference(more, less, path, sizeof path, a, b, sizeof a), 1);
	CHECK_STR_EQ(path, "extra");
	CHECK_STR_EQ(b, "absent");

	json_t *shorter = doc("[1,2]"), *longer = doc("[1,2,3]");
	CHECK_INT_EQ(ev_json_first_difference(shorter, longer, path, sizeof path, a, b, sizeof a), 1);
	CHECK_STR_EQ(path, "[2]");
	json_t *s = doc("\"5\""), *n = doc("5");
	CHECK_INT_EQ(ev_json_first_difference(s, n, path, sizeof path, a, b, sizeof a), 1);
	CHECK_STR_EQ(path, "");
	CHECK_STR_EQ(a, "\"5\"");
	CHECK_STR_EQ(b, "5");

	json_decref(x);
	json_decref(y);
	json_decref(more);
	json_decref(less);
	json_decref(shorter);
	json_decref(longer);
	json_decref(s);
	json_decref(n);
	return check_exit("test_json_names_where_two_documents_first_differ");
}
