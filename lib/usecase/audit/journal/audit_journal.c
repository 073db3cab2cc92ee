/* SPDX-License-Identifier: Apache-2.0 */
/* audit_journal: pairs of FIX journals judged cold into a receipt
 * (audit_journal.h). This file reads sides from directories, one pair per
 * worker, and runs the audit; the receipt's content is built in
 * audit_journal_receipt.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/archive/seal.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/journal/parts.h"

#define DEFAULT_MAX_FINDINGS 10

/* The first side's record again, from disk, to show a disagreement. */
static long reread(void *ctx, uint32_t file, uint64_t offset, char *buf, size_t cap)
{
	const struct ev_journal_side *s = ctx;
	if (file >= s->nfiles)
		return -1;
	/* still a regular file: one swapped for a FIFO since it was read
	 * would hold this open forever */
	struct ev_error ignored;
	int fd = ev_input_open(s->files[file], "journal file", &ignored);
	if (fd < 0)
		return -1;
	ssize_t n = pread(fd, buf, cap, (off_t)offset);
	close(fd);
	return n;
}

/* One side, from disk: every file through its reader into the checker,
 * hashed on the way. */
static ev_status audit_side(const struct ev_audit_journal *run, struct ev_journal_pair *p, struct ev_journal_side *s,
			    enum ev_fingerprint_mode mode, const struct ev_journal_side *first, struct ev_journal_mirror *keep,
			    int *halted, struct ev_error *err)
{
	struct ev_journal_session ss;
	size_t files_done = 0;
	ev_status st = ev_journal_side_open(run, p, s, mode, keep, &ss, err);
	if (st != EV_OK)
		return st;
	st = ev_journal_read_files(run, ss.reader, s, &files_done, err);
	if (st == EV_INTERRUPTED && ss.halt && !*run->interrupted) {
		ev_error_clear(err); /* left at a finding: judged again in full */
		ev_journal_progress_again(run->progress, ss.fed, files_done);
		ev_journal_side_abandon(&ss);
		*halted = 1;
		return EV_OK;
	}
	if (st == EV_OK)
		ev_journal_side_close(&ss, first, reread);
	else
		ev_journal_side_abandon(&ss);
	return st;
}

/* A pair from disk: the sender's side first, recording fingerprints, then
 * the receiver's, held against the sender's message by message where it
 * may be (audit_journal_mirror.c), otherwise judged afresh and compared. */
static void run_pair(const struct ev_audit_journal *run, struct ev_journal_pair *p)
{
	struct ev_error *err = &p->err;
	int both = p->side[0].present && p->side[1].present, same = 0, halted = 0;
	struct ev_journal_side *a = p->side[0].present ? &p->side[0] : &p->side[1];
	struct ev_journal_mirror *keep = ev_journal_mirror_for(run, p, a);
	ev_status st = audit_side(run, p, a, both ? EV_FINGERPRINT_RECORD : EV_FINGERPRINT_NONE, a, keep, &halted, err);
	if (st == EV_OK && keep) {
		if (ev_journal_mirror_fits(run, p, &p->side[1]))
			st = ev_journal_mirror_side(run, p, &p->side[1], a, &same, err);
		if (st == EV_OK && !same && !halted) { /* again, with fingerprints to compare the other copy by */
			uint64_t fed = 0;
			for (size_t i = 0; i < a->nfiles; i++)
				fed += a->bytes[i];
			ev_journal_progress_again(run->progress, fed, a->nfiles);
		}
		if (st == EV_OK && !same) {
			ev_journal_forget_side(p, a);
			st = audit_side(run, p, a, EV_FINGERPRINT_RECORD, a, NULL, &halted, err);
		}
	}
	free(p->mirror.h);
	memset(&p->mirror, 0, sizeof p->mirror);
	if (st == EV_OK && both && !same)
		st = audit_side(run, p, &p->side[1], EV_FINGERPRINT_COMPARE, a, NULL, &halted, err);
	if (st != EV_OK)
		ev_error_wrap(err, "pair %zu", p->number);
	p->st = st;
	ev_fingerprint_set_free(&p->prints);
}

