/* SPDX-License-Identifier: Apache-2.0 */
/* profile_side: one profiled side of a run read cold, for the audit of a
 * run's profile (lib/usecase/audit/audit_profile) and audit campaign.
 *
 * perf.data is held against the SHA-256 run.json gives it (a different
 * file is a failed check and is not read), read with perf report (the
 * binaries on this host resolve symbols) and every row parsed strictly
 * (lib/campaign/perfreport). Per side: samples, lost samples (zero
 * required), every sample the run's native PID or a process it forked
 * (perf script's FORK events), the share of samples by
 * object and by symbol (self; children when perf recorded call graphs),
 * and the split campaigns quote: application (the side's program), network
 * stack (libonload, libefvi, libzf, libvma, libxlio, libciul), libc (libc,
 * ld-linux, libm, libpthread, libdl, librt), kernel ([kernel...] objects
 * and [k] symbols), other (the vdso and every other object). perf is
 * run from the path the caller gives, never one the evidence names.
 * Nothing is printed: each finding goes to on_finding. No global state.
 */
#ifndef EV_PROFILE_SIDE_H
#define EV_PROFILE_SIDE_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"
#include "lib/usecase/common/archive_copies.h"

struct ev_profile_ctx {
	json_t *receipt;     /* inputs and checks go here */
	const char *run;     /* names the run in errors */
	const char *prefix;  /* before each check's name ("run NAME ", or "") */
	ev_finding_fn on_finding; /* required: each finding, its subject the file under the run */
	void *ctx;
	volatile sig_atomic_t *interrupted; /* required: perf is stopped and nothing claimed when it is set */
	unsigned findings;   /* out: counted */
};

/* proc: one process of run.json with a "profile". Its facts go into
 * facts[role]: pid, event, samples, lost, call_graphs, split (shares),
 * objects and symbols (the 20 largest: name, samples, share, children).
 * @return EV_OK (checks say how it went); EV_ERROR or EV_REFUSED when
 * perf.data cannot be read at all; EV_INTERRUPTED on a signal. */
ev_status ev_profile_side(struct ev_profile_ctx *a, const char *run_dir, const char *perf, const json_t *proc,
			     json_t *facts, struct ev_error *err);

/* The run named run (from the seal's root) of a sealed archive: the archive
 * checked against the seal (pinned by seal_pin when given) in one pass, and
 * the run's run.json and profile/ members copied, as they stream by, into
 * a private directory (archive_copies.h: gone with the process however it
 * ends); run_dir (cap bytes) receives the run's copy, to be read as a run
 * directory. Inputs "seal" and "archive" and the check "archive against
 * its seal" go to receipt; every finding of the archive to on_finding.
 * @return EV_OK; EV_MISMATCH when a finding concerns the run's members
 * (nothing is left to read); EV_REFUSED, EV_USAGE, EV_INTERRUPTED or
 * EV_ERROR (nothing is left). Call ev_archive_copies_free on copies (also
 * after a failure). */
ev_status ev_profile_extract(const char *archive, const char *seal_path, const char *seal_pin, const char *run,
			     json_t *receipt, ev_finding_fn on_finding, void *ctx, volatile sig_atomic_t *interrupted,
			     struct ev_archive_copies *copies, char *run_dir, size_t cap, struct ev_error *err);

#endif
