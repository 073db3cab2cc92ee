/* SPDX-License-Identifier: Apache-2.0 */
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
#include "lib/receipt/receipt.h"
#include "lib/usecase/common/archive_copies.h"

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

/* name (from the seal's root, or with root in front) without the root. */
static const char *from_root(const char *root, const char *name)
{
	size_t n = strlen(root);
	return strncmp(name, root, n) == 0 && name[n] == '/' ? name + n + 1 : name;
}

/* Whether path (a member's, from the root) is name or lies beneath it. */
static int is_named(const char *root, const char *name, const char *path)
{
	name = from_root(root, name);
	size_t k = strlen(name);
	while (k && name[k - 1] == '/')
		k--;
	return k && strncmp(path, name, k) == 0 && (path[k] == 0 || path[k] == '/');
}

static int named(const struct ev_archive_copies *c, const char *path)
{
	for (size_t i = 0; i < c->nnames; i++)
		if (c->names[i] && is_named(c->seal.root, c->names[i], path))
			return 1;
	return 0;
}

static void *tap_begin(void *ctx, size_t index, const struct ev_member *m)
{
	struct ev_archive_copies *c = ctx;
	(void)index;
	if (c->wanted ? !c->wanted(c->ctx, m->path) : c->nnames && !named(c, m->path))
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
	if (c->nnames && f->subject && named(c, f->subject))
		c->named_findings++;
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
	if (st != EV_OK && st != EV_MISMATCH) { /* nothing is left: neither the copies nor the seal */
		ev_scratch_close(&c->scratch);
		ev_seal_free(&c->seal);
	}
	return st;
}

ev_status ev_archive_copies_path(const struct ev_archive_copies *c, const char *name, char *out, size_t cap,
				 struct ev_error *err)
{
	const char *rel = from_root(c->seal.root, name);
	size_t k = strlen(rel);
	int there = ev_seal_find(&c->seal, rel) >= 0;
	for (size_t i = 0; !there && k && i < c->seal.count; i++) /* a directory: a member beneath it */
		there = strncmp(c->seal.members[i].path, rel, k) == 0 && c->seal.members[i].path[k] == '/';
	if (!there)
		return ev_error_set(err, EV_USAGE, "%s: no member %s in %s (name it from the seal's root, %s/)", c->archive,
				    name, c->seal_path, c->seal.root);
	if (ev_path_join(out, cap, c->root, rel) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", name);
	return EV_OK;
}

void ev_archive_copies_to_receipt(const struct ev_archive_copies *c, json_t *receipt, struct ev_error *err)
{
	char detail[sizeof c->first + 160];
	ev_receipt_add_input(receipt, EV_SEAL_FILENAME, c->seal_path, c->seal_hex, err);
	ev_receipt_add_input(receipt, "archive", c->archive, c->archive_hex, err);
	if (c->findings)
		snprintf(detail, sizeof detail, "%zu members against the seal, %u finding%s (%u about the members read), the "
			 "first %s", c->seal.count, c->findings, c->findings == 1 ? "" : "s", c->named_findings, c->first);
	else
		snprintf(detail, sizeof detail, "%zu members against the seal, 0 findings", c->seal.count);
	ev_receipt_add_check(receipt, "archive against its seal", c->findings == 0, detail, err);
}

void ev_archive_copies_free(struct ev_archive_copies *c)
{
	ev_scratch_close(&c->scratch);
	ev_seal_free(&c->seal);
}
