/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_accept: a campaign judged against an acceptance policy
 * (replicate_accept.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/archive/seal.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/jsonwalk.h"
#include "lib/core/path.h"
#include "lib/core/scratch.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/merkle.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/replicate/accept_bundle_read.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "lib/usecase/replicate/replicate_accept.h"
#include "lib/receipt/timestamp_beside.h"

#define DOC_MAX ((size_t)64 << 20)
#define NOTE_MAX ((size_t)64 << 10)

static const char *const condition_names[EV_ACCEPT_CONDITIONS] = {
	"policy", "seal", "timestamp", "replicas", "audits", "checkpoints", "grade", "reference"};

/* A document found beneath the directory. */
struct found_doc {
	char *path;
	json_t *doc;                        /* receipts: as ev_receipt_load reads them (loosely when it refuses) */
	char sha256[EV_SHA256_HEX_LEN + 1]; /* of its bytes */
	char unreadable[1100];              /* why it cannot be read as a receipt */
};

struct evidence {
	struct found_doc *seals, *receipts;
	size_t nseals, nreceipts, cap_seals, cap_receipts;
	char **logs;                        /* log directories */
	size_t nlogs, cap_logs;
	struct ev_log_view *views;          /* the logs of the policy's origin, read */
	const char **view_dirs;
	size_t nviews;
};

/* What a condition read and counted (indices into receipts). */
struct counted {
	size_t *at, n, cap;
};

static void say(struct ev_accept_condition *c, enum ev_accept_state state, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct ev_accept_condition *c, enum ev_accept_state state, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	c->state = state;
	vsnprintf(c->said, sizeof c->said, fmt, ap);
	va_end(ap);
}

/* Append to what a condition says (its list of what was not counted). */
static void add(struct ev_accept_condition *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct ev_accept_condition *c, const char *fmt, ...)
{
	size_t used = strlen(c->said);
	if (used + 1 >= sizeof c->said)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->said + used, sizeof c->said - used, fmt, ap);
	va_end(ap);
}

static ev_status push_doc(struct found_doc **list, size_t *n, size_t *cap, const char *path, struct ev_error *err)
{
	if (ev_grow_array(list, cap, *n + 1, sizeof **list) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	struct found_doc *d = &(*list)[*n];
	memset(d, 0, sizeof *d);
	if (!(d->path = strdup(path)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	(*n)++;
	return EV_OK;
}

static ev_status push_log(struct evidence *e, const char *dir, struct ev_error *err)
{
	for (size_t i = 0; i < e->nlogs; i++)
		if (strcmp(e->logs[i], dir) == 0)
			return EV_OK;
	if (ev_grow_array(&e->logs, &e->cap_logs, e->nlogs + 1, sizeof *e->logs) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	if (!(e->logs[e->nlogs] = strdup(dir)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	e->nlogs++;
	return EV_OK;
}

/* One *.json beneath the directory: a seal, a receipt, a log's tree head,
 * or something else (passed by). */
static ev_status on_json(void *ctx, const char *path, const struct stat *sb, struct ev_error *err)
{
	struct evidence *e = ctx;
	if (!S_ISREG(sb->st_mode) || (size_t)sb->st_size > DOC_MAX)
		return EV_OK;
	json_t *doc = NULL;
	uint8_t digest[EV_SHA256_LEN];
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (ev_json_load(path, NULL, 0, &doc, digest, NULL, NULL, &ignored) != EV_OK)
		return EV_OK; /* not JSON: not evidence this reads */
	const char *format = json_string_value(json_object_get(doc, "format"));
	ev_status st = EV_OK;
	if (format && strcmp(format, EV_SEAL_FORMAT) == 0) {
		if ((st = push_doc(&e->seals, &e->nseals, &e->cap_seals, path, err)) == EV_OK)
			ev_sha256_hex(digest, e->seals[e->nseals - 1].sha256);
	} else if (format && strcmp(format, EV_RECEIPT_FORMAT) == 0) {
		if ((st = push_doc(&e->receipts, &e->nreceipts, &e->cap_receipts, path, err)) == EV_OK) {
			struct found_doc *r = &e->receipts[e->nreceipts - 1];
			ev_sha256_hex(digest, r->sha256);
			struct ev_error rerr;
			ev_error_clear(&rerr);
			if (ev_receipt_load(path, &r->doc, NULL, &rerr) != EV_OK) {
				/* kept as read loosely, so that its kind names where it was not counted */
				snprintf(r->unreadable, sizeof r->unreadable, "%s", rerr.text);
				r->doc = json_incref(doc);
			} else if (!ev_receipt_comparable_holds(r->doc, &rerr)) {
				/* kept, to be named where its kind is judged */
				snprintf(r->unreadable, sizeof r->unreadable, "its comparable digest does not match its content "
					 "(it was edited after it was written)");
			}
		}
	} else if (format && strcmp(format, EV_TREE_HEAD_FORMAT) == 0) {
		/* LOG/heads/head-SIZE.json: LOG is a log */
		char log[PATH_MAX];
		snprintf(log, sizeof log, "%s", path);
		char *slash = strrchr(log, '/');
		if (slash && slash - log >= 6 && strncmp(slash - 6, "/heads", 6) == 0) {
			slash[-6] = '\0';
			st = push_log(e, log, err);
		}
	}
	json_decref(doc);
	return st;
}

static void evidence_free(struct evidence *e)
{
	for (size_t i = 0; i < e->nseals; i++)
		free(e->seals[i].path);
	for (size_t i = 0; i < e->nreceipts; i++) {
		free(e->receipts[i].path);
		json_decref(e->receipts[i].doc);
	}
	for (size_t i = 0; i < e->nlogs; i++)
		free(e->logs[i]);
	for (size_t i = 0; i < e->nviews; i++)
		ev_log_view_free(&e->views[i]);
	free(e->views);
	free(e->view_dirs);
	free(e->seals);
	free(e->receipts);
	free(e->logs);
}

/* The logs beneath the directory whose origin is the policy's. */
static ev_status read_logs(const struct ev_replicate_accept *a, struct evidence *e, struct ev_error *err)
{
	if (!a->policy.checkpoints || !e->nlogs)
		return EV_OK;
	e->views = calloc(e->nlogs, sizeof *e->views);
	e->view_dirs = calloc(e->nlogs, sizeof *e->view_dirs);
	if (!e->views || !e->view_dirs)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t l = 0; l < e->nlogs; l++) {
		struct ev_log_view *v = &e->views[e->nviews];
		ev_status st = ev_log_view_read(e->logs[l], v, err);
		if (st != EV_OK)
			return st;
		if (strcmp(v->origin, a->policy.origin) != 0) {
			ev_log_view_free(v);
			continue;
		}
		e->view_dirs[e->nviews++] = e->logs[l];
	}
	return EV_OK;
}

/* The entries' index of the file whose SHA-256 is hex, or (size_t)-1. */
static size_t logged_at(const struct ev_log_view *v, const char *hex)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->sha256[i], hex) == 0)
			return i;
	return (size_t)-1;
}

static int is_logged(const struct evidence *e, const char *hex)
{
	for (size_t i = 0; i < e->nviews; i++)
		if (logged_at(&e->views[i], hex) != (size_t)-1)
			return 1;
	return 0;
}

static int counted_has_host(const struct evidence *e, const struct counted *c, const char *host)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(ev_receipt_host(e->receipts[c->at[i]].doc) ?: "", host ?: "") == 0)
			return 1;
	return 0;
}

