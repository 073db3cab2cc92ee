/* SPDX-License-Identifier: Apache-2.0 */
/* Many short strings kept as one allocation: the size counts each string
 * with its NUL and nothing for a NULL one; each copy is whole, in order,
 * the next right after it, and a NULL one stays NULL. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/core/text.h"

int main(void)
{
	const char *from[] = {"host", NULL, "", "a/path.json"};
	const char *host = "x", *none = "x", *empty = NULL, *path = NULL;
	const char **const to[] = {&host, &none, &empty, &path};
	size_t size = ev_strings_size(from, 4);
	CHECK_INT_EQ(size, 5 + 0 + 1 + 12);
	char *block = malloc(size);
	CHECK(block != NULL);
	ev_strings_copy(block, from, to, 4);
	CHECK_STR_EQ(host, "host");
	CHECK(none == NULL);
	CHECK_STR_EQ(empty, "");
	CHECK_STR_EQ(path, "a/path.json");
	CHECK(host == block && empty == block + 5 && path == block + 6);
	CHECK(host != from[0]); /* copies, not the caller's strings */
	CHECK_INT_EQ(ev_strings_size(from, 0), 0);
	free(block);
	return check_exit("test_strings_in_one_block_are_each_whole_and_null_stays_null");
}
