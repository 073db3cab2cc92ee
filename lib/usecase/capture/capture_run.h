/* SPDX-License-Identifier: Apache-2.0 */
/* capture_run: every run of a plan in its order, in a campaign directory
 * that can be resumed, and a capture receipt at the end. What `capture
 * run` does.
 *
 * The plan is held to every rule (lib/campaign/plan_check), to its
 * registration when one is given (lib/campaign/registration: it must name
 * this plan's bytes; the grade it requires is required; with
 * require_registration a plan without one is refused), and to what
 * this process may do (network namespaces, PM QoS: refused, or recorded
 * with degrade); every program, launcher, observer and pinned file is
 * checked against its pin, the sources read, the CPUs leased host-wide
 * (waiting for them with wait), capture pinned to its controller CPUs,
 * the best grade reachable told (and refused under require), and only
 * then is anything written: DIR/plan.json (or DIR recognised as this
 * plan's campaign, and resumed: a run with run.json is kept, one cut short
 * is moved to DIR/interrupted/), DIR/policy.json, each run in DIR/runs/,
 * and the receipt, signed with sign_key when one is given.
 *
 * What it has to say goes through the callbacks; nothing is printed. The
 * stop flag is an input: when it is set, the run being made ends as
 * interrupted, nothing is claimed for it, and no receipt is written.
 * No global state.
 */
#ifndef EV_CAPTURE_RUN_H
#define EV_CAPTURE_RUN_H

#include <limits.h>
#include <signal.h>

#include <jansson.h>

#include "lib/core/meter.h"
#include "lib/core/status.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"

/* The grade the plan can reach at best on this host, before anything
 * runs (lib/campaign/grade over this host's policy and the plan). */
struct ev_capture_grade_ahead {
	const char *best;             /* "quiet" or "diagnostic" */
	const char *rules_name;
	long long rules_version;
	int pinned;                   /* the plan's own rules (else the shipped default) */
	const char *keeping;          /* the conditions that keep it from quiet, ", "-separated ("" none) */
	int refused;                  /* require (or the rules' "require") asked for quiet: nothing runs */
	const json_t *conditions;     /* each condition's {"condition", "verdict", "evidence": [...]} */
};

struct ev_capture_run {
	/* inputs */
	const char *plan_path;
	const char *dir;              /* the campaign directory, absolute */
	int degrade;                  /* what this process may not do is recorded, not refused */
	int allow_dirty;              /* a source with uncommitted changes is recorded as dirty */
	int wait;                     /* queue for CPUs another holds */
	int priority;                 /* enum ev_lease_priority */
	const char *require;          /* "quiet", or NULL */
	const char *registration;     /* the plan's registration (capture register), or NULL */
	const char *log_dir;          /* with registration: the receipt log the session's start and end go to */
	int require_registration;     /* refuse a plan given without one */
	const struct ev_signing_key *sign_key; /* NULL: unsigned */
	const struct ev_invocation *invocation;
	volatile sig_atomic_t *interrupted;
	/* each may be NULL: a remark (degraded, a dirty source, a run kept
	 * aside, a profile's mark); a line of the campaign's progress (an
	 * arm's PM QoS held and released, each run's outcome, a campaign
	 * resumed); a run about to be made (its name); a wait for CPUs and
	 * why; the grade ahead */
	void (*on_note)(void *ctx, const char *text);
	void (*on_run)(void *ctx, const char *line);
	void (*on_starting)(void *ctx, const char *run);
	void (*on_waiting)(void *ctx, const char *why);
	void (*on_grade)(void *ctx, const struct ev_capture_grade_ahead *grade);
	void *ctx;
	const struct ev_meter *meter; /* may be NULL: the campaign's runs, each counted once accounted for
	                               * (made, kept from an earlier session, or not run) */

	/* outputs */
	json_t *receipt;              /* the receipt written (a reference the caller drops), or NULL */
	char receipt_path[PATH_MAX + 64];
	int all_ok;                   /* every run ok, none left not run */
};

/* @return EV_OK (all_ok says whether every run passed); EV_USAGE (a plan
 * the grade ahead refuses), EV_REFUSED (a plan, a pin, a directory or a
 * right refused), EV_INTERRUPTED or EV_ERROR: err says why. */
ev_status ev_capture_run(struct ev_capture_run *o, struct ev_error *err);

#endif