static void relied(struct ev_replicate_accept *a, const struct found_doc *d, const char *kind, const char *host,
		   const char *signer)
{
	json_array_append_new(a->relied_on, json_pack("{s:s, s:s, s:s, s:s?, s:s?}", "path", d->path, "sha256",
						      d->sha256, "kind", kind, "host", host, "signed_by", signer));
}

/* Whether receipt d may be counted for kind: readable, intact, passing,
 * signed by a key the policy lets sign that kind (its name into signer).
 * Else why (cap bytes) says what failed. */
static int countable(const struct ev_replicate_accept *a, const struct found_doc *d, enum ev_acceptance_kind kind, char *signer,
		     size_t signer_cap, char *why, size_t cap)
{
	if (d->unreadable[0]) {
		snprintf(why, cap, "%s", d->unreadable);
		return 0;
	}
	if (!ev_receipt_passed(d->doc)) {
		snprintf(why, cap, "its result is %s", ev_receipt_result(d->doc) ?: "missing");
		return 0;
	}
	char id[EV_SHA256_HEX_LEN + 1] = "", sig_why[512] = "";
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receipt_check_signature(d->doc, a->policy.signers[kind], id, sig_why, sizeof sig_why, &err);
	if (st != EV_OK) {
		const json_t *sig = json_object_get(d->doc, "signature");
		const char *by = json_string_value(json_object_get(sig, "key_sha256"));
		size_t at = ev_acceptance_key_by_id(&a->policy, by);
		if (st == EV_MISMATCH && at != (size_t)-1)
			snprintf(why, cap, "signed by %s, a key the policy does not let sign %s receipts", a->policy.keys[at].name,
				 ev_acceptance_kind_name(kind));
		else
			snprintf(why, cap, "%s%.900s", st == EV_MISMATCH ? "" : "its signature cannot be checked: ",
				 st == EV_MISMATCH ? sig_why : err.text);
		return 0;
	}
	size_t at = ev_acceptance_key_by_id(&a->policy, id);
	snprintf(signer, signer_cap, "%s", at != (size_t)-1 ? a->policy.keys[at].name : id);
	return 1;
}

