/* SPDX-License-Identifier: Apache-2.0 */
/* audit profile --seal SEAL.json --run RUN ARCHIVE: a profiled run read
 * from a sealed archive. The archive is checked against its seal in one
 * pass (every member, as replicate verify does); the run's run.json and
 * its profile/ members are copied as they stream by (archive_copies.h),
 * because perf reads perf.data from a file; once the pass is over and no
 * finding concerns them, the profile is read from those copies as from a
 * run directory. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/archive/seal.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/profile_side.h"

struct extract {
	const char *run;          /* the run's path in the seal, from its root */
	unsigned ours;            /* findings about the run's members */
	ev_finding_fn on_finding;
	void *ctx;
};

static int wanted(void *ctx, const char *path)
{
	const struct extract *x = ctx;
	size_t n = strlen(x->run);
	if (strncmp(path, x->run, n) != 0 || path[n] != '/')
		return 0;
	const char *rel = path + n + 1;
	return strcmp(rel, "run.json") == 0 || strncmp(rel, "profile/", 8) == 0;
}

static void counted(void *ctx, const struct ev_finding *f)
{
	struct extract *x = ctx;
	x->on_finding(x->ctx, f);
	size_t n = strlen(x->run);
	if (strncmp(f->subject, x->run, n) == 0 && (f->subject[n] == '/' || !f->subject[n]))
		x->ours++;
}

/* The seal alone, to find the run in it before the archive is read. */
static ev_status run_in_seal(const char *seal_path, const char *seal_pin, const char *run, char *in_seal, size_t cap,
			     struct ev_error *err)
{
	struct ev_seal seal;
	char hex[EV_SHA256_HEX_LEN + 1], runjson[PATH_MAX + 16];
	ev_seal_init(&seal);
	ev_status st = ev_seal_load_pinned(seal_path, seal_pin, &seal, hex, NULL, NULL, err);
	if (st == EV_MISMATCH)
		st = ev_seal_refuse_unpinned(seal_path, hex, seal_pin, err);
	if (st == EV_OK) {
		/* the run named from the seal's root, with or without the root's name */
		size_t n = strlen(seal.root);
		snprintf(in_seal, cap, "%s", strncmp(run, seal.root, n) == 0 && run[n] == '/' ? run + n + 1 : run);
		snprintf(runjson, sizeof runjson, "%s/run.json", in_seal);
		if (ev_seal_find(&seal, runjson) < 0)
			st = ev_error_set(err, EV_USAGE, "%s: no member %s in %s (name the run from its root, %s/)", run,
					  runjson, seal_path, seal.root);
	}
	ev_seal_free(&seal);
	return st;
}

ev_status ev_profile_extract(const char *archive, const char *seal_path, const char *seal_pin, const char *run,
			     json_t *receipt, ev_finding_fn on_finding, void *ctx, volatile sig_atomic_t *interrupted,
			     struct ev_archive_copies *copies, char *run_dir, size_t cap, struct ev_error *err)
{
	char in_seal[PATH_MAX];
	ev_status st = run_in_seal(seal_path, seal_pin, run, in_seal, sizeof in_seal, err);
	if (st != EV_OK)
		return st;
	struct extract x = {.run = in_seal, .on_finding = on_finding, .ctx = ctx};
	copies->archive = archive;
	copies->seal_path = seal_path;
	copies->seal_sha256 = seal_pin;
	copies->purpose = "audit-profile";
	copies->wanted = wanted;
	copies->on_finding = counted;
	copies->ctx = &x;
	copies->interrupted = interrupted;
	st = ev_archive_copies_make(copies, err);
	if (st != EV_OK && st != EV_MISMATCH)
		return st;
	char detail[256];
	ev_receipt_add_input(receipt, "seal", seal_path, copies->seal_hex, err);
	ev_receipt_add_input(receipt, "archive", archive, copies->archive_hex, err);
	snprintf(detail, sizeof detail, "%zu members against the seal, %u finding%s (%u about this run)",
		 copies->seal.count, copies->findings, copies->findings == 1 ? "" : "s", x.ours);
	ev_receipt_add_check(receipt, "archive against its seal", copies->findings == 0, detail, err);
	if (x.ours)
		return ev_error_set(err, EV_MISMATCH, "%s: the archive's copy of %s does not match its seal: its profile is not "
						      "read", archive, in_seal);
	if (ev_path_join(run_dir, cap, copies->root, in_seal) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", in_seal);
	return EV_OK;
}
