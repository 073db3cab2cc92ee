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
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate_status.h"
#include "lib/usecase/timestamp_file.h"

#define MAX_DEPTH 16
#define STATUS_FORMAT "evidence-status/1"

struct found {
	char path[PATH_MAX];
	json_t *doc;
	char sha256[EV_SHA256_HEX_LEN + 1];
	const char *kind, *host, *result, *finished;
	int intact, trusted; /* trusted: signed by a key of --trust */
	char signer[EV_SHA256_HEX_LEN + 1];
	int claimed;         /* tied to some campaign */
	json_t *also;        /* other paths of the same bytes (a receipt fetched, kept twice) */
};

struct seal_file {
	char path[PATH_MAX];
	char sha256[EV_SHA256_HEX_LEN + 1];
	struct ev_seal seal;
	char (*digests)[EV_SHA256_HEX_LEN + 1]; /* its non-empty files', sorted */
	size_t ndigests;
};

struct status {
	struct found *receipts;
	size_t nreceipts, cap;
	struct seal_file *seals;
	size_t nseals, seals_cap;
	json_t *unreadable, *skipped;
	struct ev_trust *trust;
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

static ev_status keep_receipt(struct status *s, const char *path, json_t *doc, const char *hex, struct ev_error *err)
{
	for (size_t i = 0; i < s->nreceipts; i++)
		if (strcmp(s->receipts[i].sha256, hex) == 0) {
			json_array_append_new(s->receipts[i].also, json_string(path));
			json_decref(doc);
			return EV_OK;
		}
	if (s->nreceipts == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct found *r = realloc(s->receipts, cap * sizeof *r);
		if (!r)
			return ev_error_set(err, EV_ERROR, "out of memory");
		s->receipts = r;
		s->cap = cap;
	}
	struct found *f = &s->receipts[s->nreceipts];
	memset(f, 0, sizeof *f);
	snprintf(f->path, sizeof f->path, "%s", path);
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->doc = doc;
	f->also = json_array();
	f->kind = ev_receipt_kind(doc);
	f->host = ev_receipt_host(doc);
	f->result = ev_receipt_result(doc);
	f->finished = ev_receipt_finished(doc);
	struct ev_error e;
	ev_error_clear(&e);
	f->intact = ev_receipt_comparable_holds(doc, &e) == 1;
	if (s->trust) {
		char why[256];
		f->trusted = ev_receipt_check_signature(doc, s->trust, f->signer, why, sizeof why, &e) == EV_OK;
	}
	s->nreceipts++;
	return EV_OK;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

static ev_status keep_seal(struct status *s, const char *path, json_t *doc, const char *hex, struct ev_error *err)
{
	if (s->nseals == s->seals_cap) {
		size_t cap = s->seals_cap ? 2 * s->seals_cap : 8;
		struct seal_file *r = realloc(s->seals, cap * sizeof *r);
		if (!r)
			return ev_error_set(err, EV_ERROR, "out of memory");
		s->seals = r;
		s->seals_cap = cap;
	}
	struct seal_file *f = &s->seals[s->nseals];
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_seal_from_json(doc, path, 0, &f->seal, &e) != EV_OK) {
		note(s->unreadable, path, e.text);
		return EV_OK;
	}
	snprintf(f->path, sizeof f->path, "%s", path);
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->ndigests = 0;
	if (!(f->digests = malloc((f->seal.count + 1) * sizeof *f->digests))) {
		ev_seal_free(&f->seal);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	for (size_t i = 0; i < f->seal.count; i++)
		if (f->seal.members[i].type == EV_MEMBER_FILE && f->seal.members[i].size)
			ev_sha256_hex(f->seal.members[i].sha256, f->digests[f->ndigests++]);
	qsort(f->digests, f->ndigests, sizeof *f->digests, by_text);
	s->nseals++;
	return EV_OK;
}

/* One JSON file: a receipt or a seal is kept, anything else passed by. */
static ev_status read_file(struct status *s, const char *path, struct ev_error *err)
{
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
		return keep_receipt(s, path, doc, hex, err); /* it owns doc */
	} else if (strcmp(format, EV_SEAL_FORMAT) == 0) {
		st = keep_seal(s, path, doc, hex, err);
	}
	json_decref(doc);
	return st;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_temporary(const char *name)
{
	return name[0] == '.' && strstr(name, ".tmp-");
}

/* Every *.json under dir, never following a link; a FIFO, a device or a
 * socket named so is passed by and named, never opened. */
static ev_status walk(struct status *s, const char *dir, int depth, struct ev_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return ev_error_errno(err, errno, "%s: cannot read the directory", dir);
	struct dirent *de;
	ev_status st = EV_OK;
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || is_temporary(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **grown = realloc(names, cap * sizeof *names);
			if (!grown) {
				st = ev_error_set(err, EV_ERROR, "out of memory");
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(de->d_name))) {
			st = ev_error_set(err, EV_ERROR, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	/* in name order, so that the output is the same on every run */
	if (n > 1) /* an empty directory has no list at all */
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n && st == EV_OK; i++) {
		char path[PATH_MAX];
		struct stat sb;
		if (ev_path_join(path, sizeof path, dir, names[i]) != 0 || lstat(path, &sb) != 0)
			continue;
		size_t len = strlen(names[i]);
		if (S_ISDIR(sb.st_mode)) {
			if (depth < MAX_DEPTH)
				st = walk(s, path, depth + 1, err);
		} else if (len > 5 && strcmp(names[i] + len - 5, ".json") == 0) {
			if (S_ISREG(sb.st_mode))
				st = read_file(s, path, err);
			else if (!S_ISLNK(sb.st_mode))
				note(s->skipped, path, ev_input_kind(sb.st_mode));
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return st;
}

/* The command a receipt records: "audit journal", "replicate prune". */
static void command_of(const json_t *doc, char *out, size_t cap)
{
	const json_t *argv = json_object_get(json_object_get(doc, "invocation"), "argv");
	const char *tool = ev_receipt_tool_name(doc) ?: "?";
	const char *sub = json_string_value(json_array_get(argv, 1));
	snprintf(out, cap, "%s%s%s", tool, sub ? " " : "", sub ?: "");
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
	const json_t *inputs = ev_receipt_inputs(f->doc);
	const char *named = ev_receipt_named_sha256(inputs, EV_SEAL_FILENAME);
	if (named)
		return strcmp(named, seal_hex) == 0;
	size_t i;
	json_t *in;
	json_array_foreach(inputs, i, in)
		if (field(in, "sha256") && seal_holds(sf, field(in, "sha256")))
			return 1;
	return 0;
}

static int later(const char *a, const char *b)
{
	return !b || (a && strcmp(a, b) > 0);
}

/* One campaign: everything known of the seal seal_hex. */
static json_t *campaign_row(struct status *s, const char *seal_hex)
{
	const struct seal_file *sf = seal_file_of(s, seal_hex);
	json_t *copies = json_object(), *failed = json_array(), *audits = json_array(), *cleanups = json_array();
	json_t *missing = json_array(), *sealed = json_null(), *edited = json_array(), *checks = json_array();
	json_t *captured = json_array();
	const char *root = sf ? sf->seal.root : NULL, *agreed = NULL;
	int disagree = 0;
	char text[PATH_MAX + 256], command[128];
	for (size_t i = 0; i < s->nreceipts; i++) {
		struct found *f = &s->receipts[i];
		const char *kind = f->kind ?: "";
		int mine = 0;
		const char *named = ev_receipt_named_sha256(strcmp(kind, "seal") == 0 ? ev_receipt_outputs(f->doc)
										       : ev_receipt_inputs(f->doc),
							    EV_SEAL_FILENAME);
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
		command_of(f->doc, command, sizeof command);
		json_t *entry = json_pack("{s:s, s:O, s:s, s:s, s:s, s:s, s:b}", "receipt", f->path, "same_bytes_at", f->also,
					  "command", command, "host", f->host ?: "", "result", f->result ?: "", "finished",
					  f->finished ?: "", "intact", f->intact);
		if (s->trust)
			json_object_set_new(entry, "signed_by_trusted_key", json_boolean(f->trusted));
		if (strcmp(kind, "seal") == 0) {
			const char *r = json_string_value(ev_receipt_fact(f->doc, "root"));
			root = root ?: r;
			if (json_is_null(sealed) || later(f->finished, field(sealed, "finished")))
				json_decref(sealed), sealed = json_incref(entry);
		} else if (strcmp(kind, "replica") == 0) {
			int usable = f->intact && (!s->trust || f->trusted) && strcmp(f->result ?: "", "pass") == 0;
			/* with --trust a host is its key, as for prune: a name in a file is anyone's */
			const char *who = s->trust ? (f->trusted ? f->signer : NULL) : f->host;
			if (!usable || !who) {
				json_array_append(failed, entry);
			} else {
				const char *c = ev_receipt_comparable_digest(f->doc);
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
			const char *from = ev_receipt_named_sha256(ev_receipt_inputs(f->doc), "archive") ? "archive" : "tree";
			const char *c = ev_receipt_comparable_digest(f->doc);
			json_object_set_new(entry, "from", json_string(from));
			json_object_set_new(entry, "comparable", c ? json_string(c) : json_null());
			json_array_append(audits, entry);
		}
		json_decref(entry);
	}
	size_t hosts = json_object_size(copies);
	const char *prune;
	if (disagree)
		prune = "prune would refuse: the copies' receipts disagree";
	else if ((long)hosts >= s->min_hosts)
		prune = "prune would hold";
	else if (hosts == 0)
		prune = "prune would refuse: no host";
	else if (hosts == 1)
		prune = "prune would refuse: one host";
	else
		prune = "prune would refuse: too few hosts";
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
	json_decref(edited);
	json_t *copy_list = json_array();
	const char *key;
	json_t *v;
	json_object_foreach(copies, key, v)
		json_array_append_new(copy_list, json_pack("{s:s, s:O, s:O, s:O}", "key", key, "host", json_object_get(v, "host"),
							   "last_verified", json_object_get(v, "last_verified"),
							   "receipts", json_object_get(v, "receipts")));
	json_decref(copies);
	json_t *stamp = json_null();
	const struct seal_file *stamped = NULL; /* any copy of this SEAL.json that a TSA timestamped */
	for (size_t i = 0; i < s->nseals && !stamped; i++)
		if (strcmp(s->seals[i].sha256, seal_hex) == 0 && ev_timestamp_present(s->seals[i].path))
			stamped = &s->seals[i];
	if (stamped) { /* the seal's trusted time, when a TSA gave one */
		const struct seal_file *tf = stamped;
		struct ev_timestamp_verdict tv;
		char why[1100];
		struct ev_error terr;
		ev_error_clear(&terr);
		stamp = json_pack("{s:s+}", "file", tf->path, ".tsr");
		if (!s->tsa_ca) {
			json_object_set_new(stamp, "verified", json_false());
		} else if (ev_timestamp_check(tf->path, s->tsa_ca, &tv, why, sizeof why, &terr) == EV_OK) {
			json_object_set_new(stamp, "verified", json_true());
			json_object_set_new(stamp, "trusted_time", json_string(tv.gen_time));
			json_object_set_new(stamp, "tsa", json_string(tv.tsa));
		} else {
			json_object_set_new(stamp, "verified", json_false());
			json_object_set_new(stamp, "problem", json_string(why));
		}
	}
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:s, s:I, s:I}, s:o, s:s*, s:o}",
			 "seal_sha256", seal_hex, "campaign", root ?: "", "captured", captured, "sealed", sealed,
			 "seal_checks", checks, "copies", copy_list, "failed_copies", failed, "audits", audits, "cleanups",
			 cleanups, "prune", "would_hold", !disagree && (long)hosts >= s->min_hosts,
			 "verdict", prune, "hosts", (json_int_t)hosts, "min_hosts", (json_int_t)s->min_hosts, "missing",
			 missing, "seal", sf ? sf->path : NULL, "seal_timestamp", stamp);
}

/* Every seal any receipt or SEAL.json names, in the order first found. */
static json_t *campaigns(struct status *s)
{
	json_t *seen = json_object(), *rows = json_array();
	for (size_t i = 0; i < s->nseals; i++)
		json_object_set_new(seen, s->seals[i].sha256, json_true());
	for (size_t i = 0; i < s->nreceipts; i++) {
		const struct found *f = &s->receipts[i];
		const char *hex = NULL;
		if (strcmp(f->kind ?: "", "seal") == 0)
			hex = ev_receipt_output_sha256(f->doc, EV_SEAL_FILENAME);
		else if (strcmp(f->kind ?: "", "replica") == 0 || strcmp(f->kind ?: "", "cleanup") == 0)
			hex = ev_receipt_input_sha256(f->doc, EV_SEAL_FILENAME);
		if (hex && !json_object_get(seen, hex))
			json_object_set_new(seen, hex, json_true());
	}
	const char *hex;
	json_t *v;
	json_object_foreach(seen, hex, v)
		json_array_append_new(rows, campaign_row(s, hex));
	json_decref(seen);
	return rows;
}

ev_status ev_replicate_status(struct ev_replicate_status *out, struct ev_error *err)
{
	struct status s = {.min_hosts = out->min_hosts ? out->min_hosts : 2, .tsa_ca = out->tsa_ca};
	ev_status st = EV_OK;
	out->doc = NULL;
	s.unreadable = json_array();
	s.skipped = json_array();
	if (out->ntrust && !(s.trust = ev_trust_new()))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < out->ntrust && st == EV_OK; i++)
		st = ev_trust_add_file(s.trust, out->trust_files[i], err);
	for (size_t i = 0; i < out->ndirs && st == EV_OK; i++) {
		struct stat sb;
		if (stat(out->dirs[i], &sb) != 0)
			st = ev_error_errno(err, errno, "%s: cannot read it", out->dirs[i]);
		else if (!S_ISDIR(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals",
					  out->dirs[i], ev_input_kind(sb.st_mode));
		else
			st = walk(&s, out->dirs[i], 0, err);
	}
	if (st == EV_OK) {
		json_t *rows = campaigns(&s), *unmatched = json_array();
		for (size_t i = 0; i < s.nreceipts; i++)
			if (!s.receipts[i].claimed)
				json_array_append_new(unmatched, json_string(s.receipts[i].path));
		out->doc = json_pack("{s:s, s:o, s:o, s:O, s:O}", "format", STATUS_FORMAT, "campaigns", rows, "unmatched",
				     unmatched, "unreadable", s.unreadable, "skipped", s.skipped);
	}
	for (size_t i = 0; i < s.nreceipts; i++) {
		json_decref(s.receipts[i].doc);
		json_decref(s.receipts[i].also);
	}
	free(s.receipts);
	for (size_t i = 0; i < s.nseals; i++) {
		ev_seal_free(&s.seals[i].seal);
		free(s.seals[i].digests);
	}
	free(s.seals);
	json_decref(s.unreadable);
	json_decref(s.skipped);
	ev_trust_free(s.trust);
	return st;
}

void ev_replicate_status_free(struct ev_replicate_status *s)
{
	json_decref(s->doc);
	s->doc = NULL;
}
