/* SPDX-License-Identifier: Apache-2.0 */
/* seal select: a selection manifest naming an exact subset of a seal. */
#include "config.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/archive/seal.h"
#include "lib/archive/selection.h"
#include "seal/seal.h"

#define MAX_PATTERNS 1024

/* Does pattern match path or one of its parent directories? */
static int selects(const char *pattern, const char *path)
{
	if (fnmatch(pattern, path, FNM_PATHNAME) == 0)
		return 1;
	char buf[EV_PATH_MAX + 1];
	size_t n = strlen(path);
	if (n > EV_PATH_MAX)
		return 0;
	memcpy(buf, path, n + 1);
	for (char *slash = strrchr(buf, '/'); slash; slash = strrchr(buf, '/')) {
		*slash = '\0';
		if (fnmatch(pattern, buf, FNM_PATHNAME) == 0)
			return 1;
	}
	return 0;
}

int seal_select_main(int argc, char **argv)
{
	const char *seal_path = NULL, *out = NULL;
	const char *patterns[MAX_PATTERNS];
	size_t npat = 0;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "select");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&seal_tool, "select");
		case SEAL_SELECT_OPT_INCLUDE:
			if (npat == MAX_PATTERNS)
				return ev_cli_usage(&seal_tool, "select", "more than %d --include patterns",
						 MAX_PATTERNS);
			patterns[npat++] = optarg;
			break;
		case SEAL_SELECT_OPT_OUTPUT: out = optarg; break;
		case SEAL_SELECT_OPT_SEAL: seal_path = optarg; break;
		default:
			return ev_cli_usage(&seal_tool, "select", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(&seal_tool, "select", "unexpected argument '%s'", argv[optind]);
	if (!seal_path || !out || npat == 0)
		return ev_cli_usage(&seal_tool, "select", "--seal, at least one --include and -o are required");

	struct ev_error err;
	ev_error_clear(&err);
	struct ev_seal seal, subset;
	uint8_t digest[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	size_t *hits = calloc(npat, sizeof *hits);
	ev_seal_init(&subset);
	ev_status st = ev_seal_load(seal_path, &seal, digest, NULL, NULL, &err);
	if (st != EV_OK)
		goto out;
	ev_sha256_hex(digest, hex);
	subset.root = seal.root;
	subset.members = calloc(seal.count ? seal.count : 1, sizeof *subset.members);
	if (!hits || !subset.members) {
		st = ev_error_set(&err, EV_ERROR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < seal.count; i++) {
		int chosen = 0;
		for (size_t p = 0; p < npat; p++)
			if (selects(patterns[p], seal.members[i].path)) {
				hits[p]++;
				chosen = 1;
			}
		if (chosen)
			subset.members[subset.count++] = seal.members[i];
	}
	for (size_t p = 0; p < npat; p++)
		if (!hits[p]) {
			st = ev_error_set(&err, EV_USAGE,
					  "--include '%s' matched no member of %s; nothing was written",
					  patterns[p], seal_path);
			goto out;
		}
	ev_seal_finish(&subset);
	if ((st = ev_selection_publish(out, &subset, hex, patterns, npat, &err)) != EV_OK)
		goto out;
	printf("selected %zu of %zu members (%llu files, %llu bytes) from %s into %s\n",
	       subset.count, seal.count, (unsigned long long)subset.files,
	       (unsigned long long)subset.bytes, seal_path, out);
out:
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	free(subset.members); /* members and root belong to seal */
	free(hits);
	ev_seal_free(&seal);
	return ev_status_exit_code(st);
}
