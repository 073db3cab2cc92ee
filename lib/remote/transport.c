/* SPDX-License-Identifier: Apache-2.0 */
/* transport: how a push reaches a destination and moves a file there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/sha256.h"
#include "lib/remote/child.h"
#include "lib/remote/transport.h"

#define SEND_CHUNK ((size_t)1 << 20)

static void shell_quote(const char *arg, char *out, size_t cap, size_t *used)
{
	size_t o = *used;
	if (o + 1 < cap)
		out[o++] = '\'';
	for (const char *p = arg; *p && o + 5 < cap; p++) {
		if (*p == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *p;
		}
	}
	if (o + 2 < cap)
		out[o++] = '\'';
	out[o] = '\0';
	*used = o;
}

void ev_remote_command_build(const struct ev_transport *t, const struct ev_endpoint *e,
			     const char *env_add, char *const *args, struct ev_remote_command *cmd)
{
	size_t n = 0;
	char **argv = cmd->argv;
	if (!e->host) {
		argv[n++] = (char *)t->self_exe;
		for (size_t i = 0; args[i]; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		return;
	}
	const struct ev_transport *o = t;
	static char batch[] = "BatchMode=yes", opt_o[] = "-o", opt_f[] = "-F";
	snprintf(cmd->connect, sizeof cmd->connect, "ConnectTimeout=%d", o->idle_seconds);
	argv[n++] = (char *)o->ssh;
	argv[n++] = opt_o;
	argv[n++] = batch;
	argv[n++] = opt_o;
	argv[n++] = cmd->connect;
	if (o->ssh_config) {
		argv[n++] = opt_f;
		argv[n++] = (char *)o->ssh_config;
	}
	for (size_t i = 0; i < o->n_ssh_options; i++) {
		argv[n++] = opt_o;
		argv[n++] = (char *)o->ssh_options[i];
	}
	argv[n++] = e->host;
	/* ssh hands one command line to the far user's shell: quote each word,
	 * and set the environment with env(1), which every shell can run. */
	size_t used = 0;
	cmd->line[0] = '\0';
	if (env_add)
		used = (size_t)snprintf(cmd->line, sizeof cmd->line, "env %s ", env_add);
	shell_quote(o->remote_replicate, cmd->line, sizeof cmd->line, &used);
	for (size_t i = 0; args[i]; i++) {
		if (used + 1 < sizeof cmd->line)
			cmd->line[used++] = ' ';
		shell_quote(args[i], cmd->line, sizeof cmd->line, &used);
	}
	argv[n++] = cmd->line;
	argv[n] = NULL;
}

/* Hash the first `bytes` of a local file, to compare with what a resumed
 * transfer kept. */
static ev_status local_prefix_sha(const struct ev_transport *t, const char *path, uint64_t bytes,
				  char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	int fd = ev_input_open(path, "file to send", err);
	if (fd < 0)
		return err->status;
	struct ev_sha256 *h = ev_sha256_new();
	unsigned char *buf = malloc(SEND_CHUNK);
	ev_status st = h && buf ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	uint64_t done = 0;
	while (st == EV_OK && done < bytes) {
		if (*t->stop) {
			st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal", path);
			break;
		}
		size_t want = bytes - done < SEND_CHUNK ? (size_t)(bytes - done) : SEND_CHUNK;
		ssize_t n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			st = ev_error_errno(err, n < 0 ? errno : EIO, "%s: read failed", path);
		else
			st = ev_sha256_update(h, buf, (size_t)n, err);
		done += n > 0 ? (uint64_t)n : 0;
	}
	uint8_t digest[EV_SHA256_LEN];
	if (st == EV_OK && (st = ev_sha256_final(h, digest, err)) == EV_OK)
		ev_sha256_hex(digest, hex);
	ev_sha256_free(h);
	free(buf);
	close(fd);
	return st;
}

/* One file to one destination, resuming what a previous push kept.
 * Kept whole: one ssh child, its pipes and the file, from the start to the
 * reaping wait, on every path (a signal, a timeout, a short write, a
 * refusal by the far end); split, each part would carry the child and the
 * label that reaps it. */