static ev_status count_push(struct counted *c, size_t i, struct ev_error *err)
{
	if (ev_grow_array(&c->at, &c->cap, c->n + 1, sizeof *c->at) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	c->at[c->n++] = i;
	return EV_OK;
}

static const char *str_or(const char *s, const char *or)
{
	return s ? s : or;
}

static void judge_policy(struct ev_replicate_accept *a)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_POLICY];
	char id[EV_SHA256_HEX_LEN + 1] = "", why[512] = "";
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receipt_check_signature(a->policy.doc, a->trust, id, why, sizeof why, &err);
	if (st != EV_OK)
		say(c, EV_ACCEPT_UNMET, "%s version %lld %s%s (a policy must be signed by a key given with --trust)",
		    a->policy.name, a->policy.version, st == EV_MISMATCH ? "" : "cannot be judged: ",
		    st == EV_MISMATCH ? why : err.text);
	else if (a->now >= a->policy.expires_at)
		say(c, EV_ACCEPT_UNMET, "%s version %lld expired at %s", a->policy.name, a->policy.version,
		    a->policy.expires);
	else
		say(c, EV_ACCEPT_HELD, "%s version %lld (sha256 %.16s...), signed by trusted key %.16s..., expires %s",
		    a->policy.name, a->policy.version, a->policy.sha256, id, a->policy.expires);
}

/* Each receipt of kind (and, for audits, of the command) that is about
 * this seal: counted, or said why not. */
static ev_status judge_kind(struct ev_replicate_accept *a, const struct evidence *e, enum ev_acceptance_kind kind,
			    const char *receipt_kind, const char *command, const char *seal_role, struct counted *out,
			    struct ev_accept_condition *c, struct ev_error *err)
{
	for (size_t i = 0; i < e->nreceipts; i++) {
		const struct found_doc *d = &e->receipts[i];
		if (!d->doc || strcmp(str_or(ev_receipt_kind(d->doc), ""), receipt_kind) != 0)
			continue;
		char cmd[128];
		ev_receipt_command(d->doc, cmd, sizeof cmd);
		if (command && strcmp(cmd, command) != 0)
			continue;
		const char *seal = strcmp(seal_role, "output") == 0 ? ev_receipt_output_sha256(d->doc, "SEAL.json")
								   : ev_receipt_input_sha256(d->doc, "SEAL.json");
		if (!seal || strcmp(seal, a->seal_sha256) != 0)
			continue;
		/* audit campaign's own audit-journal.json is a part of its audit, not an audit of the campaign */
		if (kind == EV_ACCEPT_AUDIT && !ev_receipt_output_sha256(d->doc, "summary.json"))
			continue;
		char signer[EV_NOTE_NAME_MAX] = "", why[1400] = "";
		if (!countable(a, d, kind, signer, sizeof signer, why, sizeof why)) {
			add(c, "; not counted: %s: %s", d->path, why);
			continue;
		}
		ev_status st = count_push(out, i, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

static void signer_of(const struct ev_replicate_accept *a, const json_t *r, char *name, size_t cap)
{
	const char *id = json_string_value(json_object_get(json_object_get(r, "signature"), "key_sha256"));
	size_t at = ev_acceptance_key_by_id(&a->policy, id);
	snprintf(name, cap, "%s", at != (size_t)-1 ? a->policy.keys[at].name : "?");
}

static ev_status judge_seal(struct ev_replicate_accept *a, const struct evidence *e, struct counted *seal, struct ev_error *err)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_SEAL];
	c->said[0] = '\0';
	ev_status st = judge_kind(a, e, EV_ACCEPT_SEAL, "seal", NULL, "output", seal, c, err);
	if (st != EV_OK)
		return st;
	char rest[sizeof c->said];
	snprintf(rest, sizeof rest, "%s", c->said);
	if (!seal->n) {
		say(c, EV_ACCEPT_UNMET, "no passing seal receipt of seal %.16s... signed by a seal signer%s", a->seal_sha256,
		    rest);
		return EV_OK;
	}
	for (size_t i = 1; i < seal->n && !is_logged(e, e->receipts[seal->at[0]].sha256); i++)
		if (is_logged(e, e->receipts[seal->at[i]].sha256)) { /* the one a checkpoint can include, first */
			size_t t = seal->at[0];
			seal->at[0] = seal->at[i], seal->at[i] = t;
		}
	const struct found_doc *d = &e->receipts[seal->at[0]];
	/* the copy of the seal beside its receipt is the one to name */
	const char *slash = strrchr(d->path, '/');
	size_t dirlen = slash ? (size_t)(slash - d->path + 1) : 0;
	for (size_t i = 0; i < e->nseals && !a->seal; i++)
		if (strcmp(e->seals[i].sha256, a->seal_sha256) == 0 && strncmp(e->seals[i].path, d->path, dirlen) == 0 &&
		    strcmp(e->seals[i].path + dirlen, "SEAL.json") == 0)
			snprintf(a->seal_path, sizeof a->seal_path, "%s", e->seals[i].path);
	char signer[EV_NOTE_NAME_MAX];
	signer_of(a, d->doc, signer, sizeof signer);
	say(c, EV_ACCEPT_HELD, "seal %.16s... (%s), sealed on %s, its receipt %s signed by %s", a->seal_sha256,
	    str_or(json_string_value(ev_receipt_fact(d->doc, "root")), "?"), str_or(ev_receipt_host(d->doc), "?"),
	    d->path, signer);
	relied(a, d, "seal", ev_receipt_host(d->doc), signer);
	return EV_OK;
}

static void judge_timestamp(struct ev_replicate_accept *a, const struct evidence *e)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_TIMESTAMP];
	if (!a->policy.tsa_ca) {
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy requires no trusted time");
		return;
	}
	say(c, EV_ACCEPT_UNMET, "no SEAL.json.tsr (seal timestamp) beside any copy of seal %.16s...", a->seal_sha256);
	for (size_t i = 0; i < e->nseals; i++) {
		const struct found_doc *d = &e->seals[i];
		if (strcmp(d->sha256, a->seal_sha256) != 0 || !ev_timestamp_present(d->path))
			continue;
		struct ev_timestamp_verdict v;
		char why[1024] = "";
		struct ev_error err;
		ev_error_clear(&err);
		ev_status st = ev_timestamp_check(d->path, a->policy.tsa_ca, &v, why, sizeof why, &err);
		if (st == EV_OK) {
			say(c, EV_ACCEPT_HELD, "%s.tsr: trusted time %s by %s, chained to the policy's CA", d->path, v.gen_time,
			    v.tsa);
			char tsr[PATH_MAX + 8];
			snprintf(tsr, sizeof tsr, "%s.tsr", d->path);
			json_array_append_new(a->relied_on, json_pack("{s:s, s:s, s:s}", "path", tsr, "kind", "timestamp",
								      "trusted_time", v.gen_time));
			return;
		}
		say(c, EV_ACCEPT_UNMET, "%s.tsr: %s", d->path, st == EV_MISMATCH ? why : err.text);
	}
}

