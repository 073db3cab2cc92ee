/* SPDX-License-Identifier: Apache-2.0 */
/* jsonwalk: every *.json beneath a directory, in walk order (jsonwalk.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/jsonwalk.h"
#include "lib/core/grow.h"
#include "lib/core/path.h"

#define MAX_DEPTH 16

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_temporary(const char *name)
{
	return name[0] == '.' && strstr(name, ".tmp-");
}

static ev_status walk(const char *dir, int depth, ev_jsonwalk_fn fn, void *ctx, struct ev_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return ev_error_errno(err, errno, "%s: cannot read the directory", dir);
	struct dirent *de;
	ev_status st = EV_OK;
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || is_temporary(de->d_name))
			continue;
		if (ev_grow_array(&names, &cap, n + 1, sizeof *names) != 0) {
			st = ev_error_set(err, EV_ERROR, "out of memory");
			break;
		}
		if (!(names[n] = strdup(de->d_name))) {
			st = ev_error_set(err, EV_ERROR, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n && st == EV_OK; i++) {
		char path[PATH_MAX];
		struct stat sb;
		if (ev_path_join(path, sizeof path, dir, names[i]) != 0 || lstat(path, &sb) != 0)
			continue;
		size_t len = strlen(names[i]);
		if (S_ISDIR(sb.st_mode)) {
			if (depth < MAX_DEPTH)
				st = walk(path, depth + 1, fn, ctx, err);
		} else if (len > 5 && strcmp(names[i] + len - 5, ".json") == 0 && !S_ISLNK(sb.st_mode)) {
			st = fn(ctx, path, &sb, err);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return st;
}

ev_status ev_jsonwalk(const char *dir, ev_jsonwalk_fn fn, void *ctx, struct ev_error *err)
{
	return walk(dir, 0, fn, ctx, err);
}

int ev_jsonwalk_order(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char ca = (unsigned char)*a, cb = (unsigned char)*b;
		if (ca == cb) {
			if (!ca)
				return 0;
			continue;
		}
		if (!ca || !cb)
			return ca ? 1 : -1;
		if (ca == '/')
			return -1;
		if (cb == '/')
			return 1;
		return ca < cb ? -1 : 1;
	}
}
