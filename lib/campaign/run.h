/* SPDX-License-Identifier: Apache-2.0 */
/* run: run.json, one run of a campaign as capture recorded it
 * (doc/formats.md "Runs and their processes"): its arm, cell and repeat,
 * its result, the plan's counts, the host's boot id and, per process
 * (role "peer", then "sender"), argv, pid, start_ticks and outputs.
 *
 * The one reader and the one writer of the format: capture builds the
 * document and publishes it with ev_run_publish, which checks the
 * contract below first; audit campaign and replicate prune read it with
 * ev_run_load / ev_run_parse and the accessors, which never fail on an
 * absent field (each says what it returns then), so that every caller
 * decides for itself what an absent field means.
 *
 * Contract of a run.json (checked when written, "format" when read): an
 * object with "format": "evidence-run/1"; strings "name", "arm", "cell",
 * "result" ("ok", "failed", ...); integer "repeat"; "counts" {"warmups",
 * "measured"}; "processes", an array of objects with a string "role".
 *
 * A struct ev_run owns its document; free with ev_run_free. No global
 * state.
 */
#ifndef EV_RUN_H
#define EV_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_RUN_FILENAME "run.json"
#define EV_RUN_FORMAT "evidence-run/1"
#define EV_RUN_MAX_BYTES ((size_t)16 << 20)

struct ev_run {
	json_t *doc;
};

struct ev_run_process {
	const char *role;         /* NULL when absent */
	int has_pid;              /* pid is an integer */
	long long pid;
	int has_start_ticks;      /* start_ticks is an integer */
	long long start_ticks;
	const json_t *argv;       /* array of strings, or NULL */
	const json_t *outputs;    /* object name -> path relative to the run, or NULL */
};

/* Parse bytes (display names them in errors) as a run.json: JSON, an
 * object, "format" evidence-run/1. */
ev_status ev_run_parse(const char *bytes, size_t len, const char *display, struct ev_run *run,
		       struct ev_error *err);

/* Read and parse path (at most EV_RUN_MAX_BYTES); flags as ev_json_load's
 * (EV_JSON_REQUIRE_CANONICAL: capture's own, resumed); sha256 (may be
 * NULL) receives the digest of its bytes. */
ev_status ev_run_load(const char *path, unsigned flags, struct ev_run *run, uint8_t sha256[EV_SHA256_LEN],
		      struct ev_error *err);

/* A top-level string ("name", "arm", "cell", "result", "failure",
 * "boot_id"), or
 * NULL when absent or not a string. */
const char *ev_run_string(const struct ev_run *run, const char *key);

/* "repeat", or 0 when absent. */
int ev_run_repeat(const struct ev_run *run);

/* counts.warmups / counts.measured, or 0 when absent. */
uint64_t ev_run_count(const struct ev_run *run, const char *which);

/* How many processes[] holds (0 when absent or not an array). */
size_t ev_run_process_count(const struct ev_run *run);

/* processes[i] into out. @return 0, or -1 when there is no object there. */
int ev_run_process(const struct ev_run *run, size_t i, struct ev_run_process *out);

/* The first process of role's output name (a path relative to the run's
 * directory), or NULL. */
const char *ev_run_output(const struct ev_run *run, const char *role, const char *name);

void ev_run_free(struct ev_run *run);

/* Every path run gives (each process's outputs, stdout, stderr and
 * profile.perf_data; each observer's outputs' stdout; tcp_samples) a
 * member path beneath run_dir, reached without a symbolic link
 * (ev_input_check_beneath). The evidence is a stranger's input: a reader
 * calls this before it opens anything run.json names. display names the
 * document in refusals. @return EV_OK; EV_USAGE naming the document, the
 * field and the value; EV_ERROR when run_dir cannot be opened. */
ev_status ev_run_check_paths(const struct ev_run *run, const char *run_dir, const char *display,
			     struct ev_error *err);

/* Check doc against the contract, then publish it as DIR/run.json,
 * canonical, mode 0644, never replacing one (lib/core/publish).
 * @return EV_OK; EV_ERROR naming the first field that breaks the contract
 * (nothing written), or the publication's error. */
ev_status ev_run_publish(const char *dir, json_t *doc, struct ev_error *err);

#endif
