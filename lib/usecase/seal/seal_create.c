/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/archive_writer.h"
#include "lib/archive/namefold.h"
#include "lib/core/hashpipe.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_create.h"

#define SLOTS 8
#define SLOT_BYTES ((size_t)1 << 20)

/* --- refusals ---------------------------------------------------------------- */

static void count_refusal(void *ctx, const struct ev_finding *f)
{
	struct ev_seal_create *c = ctx;
	c->refused++;
	c->on_refusal(c->ctx, f);
}

static void refuse(struct ev_seal_create *c, const char *path, const char *check, const char *message,
		   const char *found)
{
	ev_finding_emit(count_refusal, c, path, check, message, NULL, found);
}

static const char *type_refusal(enum ev_member_type t)
{
	switch (t) {
	case EV_MEMBER_SYMLINK:
		return "is a symbolic link; seal never follows or stores links (copy the target "
		       "in, or move the link out of the tree)";
	case EV_MEMBER_FIFO:
		return "is a FIFO; only regular files and directories can be sealed";
	case EV_MEMBER_SOCKET:
		return "is a socket; only regular files and directories can be sealed";
	case EV_MEMBER_DEVICE:
		return "is a device node; only regular files and directories can be sealed";
	default:
		return "is not a regular file or directory";
	}
}

/* Check every entry and report every reason to refuse it. */
static ev_status check_entries(struct ev_seal_create *c, struct ev_error *err)
{
	const struct ev_tree *tree = &c->tree;
	struct ev_namefold *names = ev_namefold_new();
	if (!names)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < tree->count; i++) {
		const struct ev_tree_entry *e = &tree->entries[i];
		const struct ev_member *m = &e->m;
		char mode[8];
		ev_mode_format(m->mode, mode, sizeof mode);
		if (e->name_problem) {
			char bytes[EV_FINDING_VALUE_MAX];
			ev_path_quote_bytes(m->path, strlen(m->path), bytes, sizeof bytes);
			refuse(c, m->path, "name", e->name_problem,
			       e->name_problem == ev_path_not_nfc ? bytes : NULL);
			continue;
		}
		if (m->type != EV_MEMBER_FILE && m->type != EV_MEMBER_DIR) {
			refuse(c, m->path, "type", type_refusal(m->type), NULL);
			continue;
		}
		if (m->mode & 07000)
			refuse(c, m->path, "mode",
			       "has a setuid, setgid or sticky bit, which seal refuses to carry",
			       mode);
		if (c->refuse_writable && (m->mode & 022))
			refuse(c, m->path, "mode",
			       "is group- or world-writable and --refuse-writable is set", mode);
		if (m->type == EV_MEMBER_FILE) {
			int fd = ev_tree_open_member(tree, m->path);
			if (fd < 0)
				refuse(c, m->path, "unreadable", "cannot be read", strerror(errno));
			else
				close(fd);
		}
		if (ev_namefold_add(names, m->path, err) != EV_OK) {
			ev_namefold_free(names);
			return err->status;
		}
	}
	/* A seal that no replica on macOS or Windows could hold is refused
	 * here, not discovered when it is copied. */
	ev_namefold_report(names, count_refusal, c);
	ev_namefold_free(names);
	return EV_OK;
}

/* OUTDIR's parent must not be the tree or inside it: the outputs would
 * seal themselves. */
static ev_status check_outdir_outside(const struct ev_tree *tree, const char *outdir,
				      struct ev_error *err)
{
	char *copy = strdup(outdir);
	char real[PATH_MAX];
	if (!copy)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *parent = dirname(copy);
	if (!realpath(parent, real)) {
		ev_status st = ev_error_errno(err, errno, "%s: cannot resolve the directory that "
					      "should hold the outputs (%s)", outdir, parent);
		free(copy);
		return st;
	}
	free(copy);
	for (;;) {
		struct stat sb;
		if (stat(real, &sb) == 0 && sb.st_dev == tree->root_dev && sb.st_ino == tree->root_ino)
			return ev_error_set(err, EV_REFUSED,
					    "%s: output directory is inside the tree being sealed; "
					    "choose an OUTDIR outside it",
					    outdir);
		char *slash = strrchr(real, '/');
		if (!slash || slash == real) {
			if (strcmp(real, "/") == 0)
				break;
			strcpy(real, "/");
			continue;
		}
		*slash = '\0';
	}
	return EV_OK;
}

