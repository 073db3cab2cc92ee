/* SPDX-License-Identifier: Apache-2.0 */
/* Outputs appear complete at their final name or not at all, and an
 * existing name is never replaced; nothing temporary is left behind. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"

static int entries_in(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/test_atomic.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256], sub[256];
	snprintf(path, sizeof path, "%s/receipt.json", dir);
	snprintf(sub, sizeof sub, "%s/out", dir);
	struct ev_error err;
	ev_error_clear(&err);

	CHECK_INT_EQ(ev_publish_bytes(path, "first\n", 6, 0644, &err), EV_OK);
	CHECK_INT_EQ(ev_publish_bytes(path, "second\n", 7, 0644, &err), EV_REFUSED);
	char want[600];
	snprintf(want, sizeof want,
		 "%s: already exists; evidence is never overwritten (choose a new name)", path);
	CHECK_STR_EQ(err.text, want);
	char *bytes = NULL;
	size_t len = 0;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_file_read_all(path, 100, &bytes, &len, &err), EV_OK);
	CHECK_STR_EQ(bytes, "first\n");
	free(bytes);
	CHECK_INT_EQ(entries_in(dir), 1);

	/* A file that appears at the final name while ours is written wins. */
	struct ev_outfile of;
	char late[256];
	snprintf(late, sizeof late, "%s/late.json", dir);
	CHECK_INT_EQ(ev_outfile_open(&of, late, &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_write(&of, "ours\n", 5, &err), EV_OK);
	FILE *f = fopen(late, "w");
	fputs("theirs\n", f);
	fclose(f);
	CHECK_INT_EQ(ev_outfile_commit(&of, 0644, &err), EV_REFUSED);
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_file_read_all(late, 100, &bytes, &len, &err), EV_OK);
	CHECK_STR_EQ(bytes, "theirs\n");
	free(bytes);
	CHECK_INT_EQ(entries_in(dir), 2);

	/* An aborted file leaves nothing. */
	char never[256];
	snprintf(never, sizeof never, "%s/never.json", dir);
	CHECK_INT_EQ(ev_outfile_open(&of, never, &err), EV_OK);
	ev_outfile_abort(&of);
	CHECK_INT_EQ(entries_in(dir), 2);

	/* Output directories: complete or absent, never over an existing one. */
	struct ev_outdir od;
	CHECK_INT_EQ(ev_outdir_open(&od, sub, &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_openat(&of, od.dirfd, "a", "a", &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_write(&of, "x", 1, &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_commit(&of, 0644, &err), EV_OK);
	CHECK_INT_EQ(access(sub, F_OK), -1);
	CHECK_INT_EQ(ev_outdir_commit(&od, 0755, &err), EV_OK);
	CHECK_INT_EQ(entries_in(sub), 1);
	CHECK_INT_EQ(ev_outdir_open(&od, sub, &err), EV_REFUSED);
	ev_error_clear(&err);
	char sub2[256];
	snprintf(sub2, sizeof sub2, "%s/out2", dir);
	CHECK_INT_EQ(ev_outdir_open(&od, sub2, &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_openat(&of, od.dirfd, "b", "b", &err), EV_OK);
	CHECK_INT_EQ(ev_outfile_commit(&of, 0644, &err), EV_OK);
	ev_outdir_abort(&od);
	CHECK_INT_EQ(entries_in(dir), 3); /* receipt.json, late.json, out */

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return check_exit("test_publish_never_replaces");
}
