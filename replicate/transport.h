/* transport: how replicate push reaches a destination and moves a file
 * there. A destination is a local directory (this executable run
 * directly) or [user@]HOST:DIR (ssh with BatchMode and a connect timeout,
 * the far command as one shell-quoted line); a file goes through
 * `replicate receive` on the far side: offered, resumed from what the far
 * end kept when its bytes hash the same here, stored only when whole and
 * hashed to the digest given. push.c decides what goes where and when;
 * this file moves bytes and runs commands. Only replicate/ includes it.
 */
#ifndef REPLICATE_TRANSPORT_H
#define REPLICATE_TRANSPORT_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define REPLICATE_MAX_SSH_OPTIONS 32

/* How to run replicate on the other side. */
struct replicate_transport {
	const char *ssh, *ssh_config, *remote_replicate;
	const char *const *ssh_options;
	size_t n_ssh_options;
	int idle_seconds;          /* a helper silent this long is stopped */
	char self_exe[PATH_MAX];   /* for a local directory */
};

/* Where: as given, and split. */
struct replicate_endpoint {
	const char *spec;
	char *host;                /* NULL: a local directory */
	char *dir;
};

/* A file to send: where it is here, its name there, size, digest. */
struct replicate_payload {
	const char *path, *name;
	uint64_t size;
	char sha256[EV_SHA256_HEX_LEN + 1];
};

/* The argv of one helper process, and the storage it points into. */
struct replicate_command {
	char *argv[REPLICATE_MAX_SSH_OPTIONS * 2 + 32];
	char line[8192];   /* the remote command line, shell-quoted */
	char connect[64];  /* ConnectTimeout=N */
};

/* [user@]host:dir is remote (an IPv6 host in brackets); a path with no
 * colon before its first slash, or starting with / or ./, is local.
 * @return 0, or -1 when spec is neither (host and dir malloc'd). */
int replicate_endpoint_parse(struct replicate_endpoint *e, const char *spec);

/* argv for running replicate with args (NULL-ended) at e: directly for a
 * local one, through ssh for a host, with env_add ("NAME=VALUE", may be
 * NULL) in its environment. */
void replicate_command_build(const struct replicate_transport *t, const struct replicate_endpoint *e,
			     const char *env_add, char *const *args, struct replicate_command *cmd);

/* f to e, resuming what a previous push left. sent (NULL: not counted)
 * is advanced by the bytes of f that are there, *sending is 1 while they
 * go; *resumed_from is 1 when a kept part was reused. Stops on a signal. */
ev_status replicate_send_file(const struct replicate_transport *t, const struct replicate_endpoint *e,
			      const struct replicate_payload *f, atomic_uint_fast64_t *sent, int *sending,
			      int *resumed_from, struct ev_error *err);

#endif