/* --- reading one file ------------------------------------------------------------ */

static int same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static ev_status changed(const char *path, const char *how, struct ev_error *err)
{
	return ev_error_set(err, EV_REFUSED,
			    "%s: %s while it was being sealed; nothing was written (seal a tree "
			    "that is no longer being written to)",
			    path, how);
}

static ev_status seal_file(const struct ev_tree *tree, struct ev_tree_entry *e,
			   struct ev_hashpipe *p, struct ev_archive_writer *w,
			   const struct ev_meter *meter, volatile sig_atomic_t *interrupted,
			   struct ev_error *err)
{
	struct ev_member *m = &e->m;
	int fd = ev_tree_open_member(tree, m->path);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open", m->path);
	ev_status st = EV_OK;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", m->path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_dev != e->dev || sb.st_ino != e->ino) {
		st = changed(m->path, "was replaced", err);
		goto out;
	}
	if ((uint64_t)sb.st_size != m->size || !same_time(sb.st_mtim, e->mtime)) {
		st = changed(m->path, "changed (size or mtime)", err);
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if ((st = ev_archive_writer_begin(w, m, err)) != EV_OK)
		goto out;
	uint64_t left = m->size;
	do {
		unsigned char *buf = ev_hashpipe_buffer(p);
		size_t want = left < SLOT_BYTES ? (size_t)left : SLOT_BYTES;
		ssize_t n = 0;
		while (want && (n = read(fd, buf, want)) < 0 && errno == EINTR)
			;
		if (n < 0) {
			st = ev_error_errno(err, errno, "%s: read failed", m->path);
			goto out;
		}
		if (want && n == 0) {
			st = changed(m->path, "shrank", err);
			goto out;
		}
		left -= (uint64_t)n;
		/* Hashed on the hasher thread while it is compressed on this one. */
		ev_hashpipe_publish(p, (size_t)n, left == 0, m->sha256);
		if ((st = ev_archive_writer_data(w, buf, (size_t)n, err)) != EV_OK)
			goto out;
		ev_meter_advance(meter, (uint64_t)n, left == 0);
		if (interrupted && *interrupted) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing was "
					  "written");
			goto out;
		}
	} while (left);
	char extra;
	ssize_t more;
	while ((more = read(fd, &extra, 1)) < 0 && errno == EINTR)
		;
	if (more != 0) {
		st = more > 0 ? changed(m->path, "grew", err)
			      : ev_error_errno(err, errno, "%s: read failed", m->path);
		goto out;
	}
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", m->path);
		goto out;
	}
	if ((uint64_t)sb.st_size != m->size || !same_time(sb.st_mtim, e->mtime))
		st = changed(m->path, "changed (size or mtime)", err);
out:
	close(fd);
	return st;
}

/* --- the whole run --------------------------------------------------------------- */

static ev_status build_seal(struct ev_seal_create *r, struct ev_error *err)
{
	ev_seal_init(&r->seal);
	r->seal.root = (char *)r->root_name;
	r->seal.members = calloc(r->tree.count ? r->tree.count : 1, sizeof r->seal.members[0]);
	if (!r->seal.members)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < r->tree.count; i++)
		r->seal.members[i] = r->tree.entries[i].m;
	r->seal.count = r->tree.count;
	ev_seal_finish(&r->seal);
	return EV_OK;
}

static void copy_digests(struct ev_seal_create *r)
{
	for (size_t i = 0; i < r->tree.count; i++)
		memcpy(r->seal.members[i].sha256, r->tree.entries[i].m.sha256, EV_SHA256_LEN);
}

