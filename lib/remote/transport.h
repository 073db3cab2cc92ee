/* SPDX-License-Identifier: Apache-2.0 */
/* transport: how replicate push (lib/usecase/replicate/replicate_push) reaches a
 * destination and moves a file there. A destination is a local directory
 * (this executable run directly) or [user@]HOST:DIR (ssh with BatchMode and a connect timeout,
 * the far command as one shell-quoted line); a file goes through
 * `replicate receive` on the far side: offered, resumed from what the far
 * end kept when its bytes hash the same here, stored only when whole and
 * hashed to the digest given. The push decides what goes where and when;
 * this file moves bytes and runs commands, each helper a child (child.h).
 */
#ifndef EV_TRANSPORT_H
#define EV_TRANSPORT_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_TRANSPORT_MAX_SSH_OPTIONS 32

/* How to run replicate (or, for replicate audit, audit: the program is
 * remote_replicate there, self_exe for a local directory) on the other
 * side. */
struct ev_transport {
	const char *ssh, *ssh_config, *remote_replicate;
	const char *const *ssh_options;
	size_t n_ssh_options;
	int idle_seconds;          /* a helper silent this long is stopped */
	volatile sig_atomic_t *stop; /* required: once set, every helper is stopped and calls end */
	char self_exe[PATH_MAX];   /* for a local directory */
};

/* Where: as given, and split. */
struct ev_endpoint {
	const char *spec;
	char *host;                /* NULL: a local directory */
	char *dir;
};

/* A file to send: where it is here, its name there, size, digest. */
struct ev_payload {
	const char *path, *name;
	uint64_t size;
	char sha256[EV_SHA256_HEX_LEN + 1];
};

/* The argv of one helper process, and the storage it points into. */
struct ev_remote_command {
	char *argv[EV_TRANSPORT_MAX_SSH_OPTIONS * 2 + 32];
	char line[8192];   /* the remote command line, shell-quoted */
	char connect[64];  /* ConnectTimeout=N */
};

/* [user@]host:dir is remote (an IPv6 host in brackets); a path with no
 * colon before its first slash, or starting with / or ./, is local.
 * @return 0, or -1 when spec is neither (host and dir malloc'd). */
int ev_endpoint_parse(struct ev_endpoint *e, const char *spec);

/* argv for running replicate with args (NULL-ended) at e: directly for a
 * local one, through ssh for a host, with env_add ("NAME=VALUE", may be
 * NULL) in its environment. */
void ev_remote_command_build(const struct ev_transport *t, const struct ev_endpoint *e,
			     const char *env_add, char *const *args, struct ev_remote_command *cmd);

/* f to e, resuming what a previous push left. sent (NULL: not counted)
 * is advanced by the bytes of f that are there, *sending is 1 while they
 * go; *resumed_from is 1 when a kept part was reused. Ends with
 * EV_INTERRUPTED once t->stop is set. */
ev_status ev_transport_send_file(const struct ev_transport *t, const struct ev_endpoint *e,
			      const struct ev_payload *f, atomic_uint_fast64_t *sent, int *sending,
			      int *resumed_from, struct ev_error *err);

#endif