struct pool {
	const struct ev_audit_journal *run;
	atomic_size_t next, finished;
};

static void *worker(void *arg)
{
	struct pool *pool = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&pool->next, 1);
		if (i >= pool->run->npairs)
			break;
		run_pair(pool->run, &pool->run->pairs[i]);
	}
	atomic_fetch_add(&pool->finished, 1);
	return NULL;
}

/* Redraw the progress line from the counters until every worker is done. */
/* Advance the meter from the workers' counters until every worker is done. */
static void watch_progress(const struct ev_audit_journal *run, struct pool *pool, size_t workers, uint64_t bytes,
			   uint64_t files)
{
	const struct timespec tick = {0, 50 * 1000 * 1000};
	struct ev_journal_progress *pr = run->progress;
	uint64_t shown = 0, shown_files = 0, grown = 0, grown_files = 0;
	while (atomic_load(&pool->finished) < workers) {
		nanosleep(&tick, NULL);
		uint64_t again = atomic_load(&pr->again_bytes), again_files = atomic_load(&pr->again_files);
		if (again != grown || again_files != grown_files)
			ev_meter_goal(run->meter, bytes + again, files + again_files);
		grown = again;
		grown_files = again_files;
		uint64_t fed = atomic_load(&pr->fed), done = atomic_load(&pr->files);
		ev_meter_advance(run->meter, fed - shown, done - shown_files);
		shown = fed;
		shown_files = done;
	}
}

static ev_status run_pairs(struct ev_audit_journal *run, uint64_t bytes, uint64_t files, struct ev_error *err)
{
	struct pool pool = {.run = run};
	size_t n = run->jobs < run->npairs ? run->jobs : run->npairs;
	/* With a meter to advance, this thread advances it; else it works too. */
	int drawing = run->progress != NULL;
	pthread_t threads[EV_AUDIT_JOURNAL_MAX_PAIRS];
	size_t started = 0, spawn = drawing ? n : n - 1;
	for (; started < spawn; started++)
		if (pthread_create(&threads[started], NULL, worker, &pool) != 0)
			break;
	if (drawing && started > 0)
		watch_progress(run, &pool, started, bytes, files);
	else
		worker(&pool);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (size_t i = 0; i < run->npairs; i++)
		if (run->pairs[i].st != EV_OK)
			return ev_error_set(err, run->pairs[i].st, "%s", run->pairs[i].err.text);
	return EV_OK;
}

/* --- setting up --------------------------------------------------------------- */

static ev_status hash_file(const char *path, char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	ev_status st = ev_sha256_path(path, d, NULL, err);
	if (st == EV_OK)
		ev_sha256_hex(d, hex);
	return st;
}

static ev_status prepare_side(struct ev_audit_journal *run, struct ev_journal_side *s, uint64_t *total,
			      uint64_t *files, struct ev_error *err)
{
	int chosen = run->side_format[strcmp(s->role, "receiver") == 0];
	if (chosen < 0)
		chosen = run->format;
	int kind = chosen >= 0 ? chosen : ev_fixread_detect(s->path, err);
	if (kind < 0)
		return err->status;
	s->kind = (enum ev_fixread_kind)kind;
	ev_status st = ev_fixread_list(s->kind, s->path, &s->files, &s->nfiles, err);
	if (st != EV_OK)
		return st;
	if (!s->nfiles)
		return ev_error_set(err, EV_USAGE, "%s: holds no journal file (N.bin)", s->path);
	s->digests = calloc(s->nfiles, sizeof *s->digests);
	s->bytes = calloc(s->nfiles, sizeof *s->bytes);
	s->records = calloc(s->nfiles, sizeof *s->records);
	if (!s->digests || !s->bytes || !s->records)
		return ev_error_set(err, EV_ERROR, "out of memory");
	*files += s->nfiles;
	for (size_t i = 0; i < s->nfiles; i++) { /* for the progress line's goal */
		struct stat sb;
		if (stat(s->files[i], &sb) == 0)
			*total += (uint64_t)sb.st_size;
	}
	return EV_OK;
}

