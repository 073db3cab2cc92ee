/* SPDX-License-Identifier: Apache-2.0 */
/* parts: what the files of capture_run share (capture_run.c the campaign,
 * before_runs.c what is checked before anything runs, campaign_dir.c the
 * directory, run_one.c and run_record.c each run, grade_ahead.c the
 * grade before anything runs): one session over a campaign directory. Only this
 * folder's files include it. */
#ifndef EV_CAPTURE_RUN_PARTS_H
#define EV_CAPTURE_RUN_PARTS_H

#include <limits.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/campaign/session.h"
#include "lib/core/lease.h"
#include "lib/core/proc.h"
#include "lib/core/status.h"
#include "lib/process/credentials.h"
#include "lib/process/linkkeeper.h"
#include "lib/process/netns.h"
#include "lib/usecase/capture/capture_run.h"

/* One capture session over a campaign directory: its inputs, and what
 * the session found and holds. */
struct capture_session {
	struct ev_capture_run *in;
	json_t *lease;                /* what run.json records of the CPUs' lease */
	struct ev_campaign_plan plan;
	int netns_ok, pmqos_ok;       /* what this process may do */
	char netns_why[256], pmqos_why[256];
	json_t *degraded;             /* what this session could not do, as sentences */
	json_t *sources;              /* program -> its repository's commit, tree, clean (lib/process/sources) */
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
	char registration_sha256[EV_SHA256_HEX_LEN + 1]; /* "" without one */
	int registration_quiet;       /* the registration requires the quiet grade */
	json_t *session_start;        /* this session's start, once on the record (NULL: not recorded) */
	char session_start_sha256[EV_SHA256_HEX_LEN + 1];
	struct ev_session_tally tally; /* the runs this session accounted for */
};

/* A registered campaign's session on the record (session_record.c), when
 * the plan runs with a registration and a log: its start, before the
 * first pair; its end (result from st, why's text when st is not EV_OK,
 * the tally, the receipt written), whatever ended the session, with
 * signals held and the stop flag set aside while it is written. Each
 * @return EV_OK or why it was not recorded. */
ev_status ev_capture_session_begin(struct capture_session *c, struct ev_error *err);

/* The registration kept in the campaign directory (session_record.c), so
 * that the campaign, and its sealed archive, carries what it was run
 * under: registration.json, and its RFC 3161 request and reply
 * (registration.json.tsq, .tsr) when they lie beside it. A campaign
 * already holding another registration, or holding one and run without
 * any, is refused: its sessions could not be counted against one.
 * @return EV_OK; EV_REFUSED; EV_ERROR. */
ev_status ev_capture_keep_registration(struct capture_session *c, struct ev_error *err);
ev_status ev_capture_session_end(struct capture_session *c, ev_status st, const struct ev_error *why,
				 struct ev_error *err);

/* A remark, formatted, to the caller's on_note. */
void ev_capture_note(const struct capture_session *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Before anything runs (before_runs.c): what the plan needs that this
 * process may not do, refused or (degrade) recorded; the link's ends
 * found; every pinned program, observer, input and file checked into the
 * receipt's inputs; the sources read; every CPU of the campaign
 * collected, leased (waiting with wait), and capture pinned to its
 * controller CPUs. Each @return EV_OK or the refusal, err saying why. */
ev_status ev_capture_check_rights(struct capture_session *c, struct ev_error *err);
ev_status ev_capture_check_link(struct capture_session *c, json_t *receipt, struct ev_error *err);
ev_status ev_capture_check_binaries(struct capture_session *c, json_t *receipt, struct ev_error *err);
ev_status ev_capture_check_sources(struct capture_session *c, json_t *receipt, struct ev_error *err);
void ev_capture_collect_cpus(struct capture_session *c);
ev_status ev_capture_take_lease(struct capture_session *c, struct ev_lease *l, struct ev_error *err);
ev_status ev_capture_pin_controller(struct capture_session *c, struct ev_error *err);

/* The campaign directory (campaign_dir.c): made with plan.json, runs/ and
 * interrupted/, or recognised as this plan's (*resumed). */
ev_status ev_capture_open_campaign(struct capture_session *c, int *resumed, struct ev_error *err);
/* A run an earlier session made: 1 (its *summary from its run.json), 0 to
 * be made (one cut short is moved to interrupted/, a remark said), -1 on
 * an error (err set). */
int ev_capture_earlier_run(struct capture_session *c, const struct ev_plan_run *r, json_t **summary,
			   struct ev_error *err);

enum run_result { RUN_OK, RUN_FAILED, RUN_TIMEOUT, RUN_INTERRUPTED };

/* Make run r inside the campaign's runs/r->name, write its run.json
 * (unless interrupted) and say how it went in *summary (a new object).
 * @return the result; err says why for anything but RUN_OK. */
enum run_result ev_capture_run_one(struct capture_session *c, const struct ev_plan_run *r, json_t **summary,
				   struct ev_error *err);

/* Before anything runs: the best grade the plan can reach on this host,
 * told through on_grade, each condition that keeps it from quiet named;
 * with require ("quiet", or the rules' own) such a plan is refused
 * (EV_USAGE). */
ev_status ev_capture_grade_ahead(struct capture_session *c, struct ev_error *err);

#endif