/* Receipts of one kind counted on distinct hosts. */
static ev_status judge_hosts(struct ev_replicate_accept *a, const struct evidence *e, const struct counted *all, size_t need,
			const char *what, const char *kind, struct counted *hosts, struct ev_accept_condition *c,
			struct ev_error *err)
{
	char listed[2048] = "";
	/* one receipt per host: a logged one first, which a checkpoint can include */
	for (size_t k = 0; k < 2 * all->n; k++) {
		size_t i = k % all->n;
		const struct found_doc *d = &e->receipts[all->at[i]];
		if ((k < all->n && !is_logged(e, d->sha256)) || counted_has_host(e, hosts, ev_receipt_host(d->doc)))
			continue;
		ev_status st = count_push(hosts, all->at[i], err);
		if (st != EV_OK)
			return st;
		size_t used = strlen(listed);
		snprintf(listed + used, sizeof listed - used, "%s%s (%s)", used ? ", " : "", str_or(ev_receipt_host(d->doc), "?"),
			 d->path);
	}
	char rest[sizeof c->said];
	snprintf(rest, sizeof rest, "%s", c->said);
	if (hosts->n >= need) {
		say(c, EV_ACCEPT_HELD, "%zu distinct host%s %s (%zu required): %s", hosts->n, hosts->n == 1 ? "" : "s",
		    what, need, listed);
		for (size_t i = 0; i < hosts->n; i++) {
			const struct found_doc *d = &e->receipts[hosts->at[i]];
			char signer[EV_NOTE_NAME_MAX];
			signer_of(a, d->doc, signer, sizeof signer);
			relied(a, d, kind, ev_receipt_host(d->doc), signer);
		}
	} else {
		say(c, EV_ACCEPT_UNMET, "%zu distinct host%s %s, %zu required%s%s%s", hosts->n, hosts->n == 1 ? "" : "s", what,
		    need, hosts->n ? ": " : "", listed, rest);
	}
	return EV_OK;
}

static ev_status judge_replicas(struct ev_replicate_accept *a, const struct evidence *e, struct counted *hosts,
				struct ev_error *err)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_REPLICAS];
	if (!a->policy.replicas) {
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy requires no replica");
		return EV_OK;
	}
	struct counted all = {0};
	c->said[0] = '\0';
	ev_status st = judge_kind(a, e, EV_ACCEPT_REPLICA, "replica", NULL, "input", &all, c, err);
	if (st == EV_OK)
		st = judge_hosts(a, e, &all, a->policy.replicas, "verified every member of a copy", "replica", hosts, c, err);
	free(all.at);
	return st;
}

