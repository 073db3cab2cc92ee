/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_prune: a runtime directory removed only under every guard
 * (replicate_prune.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/archive/seal.h"
#include "lib/archive/tree.h"
#include "lib/archive/tree_remove.h"
#include "lib/campaign/run.h"
#include "lib/core/duration.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/proc.h"
#include "lib/core/publish.h"
#include "lib/core/stop.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/receipt_set.h"
#include "lib/usecase/replicate/replicate_prune.h"
#include "lib/receipt/timestamp_beside.h"
#include "lib/usecase/seal/tree_verify.h"

struct prune_run {
	struct ev_replicate_prune *o;
	json_t *receipt;
	char *dir_real;
};

/* Every reason DIR is not removed whole, counted over both reports. */
static unsigned reasons(const struct prune_run *p)
{
	return p->o->refused + p->o->kept;
}

static void refuse(struct prune_run *p, const struct ev_finding *f)
{
	p->o->refused++;
	p->o->on_refused(p->o->ctx, f);
}

static void refuse_because(struct prune_run *p, const char *subject, const char *check,
			   const char *message, const char *expected, const char *found)
{
	struct ev_finding f;
	ev_finding_make(&f, subject, check, message, expected, found);
	refuse(p, &f);
}

static void on_tree_finding(void *ctx, const struct ev_finding *f)
{
	refuse(ctx, f);
}

/* An entry that changed between the check and its removal stays. */
static void on_kept(void *ctx, const struct ev_finding *f)
{
	struct prune_run *p = ctx;
	p->o->kept++;
	p->o->on_kept(p->o->ctx, f);
}

/* What the removal proved of each file, and what it could not. */
static json_t *removal_coverage(const struct ev_tree_removal *r, char *line, size_t cap)
{
	json_t *o = json_object(), *done = json_array(), *not = json_array();
	json_array_append_new(done, json_string("before removal: DIR matched the seal (or the selection) "
						"member for member (tree check), and no recorded process was "
						"running"));
	json_array_append_new(done, json_string("at each file's removal: the same inode, size, modification and "
						"change times as when it was checked; content hashed again when "
						"its change time was near the check"));
	if (r->unleased)
		json_array_append_new(not, json_pack("{s:s, s:I, s:s}", "check",
						     "no other process held the file open (write lease)", "files",
						     (json_int_t)r->unleased, "why", r->unleased_why));
	else
		json_array_append_new(done, json_string("at each file's removal: no other process held it open "
							"(a write lease was granted)"));
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "not_checked", not);
	json_object_set_new(o, "rehashed_files", json_integer((json_int_t)r->rehashed));
	if (r->unleased)
		snprintf(line, cap, "each file proved unchanged at its removal (%zu hashed again); not checked for "
			 "%zu file%s: that no other process held it open (the lease was refused: %s)",
			 r->rehashed, r->unleased, r->unleased == 1 ? "" : "s", r->unleased_why);
	else
		snprintf(line, cap, "each file proved unchanged and held open by no other process at its removal "
			 "(%zu hashed again)", r->rehashed);
	return o;
}

static void on_receipt_finding(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct ev_finding g = *f;
	char subject[PATH_MAX + 600];
	if (strcmp(f->subject, receipt_path) != 0) {
		snprintf(subject, sizeof subject, "%s: %s", receipt_path, f->subject);
		g.subject = subject;
	}
	refuse(ctx, &g);
}

/* Is path (resolved; for a file not there yet, its directory resolved)
 * DIR itself or inside it? */
