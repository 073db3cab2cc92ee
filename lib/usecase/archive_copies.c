/* archive_copies: members copied out of a sealed archive in the pass that
 * checks it (archive_copies.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/path.h"
#include "lib/usecase/archive_copies.h"

struct copy {
	char path[PATH_MAX + 64];
	int fd;
	int broken;
};

void ev_archive_copies_init(struct ev_archive_copies *c)
{
	memset(c, 0, sizeof *c);
	ev_seal_init(&c->seal);
	c->scratch = (struct ev_scratch)EV_SCRATCH_INIT;
}

/* mkdir -p of path's parents below the copies' root (private already). */
static void parents(const struct ev_archive_copies *c, char *path)
{
	for (char *p = path + strlen(c->root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = 0;
		mkdir(path, 0700);
		*p = '/';
	}
}

static void *tap_begin(void *ctx, size_t index, const struct ev_member *m)
{
	struct ev_archive_copies *c = ctx;
	(void)index;
	if (c->wanted && !c->wanted(c->ctx, m->path))
		return NULL;
	struct copy *k = calloc(1, sizeof *k);
	if (!k || ev_path_join(k->path, sizeof k->path, c->root, m->path) != 0) {
		free(k);
		return NULL;
	}
	parents(c, k->path);
	k->fd = open(k->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (k->fd < 0) {
		free(k);
		return NULL;
	}
	return k;
}

static void tap_data(void *member, const void *bytes, size_t len)
{
	struct copy *k = member;
	const char *p = bytes;
	while (!k->broken && len) {
		ssize_t w = write(k->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			k->broken = 1;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
}

static void tap_end(void *member, int complete)
{
	struct copy *k = member;
	if (close(k->fd) != 0 || !complete || k->broken)
		unlink(k->path); /* an incomplete copy is no copy: the audit finds it missing */
	free(k);
}

static void counted(void *ctx, const struct ev_finding *f)
{
	struct ev_archive_copies *c = ctx;
	if (!c->findings++)
		snprintf(c->first, sizeof c->first, "%s: %s: %s", f->subject, f->check, f->message);
	c->on_finding(c->ctx, f);
}

ev_status ev_archive_copies_make(struct ev_archive_copies *c, struct ev_error *err)
{
	char *seal_bytes = NULL;
	size_t seal_len = 0;
	ev_status st = ev_seal_load_pinned(c->seal_path, c->seal_sha256, &c->seal, c->seal_hex, &seal_bytes, &seal_len,
					   err);
	if (st == EV_MISMATCH)
		st = ev_seal_refuse_unpinned(c->seal_path, c->seal_hex, c->seal_sha256, err);
	if (st == EV_OK)
		st = ev_scratch_open(&c->scratch, c->purpose, err);
	if (st == EV_OK && (ev_path_join(c->root, sizeof c->root, c->scratch.path, c->seal.root) != 0 ||
			    mkdir(c->root, 0700) != 0))
		st = ev_error_set(err, EV_ERROR, "%s: cannot make the copies' directory: %s", c->scratch.path,
				  strerror(errno));
	if (st == EV_OK) {
		snprintf(c->shown_from, sizeof c->shown_from, "%s/", c->scratch.path);
		struct ev_archive_tap tap = {tap_begin, tap_data, tap_end, c};
		st = ev_archive_check_tapped(c->archive, &c->seal, seal_bytes, seal_len, counted, c, &tap, c->progress,
					     c->interrupted, &c->check, err);
		if (st == EV_OK || st == EV_MISMATCH)
			ev_sha256_hex(c->check.archive_sha256, c->archive_hex);
	}
	free(seal_bytes);
	if (st != EV_OK && st != EV_MISMATCH)
		ev_scratch_close(&c->scratch);
	return st;
}

void ev_archive_copies_free(struct ev_archive_copies *c)
{
	ev_scratch_close(&c->scratch);
	ev_seal_free(&c->seal);
}