static ev_status judge_audits(struct ev_replicate_accept *a, const struct evidence *e, struct counted *hosts,
			      struct ev_error *err)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_AUDITS];
	struct counted all = {0};
	c->said[0] = '\0';
	ev_status st = judge_kind(a, e, EV_ACCEPT_AUDIT, "audit", "audit campaign", "input", &all, c, err);
	if (st != EV_OK) {
		free(all.at);
		return st;
	}
	/* they agree when they computed the same summary.json */
	const char *first = NULL;
	const struct found_doc *first_doc = NULL;
	for (size_t i = 0; i < all.n; i++) {
		const struct found_doc *d = &e->receipts[all.at[i]];
		const char *summary = ev_receipt_output_sha256(d->doc, "summary.json");
		if (!first) {
			first = summary, first_doc = d;
			continue;
		}
		if (summary && strcmp(summary, first) != 0) {
			say(c, EV_ACCEPT_UNMET, "the audits disagree: %s (on %s) computed summary.json %.16s..., %s (on %s) "
			    "%.16s...", first_doc->path, str_or(ev_receipt_host(first_doc->doc), "?"), first, d->path,
			    str_or(ev_receipt_host(d->doc), "?"), summary);
			free(all.at);
			return EV_OK;
		}
	}
	if (first)
		snprintf(a->summary_sha256, sizeof a->summary_sha256, "%s", first);
	if (!a->policy.audits) {
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy requires no audit%s", c->said);
		/* the grade and the reference still read an audit when one is there */
		for (size_t i = 0; i < all.n && !hosts->n; i++)
			st = count_push(hosts, all.at[i], err);
	} else {
		st = judge_hosts(a, e, &all, a->policy.audits, "audited the campaign to one summary", "audit", hosts, c, err);
	}
	for (size_t i = 0; st == EV_OK && i < hosts->n; i++)
		json_array_append(a->audits, e->receipts[hosts->at[i]].doc);
	free(all.at);
	return st;
}

/* A cosigned checkpoint, as one witness of the policy cosigned it. */
struct witnessed {
	const char *path;
	size_t witness; /* index into policy.keys */
	size_t size;
	ev_merkle_hash root;
	int consistent; /* the log's entries hash to its root */
};

/* Read each cosigned checkpoint of a log whose origin is the policy's,
 * for each witness of the policy: held by the log's key and that
 * witness's cosignature. */
static ev_status witnessed_of(const struct ev_replicate_accept *a, const struct ev_log_view *v, struct witnessed **out,
			      size_t *n, struct ev_error *err)
{
	const struct ev_acceptance *p = &a->policy;
	size_t cap = *n;
	for (size_t i = 0; i < v->ncosigned; i++) {
		char *note = NULL;
		size_t len = 0;
		struct ev_error rerr;
		ev_error_clear(&rerr);
		if (ev_file_read_all(v->cosigned[i], NOTE_MAX, &note, &len, &rerr) != EV_OK)
			continue;
		for (size_t w = 0; w < p->nwitnesses; w++) {
			struct ev_trust *t = ev_trust_new();
			struct ev_checkpoint cp;
			char why[512];
			ev_status st = t ? ev_trust_add_raw(t, p->keys[p->log_key].pub, err) : EV_ERROR;
			if (st == EV_OK)
				st = ev_trust_add_raw(t, p->keys[p->witnesses[w]].pub, err);
			int holds = st == EV_OK && ev_checkpoint_read(note, len, t, &cp, why, sizeof why) == EV_OK &&
				    cp.cosigned > 0 && strcmp(cp.origin, p->origin) == 0;
			ev_trust_free(t);
			if (st != EV_OK) {
				free(note);
				return t ? st : ev_error_set(err, EV_ERROR, "out of memory");
			}
			if (!holds)
				continue;
			if (ev_grow_array(out, &cap, *n + 1, sizeof **out) != 0) {
				free(note);
				return ev_error_set(err, EV_ERROR, "out of memory");
			}
			struct witnessed *x = &(*out)[(*n)++];
			x->path = v->cosigned[i];
			x->witness = p->witnesses[w];
			x->size = cp.size;
			memcpy(x->root, cp.root, sizeof x->root);
			ev_merkle_hash now;
			x->consistent = cp.size <= v->n;
			if (x->consistent) {
				ev_merkle_root(&v->tree, cp.size, now);
				x->consistent = memcmp(now, cp.root, sizeof now) == 0;
			}
		}
		free(note);
	}
	return EV_OK;
}