static int inside(const char *dir_real, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		char a[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];
		snprintf(a, sizeof a, "%s", path);
		snprintf(b, sizeof b, "%s", path);
		if (!realpath(dirname(a), dir) ||
		    ev_path_join(real, sizeof real, dir, basename(b)) != 0)
			return 0;
	}
	size_t n = strlen(dir_real);
	return strncmp(real, dir_real, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* Is the receipt's verification too old, or of no readable time, to
 * count (with a maximum age)? If so, why, in found (its age in words). */
static int too_old(const struct ev_replicate_prune *o, const json_t *doc, time_t now, char *found, size_t cap)
{
	if (!o->max_age)
		return 0;
	long long age;
	const char *finished = json_string_value(json_object_get(doc, "finished"));
	enum ev_age verdict = ev_age_judge(finished, now, o->max_age, &age);
	ev_age_describe(verdict, age, finished, found, cap);
	return verdict != EV_AGE_FRESH;
}

/* With a maximum age, what a stale receipt is refused with, and what it
 * should have been. */
static void refuse_stale(struct prune_run *p, const char *path, const char *check, const char *what, const char *found)
{
	char want[96], limit[48];
	ev_duration_format(p->o->max_age, limit, sizeof limit);
	snprintf(want, sizeof want, "within %s (--max-age)", limit);
	refuse_because(p, path, check, what, want, found);
}

static int seen_before(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

/* Receipts: intact, (signed), replica, pass, for this seal, agreeing,
 * from enough distinct hosts. */
static ev_status judge_receipts(struct prune_run *p, const char *seal_hex, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	struct ev_trust *trust = NULL;
	struct ev_receipt_set set = {0};
	ev_status st = EV_OK;
	const char **hosts = calloc(o->n_receipts ? o->n_receipts : 1, sizeof *hosts);
	size_t nhosts = 0;
	unsigned before = reasons(p);
	time_t now = time(NULL);
	json_t *stale = json_array(); /* [{path, age}]: passing receipts too old to count */
	if (!hosts || !stale) {
		free(hosts);
		json_decref(stale);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if ((st = ev_trust_from_files(o->trust, o->n_trust, &trust, err)) != EV_OK)
		goto out;
	ev_receipt_set_load(&set, o->receipts, o->n_receipts, trust, on_receipt_finding, p, &st, err);
	if (st != EV_OK)
		goto out;
	for (size_t i = 0; i < set.count; i++) {
		const struct ev_judged_receipt *j = &set.items[i];
		ev_receipt_add_input(p->receipt, "receipt", j->path, j->file_sha256, err);
		const char *for_seal = ev_receipt_input_sha256(j->doc, EV_SEAL_FILENAME);
		int usable = j->intact && (!trust || j->signed_ok);
		if (!j->kind || strcmp(j->kind, "replica") != 0) {
			refuse_because(p, j->path, "receipt-kind", "is not a replica receipt", "replica",
				       j->kind);
			usable = 0;
		}
		if (!j->result || strcmp(j->result, "pass") != 0) {
			refuse_because(p, j->path, "receipt-result",
				       "records a failed verification", "pass", j->result);
			usable = 0;
		}
		if (!for_seal || strcmp(for_seal, seal_hex) != 0) {
			refuse_because(p, j->path, "receipt-seal", "was made against another seal",
				       seal_hex, for_seal ? for_seal : "none");
			usable = 0;
		}
		char age[160];
		if (usable && too_old(o, j->doc, now, age, sizeof age)) {
			json_array_append_new(stale, json_pack("{s:s, s:s}", "receipt", j->path, "age", age));
			usable = 0;
		}
		/* With trust a host is its key: a name in a file is anyone's to write. */
		const char *who = trust ? j->signer : j->host;
		if (usable && who && !seen_before(hosts, nhosts, who))
			hosts[nhosts++] = who;
	}
	/* A stale receipt is no reason to refuse while enough fresh ones
	 * remain (a directory of weekly receipts is given whole); when they
	 * do not, each is why. */
	size_t k;
	json_t *e;
	if ((long)nhosts < o->min_hosts)
		json_array_foreach(stale, k, e)
			refuse_stale(p, json_string_value(json_object_get(e, "receipt")), "receipt-age",
				     "records no verification within --max-age: replicate verify the copy again",
				     json_string_value(json_object_get(e, "age")));
	if (o->max_age) {
		ev_receipt_set_fact(p->receipt, "max_age_seconds", json_integer((json_int_t)o->max_age), err);
		ev_receipt_set_fact(p->receipt, "stale_receipts", json_incref(stale), err);
	}
	if (ev_receipt_set_disagreements(&set, on_receipt_finding, p) > 0)
		refuse_because(p, set.items[0].path, "receipts-agree",
			       "the receipts do not agree (differences above)", NULL, NULL);
	char want[32], have[32];
	snprintf(want, sizeof want, "%ld", o->min_hosts);
	snprintf(have, sizeof have, "%zu", nhosts);
	if ((long)nhosts < o->min_hosts)
		refuse_because(p, "receipts", "hosts",
			       trust ? (o->max_age ? "too few distinct signing hosts hold a copy verified within --max-age"
						   : "too few distinct signing hosts hold a verified copy")
				     : (o->max_age ? "too few distinct hosts hold a copy verified within --max-age"
						   : "too few distinct hosts hold a verified copy"),
			       want, have);
	json_t *list = json_array();
	for (size_t i = 0; i < nhosts; i++)
		json_array_append_new(list, json_string(hosts[i]));
	ev_receipt_set_fact(p->receipt, trust ? "hosts_by_key" : "hosts", list, err);
	ev_receipt_add_check(p->receipt, "receipts", reasons(p) == before, have, err);
out:
	ev_receipt_set_free(&set);
	ev_trust_free(trust);
	free(hosts);
	json_decref(stale);
	return st;
}

/* With audits: one of them an intact (trusted) audit campaign that passed
 * on another host, from an archive copy of this seal; all agreeing. */
static ev_status judge_audits(struct prune_run *p, const char *seal_hex, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	if (!o->n_audits)
		return EV_OK;
	struct ev_trust *trust = NULL;
	struct ev_receipt_set set = {0};
	ev_status st = EV_OK;
	unsigned before = reasons(p);
	char here[256] = "";
	gethostname(here, sizeof here - 1);
	if ((st = ev_trust_from_files(o->trust, o->n_trust, &trust, err)) != EV_OK)
		goto out;
	ev_receipt_set_load(&set, o->audits, o->n_audits, trust, on_receipt_finding, p, &st, err);
	if (st != EV_OK)
		goto out;
	const char *agreeing = NULL;
	time_t now = time(NULL);
	json_t *stale = json_array(); /* [{receipt, age}]: passing audits too old to count */
	for (size_t i = 0; i < set.count; i++) {
		const struct ev_judged_receipt *j = &set.items[i];
		ev_receipt_add_input(p->receipt, "audit", j->path, j->file_sha256, err);
		const char *for_seal = ev_receipt_input_sha256(j->doc, EV_SEAL_FILENAME);
		const json_t *argv = json_object_get(json_object_get(j->doc, "invocation"), "argv");
		const char *command = json_string_value(json_array_get(argv, 1));
		int usable = j->intact && (!trust || j->signed_ok);
		if (!j->kind || strcmp(j->kind, "audit") != 0 || !command || strcmp(command, "campaign") != 0) {
			refuse_because(p, j->path, "audit-kind", "is not an audit campaign receipt", "audit campaign",
				       j->kind ? j->kind : "none");
			usable = 0;
		}
		if (!ev_receipt_input_sha256(j->doc, "archive")) {
			refuse_because(p, j->path, "audit-from-archive", "audited a tree, not an archive copy", "archive",
				       "tree");
			usable = 0;
		}
		if (!j->result || strcmp(j->result, "pass") != 0) {
			refuse_because(p, j->path, "audit-result", "records a failed audit", "pass", j->result);
			usable = 0;
		}
		if (!for_seal || strcmp(for_seal, seal_hex) != 0) {
			refuse_because(p, j->path, "audit-seal", "was made against another seal", seal_hex,
				       for_seal ? for_seal : "none");
			usable = 0;
		}
		if (j->host && strcmp(j->host, here) == 0) {
			refuse_because(p, j->path, "audit-host", "was made on this host, not another", "another host",
				       j->host);
			usable = 0;
		}
		char age[160];
		if (usable && too_old(o, j->doc, now, age, sizeof age)) {
			json_array_append_new(stale, json_pack("{s:s, s:s}", "receipt", j->path, "age", age));
			usable = 0;
		}
		if (usable)
			agreeing = agreeing ? agreeing : j->path;
	}
	size_t k;
	json_t *e;
	if (!agreeing)
		json_array_foreach(stale, k, e)
			refuse_stale(p, json_string_value(json_object_get(e, "receipt")), "audit-age",
				     "records no audit within --max-age: replicate audit the copy again",
				     json_string_value(json_object_get(e, "age")));
	if (o->max_age)
		ev_receipt_set_fact(p->receipt, "stale_audits", json_incref(stale), err);
	json_decref(stale);
	if (ev_receipt_set_disagreements(&set, on_receipt_finding, p) > 0)
		refuse_because(p, set.items[0].path, "audits-agree", "the audits do not agree (differences above)", NULL,
			       NULL);
	if (!agreeing)
		refuse_because(p, "audits", "audit",
			       o->max_age ? "no audit campaign of an archive copy of this seal on another host passed within --max-age"
					  : "no audit campaign of an archive copy of this seal on another host passed",
			       "1", "0");
	ev_receipt_add_check(p->receipt, "audits", reasons(p) == before,
			     agreeing ? agreeing : "none from an archive copy on another host", err);
out:
	ev_receipt_set_free(&set);
	ev_trust_free(trust);
	return st;
}

/* With require_timestamp: the seal holds a trusted time from a TSA the
 * CA vouches for. */
static void judge_timestamp(struct prune_run *p, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	if (!o->require_timestamp)
		return;
	struct ev_timestamp_verdict v;
	char why[1100], detail[400];
	struct ev_error terr;
	ev_error_clear(&terr);
	if (!ev_timestamp_present(o->seal)) {
		refuse_because(p, o->seal, "timestamp", "has no trusted time (seal timestamp makes SEAL.json.tsr)", "a timestamp",
			       "none");
		ev_receipt_add_check(p->receipt, "timestamp", 0, "none", err);
		return;
	}
	if (ev_timestamp_check(o->seal, o->require_timestamp, &v, why, sizeof why, &terr) != EV_OK) {
		refuse_because(p, o->seal, "timestamp", why, NULL, NULL);
		ev_receipt_add_check(p->receipt, "timestamp", 0, why, err);
		return;
	}
	snprintf(detail, sizeof detail, "trusted time %s by %s", v.gen_time, v.tsa);
	ev_receipt_add_check(p->receipt, "timestamp", 1, detail, err);
}

/* Every run.json in DIR names its processes; none may still run. */
static ev_status judge_processes(struct prune_run *p, const struct ev_tree *tree,
				 struct ev_error *err)
{
	unsigned before = reasons(p);
	size_t runs = 0;
	for (size_t i = 0; i < tree->count; i++) {
		const struct ev_tree_entry *e = &tree->entries[i];
		const char *base = strrchr(e->m.path, '/');
		base = base ? base + 1 : e->m.path;
		if (e->m.type != EV_MEMBER_FILE || strcmp(base, EV_RUN_FILENAME) != 0)
			continue;
		runs++;
		int fd = ev_tree_open_member(tree, e->m.path);
		char *text = NULL;
		size_t len = 0;
		struct ev_run run = {0};
		struct ev_error perr;
		ev_error_clear(&perr);
		if (fd >= 0) {
			FILE *f = fdopen(fd, "r");
			text = malloc(EV_RUN_MAX_BYTES);
			if (f && text) {
				len = fread(text, 1, EV_RUN_MAX_BYTES, f);
				if (ev_run_parse(text, len, e->m.path, &run, &perr) != EV_OK)
					run.doc = NULL;
			}
			if (f)
				fclose(f);
			else
				close(fd);
		}
		free(text);
		size_t nprocs = run.doc ? ev_run_process_count(&run) : 0;
		if (nprocs == 0) {
			refuse_because(p, e->m.path, "processes",
				       run.doc ? "records no processes (processes[] with pid and start_ticks), "
						 "so it cannot show that its run has ended"
					       : "cannot be read as a run.json, so it cannot show that its run has ended",
				       NULL, perr.text[0] ? perr.text : NULL);
			ev_run_free(&run);
			continue;
		}
		const char *boot = ev_run_string(&run, "boot_id");
		for (size_t k = 0; k < nprocs; k++) {
			struct ev_run_process proc = {0};
			ev_run_process(&run, k, &proc);
			char what[128];
			snprintf(what, sizeof what, "%s pid %lld", proc.role ? proc.role : "process",
				 proc.has_pid ? proc.pid : -1LL);
			if (!proc.has_pid || !proc.has_start_ticks || proc.pid <= 0 || proc.pid > INT_MAX ||
			    proc.start_ticks < 0) {
				refuse_because(p, e->m.path, "processes",
					       "records a process without a pid a process can have (1 to 2147483647) "
					       "and an integer start_ticks",
					       NULL, what);
				continue;
			}
			/* a boot id that is not one cannot say the process is gone:
			 * presumed alive, fail closed */
			if (boot && !ev_proc_boot_id_valid(boot)) {
				char found[160];
				snprintf(found, sizeof found, "boot_id \"%.100s\"", boot);
				refuse_because(p, e->m.path, "processes",
					       "records a boot id that is not a well-formed one, so whether its "
					       "processes have ended cannot be told",
					       "36 lower-case hex digits and dashes, as /proc/sys/kernel/random/boot_id",
					       found);
				continue;
			}
			int alive = ev_proc_is_running((pid_t)proc.pid, (uint64_t)proc.start_ticks, boot, err);
			if (alive < 0) {
				ev_run_free(&run);
				return err->status;
			}
			if (alive)
				refuse_because(p, e->m.path, "processes",
					       "records a process that is still running (same PID and start "
					       "time); wait for it to end",
					       NULL, what);
		}
		ev_run_free(&run);
	}
	char detail[64];
	snprintf(detail, sizeof detail, "%zu run.json files, no recorded process running", runs);
	ev_receipt_add_check(p->receipt, "processes", reasons(p) == before,
			     reasons(p) == before ? detail : NULL, err);
	return EV_OK;
}

static ev_status write_cleanup_receipt(struct prune_run *p, struct ev_error *err)
{
	ev_status st = ev_receipt_finish_signed(p->receipt, p->o->sign_key, err);
	if (st != EV_OK)
		return st;
	char name_copy[PATH_MAX], label[200], stem[260];
	snprintf(name_copy, sizeof name_copy, "%s", p->dir_real);
	ev_path_label(basename(name_copy), label, sizeof label);
	snprintf(stem, sizeof stem, "cleanup-%s", label);
	st = ev_receipt_write_chosen(p->receipt, p->o->receipt, EV_RECEIPT_DEFAULT_DIR, stem, p->o->receipt_path,
				     sizeof p->o->receipt_path, err);
	if (st != EV_OK)
		p->o->receipt_path[0] = 0; /* chosen, never written: named nowhere */
	return st;
}

/* Files are gone: their record is written whatever signal comes. The
 * process's stop flag no longer stops publication, and SIGINT, SIGTERM
 * and SIGHUP are held while the record is written, so that a signal is
 * taken before it (the record then has a failed check "signal", unless
 * the removal's own check already says it stopped) or after it (the
 * record was whole and stands). */
static ev_status write_removal_record(struct prune_run *p, int say_signal, struct ev_error *err)
{
	sigset_t before;
	ev_stop_hold_signals(&before);
	ev_stop_on(NULL);
	if (say_signal && *p->o->interrupted)
		ev_receipt_add_check(p->receipt, "signal", 0,
				     "a signal came once the removal was done and before this record was written: what it "
				     "records was done, and it is kept because those files are gone",
				     err);
	ev_status st = write_cleanup_receipt(p, err);
	ev_stop_release_signals(&before);
	return st;
}

/* After a removal's record is written: a signal taken meanwhile ends the
 * command as interrupted, its record standing. */
static ev_status after_record(const struct prune_run *p, ev_status st, struct ev_error *err)
{
	if ((st == EV_OK || st == EV_MISMATCH) && *p->o->interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal once the removal was done; its "
				    "record stands: %s", p->o->dir, p->o->receipt_path);
	return st;
}

/* DIR as prune may take it: a real directory (no link), not /, and the
 * cleanup receipt's place outside it. */
static ev_status dir_to_prune(struct prune_run *p, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	struct stat sb;
	if (lstat(o->dir, &sb) != 0)
		return ev_error_errno(err, errno, "%s: cannot stat", o->dir);
	if (S_ISLNK(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "%s: is a symbolic link; prune never follows one "
				    "(name the directory itself)", o->dir);
	if (!S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "%s: not a directory", o->dir);
	if (!realpath(o->dir, p->dir_real))
		return ev_error_errno(err, errno, "%s: cannot resolve", o->dir);
	if (strcmp(p->dir_real, "/") == 0)
		return ev_error_set(err, EV_USAGE, "/: prune never removes the root directory");
	if (o->receipt && access(o->receipt, F_OK) == 0)
		return ev_error_set(err, EV_REFUSED, "%s: already exists; evidence is never "
				    "overwritten (choose a new name)", o->receipt);
	const char *receipt_at = o->receipt ? o->receipt : EV_RECEIPT_DEFAULT_DIR "/cleanup.json";
	if (inside(p->dir_real, receipt_at))
		return ev_error_set(err, EV_USAGE, "%s: the cleanup receipt would be removed with DIR; "
				    "put it elsewhere (--receipt FILE, or run prune from outside DIR)",
				    o->receipt ? o->receipt : "the current directory");
	return EV_OK;
}

/* The evidence prune relies on must outlive DIR: each file of it inside
 * DIR is a reason to refuse. */
static ev_status refuse_evidence_inside(struct prune_run *p, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	const char **relied = calloc(o->n_receipts + o->n_audits + 3, sizeof *relied);
	if (!relied)
		return ev_error_set(err, EV_ERROR, "out of memory");
	size_t nrelied = 0;
	relied[nrelied++] = o->seal;
	if (o->selection)
		relied[nrelied++] = o->selection;
	for (size_t i = 0; i < o->n_receipts; i++)
		relied[nrelied++] = o->receipts[i];
	for (size_t i = 0; i < o->n_audits; i++)
		relied[nrelied++] = o->audits[i];
	for (size_t i = 0; i < nrelied; i++)
		if (inside(p->dir_real, relied[i]))
			refuse_because(p, relied[i], "evidence-inside",
				       "lies inside DIR, which prune would remove", NULL, NULL);
	free(relied);
	return EV_OK;
}

/* The tree as it is now: the same walk finds links, other file systems
 * and run.json files; ev_tree_verify_check then hashes every member
 * against the seal. scanned_at: when the walk began. */
static ev_status judge_tree(struct prune_run *p, struct ev_tree_verify *v, struct ev_tree *tree,
			    struct timespec *scanned_at, struct ev_error *err)
{
	const struct ev_replicate_prune *o = p->o;
	unsigned before = reasons(p);
	clock_gettime(CLOCK_REALTIME, scanned_at);
	ev_status st = ev_tree_scan(o->dir, tree, on_tree_finding, p, err);
	if (st != EV_OK)
		return st;
	for (size_t i = 0; i < tree->count; i++)
		if (tree->entries[i].dev != tree->root_dev)
			refuse_because(p, tree->entries[i].m.path, "mount",
				       "is on another file system (a mount inside DIR)", NULL, NULL);
	ev_meter_goal(o->meter, v->expected->bytes, v->expected->count);
	v->meter = o->meter;
	if ((st = ev_tree_verify_check(v, err)) != EV_OK)
		return st;
	char detail[128];
	snprintf(detail, sizeof detail, "%zu members expected, %u finding%s", v->expected->count,
		 reasons(p) - before, reasons(p) - before == 1 ? "" : "s");
	ev_receipt_add_check(p->receipt, "tree", reasons(p) == before, detail, err);
	return judge_processes(p, tree, err);
}

/* The files, directories and bytes removed, named in the receipt's
 * "removed" (an array already in it) and totalled in o. */
static void count_removed(struct prune_run *p, const struct ev_tree *tree, const struct ev_tree_removal *removal,
			  json_t *removed, struct ev_error *err)
{
	struct ev_replicate_prune *o = p->o;
	uint64_t files = 0, dirs = 0, bytes = 0;
	for (size_t i = 0; i < tree->count; i++) {
		const struct ev_member *m = &tree->entries[i].m;
		if (!removal->removed[i])
			continue;
		json_array_append_new(removed, json_string(m->path));
		if (m->type == EV_MEMBER_FILE) {
			files++;
			bytes += m->size;
		} else {
			dirs++;
		}
	}
	ev_receipt_set_fact(p->receipt, "removed_totals",
			    json_pack("{s:I, s:I, s:I}", "files", (json_int_t)files, "dirs",
				      (json_int_t)dirs, "bytes", (json_int_t)bytes),
			    err);
	o->files = files;
	o->dirs = dirs;
	o->bytes = bytes;
}

/* The receipt of a removal that ran: it stopped (an error: files are
 * gone, so its record is kept even after a signal), kept entries that
 * changed after the check, or removed DIR whole. */
static ev_status record_removal(struct prune_run *p, const struct ev_error *rerr, unsigned kept, struct ev_error *err)
{
	struct ev_replicate_prune *o = p->o;
	ev_status st;
	if (rerr->status != EV_OK) {
		char why[EV_ERROR_TEXT_MAX + 4 * PATH_MAX + 200];
		if (o->left_at[0])
			snprintf(why, sizeof why, "%s; what is left is at %s", rerr->text, o->left_at);
		else /* every entry went, but the parent's sync, which makes that last, failed */
			snprintf(why, sizeof why, "%s; every entry was removed, but a crash may bring some back",
				 rerr->text);
		ev_receipt_add_check(p->receipt, "removed", 0, why, err);
		o->outcome = EV_PRUNE_STOPPED;
		write_removal_record(p, 0, err);
		return ev_error_set(err, rerr->status, "%s", why);
	}
	if (kept) {
		char why[4 * PATH_MAX + 200];
		snprintf(why, sizeof why, "%u entr%s kept (above): changed or open after the check; what is "
			 "left is at %s", kept, kept == 1 ? "y" : "ies", o->left_at);
		ev_receipt_add_check(p->receipt, "removed", 0, why, err);
		o->outcome = EV_PRUNE_KEPT;
		o->not_removed = kept;
		if ((st = write_removal_record(p, 1, err)) == EV_OK)
			st = EV_MISMATCH;
		return after_record(p, st, err);
	}
	ev_receipt_add_check(p->receipt, "removed", 1, "DIR and every member in it", err);
	o->outcome = EV_PRUNE_REMOVED;
	st = write_removal_record(p, 1, err);
	if (st == EV_OK && strcmp(ev_receipt_result(p->receipt), "pass") != 0)
		st = EV_MISMATCH;
	return after_record(p, st, err);
}

/* Take DIR out of its name in one step, so that no new path reaches it,
 * then empty it from below, each entry only if it is provably what was
 * checked; what is left goes back under its own name. */
static ev_status remove_checked(struct prune_run *p, const struct ev_tree *tree, const struct ev_seal *expected,
				const struct timespec *scanned_at, json_t *removed, struct ev_error *err)
{
	struct ev_replicate_prune *o = p->o;
	char parent_buf[PATH_MAX], name[PATH_MAX], hidden[PATH_MAX + 64];
	struct stat sb;
	snprintf(parent_buf, sizeof parent_buf, "%s", p->dir_real);
	snprintf(name, sizeof name, "%s", p->dir_real);
	const char *base = basename(name), *parent = dirname(parent_buf);
	int parentfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parentfd < 0)
		return ev_error_errno(err, errno, "%s: cannot open the directory that holds it", o->dir);
	ev_status st = EV_OK;
	if (fstatat(parentfd, base, &sb, AT_SYMLINK_NOFOLLOW) != 0 || sb.st_ino != tree->root_ino ||
	    sb.st_dev != tree->root_dev)
		st = ev_error_set(err, EV_ERROR, "%s: was replaced after it was checked; nothing removed", o->dir);
	snprintf(hidden, sizeof hidden, ".%s.prune-%ld", base, (long)getpid());
	if (st == EV_OK && renameat2(parentfd, base, parentfd, hidden, RENAME_NOREPLACE) != 0)
		st = ev_error_errno(err, errno, "%s: cannot move it aside to remove it", o->dir);
	struct ev_tree_removal removal = {.removed = st == EV_OK ? calloc(tree->count ? tree->count : 1, 1) : NULL};
	if (st == EV_OK && !removal.removed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st != EV_OK) {
		close(parentfd);
		return st;
	}
	struct ev_error rerr;
	ev_error_clear(&rerr);
	unsigned before_removal = reasons(p);
	ev_tree_remove_unchanged(tree, expected, scanned_at, on_kept, p, &removal, o->interrupted, &rerr);
	int root_gone = 0;
	if (rerr.status == EV_OK && removal.kept == 0) {
		if (unlinkat(parentfd, hidden, AT_REMOVEDIR) == 0)
			root_gone = 1;
		else if (errno == ENOTEMPTY || errno == EEXIST)
			refuse_because(p, o->dir, "added",
				       "holds entries that were not there when it was checked; kept with them",
				       NULL, NULL);
		else
			ev_error_errno(&rerr, errno, "%s: cannot remove the emptied directory", o->dir);
	}
	/* What is left goes back under its own name, where its owner looks. */
	if (!root_gone) {
		if (renameat2(parentfd, hidden, parentfd, base, RENAME_NOREPLACE) == 0)
			snprintf(o->left_at, sizeof o->left_at, "%s", p->dir_real);
		else
			snprintf(o->left_at, sizeof o->left_at, "%s/%s (%s was taken again)", parent, hidden,
				 p->dir_real);
	}
	ev_fsync_dir(parentfd, o->dir, &rerr);
	close(parentfd);
	count_removed(p, tree, &removal, removed, err);
	ev_receipt_set_fact(p->receipt, "coverage",
			    removal_coverage(&removal, o->coverage_line, sizeof o->coverage_line), err);
	free(removal.removed);
	return record_removal(p, &rerr, reasons(p) - before_removal, err);
}

ev_status ev_replicate_prune(struct ev_replicate_prune *o, json_t *receipt, struct ev_error *err)
{
	struct prune_run run = {.o = o, .receipt = receipt, .dir_real = o->dir_real}, *p = &run;
	struct ev_tree_verify v = {0};
	struct ev_tree tree = {.rootfd = -1};
	struct timespec scanned_at;
	ev_status st = dir_to_prune(p, err);
	if (st != EV_OK)
		return st;
	v = (struct ev_tree_verify){.dir = o->dir, .dir_input = "dir", .dir_recorded = p->dir_real, .seal = o->seal,
				    .seal_sha256 = o->seal_sha256, .selection = o->selection,
				    .on_finding = on_tree_finding, .ctx = p, .interrupted = o->interrupted};
	if ((st = ev_tree_verify_expect(&v, p->receipt, err)) != EV_OK ||
	    (st = refuse_evidence_inside(p, err)) != EV_OK ||
	    (st = judge_receipts(p, v.seal_hex, err)) != EV_OK || (st = judge_audits(p, v.seal_hex, err)) != EV_OK)
		goto out;
	judge_timestamp(p, err);
	if ((st = judge_tree(p, &v, &tree, &scanned_at, err)) != EV_OK)
		goto out;
	json_t *removed = json_array();
	ev_receipt_set_fact(p->receipt, "removed", removed, err);
	if (reasons(p)) {
		ev_receipt_add_check(p->receipt, "removed", 0, "nothing was removed", err);
		o->outcome = EV_PRUNE_REFUSED;
		if ((st = write_cleanup_receipt(p, err)) == EV_OK)
			st = EV_MISMATCH;
		goto out;
	}
	st = remove_checked(p, &tree, v.expected, &scanned_at, removed, err);
out:
	ev_tree_free(&tree);
	ev_tree_verify_free(&v);
	return st;
}

