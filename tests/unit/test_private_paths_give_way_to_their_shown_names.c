/* SPDX-License-Identifier: Apache-2.0 */
/* text and json renames: every occurrence of a private directory's path
 * gives way to the name a user knows, in a string and in every string
 * value of a document (keys left alone); a longer replacement is
 * refused rather than written past the string's end. */
#include "config.h"

#include <string.h>

#include <jansson.h>

#include "check.h"
#include "lib/core/json.h"
#include "lib/core/text.h"

int main(void)
{
	char s[] = "/tmp/a.X1/c/runs/1: missing; /tmp/a.X1/c/plan.json too";
	CHECK_INT_EQ(ev_text_rename(s, "/tmp/a.X1/", ""), 2);
	CHECK_STR_EQ(s, "c/runs/1: missing; c/plan.json too");
	char same[] = "nothing here";
	CHECK_INT_EQ(ev_text_rename(same, "/tmp/a.X1/", ""), 0);
	CHECK_STR_EQ(same, "nothing here");
	char shorter[] = "ab-ab";
	CHECK_INT_EQ(ev_text_rename(shorter, "ab", "x"), 2);
	CHECK_STR_EQ(shorter, "x-x");
	char longer[] = "ab";
	CHECK_INT_EQ(ev_text_rename(longer, "ab", "abc"), 0);
	CHECK_STR_EQ(longer, "ab");
	CHECK_INT_EQ(ev_text_rename(longer, "", "x"), 0);

	json_t *doc = json_pack("{s:s, s:[s, i, {s:s}], s:{s:s}}", "file", "/tmp/a.X1/c/x", "list", "/tmp/a.X1/y", 3,
				"deep", "see /tmp/a.X1/z", "/tmp/a.X1/key", "kept", "a");
	CHECK(doc != NULL);
	CHECK_INT_EQ(ev_json_rename(doc, "/tmp/a.X1/", ""), 3);
	CHECK_STR_EQ(json_string_value(json_object_get(doc, "file")), "c/x");
	CHECK_STR_EQ(json_string_value(json_array_get(json_object_get(doc, "list"), 0)), "y");
	CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(json_object_get(doc, "list"), 2), "deep")),
		     "see z");
	CHECK(json_object_get(json_object_get(doc, "/tmp/a.X1/key"), "kept") != NULL);
	json_decref(doc);
	return check_exit("test_private_paths_give_way_to_their_shown_names");
}
