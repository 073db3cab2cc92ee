/* SPDX-License-Identifier: Apache-2.0 */
/* seal_create: a tree read once into a seal, an archive and a receipt,
 * published as one directory. What `seal create DIR -o OUTDIR` does.
 *
 * The tree is walked (lib/archive/tree) and every member that cannot be
 * sealed is handed to on_refusal, all of them, before anything is
 * written: links, FIFOs, sockets, devices, unreadable files, unsafe or
 * colliding names, setuid/setgid/sticky bits, writable members when
 * refuse_writable. Then each file is read once: hashed on one thread
 * (lib/core/hashpipe) while the archive writer compresses it on others,
 * and refused when it changes while read (replaced, grown, shrunk, size
 * or mtime moved). OUTDIR appears complete (SEAL.json, the archive,
 * receipt.json) or not at all (lib/usecase/seal/seal_outdir).
 *
 * One struct per call, owned by the caller: fill the inputs, call
 * ev_seal_create, read the outputs, call ev_seal_create_free (also after
 * a failure). Nothing is printed. No global state.
 */
#ifndef EV_SEAL_CREATE_H
#define EV_SEAL_CREATE_H

#include <limits.h>
#include <signal.h>

#include <jansson.h>

#include "lib/archive/seal.h"
#include "lib/archive/tree.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/status.h"
#include "lib/usecase/seal/seal_outdir.h"

struct ev_seal_create {
	/* inputs */
	const char *dir, *outdir;
	const char *name;         /* the root's name in the seal; NULL: DIR's */
	struct ev_seal_archive_opts archive;
	int refuse_writable;
	ev_finding_fn on_refusal; /* required: each member refused */
	void *ctx;
	const struct ev_meter *meter;       /* may be NULL; its goal is the tree's */
	const struct ev_invocation *invocation; /* how the command was run, for the receipt; may be NULL */
	volatile sig_atomic_t *interrupted; /* may be NULL */

	/* outputs */
	char root_real[PATH_MAX];
	const char *root_name;
	unsigned refused;         /* members handed to on_refusal */
	struct ev_tree tree;
	struct ev_seal seal;      /* shallow copies of the tree's entries */
	struct ev_seal_outdir out;
	json_t *receipt;
};

/* @return EV_OK with OUTDIR published; EV_REFUSED when members were refused
 * (each one handed to on_refusal), when a file changed while it was read,
 * or when OUTDIR lies inside DIR; EV_INTERRUPTED; EV_ERROR or EV_USAGE.
 * Whatever the status, nothing of OUTDIR is left behind unless EV_OK. */
ev_status ev_seal_create(struct ev_seal_create *c, struct ev_error *err);

void ev_seal_create_free(struct ev_seal_create *c);

#endif
