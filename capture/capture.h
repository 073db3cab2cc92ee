/* SPDX-License-Identifier: Apache-2.0 */
/* capture tool internals: its commands, the campaign being run, and the
 * messages they share. Only files in capture/ include this. */
#ifndef CAPTURE_CAPTURE_H
#define CAPTURE_CAPTURE_H

#include <limits.h>

#include <jansson.h>

#include "lib/process/credentials.h"
#include "lib/process/linkkeeper.h"
#include "lib/process/netns.h"
#include "lib/campaign/plan_check.h"
#include "lib/receipt/signature.h"
#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/core/proc.h"
#include "lib/core/status.h"

#define TOOL "capture"

int capture_run_main(int argc, char **argv);
int capture_pin_main(int argc, char **argv);
int capture_leases_main(int argc, char **argv);

/* One capture session over a campaign directory. */
struct campaign {
	struct ev_signing_key *sign_key; /* --sign-key: the capture receipt signed */
	const char *plan_path;
	char dir[PATH_MAX];          /* absolute */
	int degrade, json, allow_dirty, wait;
	const char *require;          /* --require quiet, or NULL */
	int priority;                 /* enum ev_lease_priority */
	json_t *lease;                /* what run.json records of the CPUs' lease */
	struct ev_campaign_plan plan;
	int netns_ok, pmqos_ok;       /* what this process may do */
	char netns_why[256], pmqos_why[256];
	json_t *degraded;             /* what this session could not do, as sentences */
	json_t *sources;              /* program -> its repository's commit, tree, clean (sources.h) */
	char boot_id[EV_BOOT_ID_LEN + 1];
	char host[256];
	int cpus[EV_PLAN_MAX_CPUS * 2];  /* every CPU the campaign uses */
	size_t ncpus;
	int32_t pmqos_effective;      /* the current arm's held value read back (-1: none) */
	struct ev_side_cred cred[EV_PLAN_MAX_CELLS][2]; /* whom each side runs as */
	struct ev_netns_link link[2];    /* topology "link": the two ends, as found before the campaign */
	struct ev_link_keeper keeper;    /* returns them if capture dies with them out */
	int host_ns_fd;               /* capture's network namespace, where they return */
	int pmqos_held;
};

enum run_result { RUN_OK, RUN_FAILED, RUN_TIMEOUT, RUN_INTERRUPTED };

/* Make run r inside c->dir/runs/r->name, write its run.json (unless
 * interrupted) and say how it went in *summary (a new object).
 * @return the result; err says why for anything but RUN_OK. */
enum run_result capture_run_one(struct campaign *c, const struct ev_plan_run *r, json_t **summary,
			struct ev_error *err);

/* Before anything runs: the best grade the plan can reach on this host,
 * said on stdout (stderr with --json), each condition that keeps it from
 * quiet named; with require ("quiet") such a plan is refused (EV_USAGE)
 * (grade_ahead.c). */
ev_status capture_grade_ahead(struct campaign *c, const char *require, struct ev_error *err);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool capture_tool;

#endif