static ev_status judge_checkpoints(struct ev_replicate_accept *a, const struct evidence *e, const struct counted *required,
				   struct ev_error *err)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_CHECKPOINTS];
	const struct ev_acceptance *p = &a->policy;
	if (!p->checkpoints) {
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy requires no cosigned checkpoint");
		return EV_OK;
	}
	say(c, EV_ACCEPT_UNMET, "no receipt log of origin %s beneath %s (a directory with heads/ and entries.jsonl)",
	    p->origin, a->dir);
	for (size_t l = 0; l < e->nviews; l++) {
		const struct ev_log_view *v = &e->views[l];
		ev_status st;
		struct witnessed *w = NULL;
		size_t n = 0;
		if ((st = witnessed_of(a, v, &w, &n, err)) != EV_OK) {
			free(w);
			return st;
		}
		/* a split view: two cosigned checkpoints that cannot both be this log's */
		const struct witnessed *bad = NULL, *good = NULL;
		for (size_t i = 0; i < n && !bad; i++)
			for (size_t j = i + 1; j < n && !bad; j++)
				if (w[i].size == w[j].size && memcmp(w[i].root, w[j].root, sizeof w[i].root) != 0)
					bad = &w[i], good = &w[j];
		for (size_t i = 0; i < n && !bad; i++)
			if (!w[i].consistent) {
				bad = &w[i];
				for (size_t j = 0; j < n && !good; j++)
					good = w[j].consistent ? &w[j] : NULL;
			}
		if (bad) {
			char bad_hex[EV_SHA256_HEX_LEN + 1], good_hex[EV_SHA256_HEX_LEN + 1];
			ev_sha256_hex(bad->root, bad_hex);
			if (good) {
				ev_sha256_hex(good->root, good_hex);
				say(c, EV_ACCEPT_UNMET, "split view: %s cosigned size %zu, root %.16s... (%s), and %s cosigned size "
				    "%zu, root %.16s... (%s): the log %s showed its witnesses different histories",
				    p->keys[bad->witness].name, bad->size, bad_hex, bad->path, p->keys[good->witness].name,
				    good->size, good_hex, good->path, p->origin);
			} else {
				say(c, EV_ACCEPT_UNMET, "split view: %s cosigned size %zu, root %.16s... (%s), which the first %zu "
				    "entries of the log %s (%s) do not give: the log showed it another history",
				    p->keys[bad->witness].name, bad->size, bad_hex, bad->path, bad->size, p->origin, e->view_dirs[l]);
			}
			free(w);
			return EV_OK;
		}
		/* what must be included: the seal and every receipt counted */
		size_t need = logged_at(v, a->seal_sha256), missing = (size_t)-1;
		const char *missing_path = a->seal_path;
		if (need == (size_t)-1)
			missing = 0;
		for (size_t i = 0; i < required->n && missing == (size_t)-1; i++) {
			const struct found_doc *d = &e->receipts[required->at[i]];
			size_t at = logged_at(v, d->sha256);
			if (at == (size_t)-1)
				missing = i, missing_path = d->path;
			else if (at > need)
				need = at;
		}
		if (missing != (size_t)-1) {
			say(c, EV_ACCEPT_UNMET, "%s is not in the log %s (origin %s): a cosigned checkpoint cannot include it",
			    missing_path, e->view_dirs[l], p->origin);
			free(w);
			continue;
		}
		char listed[1024] = "";
		size_t witnesses = 0;
		json_array_append_new(a->relied_on, json_pack("{s:s, s:s}", "path", e->view_dirs[l], "kind", "log"));
		for (size_t k = 0; k < p->nwitnesses; k++) {
			const struct witnessed *best = NULL;
			for (size_t i = 0; i < n; i++)
				if (w[i].witness == p->witnesses[k] && w[i].size > need && (!best || w[i].size > best->size))
					best = &w[i];
			if (!best)
				continue;
			witnesses++;
			size_t used = strlen(listed);
			snprintf(listed + used, sizeof listed - used, "%s%s (size %zu)", used ? ", " : "",
				 p->keys[best->witness].name, best->size);
			json_array_append_new(a->relied_on, json_pack("{s:s, s:s, s:s}", "path", best->path, "kind",
								      "cosigned-checkpoint", "signed_by",
								      p->keys[best->witness].name));
		}
		if (witnesses >= p->quorum)
			say(c, EV_ACCEPT_HELD, "%zu of %zu witnesses (quorum %zu) cosigned checkpoints of %s that include the seal "
			    "and the %zu receipts counted (all within its first %zu entries): %s", witnesses, p->nwitnesses,
			    p->quorum, p->origin, required->n, need + 1, listed);
		else
			say(c, EV_ACCEPT_UNMET, "%zu of %zu witnesses cosigned a checkpoint of %s that includes the seal and the "
			    "%zu receipts counted (its first %zu entries), a quorum of %zu required%s%s", witnesses,
			    p->nwitnesses, p->origin, required->n, need + 1, p->quorum, witnesses ? ": " : "", listed);
		free(w);
		if (c->state == EV_ACCEPT_HELD)
			break;
	}
	return EV_OK;
}

static void judge_grade(struct ev_replicate_accept *a)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_GRADE];
	const char *seen = NULL;
	size_t i;
	json_t *r;
	json_array_foreach(a->audits, i, r) {
		const char *g = json_string_value(json_object_get(ev_receipt_fact(r, "grade"), "grade"));
		if (!seen || (g && strcmp(g, "quiet") != 0))
			seen = g ? g : "ungraded";
	}
	if (!a->policy.grade_quiet)
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy accepts any grade (the audits graded it %s)", seen ? seen : "-");
	else if (!seen)
		say(c, EV_ACCEPT_UNMET, "no agreeing audit to take the grade from");
	else if (strcmp(seen, "quiet") != 0)
		say(c, EV_ACCEPT_UNMET, "graded %s, quiet required (audit campaign names each condition that failed)", seen);
	else
		say(c, EV_ACCEPT_HELD, "every agreeing audit graded the campaign quiet");
}

