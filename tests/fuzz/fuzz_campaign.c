/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a hostile campaign. The input is a run.json, then
 * (after a NUL byte) a plan.json, as a stranger's campaign would hold
 * them. The run.json is parsed and its paths held beneath its run
 * directory as audit campaign holds them (ev_run_check_paths), then every
 * path it names is opened as a reader would; the plan is read as audit
 * campaign reads it (its name, its cells' names). The oracle: no file
 * outside the campaign is ever opened. The campaign, made once, holds a
 * run directory with real outputs and a symbolic link to a secret beside
 * the campaign; the secret is what a hostile run.json reaches for. */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/campaign/run.h"
#include "lib/core/json.h"

static char root[PATH_MAX], run_dir[PATH_MAX];
static size_t root_len;
static int armed;

/* The oracle, at every open the readers make: what it reaches must lie
 * under the campaign (or not exist). */
static void hold(int dirfd, const char *path)
{
	if (!armed)
		return;
	char full[2 * PATH_MAX], real[PATH_MAX];
	if (path[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(full, sizeof full, "%s", path);
	} else {
		char link[64], dir[PATH_MAX];
		snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
		ssize_t n = readlink(link, dir, sizeof dir - 1);
		if (n < 0)
			abort();
		dir[n] = 0;
		snprintf(full, sizeof full, "%s/%s", dir, path);
	}
	if (!realpath(full, real))
		return; /* absent: nothing read */
	if (strncmp(real, root, root_len) != 0 || (real[root_len] != '/' && real[root_len] != 0)) {
		fprintf(stderr, "fuzz_campaign: opened outside the campaign: %s (as %s)\n", real, path);
		abort();
	}
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (!(flags & O_PATH))
		hold(dirfd, path);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	hold(AT_FDCWD, path);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void put(const char *rel, const char *text)
{
	char p[2 * PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static char base_dir[PATH_MAX];

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

/* the campaign goes with the process */
static void teardown(void)
{
	armed = 0;
	nftw(base_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	char base[] = "/tmp/fuzz-campaign-XXXXXX", p[2 * PATH_MAX];
	if (!mkdtemp(base))
		abort();
	snprintf(base_dir, sizeof base_dir, "%s", base);
	atexit(teardown);
	snprintf(p, sizeof p, "%s/secret", base);
	FILE *f = fopen(p, "w");
	if (!f || fputs("TOPSECRET\n", f) < 0 || fclose(f))
		abort();
	snprintf(root, sizeof root, "%s/c", base);
	root_len = strlen(root);
	snprintf(run_dir, sizeof run_dir, "%s/runs/001-a-1", root);
	static const char *const dirs[] = {"", "/runs", "/runs/001-a-1", "/runs/001-a-1/series",
					   "/runs/001-a-1/journal", "/runs/001-a-1/native"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(p, sizeof p, "%s%s", root, dirs[i]);
		if (mkdir(p, 0755) != 0)
			abort();
	}
	put("runs/001-a-1/series/send.bin", "1\n2\n");
	put("runs/001-a-1/journal/1.bin", "x");
	put("runs/001-a-1/native/sender.stdout", "P50 1\n");
	snprintf(p, sizeof p, "%s/runs/001-a-1/escape", root);
	if (symlink("../../../secret", p) != 0)
		abort();
}

static void read_named(const json_t *v)
{
	const char *rel = json_string_value(v);
	char p[2 * PATH_MAX];
	if (!rel)
		return;
	snprintf(p, sizeof p, "%s/%s", run_dir, rel);
	int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	const uint8_t *nul = memchr(data, 0, size);
	size_t run_len = nul ? (size_t)(nul - data) : size;
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_run run;
	if (ev_run_parse((const char *)data, run_len, "run.json", &run, &err) == EV_OK) {
		armed = 1;
		if (ev_run_check_paths(&run, run_dir, "runs/001-a-1/run.json", &err) == EV_OK) {
			/* as the readers do: every path it gave, opened */
			size_t i, k;
			json_t *proc, *obs, *out, *v;
			const char *key;
			json_array_foreach(json_object_get(run.doc, "processes"), i, proc) {
				json_object_foreach(json_object_get(proc, "outputs"), key, v)
					read_named(v);
				read_named(json_object_get(proc, "stdout"));
				read_named(json_object_get(proc, "stderr"));
				read_named(json_object_get(json_object_get(proc, "profile"), "perf_data"));
			}
			json_array_foreach(json_object_get(run.doc, "observers"), i, obs)
				json_array_foreach(json_object_get(obs, "outputs"), k, out)
					read_named(json_object_get(out, "stdout"));
			read_named(json_object_get(run.doc, "tcp_samples"));
		}
		armed = 0;
		ev_run_free(&run);
	}
	if (nul) {
		json_t *plan = NULL;
		ev_error_clear(&err);
		if (ev_json_parse((const char *)nul + 1, size - run_len - 1, "plan.json", "evidence-plan/1", 0, &plan,
				  &err) == EV_OK) {
			size_t i;
			json_t *cell;
			const char *name = json_string_value(json_object_get(plan, "name"));
			size_t total = name ? strlen(name) : 0;
			json_array_foreach(json_object_get(plan, "cells"), i, cell)
				total += strlen(json_string_value(json_object_get(cell, "name")) ?: "");
			if (total > size)
				abort();
			json_decref(plan);
		}
	}
	return 0;
}