/* The first message of a side, for what must hold before any message is
 * judged: the first record of its first file, its first bytes only. */
struct first_message {
	char bytes[4096];
	uint32_t len;
	int found;
};

static void first_record(void *ctx, const struct ev_fix_record *r)
{
	struct first_message *f = ctx;
	if (f->found++)
		return;
	f->len = r->len < sizeof f->bytes ? r->len : (uint32_t)sizeof f->bytes;
	memcpy(f->bytes, r->msg, f->len);
}

static void first_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
			 uint64_t offset, const char *message, const char *expected, const char *found)
{
	/* the audit itself reports the damage */
	(void)ctx, (void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
}

static ev_status read_first_message(const struct ev_audit_journal *run, const struct ev_journal_side *s,
				    struct first_message *f, struct ev_error *err)
{
	struct ev_fixread_sink sink = {first_record, first_damage, f, NULL, NULL, NULL, NULL};
	struct ev_fixread *r = ev_fixread_new(s->kind, &sink);
	unsigned char *buf = malloc(1 << 16);
	ev_status st = EV_OK;
	memset(f, 0, sizeof *f);
	/* a journal is a regular file: a FIFO or a device is refused here,
	 * before anything is printed (ev_input_open never waits on one) */
	int fd = -1;
	if (!r || !buf)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	else if ((fd = ev_input_open(s->files[0], "journal", err)) < 0)
		st = err->status;
	else if ((st = ev_fixread_begin(r, s->files[0], 0, err)) == EV_OK) {
		ssize_t got;
		while (!f->found && (got = read(fd, buf, 1 << 16)) > 0) {
			if (*run->interrupted) {
				st = ev_error_set(err, EV_INTERRUPTED,
						  "%s: interrupted by a signal; nothing is claimed", s->files[0]);
				break;
			}
			if ((st = ev_fixread_feed(r, buf, (size_t)got, err)) != EV_OK)
				break;
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	ev_fixread_free(r);
	return st;
}

/* The dictionaries must be of the version the messages are: else every
 * message would fail the dictionary's rules, thousands of findings that
 * say nothing. Judged on the first message of the first side, before any
 * is audited; a side whose first message cannot be read is left to the
 * audit, which names the damage. */
static ev_status dictionary_fits(const struct ev_audit_journal *run, struct ev_error *err)
{
	const struct ev_journal_side *s = NULL;
	for (size_t i = 0; i < run->npairs && !s; i++)
		for (int k = 0; k < 2 && !s; k++)
			if (run->pairs[i].side[k].present && run->pairs[i].side[k].nfiles)
				s = &run->pairs[i].side[k];
	struct first_message f;
	ev_status st;
	if (!s || (st = read_first_message(run, s, &f, err)) != EV_OK)
		return s ? st : EV_OK;
	if (!f.found)
		return EV_OK;
	char begin[24], wanted[2][24] = {"", ""}, given[256] = "";
	ev_fix_versions_of(f.bytes, f.len, begin, wanted[1]);
	snprintf(wanted[0], sizeof wanted[0], "%s", begin);
	for (size_t i = 0, used = 0; i < run->dict->nversions; i++) {
		int n = snprintf(given + used, sizeof given - used, "%s%s", i ? ", " : "", run->dict->versions[i]);
		if (n > 0 && (size_t)n < sizeof given - used)
			used += (size_t)n;
	}
	for (int w = 0; w < 2; w++) {
		if (!wanted[w][0] || ev_fixdict_has_version(run->dict, wanted[w]))
			continue;
		const char *file = ev_fixdict_shipped_file(wanted[w]);
		char hint[96];
		snprintf(hint, sizeof hint, file ? "--dict %s" : "a QuickFIX dictionary of %s", file ? file : wanted[w]);
		return ev_error_set(err, EV_USAGE,
				    "%s: its messages are %s%s%s, and the dictionaries given are %s: name the "
				    "dictionary of that version (%s%s)",
				    s->files[0], begin, w ? " with application version " : "", w ? wanted[1] : "",
				    given[0] ? given : "of no version", hint,
				    w == 0 && strncmp(begin, "FIXT", 4) == 0 ? " with its application dictionary" : "");
	}
	return EV_OK;
}

void ev_audit_journal_free(struct ev_audit_journal *run)
{
	for (size_t i = 0; run->pairs && i < run->npairs; i++) {
		struct ev_journal_pair *p = &run->pairs[i];
		for (int k = 0; k < 2; k++) {
			ev_fixread_files_free(p->side[k].files, p->side[k].nfiles);
			for (size_t c = 0; c < p->side[k].ncompanions; c++) {
				free(p->side[k].companions[c].path);
				free(p->side[k].companions[c].checked);
			}
			free(p->side[k].companions);
			free(p->side[k].digests);
			free(p->side[k].bytes);
			free(p->side[k].records);
			ev_fixlatency_stream_free(&p->side[k].latency[0]);
			ev_fixlatency_stream_free(&p->side[k].latency[1]);
		}
		json_decref(p->latency);
		free(p->latency_text);
		free(p->findings.v);
		ev_fingerprint_set_free(&p->prints);
	}
	free(run->pairs);
	ev_fixdict_free(run->dict);
	ev_fixspec_free(&run->spec);
}

ev_status ev_audit_journal_run(struct ev_audit_journal *run, json_t *receipt, struct ev_error *err)
{
	ev_status st;
	if ((st = ev_receipt_refuse_existing(run->receipt, err)) != EV_OK)
		return st;
	if ((st = ev_fixspec_load(run->spec_path, &run->spec, run->spec_hex, err)) != EV_OK)
		return st;
	if (run->warmups >= 0)
		run->spec.warmups = (uint64_t)run->warmups;
	if (run->measured >= 0)
		run->spec.measured = (uint64_t)run->measured;
	if ((st = ev_journal_clocks_load(run, err)) != EV_OK)
		return st;
	for (size_t i = 0; i < run->npairs; i++) {
		struct ev_journal_pair *p = &run->pairs[i];
		p->spec = run->spec;
		if (p->own_counts) {
			p->spec.warmups = p->warmups;
			p->spec.measured = p->measured;
		}
	}
	if (!run->sender_compid)
		for (size_t i = 0; i < run->spec.nfields; i++)
			if (run->spec.fields[i].tag == 49 && run->spec.fields[i].value)
				run->sender_compid = run->spec.fields[i].value;
	for (size_t i = 0; i < run->ndicts; i++)
		if ((st = hash_file(run->dicts[i], run->dict_hex[i], err)) != EV_OK)
			return st;
	if ((st = ev_fixdict_load(&run->dict, run->dicts, run->ndicts, err)) != EV_OK)
		return st;
	if ((st = ev_fingerprint_key_new(&run->key, err)) != EV_OK)
		return st;
	run->doc = receipt;
	if (run->archive) {
		st = ev_journal_from_archive(run, err);
	} else {
		uint64_t bytes = 0, files = 0;
		for (size_t i = 0; i < run->npairs && st == EV_OK; i++)
			for (int k = 0; k < 2 && st == EV_OK; k++)
				if (run->pairs[i].side[k].present)
					st = prepare_side(run, &run->pairs[i].side[k], &bytes, &files, err);
		if (st == EV_OK)
			st = dictionary_fits(run, err);
		if (st == EV_OK) {
			struct ev_journal_progress progress = {0};
			run->progress = run->meter ? &progress : NULL;
			ev_meter_goal(run->meter, bytes, files);
			st = run_pairs(run, bytes, files, err);
			run->progress = NULL;
		}
	}
	uint64_t total = 0;
	for (size_t i = 0; i < run->npairs && st == EV_OK && run->latency; i++)
		st = ev_journal_latency(run, &run->pairs[i], receipt, err);
	if (st == EV_OK)
		st = ev_journal_build_receipt(run, receipt, &total, err);
	if (st == EV_OK && ev_json_rename(receipt, run->shown_from, "") < 0)
		st = ev_error_set(err, EV_ERROR, "out of memory for the receipt");
	if (st == EV_OK)
		st = ev_receipt_finish_signed(receipt, run->sign_key, err);
	if (st == EV_OK)
		st = ev_receipt_write_chosen(receipt, run->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-journal",
					     run->receipt_path, sizeof run->receipt_path, err);
	/* what hgrm_dir holds stays only when the receipt that names it was written */
	ev_journal_latency_release(run, st != EV_OK);
	run->doc = NULL;
	for (size_t i = 0; run->shown_from && i < run->npairs; i++)
		for (int k = 0; k < 2; k++)
			for (size_t f = 0; f < run->pairs[i].side[k].nfiles; f++)
				ev_text_rename(run->pairs[i].side[k].files[f], run->shown_from, "");
	ev_text_rename(err->text, run->shown_from, "");
	if (st != EV_OK)
		return st;
	run->findings = total;
	return total ? EV_MISMATCH : EV_OK;
}

/* The directory of the files that ship with evidence: EVIDENCE_DATADIR
 * when set (the tests and the demo, run from a build tree, name the
 * sources' share/), else where they are installed. Never the build tree
 * compiled in: an installed tool reads what was installed. */
static const char *data_dir(void)
{
	const char *d = getenv("EVIDENCE_DATADIR");
	return d && *d ? d : EV_PKGDATADIR;
}

/* A file that ships with evidence, or NULL (the path tried left in buf). */
static const char *default_data(const char *rel, char *buf, size_t cap)
{
	return ev_path_join(buf, cap, data_dir(), rel) == 0 && access(buf, R_OK) == 0 ? buf : NULL;
}

void ev_audit_journal_init(struct ev_audit_journal *run)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	memset(run, 0, sizeof *run);
	run->format = -1;
	run->side_format[0] = run->side_format[1] = -1;
	run->warmups = -1;
	run->measured = -1;
	run->max_findings = DEFAULT_MAX_FINDINGS;
	run->jobs = cores > 0 ? (size_t)cores : 1;
}

ev_status ev_audit_journal_prepare(struct ev_audit_journal *run, const char *const *senders, const char *const *receivers,
			  size_t nsenders, size_t nreceivers, struct ev_error *err)
{
	if (!run->spec_path &&
	    !(run->spec_path = default_data("audit/llfix-tx-new-order.json", run->spec_buf, sizeof run->spec_buf)))
		return ev_error_set(err, EV_USAGE, "no --spec given, and the default spec %s cannot be read (is evidence "
				    "installed? from a build tree, set EVIDENCE_DATADIR to the sources' share/)", run->spec_buf);
	if (!run->ndicts) {
		run->dicts[0] = (char *)default_data("fix/FIXT11.xml", run->dict_buf[0], sizeof run->dict_buf[0]);
		run->dicts[1] = (char *)default_data("fix/FIX50.xml", run->dict_buf[1], sizeof run->dict_buf[1]);
		if (!run->dicts[0] || !run->dicts[1])
			return ev_error_set(err, EV_USAGE, "no --dict given, and the default dictionary %s cannot be read "
					    "(is evidence installed? from a build tree, set EVIDENCE_DATADIR to the sources' "
					    "share/)", run->dicts[0] ? run->dict_buf[1] : run->dict_buf[0]);
		run->ndicts = 2;
	}
	run->npairs = nsenders > nreceivers ? nsenders : nreceivers;
	if (!(run->pairs = calloc(run->npairs ? run->npairs : 1, sizeof *run->pairs)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < run->npairs; i++) {
		struct ev_journal_pair *p = &run->pairs[i];
		p->number = i + 1;
		p->side[0] = (struct ev_journal_side){.role = "sender", .path = i < nsenders ? senders[i] : NULL,
					   .present = i < nsenders && senders[i]};
		p->side[1] = (struct ev_journal_side){.role = "receiver", .path = i < nreceivers ? receivers[i] : NULL,
					   .present = i < nreceivers && receivers[i]};
		ev_error_clear(&p->err);
	}
	return EV_OK;
}
