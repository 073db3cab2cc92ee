/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_status: every receipt and seal under some directories,
 * gathered per sealed campaign (replicate_status.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/archive/seal.h"
#include "lib/catalog/catalog.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/jsonwalk.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/replicate_status.h"
#include "lib/usecase/seal/timestamp_file.h"

#define STATUS_FORMAT "evidence-status/1"

struct found {
	char *block;         /* one allocation: the strings below and inputs (100,000 receipts, bench/catalog) */
	const char *path;    /* as shown: HOST:PATH for a file indexed on another host */
	char sha256[EV_SHA256_HEX_LEN + 1];
	const char *kind, *host, *result, *finished, *comparable, *command, *seal, *root;
	char (*inputs)[EV_SHA256_HEX_LEN + 1]; /* the inputs' digests */
	size_t ninputs;
	int intact, trusted, from_archive; /* trusted: signed by a key of --trust */
	char signer[EV_SHA256_HEX_LEN + 1];
	int claimed;         /* tied to some campaign */
	json_t *also;        /* other paths of the same bytes (a receipt fetched, kept twice); NULL: none */
};

struct seal_file {
	char *path;
	char sha256[EV_SHA256_HEX_LEN + 1];
	char *root;
	char (*digests)[EV_SHA256_HEX_LEN + 1]; /* its non-empty files', sorted */
	size_t ndigests;
	int stamped;         /* FILE.tsr beside it */
	const char *not_here; /* why its timestamp cannot be checked here (another host's, a path not opened) */
};

struct status {
	struct found *receipts;
	size_t nreceipts, cap;
	struct seal_file *seals;
	size_t nseals, seals_cap;
	json_t *unreadable, *skipped;
	json_t *not_believed; /* catalog rows their documents contradict: [{path, why}] */
	json_t *by_sha256; /* a receipt's digest -> its index: the same bytes found again */
	struct ev_trust *trust;
	size_t untrusted; /* with trust: passing, intact replica receipts no trusted key signs, left out */
	long min_hosts;
	const char *tsa_ca;
};

static void note(json_t *list, const char *path, const char *why)
{
	json_array_append_new(list, json_pack("{s:s, s:s}", "path", path, "why", why));
}

static const char *field(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static char *copy(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A receipt's fields as status judges them, from its document (the walk)
 * or from the catalog's row. */
struct receipt_fields {
	const char *kind, *host, *result, *finished, *comparable, *command, *seal, *root, *inputs;
	int intact, from_archive;
};

/* doc (may be NULL) is only read, for its signature, with --trust. */
static ev_status keep_receipt(struct status *s, const char *path, const char *hex, const struct receipt_fields *rf,
			      const json_t *doc, struct ev_error *err)
{
	const json_t *seen = json_object_get(s->by_sha256, hex);
	if (seen) {
		struct found *first = &s->receipts[json_integer_value(seen)];
		if (!first->also && !(first->also = json_array()))
			return ev_error_set(err, EV_ERROR, "out of memory");
		json_array_append_new(first->also, json_string(path));
		return EV_OK;
	}
	json_object_set_new(s->by_sha256, hex, json_integer((json_int_t)s->nreceipts));
	if (ev_grow_array(&s->receipts, &s->cap, s->nreceipts + 1, sizeof *s->receipts) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	struct found *f = &s->receipts[s->nreceipts];
	memset(f, 0, sizeof *f);
	size_t n = rf->inputs ? (strlen(rf->inputs) + 1) / (EV_SHA256_HEX_LEN + 1) : 0;
	const char *from[] = {path, rf->kind, rf->host, rf->result, rf->finished, rf->comparable, rf->command,
			      rf->seal, rf->root};
	const char **const to[] = {&f->path, &f->kind, &f->host, &f->result, &f->finished, &f->comparable,
				   &f->command, &f->seal, &f->root};
	enum { NFROM = sizeof from / sizeof *from };
	if (!(f->block = malloc(n * sizeof *f->inputs + ev_strings_size(from, NFROM))))
		return ev_error_set(err, EV_ERROR, "out of memory");
	s->nreceipts++;
	f->inputs = n ? (void *)f->block : NULL; /* the digests first: char arrays, any address will do */
	ev_strings_copy(f->block + n * sizeof *f->inputs, from, to, NFROM);
	for (size_t i = 0; i < n; i++) {
		memcpy(f->inputs[i], rf->inputs + i * (EV_SHA256_HEX_LEN + 1), EV_SHA256_HEX_LEN);
		f->inputs[i][EV_SHA256_HEX_LEN] = '\0';
	}
	f->ninputs = n;
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->intact = rf->intact;
	f->from_archive = rf->from_archive;
	if (s->trust && doc) {
		char why[256];
		struct ev_error e;
		ev_error_clear(&e);
		f->trusted = ev_receipt_check_signature(doc, s->trust, f->signer, why, sizeof why, &e) == EV_OK;
	}
	return EV_OK;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

static ev_status grow_seals(struct status *s, struct ev_error *err)
{
	if (ev_grow_array(&s->seals, &s->seals_cap, s->nseals + 1, sizeof *s->seals) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	return EV_OK;
}

static ev_status keep_seal(struct status *s, const char *path, json_t *doc, const char *hex, struct ev_error *err)
{
	ev_status st = grow_seals(s, err);
	if (st != EV_OK)
		return st;
	struct seal_file *f = &s->seals[s->nseals];
	struct ev_seal seal;
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_seal_from_json(doc, path, 0, &seal, &e) != EV_OK) {
		note(s->unreadable, path, e.text);
		return EV_OK;
	}
	memset(f, 0, sizeof *f);
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->path = copy(path);
	f->root = copy(seal.root);
	f->stamped = ev_timestamp_present(path);
	if (!(f->digests = malloc((seal.count + 1) * sizeof *f->digests)) || !f->path || !f->root) {
		free(f->path), free(f->root), free(f->digests);
		ev_seal_free(&seal);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	for (size_t i = 0; i < seal.count; i++)
		if (seal.members[i].type == EV_MEMBER_FILE && seal.members[i].size)
			ev_sha256_hex(seal.members[i].sha256, f->digests[f->ndigests++]);
	qsort(f->digests, f->ndigests, sizeof *f->digests, by_text);
	ev_seal_free(&seal);
	s->nseals++;
	return EV_OK;
}

/* One JSON file the walk met: a receipt or a seal is kept, anything else
 * passed by; one that is not a regular file is named, never opened. */
static ev_status read_file(void *ctx, const char *path, const struct stat *sb, struct ev_error *err)
{
	struct status *s = ctx;
	if (!S_ISREG(sb->st_mode)) {
		note(s->skipped, path, ev_input_kind(sb->st_mode));
		return EV_OK;
	}
	json_t *doc = NULL;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_json_load(path, NULL, 0, &doc, d, NULL, NULL, &e) != EV_OK) {
		note(s->unreadable, path, e.text);
		return EV_OK;
	}
	ev_sha256_hex(d, hex);
	const char *format = field(doc, "format") ?: "";
	ev_status st = EV_OK;
	if (strcmp(format, EV_RECEIPT_FORMAT) == 0) {
		struct ev_catalog_receipt_fields g;
		if ((st = ev_catalog_receipt_fields(doc, &g, err)) == EV_OK) {
			struct receipt_fields rf = {
				.kind = g.kind, .host = g.host, .result = g.result, .finished = g.finished,
				.comparable = g.comparable, .command = g.command, .seal = g.seal, .root = g.root,
				.inputs = g.inputs, .intact = g.intact, .from_archive = g.from_archive,
			};
			st = keep_receipt(s, path, hex, &rf, doc, err);
			ev_catalog_receipt_fields_free(&g);
		}
	} else if (strcmp(format, EV_SEAL_FORMAT) == 0) {
		st = keep_seal(s, path, doc, hex, err);
	}
	json_decref(doc);
	return st;
}

static const struct seal_file *seal_file_of(const struct status *s, const char *hex)
{
	for (size_t i = 0; i < s->nseals; i++)
		if (strcmp(s->seals[i].sha256, hex) == 0)
			return &s->seals[i];
	return NULL;
}

/* Does the seal hold a non-empty file with this digest? (An empty file's
 * digest is everyone's.) */
static int seal_holds(const struct seal_file *sf, const char *hex)
{
	return sf && ev_sha256_hex_valid(hex) && bsearch(hex, sf->digests, sf->ndigests, sizeof *sf->digests, by_text);
}

/* An audit belongs to a campaign when it names its SEAL.json, or reads a
 * (non-empty) file the seal holds. */
static int audit_of(const struct found *f, const char *seal_hex, const struct seal_file *sf)
{
	if (f->seal)
		return strcmp(f->seal, seal_hex) == 0;
	for (size_t i = 0; i < f->ninputs; i++)
		if (seal_holds(sf, f->inputs[i]))
			return 1;
	return 0;
}

static int later(const char *a, const char *b)
{
	return !b || (a && strcmp(a, b) > 0);
}

/* What prune would say of a campaign with copies on hosts. */
static const char *prune_verdict(const struct status *s, size_t hosts, int disagree)
{
	if (disagree)
		return "prune would refuse: the copies' receipts disagree";
	if ((long)hosts >= s->min_hosts)
		return "prune would hold";
	if (hosts == 0)
		return "prune would refuse: no host";
	return hosts == 1 ? "prune would refuse: one host" : "prune would refuse: too few hosts";
}

/* The campaign's "missing": each thing its evidence still lacks, in words. */
static void what_is_missing(const struct status *s, size_t hosts, int disagree, const json_t *sealed,
			    const json_t *audits, const json_t *edited, json_t *missing)
{
	char text[PATH_MAX + 256];
	if ((long)hosts < s->min_hosts) {
		snprintf(text, sizeof text, "a verified copy on %ld more host%s (prune needs %ld%s)", s->min_hosts - (long)hosts,
			 s->min_hosts - (long)hosts == 1 ? "" : "s", s->min_hosts, s->trust ? ", each signing with a trusted key" : "");
		json_array_append_new(missing, json_string(text));
	}
	if (disagree)
		json_array_append_new(missing, json_string("copies whose receipts agree (replicate compare names the differences)"));
	if (json_is_null(sealed))
		json_array_append_new(missing, json_string("the seal receipt (seal create's receipt.json)"));
	size_t k, passed = 0;
	json_t *a;
	json_array_foreach(audits, k, a)
		passed += strcmp(field(a, "result") ?: "", "pass") == 0 && json_is_true(json_object_get(a, "intact"));
	if (!json_array_size(audits))
		json_array_append_new(missing, json_string("an audit (audit journal, audit campaign)"));
	else if (passed < json_array_size(audits))
		json_array_append_new(missing, json_string("a pass from every audit (some failed or were edited)"));
	json_array_foreach(edited, k, a) {
		snprintf(text, sizeof text, "%s: edited after it was written (its comparable digest no longer matches)",
			 json_string_value(a));
		json_array_append_new(missing, json_string(text));
	}
}

/* The seal's trusted time, when a TSA timestamped any copy of this
 * SEAL.json: verified against --tsa-ca when given; null when none. */
static json_t *seal_stamp(const struct status *s, const char *seal_hex)
{
	json_t *stamp = json_null();
	const struct seal_file *stamped = NULL; /* any copy of this SEAL.json that a TSA timestamped */
	for (size_t i = 0; i < s->nseals && !stamped; i++)
		if (strcmp(s->seals[i].sha256, seal_hex) == 0 && s->seals[i].stamped)
			stamped = &s->seals[i];
	if (stamped) {
		const struct seal_file *tf = stamped;
		struct ev_timestamp_verdict tv;
		char why[1100];
		struct ev_error terr;
		ev_error_clear(&terr);
		stamp = json_pack("{s:s+}", "file", tf->path, ".tsr");
		if (!s->tsa_ca) {
			json_object_set_new(stamp, "verified", json_false());
		} else if (tf->not_here) {
			json_object_set_new(stamp, "verified", json_false());
			json_object_set_new(stamp, "problem", json_string(tf->not_here));
		} else if (ev_timestamp_check(tf->path, s->tsa_ca, &tv, why, sizeof why, &terr) == EV_OK) {
			json_object_set_new(stamp, "verified", json_true());
			json_object_set_new(stamp, "trusted_time", json_string(tv.gen_time));
			json_object_set_new(stamp, "tsa", json_string(tv.tsa));
		} else {
			json_object_set_new(stamp, "verified", json_false());
			json_object_set_new(stamp, "problem", json_string(why));
		}
	}
	return stamp;
}

/* One campaign: everything known of the seal seal_hex. candidates: the
 * receipts that may belong to it, in the walk's order (a JSON array of
 * their indexes), each judged here. */
static json_t *campaign_row(struct status *s, const char *seal_hex, const json_t *candidates)
{
	const struct seal_file *sf = seal_file_of(s, seal_hex);
	json_t *copies = json_object(), *failed = json_array(), *audits = json_array(), *cleanups = json_array();
	json_t *missing = json_array(), *sealed = json_null(), *edited = json_array(), *checks = json_array();
	json_t *captured = json_array();
	const char *root = sf ? sf->root : NULL, *agreed = NULL;
	int disagree = 0;
	size_t ci;
	json_t *cv;
	json_array_foreach(candidates, ci, cv) {
		struct found *f = &s->receipts[json_integer_value(cv)];
		const char *kind = f->kind ?: "";
		int mine = 0;
		const char *named = f->seal;
		if (strcmp(kind, "seal") == 0 || strcmp(kind, "replica") == 0 || strcmp(kind, "cleanup") == 0 ||
		    strcmp(kind, "verify") == 0)
			mine = named && strcmp(named, seal_hex) == 0;
		else if (strcmp(kind, "audit") == 0)
			mine = audit_of(f, seal_hex, sf);
		else if (strcmp(kind, "capture") == 0) /* sealed inside the campaign */
			mine = seal_holds(sf, f->sha256);
		if (!mine)
			continue;
		f->claimed = 1;
		if (!f->intact)
			json_array_append_new(edited, json_string(f->path));
		json_t *entry = json_pack("{s:s, s:o, s:s, s:s, s:s, s:s, s:b}", "receipt", f->path, "same_bytes_at",
					  f->also ? json_incref(f->also) : json_array(),
					  "command", f->command ?: "?", "host", f->host ?: "", "result", f->result ?: "", "finished",
					  f->finished ?: "", "intact", f->intact);
		if (s->trust)
			json_object_set_new(entry, "signed_by_trusted_key", json_boolean(f->trusted));
		if (strcmp(kind, "seal") == 0) {
			root = root ?: f->root;
			if (json_is_null(sealed) || later(f->finished, field(sealed, "finished")))
				json_decref(sealed), sealed = json_incref(entry);
		} else if (strcmp(kind, "replica") == 0) {
			int usable = f->intact && (!s->trust || f->trusted) && strcmp(f->result ?: "", "pass") == 0;
			if (s->trust && !f->trusted && f->intact && strcmp(f->result ?: "", "pass") == 0)
				s->untrusted++;
			/* with --trust a host is its key, as for prune: a name in a file is anyone's */
			const char *who = s->trust ? (f->trusted ? f->signer : NULL) : f->host;
			if (!usable || !who) {
				json_array_append(failed, entry);
			} else {
				const char *c = f->comparable;
				if (agreed && c && strcmp(agreed, c) != 0)
					disagree = 1;
				agreed = agreed ?: c;
				json_t *copy = json_object_get(copies, who);
				if (!copy) {
					copy = json_pack("{s:s, s:s, s:[]}", "host", f->host ?: "", "last_verified",
							 f->finished ?: "", "receipts");
					json_object_set_new(copies, who, copy);
				}
				if (later(f->finished, field(copy, "last_verified")))
					json_object_set_new(copy, "last_verified", json_string(f->finished));
				json_array_append_new(json_object_get(copy, "receipts"), json_string(f->path));
			}
		} else if (strcmp(kind, "cleanup") == 0) {
			json_array_append(cleanups, entry);
		} else if (strcmp(kind, "verify") == 0) {
			json_array_append(checks, entry);
		} else if (strcmp(kind, "capture") == 0) {
			json_array_append(captured, entry);
		} else {
			/* which host audited which copy, with which verdict and digest */
			const char *from = f->from_archive ? "archive" : "tree";
			const char *c = f->comparable;
			json_object_set_new(entry, "from", json_string(from));
			json_object_set_new(entry, "comparable", c ? json_string(c) : json_null());
			json_array_append(audits, entry);
		}
		json_decref(entry);
	}
	size_t hosts = json_object_size(copies);
	const char *prune = prune_verdict(s, hosts, disagree);
	what_is_missing(s, hosts, disagree, sealed, audits, edited, missing);
	json_decref(edited);
	json_t *copy_list = json_array();
	const char *key;
	json_t *v;
	json_object_foreach(copies, key, v)
		json_array_append_new(copy_list, json_pack("{s:s, s:O, s:O, s:O}", "key", key, "host", json_object_get(v, "host"),
							   "last_verified", json_object_get(v, "last_verified"),
							   "receipts", json_object_get(v, "receipts")));
	json_decref(copies);
	json_t *stamp = seal_stamp(s, seal_hex);
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:s, s:I, s:I}, s:o, s:s*, s:o}",
			 "seal_sha256", seal_hex, "campaign", root ?: "", "captured", captured, "sealed", sealed,
			 "seal_checks", checks, "copies", copy_list, "failed_copies", failed, "audits", audits, "cleanups",
			 cleanups, "prune", "would_hold", !disagree && (long)hosts >= s->min_hosts,
			 "verdict", prune, "hosts", (json_int_t)hosts, "min_hosts", (json_int_t)s->min_hosts, "missing",
			 missing, "seal", sf ? sf->path : NULL, "seal_timestamp", stamp);
}

static void add_candidate(json_t *by_seal, const char *seal_hex, size_t i)
{
	json_t *list = json_object_get(by_seal, seal_hex);
	if (!list)
		json_object_set_new(by_seal, seal_hex, list = json_array());
	size_t n = json_array_size(list);
	if (!n || json_integer_value(json_array_get(list, n - 1)) != (json_int_t)i)
		json_array_append_new(list, json_integer((json_int_t)i));
}

/* Each seal's candidate receipts, found once for all seals (a lab's
 * catalog holds a hundred thousand receipts and a thousand seals): a
 * receipt naming a seal, an audit reading a member's bytes, a capture
 * receipt a seal holds. */
static json_t *candidates_by_seal(const struct status *s)
{
	json_t *by_seal = json_object(), *holders = json_object(); /* a member's digest -> the seals holding it */
	for (size_t k = 0; k < s->nseals; k++) {
		if (seal_file_of(s, s->seals[k].sha256) != &s->seals[k]) /* the first file of those bytes speaks */
			continue;
		for (size_t d = 0; d < s->seals[k].ndigests; d++) {
			json_t *list = json_object_get(holders, s->seals[k].digests[d]);
			if (!list)
				json_object_set_new(holders, s->seals[k].digests[d], list = json_array());
			json_array_append_new(list, json_string(s->seals[k].sha256));
		}
	}
	for (size_t i = 0; i < s->nreceipts; i++) {
		const struct found *f = &s->receipts[i];
		const char *kind = f->kind ?: "";
		size_t k;
		json_t *h;
		if (f->seal)
			add_candidate(by_seal, f->seal, i);
		else if (strcmp(kind, "audit") == 0)
			for (size_t d = 0; d < f->ninputs; d++)
				json_array_foreach(json_object_get(holders, f->inputs[d]), k, h)
					add_candidate(by_seal, json_string_value(h), i);
		if (strcmp(kind, "capture") == 0)
			json_array_foreach(json_object_get(holders, f->sha256), k, h)
				add_candidate(by_seal, json_string_value(h), i);
	}
	json_decref(holders);
	return by_seal;
}

/* Every seal any receipt or SEAL.json names, in the order first found;
 * only is one of them, or NULL for all. */
static json_t *campaigns(struct status *s, const char *only)
{
	json_t *seen = json_object(), *rows = json_array(), *by_seal = candidates_by_seal(s), *none = json_array();
	for (size_t i = 0; i < s->nseals; i++)
		json_object_set_new(seen, s->seals[i].sha256, json_true());
	for (size_t i = 0; i < s->nreceipts; i++) {
		const struct found *f = &s->receipts[i];
		const char *kind = f->kind ?: "";
		if (f->seal && (strcmp(kind, "seal") == 0 || strcmp(kind, "replica") == 0 || strcmp(kind, "cleanup") == 0) &&
		    !json_object_get(seen, f->seal))
			json_object_set_new(seen, f->seal, json_true());
	}
	const char *hex;
	json_t *v;
	json_object_foreach(seen, hex, v)
		if (!only || strcmp(only, hex) == 0) {
			const json_t *list = json_object_get(by_seal, hex);
			json_array_append_new(rows, campaign_row(s, hex, list ? list : none));
		}
	json_decref(seen);
	json_decref(by_seal);
	json_decref(none);
	return rows;
}

/* Whether a path a catalog row names may be opened here: the catalog is
 * a stranger's input (another host writes a shared one), so only an
 * absolute, clean path of a *.json file, walked from / without a link on
 * the way (lib/core/input), the kind of path replicate index keeps. */
static int openable(const char *path, char *why, size_t cap)
{
	size_t n = strlen(path);
	struct ev_error e;
	ev_error_clear(&e);
	if (path[0] != '/' || n < 6 || strcmp(path + n - 5, ".json") != 0) {
		snprintf(why, cap, "not opened: not an absolute path of a .json file");
		return 0;
	}
	if (ev_input_check_beneath("/", path + 1, "the catalog's row", NULL, &e) != EV_OK) {
		snprintf(why, cap, "not opened: %s", e.text);
		return 0;
	}
	return 1;
}

/* The catalog's rows, gathered as the walk gathers files. */
struct row {
	char *block; /* one allocation: every string below and rf's */
	const char *host, *path, *sha256, *kind, *why, *body, *doubt;
	struct receipt_fields rf;
	int timestamp, here;
};

struct rows {
	struct row *list;
	size_t n, cap;
	const char *here;
	char (*dirs)[PATH_MAX]; /* absolute; NULL: every row */
	size_t ndirs;
};

static size_t dir_of(const struct rows *rs, const struct row *r)
{
	for (size_t i = 0; i < rs->ndirs; i++) {
		size_t len = strlen(rs->dirs[i]);
		if (r->here && strncmp(r->path, rs->dirs[i], len) == 0 && (r->path[len] == '/' || strcmp(rs->dirs[i], "/") == 0))
			return i;
	}
	return (size_t)-1;
}

static ev_status keep_row(void *ctx, const struct ev_catalog_file *f, struct ev_error *err)
{
	struct rows *rs = ctx;
	struct row r = {.here = strcmp(f->host, rs->here) == 0};
	if (rs->dirs && (!r.here || dir_of(rs, &(struct row){.path = f->path, .here = 1}) == (size_t)-1))
		return EV_OK;
	if (ev_grow_array(&rs->list, &rs->cap, rs->n + 1, sizeof *rs->list) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *from[] = {f->host, f->path, f->sha256, f->kind, f->why, f->body, f->doubt,
			      f->receipt_kind, f->receipt_host, f->result, f->finished, f->comparable,
			      f->command, f->seal, f->root, f->inputs};
	const char **const to[] = {&r.host, &r.path, &r.sha256, &r.kind, &r.why, &r.body, &r.doubt,
				   &r.rf.kind, &r.rf.host, &r.rf.result, &r.rf.finished, &r.rf.comparable,
				   &r.rf.command, &r.rf.seal, &r.rf.root, &r.rf.inputs};
	enum { NFROM = sizeof from / sizeof *from };
	if (!f->host || !f->path || !f->kind || !(r.block = malloc(ev_strings_size(from, NFROM))))
		return ev_error_set(err, EV_ERROR, "out of memory");
	ev_strings_copy(r.block, from, to, NFROM);
	r.timestamp = f->timestamp;
	r.rf.intact = f->intact;
	r.rf.from_archive = f->from_archive;
	rs->list[rs->n++] = r;
	return EV_OK;
}

/* The walk's order: by directory given, then this host before others, by
 * host, then by path as the walk meets it. */
static int row_order(const void *a, const void *b, void *ctx)
{
	const struct rows *sorting = ctx;
	const struct row *x = a, *y = b;
	if (sorting->dirs) {
		size_t dx = dir_of(sorting, x), dy = dir_of(sorting, y);
		if (dx != dy)
			return dx < dy ? -1 : 1;
	}
	if (x->here != y->here)
		return x->here ? -1 : 1;
	int h = strcmp(x->host, y->host);
	return h ? h : ev_jsonwalk_order(x->path, y->path);
}

static ev_status catalog_seal(struct status *s, struct ev_catalog *cat, const struct row *r, const char *shown,
			      struct ev_error *err)
{
	ev_status st = grow_seals(s, err);
	if (st != EV_OK)
		return st;
	struct seal_file *f = &s->seals[s->nseals];
	memset(f, 0, sizeof *f);
	char root[256], doubt[1024];
	int found;
	char (*digests)[65];
	st = ev_catalog_seal(cat, r->sha256, root, sizeof root, &digests, &f->ndigests, &found, doubt, sizeof doubt, err);
	if (st != EV_OK)
		return st;
	if (!found) { /* a row without its seal: the catalog is not whole */
		note(s->unreadable, shown, "the catalog holds this file but not its seal's members; index it again");
		free(digests);
		return EV_OK;
	}
	if (doubt[0]) /* its rows are not what its document says: named; the document speaks */
		note(s->not_believed, shown, doubt);
	if (!digests && !root[0]) /* nor is there a document to take them from */
		return EV_OK;
	f->digests = digests;
	snprintf(f->sha256, sizeof f->sha256, "%s", r->sha256);
	f->path = copy(shown);
	f->root = copy(root);
	f->stamped = r->timestamp;
	char why[EV_ERROR_TEXT_MAX + 16];
	if (!r->here)
		f->not_here = "indexed on another host; check it there";
	else if (r->timestamp && !openable(r->path, why, sizeof why))
		f->not_here = "its path in the catalog is not opened here (not clean, or a link on the way)";
	s->nseals++;
	return f->path && f->root ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
}

/* Every file of the catalog (or under dirs, on this host; or of one
 * campaign) into s, in the walk's order; rechecked, when asked, against
 * the files' bytes now. */
static ev_status gather_catalog(struct status *s, struct ev_replicate_status *out, struct ev_error *err)
{
	struct ev_catalog *cat = NULL;
	struct rows rs = {0};
	ev_status st = ev_catalog_open(out->catalog, &cat, err);
	if (st != EV_OK)
		return st;
	rs.here = ev_catalog_host(cat);
	if (out->ndirs && !(rs.dirs = calloc(out->ndirs, sizeof *rs.dirs)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < out->ndirs && st == EV_OK; i++) {
		rs.ndirs++;
		if (!realpath(out->dirs[i], rs.dirs[i]))
			st = ev_error_errno(err, errno, "%s: cannot read it", out->dirs[i]);
	}
	if (st == EV_OK)
		st = ev_catalog_files(cat, out->seal_hex, s->trust ? EV_CATALOG_BODIES : 0, keep_row, &rs, err);
	if (st == EV_OK && rs.n > 1) {
		qsort_r(rs.list, rs.n, sizeof *rs.list, row_order, &rs);
	}
	json_t *changed = json_array(), *elsewhere = json_array();
	size_t rechecked = 0;
	for (size_t i = 0; i < rs.n && st == EV_OK; i++) {
		const struct row *r = &rs.list[i];
		char shown[PATH_MAX + 300];
		snprintf(shown, sizeof shown, "%s%s%s", r->here ? "" : r->host, r->here ? "" : ":", r->path);
		if (out->recheck && r->sha256 && !r->here) {
			json_array_append_new(elsewhere, json_string(shown));
		} else if (out->recheck && r->sha256) { /* the file's bytes now, against the row */
			uint8_t d[EV_SHA256_LEN];
			char now[EV_ERROR_TEXT_MAX + 16] = "";
			struct ev_error e;
			ev_error_clear(&e);
			struct stat sb;
			rechecked++;
			if (!openable(r->path, now, sizeof now))
				;
			else if (lstat(r->path, &sb) != 0)
				snprintf(now, sizeof now, "gone");
			else if (!S_ISREG(sb.st_mode))
				snprintf(now, sizeof now, "%s", ev_input_kind(sb.st_mode));
			else if (ev_sha256_path(r->path, d, NULL, &e) == EV_OK)
				ev_sha256_hex(d, now);
			else
				snprintf(now, sizeof now, "unreadable");
			if (strcmp(now, r->sha256) != 0)
				json_array_append_new(changed, json_pack("{s:s, s:s, s:s}", "path", shown, "indexed",
									 r->sha256, "now", now));
		}
		if ((strcmp(r->kind, "receipt") == 0 || strcmp(r->kind, "seal") == 0) &&
		    (!r->sha256 || !ev_sha256_hex_valid(r->sha256))) { /* a catalog is a stranger's input too */
			note(s->unreadable, shown, "the catalog's row for it has no valid SHA-256; index it again");
		} else if (strcmp(r->kind, "unreadable") == 0 || strcmp(r->kind, "skipped") == 0) {
			note(strcmp(r->kind, "skipped") == 0 ? s->skipped : s->unreadable, shown, r->why ?: "");
		} else if (strcmp(r->kind, "seal") == 0) {
			st = catalog_seal(s, cat, r, shown, err);
		} else if (strcmp(r->kind, "receipt") == 0 && r->doubt && !r->rf.kind) { /* no document either */
			note(s->not_believed, shown, r->doubt);
		} else if (strcmp(r->kind, "receipt") == 0 && r->rf.kind) {
			if (r->doubt) /* the row named; the document's fields judged */
				note(s->not_believed, shown, r->doubt);
			json_t *doc = NULL;
			if (s->trust && r->body)
				doc = json_loads(r->body, 0, NULL);
			st = keep_receipt(s, shown, r->sha256, &r->rf, doc, err);
			json_decref(doc);
		}
	}
	if (out->recheck)
		out->recheck_doc = json_pack("{s:I, s:o, s:o}", "files", (json_int_t)rechecked, "changed", changed,
					     "elsewhere", elsewhere);
	else
		json_decref(changed), json_decref(elsewhere);
	for (size_t i = 0; i < rs.n; i++) {
		struct row *r = &rs.list[i];
		free(r->block);
	}
	free(rs.list);
	free(rs.dirs);
	if (st == EV_ERROR && ev_catalog_damaged(cat)) /* what the catalog says cannot be read: a finding */
		st = EV_MISMATCH;
	ev_catalog_close(cat);
	return st;
}

static ev_status gather_files(struct status *s, struct ev_replicate_status *out, struct ev_error *err)
{
	ev_status st = EV_OK;
	for (size_t i = 0; i < out->ndirs && st == EV_OK; i++) {
		struct stat sb;
		if (stat(out->dirs[i], &sb) != 0)
			st = ev_error_errno(err, errno, "%s: cannot read it", out->dirs[i]);
		else if (!S_ISDIR(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals",
					  out->dirs[i], ev_input_kind(sb.st_mode));
		else
			st = ev_jsonwalk(out->dirs[i], read_file, s, err);
	}
	return st;
}

ev_status ev_replicate_status(struct ev_replicate_status *out, struct ev_error *err)
{
	struct status s = {.min_hosts = out->min_hosts ? out->min_hosts : 2, .tsa_ca = out->tsa_ca};
	ev_status st = EV_OK;
	out->doc = NULL;
	out->recheck_doc = NULL;
	s.unreadable = json_array();
	s.skipped = json_array();
	s.not_believed = json_array();
	s.by_sha256 = json_object();
	if (out->ntrust && !(s.trust = ev_trust_new()))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < out->ntrust && st == EV_OK; i++)
		st = ev_trust_add_file(s.trust, out->trust_files[i], err);
	for (size_t i = 0; i < out->ndirs && st == EV_OK && out->catalog; i++) {
		struct stat sb;
		if (stat(out->dirs[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals",
					  out->dirs[i], ev_input_kind(sb.st_mode));
	}
	if (st == EV_OK)
		st = out->catalog ? gather_catalog(&s, out, err) : gather_files(&s, out, err);
	if (st == EV_OK) {
		json_t *rows = campaigns(&s, out->seal_hex), *unmatched = json_array();
		if (out->seal_hex && !json_array_size(rows))
			st = ev_error_set(err, EV_USAGE, "seal %s: no SEAL.json and no receipt naming it found%s%s",
					  out->seal_hex, out->catalog ? " in catalog " : "",
					  out->catalog ? out->catalog : "");
		for (size_t i = 0; i < s.nreceipts && !out->seal_hex; i++)
			if (!s.receipts[i].claimed)
				json_array_append_new(unmatched, json_string(s.receipts[i].path));
		if (out->seal_hex) { /* one campaign: what else lies about is not its business */
			json_array_clear(s.unreadable);
			json_array_clear(s.skipped);
		}
		if (st == EV_OK)
			out->doc = json_pack("{s:s, s:o, s:o, s:O, s:O}", "format", STATUS_FORMAT, "campaigns", rows,
					     "unmatched", unmatched, "unreadable", s.unreadable, "skipped", s.skipped);
		else
			json_decref(rows), json_decref(unmatched);
		/* only a catalog has rows to disbelieve; a clean one prints the walk's bytes */
		if (out->doc && json_array_size(s.not_believed))
			json_object_set(out->doc, "not_believed", s.not_believed);
		out->not_believed = json_array_size(s.not_believed);
		if (out->doc && s.trust)
			json_object_set_new(out->doc, "untrusted_left_out", json_integer((json_int_t)s.untrusted));
	}
	for (size_t i = 0; i < s.nreceipts; i++) {
		struct found *f = &s.receipts[i];
		free(f->block);
		json_decref(f->also);
	}
	free(s.receipts);
	for (size_t i = 0; i < s.nseals; i++)
		free(s.seals[i].path), free(s.seals[i].root), free(s.seals[i].digests);
	free(s.seals);
	json_decref(s.unreadable);
	json_decref(s.skipped);
	json_decref(s.not_believed);
	json_decref(s.by_sha256);
	ev_trust_free(s.trust);
	return st;
}

void ev_replicate_status_free(struct ev_replicate_status *s)
{
	json_decref(s->doc);
	json_decref(s->recheck_doc);
	s->doc = NULL;
	s->recheck_doc = NULL;
}