ev_status ev_transport_send_file(const struct ev_transport *t, const struct ev_endpoint *e,
			      const struct ev_payload *f, atomic_uint_fast64_t *sent, int *sending,
			      int *resumed_from, struct ev_error *err)
{
	char size[32], line[256];
	char *args[8];
	struct ev_remote_command cmd;
	snprintf(size, sizeof size, "%" PRIu64, f->size);
	args[0] = (char *)"receive";
	args[1] = e->dir;
	args[2] = (char *)f->name;
	args[3] = size;
	args[4] = (char *)f->sha256;
	args[5] = NULL;
	ev_remote_command_build(t, e, NULL, args, &cmd);
	struct ev_child c;
	ev_status st = ev_child_start(&c, cmd.argv, NULL, 1 << 16, t->idle_seconds, e->spec,
				   t->stop, err);
	if (st != EV_OK)
		return st;
	char doing[512];
	snprintf(doing, sizeof doing, "offering %s", f->name);
	c.doing = doing;
	int fd = -1;
	unsigned char *buf = NULL;
	if ((st = ev_child_read_line(&c, line, sizeof line, err)) != EV_OK)
		goto out;
	if (strcmp(line, "have-final") == 0) {
		if (sent)
			atomic_fetch_add(sent, f->size);
		goto wait;
	}
	uint64_t kept = 0, from = 0;
	char kept_sha[EV_SHA256_HEX_LEN + 2];
	if (sscanf(line, "have %" SCNu64 " %65s", &kept, kept_sha) != 2) {
		st = ev_error_set(err, EV_ERROR, "%s: the far end answered '%.80s', not 'have N SHA'",
				  e->spec, line);
		goto out;
	}
	if (kept > 0 && kept <= f->size) {
		char mine[EV_SHA256_HEX_LEN + 1];
		if ((st = local_prefix_sha(t, f->path, kept, mine, err)) != EV_OK)
			goto out;
		if (strcmp(mine, kept_sha) == 0)
			from = kept;
	}
	*resumed_from = from ? (int)1 : 0;
	snprintf(line, sizeof line, "from %" PRIu64 "\n", from);
	snprintf(doing, sizeof doing, "sending %s", f->name);
	if ((st = ev_child_write(&c, line, strlen(line), err)) != EV_OK)
		goto out;
	/* still a regular file (hashed as one before): never a FIFO put in
	 * its place since */
	fd = ev_input_open(f->path, "file to send", err);
	if (fd < 0) {
		st = err->status;
		goto out;
	}
	buf = malloc(SEND_CHUNK);
	if (!buf) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", f->path);
		goto out;
	}
	if (sent) {
		atomic_fetch_add(sent, from);
		*sending = 1;
	}
	for (uint64_t off = from; off < f->size;) {
		size_t want = f->size - off < SEND_CHUNK ? (size_t)(f->size - off) : SEND_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			st = ev_error_errno(err, n < 0 ? errno : EIO, "%s: read failed", f->path);
			goto out;
		}
		if ((st = ev_child_write(&c, buf, (size_t)n, err)) != EV_OK)
			goto out;
		off += (uint64_t)n;
		if (sent)
			atomic_fetch_add(sent, (uint64_t)n);
	}
	if (sending)
		*sending = 0;
	ev_child_close_input(&c);
	snprintf(doing, sizeof doing, "storing %s", f->name);
	if ((st = ev_child_read_line(&c, line, sizeof line, err)) != EV_OK)
		goto out;
	if (strncmp(line, "stored ", 7) != 0 || strcmp(line + 7, f->sha256) != 0) {
		st = ev_error_set(err, EV_ERROR, "%s: the far end answered '%.100s', not 'stored %s'",
				  e->spec, line, f->sha256);
		goto out;
	}
wait:;
	int code = 0;
	if ((st = ev_child_wait(&c, &code, err)) == EV_OK && code != 0) {
		char why[512];
		ev_child_last_error(&c, why, sizeof why);
		st = ev_error_set(err, EV_ERROR, "%s: storing %s ended with status %d%s%s", e->spec,
				  f->name, code, why[0] ? ": " : "", why);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	ev_child_free(&c);
	return st;
}

/* [user@]host:dir is remote (an IPv6 host in brackets); a path with no
 * colon before its first slash, or starting with / or ./, is local. */
int ev_endpoint_parse(struct ev_endpoint *d, const char *spec)
{
	d->spec = spec;
	const char *colon = strchr(spec, ':');
	const char *slash = strchr(spec, '/');
	if (spec[0] == '[') {
		const char *close = strstr(spec, "]:");
		if (!close)
			return -1;
		d->host = strndup(spec + 1, (size_t)(close - spec - 1));
		d->dir = strdup(close + 2);
	} else if (spec[0] == '/' || strncmp(spec, "./", 2) == 0 || !colon ||
		   (slash && slash < colon)) {
		d->host = NULL;
		d->dir = strdup(spec);
	} else {
		d->host = strndup(spec, (size_t)(colon - spec));
		d->dir = strdup(colon + 1);
	}
	if (!d->dir || !*d->dir || (d->host && !*d->host))
		return -1;
	return 0;
}