static void judge_reference(struct ev_replicate_accept *a, const struct evidence *e)
{
	struct ev_accept_condition *c = &a->conditions[EV_ACCEPT_C_REFERENCE];
	if (!a->policy.reference_sha256) {
		say(c, EV_ACCEPT_NOT_REQUIRED, "the policy requires no published reference");
		return;
	}
	say(c, EV_ACCEPT_UNMET, "no passing audit compare --reference receipt of reference %.16s... and summary.json "
	    "%.16s...", a->policy.reference_sha256, a->summary_sha256[0] ? a->summary_sha256 : "(no agreeing audit)");
	for (size_t i = 0; i < e->nreceipts; i++) {
		const struct found_doc *d = &e->receipts[i];
		char cmd[128];
		if (!d->doc)
			continue;
		ev_receipt_command(d->doc, cmd, sizeof cmd);
		const char *ref = ev_receipt_input_sha256(d->doc, "reference");
		const char *summary = ev_receipt_input_sha256(d->doc, "summary A");
		if (strcmp(cmd, "audit compare") != 0 || !ref || strcmp(ref, a->policy.reference_sha256) != 0 || !summary ||
		    strcmp(summary, a->summary_sha256) != 0)
			continue;
		char signer[EV_NOTE_NAME_MAX] = "", why[1400] = "";
		if (!countable(a, d, EV_ACCEPT_AUDIT, signer, sizeof signer, why, sizeof why)) {
			add(c, "; not counted: %s: %s", d->path, why);
			continue;
		}
		const char *verdict = json_string_value(ev_receipt_fact(d->doc, "verdict")) ?: "";
		if (strncmp(verdict, "reproduced within ", 18) != 0) {
			say(c, EV_ACCEPT_UNMET, "%s: %s", d->path, verdict);
			return;
		}
		say(c, EV_ACCEPT_HELD, "%s: %s (signed by %s)", d->path, verdict, signer);
		relied(a, d, "reproduction", ev_receipt_host(d->doc), signer);
		return;
	}
}

