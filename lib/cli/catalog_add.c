/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_add: a command's publications, added to the configured catalog
 * (catalog_add.h). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/catalog/catalog.h"
#include "lib/cli/catalog_add.h"
#include "lib/core/grow.h"
#include "lib/core/publish.h"
#include "lib/core/stop.h"

/* The paths published by this process, in order; a few per command.
 * push and audit publish from one thread per host. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **published;
static size_t npublished, cap;
static int overflowed;

static int worth_indexing(const char *path)
{
	size_t len = strlen(path);
	struct stat sb;
	if (len > 5 && strcmp(path + len - 5, ".json") == 0)
		return 1;
	return lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A file published inside an output directory still under its temporary
 * name: the directory is told of itself once in place. */
static int inside_temporary(const char *path)
{
	for (const char *p = path; (p = strstr(p, "/.")); p++) {
		const char *end = strchr(p + 1, '/'), *tmp = strstr(p, ".tmp-");
		if (end && tmp && tmp < end)
			return 1;
	}
	return 0;
}

static void keep(const char *path, void *ctx)
{
	(void)ctx;
	if (inside_temporary(path))
		return;
	pthread_mutex_lock(&lock);
	if (ev_grow_array(&published, &cap, npublished + 1, sizeof *published) != 0) {
		overflowed = 1;
		pthread_mutex_unlock(&lock);
		return;
	}
	if (!(published[npublished] = strdup(path)))
		overflowed = 1;
	else
		npublished++;
	pthread_mutex_unlock(&lock);
}

void ev_cli_catalog_watch(void)
{
	if (ev_catalog_configured())
		ev_publish_observe(keep, NULL);
}

void ev_cli_catalog_add(const char *tool, int exit_code)
{
	const char *where = ev_catalog_configured();
	ev_publish_observe(NULL, NULL);
	const char **paths = calloc(npublished + 1, sizeof *paths);
	size_t n = 0;
	for (size_t i = 0; paths && i < npublished; i++)
		if (worth_indexing(published[i]))
			paths[n++] = published[i];
	if (where && n && exit_code != 2 && !ev_stop_requested()) {
		struct ev_catalog *cat = NULL;
		struct ev_catalog_counts counts;
		struct ev_error err;
		ev_error_clear(&err);
		if (ev_catalog_open(where, &cat, &err) != EV_OK ||
		    ev_catalog_index(cat, paths, n, 0, NULL, &counts, &err) != EV_OK)
			fprintf(stderr, "%s: EVIDENCE_CATALOG: %s; what this command wrote is in place but not in the catalog: "
				"add it with replicate index %s\n", tool, err.text, paths[0]);
		ev_catalog_close(cat);
	}
	if (where && overflowed)
		fprintf(stderr, "%s: EVIDENCE_CATALOG: out of memory keeping what was written; add it with replicate index\n",
			tool);
	free(paths);
	for (size_t i = 0; i < npublished; i++)
		free(published[i]);
	free(published);
	published = NULL;
	npublished = cap = 0;
}
