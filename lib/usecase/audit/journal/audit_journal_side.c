/* SPDX-License-Identifier: Apache-2.0 */
/* journal_side: one side of a pair being read, wherever its bytes come
 * from: the reader's records go to the checker, its findings to the pair's
 * list, its fingerprints to the pair's set. Used by the directory source
 * (journal.c) and the archive source (journal_archive.c), so neither
 * calls the other back. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/grow.h"
#include "lib/usecase/audit/journal/parts.h"
#include "lib/core/hashpipe.h"

/* ring slots of the SHA-256 thread, one read each */
#define HASH_SLOTS 4
#define HASH_SLOT_BYTES ((size_t)1 << 20)

static void finding_list_add(struct ev_journal_findings *l, const struct ev_fix_finding *f)
{
	if (l->oom)
		return;
	if (ev_grow_array(&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) {
		l->oom = 1;
		return;
	}
	l->v[l->n++] = *f;
}

static void on_finding(void *ctx, const struct ev_fix_finding *f)
{
	finding_list_add(ctx, f);
}

/* The sink: records and damage go to the side's checker. */
static void sink_record(void *ctx, const struct ev_fix_record *r)
{
	struct ev_journal_session *ss = ctx;
	if (ss->keep)
		ev_journal_mirror_keep(ss->run, ss->keep, r->msg, r->len);
	ev_fixcheck_record(ss->checker, r);
	if (ss->keep && ss->pair->findings.n) /* nothing to mirror: judged again in full */
		ss->halt = 1;
}

static void sink_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
			uint64_t offset, const char *message, const char *expected, const char *found)
{
	ev_fixcheck_damage(((struct ev_journal_session *)ctx)->checker, rule, file, record, offset, message,
			   expected, found);
}

/* Workers only count; the calling thread advances the meter (a meter is one
 * thread's). */
void ev_journal_progress_note(struct ev_journal_progress *pr, uint64_t bytes, uint64_t files)
{
	if (!pr)
		return;
	if (bytes)
		atomic_fetch_add_explicit(&pr->fed, bytes, memory_order_relaxed);
	if (files)
		atomic_fetch_add_explicit(&pr->files, files, memory_order_relaxed);
}

void ev_journal_progress_again(struct ev_journal_progress *pr, uint64_t bytes, uint64_t files)
{
	if (!pr)
		return;
	atomic_fetch_add_explicit(&pr->again_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&pr->again_files, files, memory_order_relaxed);
}

static void sink_companion(void *ctx, const char *path, const uint8_t digest[EV_SHA256_LEN], const char *checked)
{
	struct ev_journal_side *s = ((struct ev_journal_session *)ctx)->side;
	if (ev_grow_array(&s->companions, &s->companions_cap, s->ncompanions + 1, sizeof *s->companions) != 0)
		return; /* out of memory: the receipt's inputs then lack it, and audit_side fails below */
	struct ev_journal_companion *c = &s->companions[s->ncompanions];
	c->path = strdup(path);
	c->checked = strdup(checked);
	if (!c->path || !c->checked) {
		free(c->path);
		free(c->checked);
		return;
	}
	ev_sha256_hex(digest, c->hex);
	s->ncompanions++;
}

static void sink_fed(void *ctx, size_t bytes)
{
	struct ev_journal_session *ss = ctx;
	ss->fed += bytes;
	ev_journal_progress_note(ss->run->progress, bytes, 0);
}

ev_status ev_journal_side_open(const struct ev_audit_journal *run, struct ev_journal_pair *p, struct ev_journal_side *s,
			    enum ev_fingerprint_mode mode, struct ev_journal_mirror *keep, struct ev_journal_session *out,
			    struct ev_error *err)
{
	struct ev_fixcheck_opts co = {
		.side = s->role, .dict = run->dict, .spec = &p->spec,
		.sender_compid = s->kind == EV_FIXREAD_QF_LOG ? run->sender_compid : NULL,
		.max_per_rule = run->max_findings, .prints = keep ? EV_FINGERPRINT_NONE : mode,
		.key = keep ? NULL : &run->key, .set = &p->prints,
		.latency = run->latency ? s->latency : NULL, .without_originals = keep != NULL,
	};
	memset(out, 0, sizeof *out);
	out->run = run;
	out->pair = p;
	out->side = s;
	out->mode = keep ? EV_FINGERPRINT_NONE : mode;
	out->keep = keep;
	if (mode == EV_FINGERPRINT_COMPARE)
		ev_fingerprint_sort(&p->prints);
	ev_status st = ev_fixcheck_new(&out->checker, &co, on_finding, &p->findings, err);
	if (st != EV_OK)
		return st;
	struct ev_fixread_sink sink = {sink_record, sink_damage, out, sink_fed, sink_companion, run->interrupted,
				       &out->halt};
	if (!(out->reader = ev_fixread_new(s->kind, &sink))) {
		ev_fixcheck_free(out->checker);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	return EV_OK;
}

ev_status ev_journal_read_files(const struct ev_audit_journal *run, struct ev_fixread *reader, struct ev_journal_side *s,
				   size_t *files_done, struct ev_error *err)
{
	struct ev_hashpipe *pipe = NULL;
	ev_status st = ev_hashpipe_new(&pipe, HASH_SLOTS, HASH_SLOT_BYTES, err);
	*files_done = 0;
	if (st != EV_OK)
		return st;
	for (size_t i = 0; i < s->nfiles && st == EV_OK; i++, (*files_done)++) {
		st = ev_fixread_file(reader, s->files[i], (uint32_t)i, pipe, s->digests[i], s->bytes + i, err);
		s->records[i] = ev_fixread_records(reader);
		ev_journal_progress_note(run->progress, 0, 1);
	}
	ev_status hst = ev_hashpipe_finish(pipe, err);
	if (st == EV_OK)
		st = hst;
	ev_hashpipe_free(pipe);
	return st;
}

void ev_journal_side_close(struct ev_journal_session *ss, const struct ev_journal_side *first, ev_fix_reread_fn again)
{
	ev_fixread_finish(ss->reader);
	ev_fixcheck_finish(ss->checker);
	if (ss->mode == EV_FINGERPRINT_COMPARE)
		ev_fixcheck_cross(ss->checker, first->role, (const char *const *)first->files, again,
				  (void *)first);
	ss->side->stats = *ev_fixcheck_stats(ss->checker);
	ss->side->session = *ev_fixcheck_session(ss->checker);
	const struct ev_fixorders_facts *orders = ev_fixcheck_orders(ss->checker);
	if ((ss->side->has_orders = orders != NULL))
		ss->side->orders = *orders;
	ev_fixread_free(ss->reader);
	ev_fixcheck_free(ss->checker);
	if (ss->mode == EV_FINGERPRINT_COMPARE)
		ev_fingerprint_set_free(&ss->pair->prints);
	memset(ss, 0, sizeof *ss);
}

void ev_journal_side_abandon(struct ev_journal_session *ss)
{
	ev_fixread_free(ss->reader);
	ev_fixcheck_free(ss->checker);
	memset(ss, 0, sizeof *ss);
}