/* The seal judged: --seal's, or the one beneath dir. */
static ev_status choose_seal(struct ev_replicate_accept *a, const struct evidence *e, struct ev_error *err)
{
	if (a->seal) {
		uint8_t digest[EV_SHA256_LEN];
		json_t *doc = NULL;
		ev_status st = ev_json_load(a->seal, EV_SEAL_FORMAT, 0, &doc, digest, NULL, NULL, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(digest, a->seal_sha256);
		snprintf(a->seal_path, sizeof a->seal_path, "%s", a->seal);
		snprintf(a->seal_root, sizeof a->seal_root, "%s", json_string_value(json_object_get(doc, "root")) ?: "campaign");
		json_decref(doc);
		return EV_OK;
	}
	for (size_t i = 0; i < e->nseals; i++) {
		if (!a->seal_sha256[0]) {
			snprintf(a->seal_sha256, sizeof a->seal_sha256, "%s", e->seals[i].sha256);
			snprintf(a->seal_path, sizeof a->seal_path, "%s", e->seals[i].path);
		} else if (strcmp(a->seal_sha256, e->seals[i].sha256) != 0) {
			return ev_error_set(err, EV_USAGE, "%s holds more than one seal (%s, %s): name the one to judge with "
					    "--seal SEAL.json", a->dir, a->seal_path, e->seals[i].path);
		}
	}
	if (!a->seal_sha256[0])
		return ev_error_set(err, EV_USAGE, "%s: no seal (SEAL.json, evidence-seal/1) beneath it: give the "
				    "campaign's evidence directory, or --seal SEAL.json", a->dir);
	json_t *doc = NULL;
	if (ev_json_load(a->seal_path, EV_SEAL_FORMAT, 0, &doc, NULL, NULL, NULL, err) != EV_OK)
		return err->status;
	snprintf(a->seal_root, sizeof a->seal_root, "%s", json_string_value(json_object_get(doc, "root")) ?: "campaign");
	json_decref(doc);
	return EV_OK;
}

/* Every "from" in text (cap bytes) made "to". */
static void replace_all(char *text, size_t cap, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *at = text;
	while ((at = strstr(at, from))) {
		size_t rest = strlen(at + fl);
		if ((size_t)(at - text) + tl + rest + 1 > cap)
			return;
		memmove(at + tl, at + fl, rest + 1);
		memcpy(at, to, tl);
		at += tl;
	}
}

ev_status ev_replicate_accept_judge(struct ev_replicate_accept *a, struct ev_error *err)
{
	a->first_unmet = -1;
	a->relied_on = json_array();
	a->audits = json_array();
	for (int i = 0; i < EV_ACCEPT_CONDITIONS; i++)
		a->conditions[i].name = condition_names[i];
	ev_status st = ev_acceptance_load(a->policy_path, &a->policy, err);
	if (st != EV_OK)
		return st;
	struct evidence e = {0};
	struct counted seal = {0}, replicas = {0}, audits = {0}, required = {0};
	struct ev_scratch scratch = EV_SCRATCH_INIT;
	const char *dir = a->dir;
	struct stat sb;
	if (stat(a->dir, &sb) == 0 && S_ISREG(sb.st_mode)) { /* a bundle: its evidence laid out as a directory */
		char log[PATH_MAX + 8];
		if ((st = ev_scratch_open(&scratch, "accept-bundle", err)) == EV_OK &&
		    (st = ev_accept_bundle_unpack(a->dir, scratch.path, err)) == EV_OK) {
			dir = scratch.path;
			snprintf(log, sizeof log, "%s/log", scratch.path);
			if (stat(log, &sb) == 0)
				st = push_log(&e, log, err);
		}
	} else if (stat(a->dir, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot read the campaign's evidence", a->dir);
	} else if (!S_ISDIR(sb.st_mode)) {
		st = ev_error_set(err, EV_USAGE, "%s: expected the campaign's evidence, a directory or a bundle "
				  "(CAMPAIGN.intoto.jsonl), found %s", a->dir, ev_input_kind(sb.st_mode));
	}
	if (st == EV_OK && (st = ev_jsonwalk(dir, on_json, &e, err)) == EV_OK && (st = choose_seal(a, &e, err)) == EV_OK &&
	    (st = read_logs(a, &e, err)) == EV_OK) {
		judge_policy(a);
		if ((st = judge_seal(a, &e, &seal, err)) == EV_OK)
			judge_timestamp(a, &e);
		if (st == EV_OK)
			st = judge_replicas(a, &e, &replicas, err);
		if (st == EV_OK)
			st = judge_audits(a, &e, &audits, err);
		/* what the checkpoints must include: the seal receipt relied on, one receipt per host counted */
		size_t nseal = seal.n ? 1 : 0;
		for (size_t i = 0; st == EV_OK && i < nseal + replicas.n + audits.n; i++)
			st = count_push(&required, i < nseal ? seal.at[0] : i < nseal + replicas.n ? replicas.at[i - nseal]
												 : audits.at[i - nseal - replicas.n],
					err);
		if (st == EV_OK)
			st = judge_checkpoints(a, &e, &required, err);
		if (st == EV_OK) {
			judge_grade(a);
			judge_reference(a, &e);
		}
	}
	free(seal.at);
	free(replicas.at);
	free(audits.at);
	free(required.at);
	evidence_free(&e);
	if (scratch.path[0]) { /* say the bundle's name, not the scratch directory's: BUNDLE:sealed/SEAL.json */
		char from[PATH_MAX + 1], to[PATH_MAX + 1];
		snprintf(from, sizeof from, "%s/", scratch.path);
		snprintf(to, sizeof to, "%s:", a->dir);
		for (int i = 0; i < EV_ACCEPT_CONDITIONS; i++)
			replace_all(a->conditions[i].said, sizeof a->conditions[i].said, from, to);
		replace_all(a->seal_path, sizeof a->seal_path, from, to);
	}
	ev_scratch_close(&scratch);
	if (st != EV_OK)
		return st;
	for (int i = 0; i < EV_ACCEPT_CONDITIONS && a->first_unmet < 0; i++)
		if (a->conditions[i].state == EV_ACCEPT_UNMET)
			a->first_unmet = i;
	return a->first_unmet < 0 ? EV_OK : EV_MISMATCH;
}

json_t *ev_replicate_accept_verdict_json(const struct ev_replicate_accept *a)
{
	static const char *const states[] = {"held", "unmet", "not required"};
	json_t *conditions = json_array();
	for (int i = 0; i < EV_ACCEPT_CONDITIONS; i++)
		json_array_append_new(conditions, json_pack("{s:s, s:s, s:s}", "condition", a->conditions[i].name, "state",
							    states[a->conditions[i].state], "said", a->conditions[i].said));
	return json_pack("{s:s, s:{s:s, s:s, s:I, s:s, s:s}, s:{s:s, s:s, s:s}, s:s, s:s?, s:o, s:O}", "format",
			 EV_ACCEPT_VERDICT_FORMAT, "policy", "path", a->policy_path, "name", a->policy.name, "version",
			 (json_int_t)a->policy.version, "sha256", a->policy.sha256, "expires", a->policy.expires, "seal",
			 "path", a->seal_path, "sha256", a->seal_sha256, "root", a->seal_root, "verdict", a->first_unmet < 0 ? "PASSED" : "FAILED",
			 "first_unmet", a->first_unmet < 0 ? NULL : a->conditions[a->first_unmet].name, "conditions",
			 conditions, "relied_on", a->relied_on);
}

void ev_replicate_accept_free(struct ev_replicate_accept *a)
{
	ev_acceptance_free(&a->policy);
	json_decref(a->relied_on);
	json_decref(a->audits);
	a->relied_on = a->audits = NULL;
}
