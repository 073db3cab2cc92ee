/* SPDX-License-Identifier: Apache-2.0 */
/* audit journal --archive: the journals read from a sealed archive as it
 * streams by, never extracted.
 *
 * The archive is checked against its seal in the same pass (every member's
 * type, mode, size and SHA-256, as replicate verify does); the journal
 * members are tapped on their way to the hasher and fed to their sides'
 * readers. Members come in seal order (paths sorted bytewise), which fixes
 * what can be read in one pass: a pair's side that comes first records
 * the fingerprints and the other compares; an llfix journal's files must
 * come in rotation order (so 1.bin ... 9.bin, not 10.bin, which sorts
 * before 2.bin); a QuickFIX FileStore's .body comes before the .header
 * that indexes it, so stores are audited from directories only. Each of
 * these is refused before the read, saying what to do instead. One
 * thread reads and audits, another hashes. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/usecase/audit/journal/parts.h"
#include "lib/archive/archive_reader.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/seal.h"

/* Which side, and which of its files, a sealed member is. */
struct slot {
	struct ev_journal_pair *pair;
	int side;       /* 0 sender, 1 receiver; -1: not a journal */
	uint32_t file;
};

struct streaming {
	struct ev_audit_journal *run;
	const struct ev_seal *seal;
	struct slot *slots;           /* per seal member */
	struct ev_journal_session *sessions; /* per pair and side: [2 * pair + side] */
	int *first;                   /* per pair: the side read first, -1 none yet */
	unsigned char *closed;        /* per session: its last file was read */
	uint64_t findings;            /* the archive's own, each handed to run->on_archive_finding */
	ev_status st;
	struct ev_error err;
};

/* --- the seal as a journal source: its members, by path --------------------- */

static mode_t look_member(void *ctx, const char *path)
{
	const struct ev_seal *seal = ctx;
	long at = ev_seal_find(seal, path);
	if (at < 0) {
		errno = ENOENT;
		return 0;
	}
	switch (seal->members[at].type) {
	case EV_MEMBER_DIR: return S_IFDIR;
	case EV_MEMBER_FILE: return S_IFREG;
	case EV_MEMBER_SYMLINK: return S_IFLNK;
	case EV_MEMBER_FIFO: return S_IFIFO;
	case EV_MEMBER_SOCKET: return S_IFSOCK;
	default: return S_IFCHR;
	}
}

/* The regular files directly inside dir. Every path under dir is
 * contiguous in byte order, but a sibling such as "sender-incoming/..."
 * sorts among them ('-' before '/'): skip it, stop only where the prefix
 * ends. */
static ev_status member_names_in(void *ctx, const char *dir, void (*fn)(void *arg, const char *name), void *arg,
				 struct ev_error *err)
{
	const struct ev_seal *seal = ctx;
	size_t n = strlen(dir);
	long at = ev_seal_find(seal, dir);
	(void)err;
	for (size_t i = at < 0 ? 0 : (size_t)at + 1; at >= 0 && i < seal->count; i++) {
		const char *q = seal->members[i].path;
		if (strncmp(q, dir, n) != 0)
			break;
		if (q[n] == '/' && !strchr(q + n + 1, '/') && seal->members[i].type == EV_MEMBER_FILE)
			fn(arg, q + n + 1);
	}
	return EV_OK;
}

static int by_seal_order(const void *a, const void *b, void *seal)
{
	long x = ev_seal_find(seal, *(char *const *)a), y = ev_seal_find(seal, *(char *const *)b);
	return x < y ? -1 : x > y;
}

/* A member path as given: relative to the sealed root, with or without
 * the root's name in front. */
