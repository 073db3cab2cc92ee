/* audit profile --seal SEAL.json --run RUN ARCHIVE: a profiled run read
 * from a sealed archive. The archive is checked against its seal in one
 * pass (every member, as replicate verify does); the run's run.json and
 * its profile/ members are written, as they stream by, into a private
 * directory (lib/core/scratch), because perf reads perf.data from a
 * file; once the pass is over and no finding concerns them, the profile
 * is read from those copies as from a run directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/archive_reader.h"
#include "lib/archive/seal.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/profile_side.h"

struct copy {
	char path[PATH_MAX + 64];
	int fd;
	int broken;
};

struct extract {
	const struct ev_seal *seal;
	const char *run;          /* the run's path in the seal, from its root */
	const char *dir;          /* where the copies go */
	unsigned ours;            /* findings about the run's members */
	unsigned findings;
	ev_finding_fn on_finding;
	void *ctx;
};

/* mkdir -p of path's parents below x->dir. */
static void parents(struct extract *x, char *path)
{
	for (char *p = path + strlen(x->dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = 0;
		mkdir(path, 0700);
		*p = '/';
	}
}

static void *tap_begin(void *ctx, size_t index, const struct ev_member *m)
{
	struct extract *x = ctx;
	(void)index;
	size_t n = strlen(x->run);
	if (strncmp(m->path, x->run, n) != 0 || m->path[n] != '/')
		return NULL;
	const char *rel = m->path + n + 1;
	if (strcmp(rel, "run.json") != 0 && strncmp(rel, "profile/", 8) != 0)
		return NULL;
	struct copy *c = calloc(1, sizeof *c);
	if (!c || ev_path_join(c->path, sizeof c->path, x->dir, rel) != 0) {
		free(c);
		return NULL;
	}
	parents(x, c->path);
	c->fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (c->fd < 0) {
		free(c);
		return NULL;
	}
	return c;
}

static void tap_data(void *member, const void *bytes, size_t len)
{
	struct copy *c = member;
	const char *p = bytes;
	while (!c->broken && len) {
		ssize_t w = write(c->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			c->broken = 1;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
}

static void tap_end(void *member, int complete)
{
	struct copy *c = member;
	if (close(c->fd) != 0 || !complete || c->broken)
		unlink(c->path); /* an incomplete copy is no copy */
	free(c);
}

static void counted(void *ctx, const struct ev_finding *f)
{
	struct extract *x = ctx;
	x->on_finding(x->ctx, f);
	x->findings++;
	size_t n = strlen(x->run);
	if (strncmp(f->subject, x->run, n) == 0 && (f->subject[n] == '/' || !f->subject[n]))
		x->ours++;
}

ev_status ev_profile_extract(const char *archive, const char *seal_path, const char *seal_pin, const char *run,
			     json_t *receipt, ev_finding_fn on_finding, void *ctx, volatile sig_atomic_t *interrupted,
			     struct ev_scratch *scratch, struct ev_error *err)
{
	struct ev_seal seal;
	char *seal_bytes = NULL, seal_hex[EV_SHA256_HEX_LEN + 1];
	size_t seal_len = 0;
	ev_seal_init(&seal);
	ev_status st = ev_seal_load_pinned(seal_path, seal_pin, &seal, seal_hex, &seal_bytes, &seal_len, err);
	if (st == EV_MISMATCH)
		st = ev_seal_refuse_unpinned(seal_path, seal_hex, seal_pin, err);
	if (st != EV_OK) {
		free(seal_bytes);
		ev_seal_free(&seal);
		return st;
	}
	/* the run named from the seal's root, with or without the root's name */
	size_t n = strlen(seal.root);
	const char *in_seal = strncmp(run, seal.root, n) == 0 && run[n] == '/' ? run + n + 1 : run;
	char runjson[PATH_MAX];
	snprintf(runjson, sizeof runjson, "%s/run.json", in_seal);
	if (ev_seal_find(&seal, runjson) < 0) {
		st = ev_error_set(err, EV_USAGE, "%s: no member %s in %s (name the run from its root, %s/)", run, runjson,
				  seal_path, seal.root);
		free(seal_bytes);
		ev_seal_free(&seal);
		return st;
	}
	if ((st = ev_scratch_open(scratch, "audit-profile", err)) != EV_OK) {
		free(seal_bytes);
		ev_seal_free(&seal);
		return st;
	}
	struct extract x = {.seal = &seal, .run = in_seal, .dir = scratch->path, .on_finding = on_finding, .ctx = ctx};
	struct ev_archive_tap tap = {tap_begin, tap_data, tap_end, &x};
	struct ev_archive_check res;
	st = ev_archive_check_tapped(archive, &seal, seal_bytes, seal_len, counted, &x, &tap, NULL, interrupted,
				     &res, err);
	if (st == EV_OK || st == EV_MISMATCH) {
		char hex[EV_SHA256_HEX_LEN + 1], detail[256];
		ev_sha256_hex(res.archive_sha256, hex);
		ev_receipt_add_input(receipt, "seal", seal_path, seal_hex, err);
		ev_receipt_add_input(receipt, "archive", archive, hex, err);
		snprintf(detail, sizeof detail, "%zu members against the seal, %u finding%s (%u about this run)", seal.count,
			 x.findings, x.findings == 1 ? "" : "s", x.ours);
		ev_receipt_add_check(receipt, "archive against its seal", x.findings == 0, detail, err);
		st = x.ours ? ev_error_set(err, EV_MISMATCH, "%s: the archive's copy of %s does not match its seal: its profile is "
						 "not read", archive, in_seal)
			    : EV_OK;
	}
	free(seal_bytes);
	ev_seal_free(&seal);
	if (st != EV_OK) {
		ev_scratch_close(scratch);
		return st;
	}
	return EV_OK;
}
