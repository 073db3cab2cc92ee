/* SPDX-License-Identifier: Apache-2.0 */
/* ev_tree_remove_unchanged removes an entry only when it is provably what
 * was checked: a file whose content changed without moving its times (a
 * write in the same clock tick) is caught by the rehash of recent files; a
 * directory that gained an entry stays with it; files changed long before
 * the scan are trusted on their times alone, without a rehash. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/sha256.h"
#include "lib/archive/tree.h"
#include "lib/archive/tree_remove.h"

struct seen {
	char text[8][2048];
	unsigned n;
};

static void remember(void *ctx, const struct ev_finding *f)
{
	struct seen *s = ctx;
	if (s->n < 8)
		snprintf(s->text[s->n], sizeof s->text[0], "%s %s: %s", f->check, f->subject,
			 f->expected[0] ? f->expected : "-");
	s->n++;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void member(struct ev_member *m, const char *path, enum ev_member_type type, const char *content)
{
	struct ev_error err;
	ev_error_clear(&err);
	*m = (struct ev_member){.path = strdup(path), .type = type, .mode = 0644};
	if (content) {
		m->size = strlen(content);
		ev_sha256_buffer(content, m->size, m->sha256, &err);
	}
}

static int exists(const char *dir, const char *name)
{
	char path[512];
	struct stat sb;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return lstat(path, &sb) == 0;
}

int main(void)
{
	char dir[] = "/tmp/test_tree_remove.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[512];
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0755);
	write_file(dir, "old.txt", "same");
	write_file(dir, "fresh.txt", "SEALED"); /* sealed as "sealed": same size */
	write_file(dir, "sub/x", "x");

	struct ev_seal seal;
	ev_seal_init(&seal);
	seal.root = strdup("t");
	seal.count = 4;
	seal.members = calloc(4, sizeof *seal.members);
	member(&seal.members[0], "fresh.txt", EV_MEMBER_FILE, "sealed");
	member(&seal.members[1], "old.txt", EV_MEMBER_FILE, "same");
	member(&seal.members[2], "sub", EV_MEMBER_DIR, NULL);
	member(&seal.members[3], "sub/x", EV_MEMBER_FILE, "x");
	ev_seal_finish(&seal);

	struct ev_error err;
	ev_error_clear(&err);
	struct ev_tree tree = {.rootfd = -1};
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK_INT_EQ(ev_tree_scan(dir, &tree, NULL, NULL, &err), EV_OK);
	CHECK_INT_EQ(tree.count, 4);
	write_file(dir, "sub/new", "written after the scan");

	/* Everything was written just now: every file is hashed again. */
	unsigned char removed[4];
	struct ev_tree_removal r = {.removed = removed};
	struct seen seen = {0};
	CHECK_INT_EQ(ev_tree_remove_unchanged(&tree, &seal, &now, remember, &seen, &r, NULL, &err), EV_OK);
	CHECK_INT_EQ(r.rehashed, 3);
	CHECK_INT_EQ(r.unleased, 0);
	CHECK_INT_EQ(r.kept, 2);
	CHECK_INT_EQ(seen.n, 2);
	CHECK_STR_EQ(seen.text[0], "added sub: -");
	char sealed_hex[EV_SHA256_HEX_LEN + 1], want[300];
	ev_sha256_hex(seal.members[0].sha256, sealed_hex);
	snprintf(want, sizeof want, "changed fresh.txt: %s", sealed_hex);
	CHECK_STR_EQ(seen.text[1], want);
	CHECK_INT_EQ(removed[0] + 2 * removed[1] + 4 * removed[2] + 8 * removed[3], 2 + 8);
	CHECK(exists(dir, "fresh.txt"));
	CHECK(!exists(dir, "old.txt"));
	CHECK(exists(dir, "sub/new"));
	CHECK(!exists(dir, "sub/x"));
	ev_tree_free(&tree);

	/* The same content, scanned as if long after its last change: its times
	 * are proof enough, and it goes without a rehash. */
	snprintf(path, sizeof path, "%s/sub/new", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/sub", dir);
	rmdir(path);
	struct timespec later = {now.tv_sec + 100, 0};
	tree = (struct ev_tree){.rootfd = -1};
	CHECK_INT_EQ(ev_tree_scan(dir, &tree, NULL, NULL, &err), EV_OK);
	CHECK_INT_EQ(tree.count, 1);
	seen.n = 0;
	CHECK_INT_EQ(ev_tree_remove_unchanged(&tree, &seal, &later, remember, &seen, &r, NULL, &err), EV_OK);
	CHECK_INT_EQ(r.rehashed, 0);
	CHECK_INT_EQ(r.kept, 0);
	CHECK_INT_EQ(seen.n, 0);
	CHECK(!exists(dir, "fresh.txt"));
	ev_tree_free(&tree);
	ev_seal_free(&seal);
	CHECK_INT_EQ(rmdir(dir), 0);
	return check_exit("test_tree_remove_keeps_what_changed_after_the_scan");
}