static const char *member_path(const struct ev_seal *seal, const char *path)
{
	size_t n = strlen(seal->root);
	if (strncmp(path, seal->root, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* The side's files in the seal, in reading order, each checked to stand
 * where one pass can read it: the same rules as on disk
 * (ev_fixread_detect_in, ev_fixread_list_in), the seal as the source. */
static ev_status resolve_side(struct streaming *x, struct ev_journal_pair *p, int k, struct ev_error *err)
{
	const struct ev_seal *seal = x->seal;
	struct ev_journal_source members = {look_member, member_names_in, (void *)seal};
	struct ev_journal_side *s = &p->side[k];
	const char *path = member_path(seal, s->path);
	int format = x->run->side_format[k] >= 0 ? x->run->side_format[k] : x->run->format;
	ev_status st;
	if (ev_seal_find(seal, path) < 0)
		return ev_error_set(err, EV_USAGE,
				    "%s: no such member in %s (name members from its root, %s/)", s->path,
				    x->run->seal, seal->root);
	if (format < 0 && (format = ev_fixread_detect_in(&members, path, err)) < 0)
		return err->status;
	s->kind = (enum ev_fixread_kind)format;
	if (s->kind == EV_FIXREAD_QF_STORE)
		return ev_error_set(err, EV_USAGE,
				    "%s: a QuickFIX FileStore cannot be audited from an archive (its .body "
				    "streams before the .header that indexes it); extract it and audit the "
				    "directory", s->path);
	if ((st = ev_fixread_list_in(&members, s->kind, path, &s->files, &s->nfiles, err)) != EV_OK)
		return st;
	if (!s->nfiles)
		return ev_error_set(err, EV_USAGE, "%s: holds no journal file (N.bin)", s->path);
	if (s->kind != EV_FIXREAD_LLFIX && look_member((void *)seal, s->files[0]) != S_IFREG)
		return ev_error_set(err, EV_USAGE, "%s: a %s, not a journal file", s->path,
				    ev_member_type_name(seal->members[ev_seal_find(seal, s->files[0])].type));
	/* One pass reads members in seal order, which must be rotation order
	 * (10.bin sorts before 2.bin). */
	char **streamed = malloc(s->nfiles * sizeof *streamed);
	if (!streamed)
		return ev_error_set(err, EV_ERROR, "out of memory");
	memcpy(streamed, s->files, s->nfiles * sizeof *streamed);
	qsort_r(streamed, s->nfiles, sizeof *streamed, by_seal_order, (void *)seal);
	for (size_t f = 1; f < s->nfiles; f++) {
		const char *prev = strrchr(streamed[f - 1], '/'), *name = strrchr(streamed[f], '/');
		if (ev_fixread_llfix_number(prev + 1) > ev_fixread_llfix_number(name + 1)) {
			st = ev_error_set(err, EV_USAGE,
					  "%s: %s streams before %s (members come sorted by name), so one pass "
					  "cannot read the journal in rotation order; extract it and audit the "
					  "directory", s->path, prev + 1, name + 1);
			free(streamed);
			return st;
		}
	}
	free(streamed);
	s->digests = calloc(s->nfiles, sizeof *s->digests);
	s->bytes = calloc(s->nfiles, sizeof *s->bytes);
	s->records = calloc(s->nfiles, sizeof *s->records);
	if (!s->digests || !s->bytes || !s->records)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t f = 0; f < s->nfiles; f++) {
		long i = ev_seal_find(seal, s->files[f]);
		struct slot *slot = &x->slots[i];
		if (slot->side >= 0)
			return ev_error_set(err, EV_USAGE, "%s: also read as pair %zu %s", s->files[f],
					    slot->pair->number, slot->pair->side[slot->side].role);
		*slot = (struct slot){p, k, (uint32_t)f};
		memcpy(s->digests[f], seal->members[i].sha256, EV_SHA256_LEN);
	}
	return EV_OK;
}

/* Both sides of a pair must follow each other: the second cannot begin
 * before the first has ended, or fingerprints would be compared against a
 * set still being made. */
static ev_status check_pair_order(struct streaming *x, struct ev_journal_pair *p, struct ev_error *err)
{
	if (!p->side[0].present || !p->side[1].present)
		return EV_OK;
	long a0 = ev_seal_find(x->seal, p->side[0].files[0]),
	     a1 = ev_seal_find(x->seal, p->side[0].files[p->side[0].nfiles - 1]),
	     b0 = ev_seal_find(x->seal, p->side[1].files[0]),
	     b1 = ev_seal_find(x->seal, p->side[1].files[p->side[1].nfiles - 1]);
	if ((a0 < b0 && a1 > b0) || (b0 < a0 && b1 > a0))
		return ev_error_set(err, EV_USAGE,
				    "pair %zu: the sender's and receiver's files are interleaved in the "
				    "archive (%s, %s); audit the extracted directories", p->number,
				    p->side[0].path, p->side[1].path);
	return EV_OK;
}

/* --- the tap ------------------------------------------------------------------ */

struct tapped {
	struct streaming *x;
	struct ev_journal_session *ss;
	uint32_t file;
};

static void *tap_begin(void *ctx, size_t index, const struct ev_member *sealed)
{
	struct streaming *x = ctx;
	struct slot *slot = &x->slots[index];
	(void)sealed;
	if (slot->side < 0 || x->st != EV_OK)
		return NULL;
	struct ev_journal_pair *p = slot->pair;
	struct ev_journal_side *s = &p->side[slot->side];
	size_t pi = (size_t)(p - x->run->pairs);
	struct ev_journal_session *ss = &x->sessions[2 * pi + (size_t)slot->side];
	if (!ss->checker) {
		int both = p->side[0].present && p->side[1].present;
		enum ev_fingerprint_mode mode = !both ? EV_FINGERPRINT_NONE
					     : x->first[pi] < 0 ? EV_FINGERPRINT_RECORD : EV_FINGERPRINT_COMPARE;
		if (x->first[pi] < 0)
			x->first[pi] = slot->side;
		if ((x->st = ev_journal_side_open(x->run, p, s, mode, NULL, ss, &x->err)) != EV_OK)
			return NULL;
	}
	if ((x->st = ev_fixread_begin(ss->reader, s->files[slot->file], slot->file, &x->err)) != EV_OK)
		return NULL;
	static struct tapped t; /* one member at a time: the archive is read in order */
	t = (struct tapped){x, ss, slot->file};
	return &t;
}

static void tap_data(void *member, const void *bytes, size_t len)
{
	struct tapped *t = member;
	if (t->x->st != EV_OK)
		return;
	t->ss->side->bytes[t->file] += len;
	t->x->st = ev_fixread_feed(t->ss->reader, bytes, len, &t->x->err);
}

static void tap_end(void *member, int complete)
{
	struct tapped *t = member;
	struct streaming *x = t->x;
	struct ev_journal_session *ss = t->ss;
	struct ev_journal_side *s = ss->side;
	if (x->st != EV_OK)
		return;
	/* A member cut short by a broken stream is ended where it broke: its
	 * last record shows as damage, and the archive's findings say why. */
	(void)complete;
	x->st = ev_fixread_end(ss->reader, &x->err);
	s->records[t->file] = ev_fixread_records(ss->reader);
	if (t->file + 1 == s->nfiles) {
		struct ev_journal_pair *p = ss->pair;
		size_t pi = (size_t)(p - x->run->pairs);
		ev_journal_side_close(ss, &p->side[x->first[pi]], NULL);
		x->closed[ss - x->sessions] = 1;
	}
}

static void on_archive_finding(void *ctx, const struct ev_finding *f)
{
	struct streaming *x = ctx;
	struct ev_finding stable = *f;
	if (strcmp(f->subject, x->run->archive) == 0)
		stable.subject = "archive";
	x->findings++;
	x->run->on_archive_finding(x->run->ctx, f, &stable);
}

ev_status ev_journal_from_archive(struct ev_audit_journal *run, struct ev_error *err)
{
	struct ev_seal seal;
	char *seal_bytes = NULL;
	size_t seal_len = 0;
	struct streaming x = {.run = run, .seal = &seal};
	ev_error_clear(&x.err);
	ev_seal_init(&seal);
	ev_status st = ev_seal_load_pinned(run->seal, run->seal_sha256, &seal, run->seal_hex, &seal_bytes,
					   &seal_len, err);
	if (st == EV_MISMATCH)
		st = ev_seal_refuse_unpinned(run->seal, run->seal_hex, run->seal_sha256, err);
	if (st != EV_OK)
		goto out;
	x.slots = calloc(seal.count ? seal.count : 1, sizeof *x.slots);
	x.sessions = calloc(2 * run->npairs, sizeof *x.sessions);
	x.first = malloc(run->npairs * sizeof *x.first);
	x.closed = calloc(2 * run->npairs, 1);
	if (!x.slots || !x.sessions || !x.first || !x.closed) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < seal.count; i++)
		x.slots[i].side = -1;
	for (size_t i = 0; i < run->npairs; i++) {
		x.first[i] = -1;
		for (int k = 0; k < 2 && st == EV_OK; k++)
			if (run->pairs[i].side[k].present)
				st = resolve_side(&x, &run->pairs[i], k, err);
		if (st == EV_OK)
			st = check_pair_order(&x, &run->pairs[i], err);
		if (st != EV_OK)
			goto out;
	}

	struct ev_archive_tap tap = {tap_begin, tap_data, tap_end, &x};
	struct ev_archive_check res;
	ev_meter_goal(run->meter, seal.bytes, seal.files);
	st = ev_archive_check_tapped(run->archive, &seal, seal_bytes, seal_len, on_archive_finding, &x,
				     &tap, run->meter, run->interrupted, &res, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (x.st != EV_OK) {
		st = ev_error_set(err, x.st, "%s", x.err.text);
		goto out;
	}
	/* Sides whose files the archive never delivered in full end here (the
	 * archive's findings say which members): what was read is judged, and
	 * the order count says what is missing. */
	for (size_t i = 0; i < run->npairs; i++)
		for (int k = 0; k < 2; k++) {
			struct ev_journal_pair *p = &run->pairs[i];
			struct ev_journal_session *ss = &x.sessions[2 * i + (size_t)k];
			if (!p->side[k].present || x.closed[2 * i + (size_t)k])
				continue;
			if (!ss->checker) {
				int both = p->side[0].present && p->side[1].present;
				enum ev_fingerprint_mode mode = !both ? EV_FINGERPRINT_NONE
							     : x.first[i] < 0 ? EV_FINGERPRINT_RECORD
									      : EV_FINGERPRINT_COMPARE;
				if (x.first[i] < 0)
					x.first[i] = k;
				if ((st = ev_journal_side_open(run, p, &p->side[k], mode, NULL, ss, err)) != EV_OK)
					goto out;
			}
			ev_journal_side_close(ss, &p->side[x.first[i]], NULL);
		}
	ev_sha256_hex(res.archive_sha256, run->archive_hex);
	run->archive_findings = x.findings;
	char detail[128];
	snprintf(detail, sizeof detail, "%zu members against the seal, %" PRIu64 " finding%s", seal.count,
		 x.findings, x.findings == 1 ? "" : "s");
	st = ev_receipt_add_check(run->doc, "archive", x.findings == 0, detail, err);
out:
	for (size_t i = 0; x.sessions && i < 2 * run->npairs; i++)
		if (x.sessions[i].checker)
			ev_journal_side_abandon(&x.sessions[i]);
	free(x.slots);
	free(x.sessions);
	free(x.first);
	free(x.closed);
	free(seal_bytes);
	ev_seal_free(&seal);
	return st;
}
