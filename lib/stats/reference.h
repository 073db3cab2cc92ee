/* SPDX-License-Identifier: Apache-2.0 */
/* reference: a vendor's published statistics (the llfix project's
 * benchmark results for a named stack version and CPU, sockperf's, the
 * reference pair's), pinned by SHA-256 with its provenance, for a
 * campaign to be held against (audit compare --reference;
 * doc/formats.md "Published references").
 *
 * The descriptor (evidence-reference/1) is a JSON object: "format";
 * "name" (1-64 of A-Za-z0-9_.-); "published" {"where", "when"} (strings:
 * the address, the date); "statistics" {"path" (a member path beneath
 * the descriptor's directory), "sha256"}: the statistics as their tool
 * printed them, read by lib/stats/nativestats; "hardware" {"cpu_model"}
 * (required: a reproduction claim names its CPU); "stack", at least one
 * of "kernel_release", "os", "network" ("kernel" or "onload") and
 * "program_sha256" (the measured program's); "tolerance_percent" (above
 * 0, at most 100; default 10). No other key.
 *
 * A struct ev_reference owns its document; free with ev_reference_free.
 * No global state. */
#ifndef EV_REFERENCE_H
#define EV_REFERENCE_H

#include <limits.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/stats/nativestats.h"

#define EV_REFERENCE_FORMAT "evidence-reference/1"

struct ev_reference {
	json_t *doc;
	char sha256[EV_SHA256_HEX_LEN + 1];       /* of the descriptor's bytes */
	char stats_path[PATH_MAX];                /* resolved beneath the descriptor's directory */
	char stats_sha256[EV_SHA256_HEX_LEN + 1]; /* its bytes, equal to the pin */
	struct ev_native native;                  /* the statistics as printed */
	const char *name;
	double tolerance_percent;
};

/* Read the descriptor at path, held to pinned (its SHA-256 the user gave;
 * NULL: unpinned), then its statistics: beneath the descriptor's
 * directory, a regular file, its SHA-256 the descriptor's pin (before and
 * after it is parsed), a block nativestats reads with every line its tool
 * always prints and consistent with itself.
 * @return EV_OK; EV_USAGE naming the descriptor, the key and what was
 * expected, or the statistics file and both digests, or the broken
 * promise; EV_REFUSED / EV_ERROR from reading. */
ev_status ev_reference_load(const char *path, const char *pinned, struct ev_reference *ref, struct ev_error *err);

void ev_reference_free(struct ev_reference *ref);

#endif
