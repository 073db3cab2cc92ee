/* SPDX-License-Identifier: Apache-2.0 */
/* The tree walk returns every entry in byte order of path, records links
 * and special files as what they are without following them, flags unsafe
 * names, and opens members only through real directories. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lib/archive/tree.h"

static unsigned findings;

static void count(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	(void)f;
	findings++;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/test_tree.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[512];
	snprintf(path, sizeof path, "%s/a", dir);
	mkdir(path, 0750);
	write_file(dir, "a/x", "xx");
	write_file(dir, "a.txt", "hello");
	write_file(dir, "b", "");
	write_file(dir, "bad\xff", "");
	snprintf(path, sizeof path, "%s/link", dir);
	CHECK_INT_EQ(symlink("a", path), 0);
	snprintf(path, sizeof path, "%s/fifo", dir);
	CHECK_INT_EQ(mkfifo(path, 0600), 0);

	struct ev_tree tree;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_tree_scan(dir, &tree, count, NULL, &err), EV_OK);
	CHECK_INT_EQ(findings, 0);
	const char *order[] = {"a", "a.txt", "a/x", "b", "bad\xff", "fifo", "link"};
	CHECK_INT_EQ(tree.count, 7);
	for (size_t i = 0; i < tree.count && i < 7; i++)
		CHECK_STR_EQ(tree.entries[i].m.path, order[i]);
	CHECK_INT_EQ(tree.entries[0].m.type, EV_MEMBER_DIR);
	CHECK_INT_EQ(tree.entries[0].m.mode, 0750);
	CHECK_INT_EQ(tree.entries[1].m.size, 5);
	CHECK(tree.entries[1].name_problem == NULL);
	CHECK_STR_EQ(tree.entries[4].name_problem, "is not valid UTF-8");
	CHECK_INT_EQ(tree.entries[5].m.type, EV_MEMBER_FIFO);
	CHECK_INT_EQ(tree.entries[6].m.type, EV_MEMBER_SYMLINK);
	CHECK_INT_EQ(tree.file_bytes, 7);

	int fd = ev_tree_open_member(&tree, "a/x");
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* Through the link: refused, although link/x names a real file. */
	CHECK_INT_EQ(ev_tree_open_member(&tree, "link/x"), -1);
	CHECK_INT_EQ(ev_tree_open_member(&tree, "link"), -1);
	/* A FIFO opens without blocking (the caller then sees its type). */
	fd = ev_tree_open_member(&tree, "fifo");
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	ev_tree_free(&tree);

	/* The root itself may not be a link. */
	snprintf(path, sizeof path, "%s/link", dir);
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_tree_scan(path, &tree, count, NULL, &err), EV_USAGE);
	ev_tree_free(&tree);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return check_exit("test_tree_sorts_and_never_follows_links");
}