static ev_status seal_members(struct ev_seal_create *r, struct ev_error *err)
{
	struct ev_hashpipe *p = NULL;
	ev_status st = ev_hashpipe_new(&p, SLOTS, SLOT_BYTES, err);
	if (st != EV_OK)
		return st;
	ev_meter_goal(r->meter, r->tree.file_bytes, r->tree.count);
	for (size_t i = 0; i < r->tree.count && st == EV_OK; i++) {
		struct ev_tree_entry *e = &r->tree.entries[i];
		if (e->m.type == EV_MEMBER_DIR) {
			st = ev_archive_writer_begin(r->out.writer, &e->m, err);
			ev_meter_advance(r->meter, 0, 1);
		} else {
			st = seal_file(&r->tree, e, p, r->out.writer, r->meter, r->interrupted, err);
		}
		if (st == EV_OK)
			st = ev_hashpipe_status(p, err);
	}
	ev_status hashed = ev_hashpipe_finish(p, err);
	ev_hashpipe_free(p);
	return st != EV_OK ? st : hashed;
}

/* The receipt's own part; ev_seal_outdir_finish adds the outputs and totals. */
static ev_status make_receipt(struct ev_seal_create *r, struct ev_error *err)
{
	ev_status st;
	if (!(r->receipt = ev_receipt_new("seal", "seal", r->invocation, err)))
		return err->status;
	if ((st = ev_receipt_add_input(r->receipt, "tree", r->root_real, NULL, err)) ||
	    (st = ev_receipt_add_check(r->receipt, "members-refused", 1, "none", err)) ||
	    (st = ev_receipt_add_check(r->receipt, "members-unchanged-while-read", 1,
				       "size and mtime held from walk to end of read", err)))
		return st;
	/* what a seal's pass means: the tree as read, not the tree as it
	 * was before or will be after */
	return ev_receipt_set_fact(
		r->receipt, "coverage",
		json_pack("{s:[s, s, s], s:[s, s]}", "recomputed",
			  "every member of the tree walked without following a link, its kind and mode checked",
			  "every regular file read once, hashed (SHA-256) and archived in the same pass",
			  "every file's size and mtime held from the walk to the end of its read",
			  "not_checked", "what the tree held before this seal (seal records; it cannot vouch for the past)",
			  "the meaning of the bytes (audit judges them)"),
		err);
	return EV_OK;
}

ev_status ev_seal_create(struct ev_seal_create *r, struct ev_error *err)
{
	ev_status st;
	r->tree.rootfd = -1;
	r->out.archive.fd = r->out.archive.dirfd = -1;
	r->out.seal_file.fd = r->out.seal_file.dirfd = -1;
	r->out.receipt_file.fd = r->out.receipt_file.dirfd = -1;
	r->out.od.dirfd = r->out.od.parentfd = -1;
	if (!realpath(r->dir, r->root_real))
		return ev_error_errno(err, errno, "%s: cannot resolve", r->dir);
	r->root_name = r->name ? r->name : basename(r->root_real);
	const char *problem = ev_path_component_problem(r->root_name, strlen(r->root_name));
	if (problem)
		return ev_error_set(err, EV_USAGE, "root name \"%s\" %s; choose one with --name",
				    r->root_name, problem);

	if ((st = ev_tree_scan(r->dir, &r->tree, count_refusal, r, err)) != EV_OK)
		return st;
	if ((st = check_entries(r, err)) != EV_OK)
		return st;
	if (r->refused)
		return ev_error_set(err, EV_REFUSED, "%s: %u member%s refused; nothing was written",
				    r->dir, r->refused, r->refused == 1 ? "" : "s");
	if ((st = check_outdir_outside(&r->tree, r->outdir, err)) != EV_OK)
		return st;
	if ((st = build_seal(r, err)) != EV_OK)
		return st;
	/* Digests are still zero: the length of SEAL.json is already final. */
	if ((st = ev_seal_outdir_begin(&r->out, r->outdir, &r->archive, &r->seal, err)) != EV_OK)
		return st;
	if ((st = seal_members(r, err)) != EV_OK)
		return st;
	copy_digests(r);
	if ((st = make_receipt(r, err)) != EV_OK)
		return st;
	return ev_seal_outdir_finish(&r->out, &r->seal, r->receipt, r->interrupted, err);
}

void ev_seal_create_free(struct ev_seal_create *c)
{
	ev_seal_outdir_free(&c->out);
	free(c->seal.members); /* paths belong to the tree */
	c->seal.members = NULL;
	ev_tree_free(&c->tree);
	json_decref(c->receipt);
	c->receipt = NULL;
}
