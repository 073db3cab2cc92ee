/* SPDX-License-Identifier: Apache-2.0 */
/* status_judge: each sealed campaign's row of replicate status, judged
 * from the receipts and seals gathered (replicate_status_parts.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/usecase/replicate/replicate_status_parts.h"
#include "lib/core/duration.h"
#include "lib/receipt/timestamp_beside.h"

/* Seals by their digest, then by the order found: the first file of
 * some bytes is the first of its run (a lab's catalog holds ten thousand
 * seals; a scan per campaign was O(S^2)). */
static int by_digest_then_place(const void *a, const void *b)
{
	const struct seal_place *x = a, *y = b;
	int c = strcmp(x->sha256, y->sha256);
	return c ? c : (x->place > y->place) - (x->place < y->place);
}

/* The seals' order by digest, for seal_file_of and seal_copies (NULL when
 * out of memory: they scan). */
static struct seal_place *seal_order(const struct status *s)
{
	struct seal_place *order = malloc((s->nseals ? s->nseals : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < s->nseals; i++)
		order[i] = (struct seal_place){s->seals[i].sha256, i};
	qsort(order, s->nseals, sizeof *order, by_digest_then_place);
	return order;
}

/* Where in s->by_digest the seals of hex begin, and how many there are. */
static size_t seal_copies(const struct status *s, const char *hex, size_t *first)
{
	size_t lo = 0, hi = s->nseals;
	if (!s->by_digest) { /* no order: a scan, each copy counted */
		size_t n = 0;
		for (size_t i = 0; i < s->nseals; i++)
			n += strcmp(s->seals[i].sha256, hex) == 0;
		*first = 0;
		return n;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->by_digest[mid].sha256, hex) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < s->nseals && strcmp(s->by_digest[end].sha256, hex) == 0)
		end++;
	*first = lo;
	return end - lo;
}

/* The k-th file (in the order found) of the SEAL.json bytes hex. */
static const struct seal_file *seal_copy(const struct status *s, const char *hex, size_t first, size_t k)
{
	if (s->by_digest)
		return &s->seals[s->by_digest[first + k].place];
	for (size_t i = 0; i < s->nseals; i++)
		if (strcmp(s->seals[i].sha256, hex) == 0 && k-- == 0)
			return &s->seals[i];
	return NULL;
}

static const struct seal_file *seal_file_of(const struct status *s, const char *hex)
{
	size_t first;
	return seal_copies(s, hex, &first) ? seal_copy(s, hex, first, 0) : NULL;
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

/* What prune would say of a campaign with copies on hosts (and stale
 * ones, verified too long ago, besides). */
static const char *prune_verdict(const struct status *s, size_t hosts, size_t stale, int disagree)
{
	if (disagree)
		return "prune would refuse: the copies' receipts disagree";
	if ((long)hosts >= s->min_hosts)
		return "prune would hold";
	if (stale)
		return "prune would refuse: too few copies verified within --max-age";
	if (hosts == 0)
		return "prune would refuse: no host";
	return hosts == 1 ? "prune would refuse: one host" : "prune would refuse: too few hosts";
}

/* Does an entry (a copy's or an audit's, with "fresh" when there is a
 * maximum age) count now? */
static int fresh(const json_t *entry)
{
	const json_t *f = json_object_get(entry, "fresh");
	return !f || json_is_true(f);
}

/* With a maximum age: how old the verification at finished is now, into
 * entry: "age" in words, "age_seconds" (null: no time a clock can read),
 * and "fresh". (Without one, nothing: two inventories of the same files
 * are the same bytes whenever they are made.) */
static void set_age(const struct status *s, json_t *entry, const char *finished)
{
	if (!s->max_age)
		return;
	long long age;
	char words[160];
	enum ev_age verdict = ev_age_judge(finished, s->now, s->max_age, &age);
	ev_age_describe(verdict, age, finished, words, sizeof words);
	json_object_set_new(entry, "age", json_string(words));
	json_object_set_new(entry, "age_seconds", verdict == EV_AGE_UNKNOWN ? json_null() : json_integer((json_int_t)age));
	json_object_set_new(entry, "fresh", json_boolean(verdict == EV_AGE_FRESH));
}

/* The campaign's "missing": each thing its evidence still lacks, in words. */
static void what_is_missing(const struct status *s, size_t hosts, int disagree, const json_t *sealed,
			    const json_t *copies, const json_t *audits, const json_t *edited, json_t *missing)
{
	char text[PATH_MAX + 256], limit[48];
	size_t k;
	json_t *a;
	ev_duration_format(s->max_age, limit, sizeof limit);
	if ((long)hosts < s->min_hosts) {
		snprintf(text, sizeof text, "a verified copy on %ld more host%s (prune needs %ld%s%s%s)", s->min_hosts - (long)hosts,
			 s->min_hosts - (long)hosts == 1 ? "" : "s", s->min_hosts, s->trust ? ", each signing with a trusted key" : "",
			 s->max_age ? ", each verified whole within " : "", s->max_age ? limit : "");
		json_array_append_new(missing, json_string(text));
	}
	json_array_foreach(copies, k, a) {
		const json_t *failing = json_object_get(a, "failed_since");
		if (failing) {
			snprintf(text, sizeof text, "a passing verification of the copy on %s (its latest, at %s, failed: %s): "
				 "replicate verify it again, or replace the copy",
				 ev_inventory_field(a, "key"), ev_inventory_field(failing, "finished"),
				 ev_inventory_field(failing, "receipt"));
			json_array_append_new(missing, json_string(text));
		} else if (!fresh(a)) {
			snprintf(text, sizeof text, "a whole verification of the copy on %s within %s (its last, %s, is %s): replicate verify it again",
				 ev_inventory_field(a, "key"), limit, ev_inventory_field(a, "last_verified"), ev_inventory_field(a, "age"));
			json_array_append_new(missing, json_string(text));
		}
	}
	if (disagree)
		json_array_append_new(missing, json_string("copies whose receipts agree (replicate compare names the differences)"));
	if (json_is_null(sealed))
		json_array_append_new(missing, json_string("the seal receipt (seal create's receipt.json)"));
	size_t passed = 0, passed_fresh = 0;
	json_array_foreach(audits, k, a) {
		int ok = strcmp(ev_inventory_field(a, "result") ?: "", "pass") == 0 && json_is_true(json_object_get(a, "intact"));
		passed += ok;
		passed_fresh += ok && fresh(a);
	}
	if (!json_array_size(audits))
		json_array_append_new(missing, json_string("an audit (audit journal, audit campaign)"));
	else if (passed < json_array_size(audits))
		json_array_append_new(missing, json_string("a pass from every audit (some failed or were edited)"));
	if (passed && !passed_fresh) {
		snprintf(text, sizeof text, "an audit that passed within %s (every passing one is older): replicate audit again", limit);
		json_array_append_new(missing, json_string(text));
	}
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
	size_t first, copies = seal_copies(s, seal_hex, &first);
	for (size_t k = 0; k < copies && !stamped; k++)
		if (seal_copy(s, seal_hex, first, k)->stamped)
			stamped = seal_copy(s, seal_hex, first, k);
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

/* What a campaign's replica receipts add up to, as they are judged. */
struct replicas {
	json_t *copies;  /* who -> {host, last_verified, receipts} */
	json_t *failing; /* who -> {finished, receipt}: that host's latest failed verification */
	json_t *failed;  /* the entries not counted as a copy */
	const char *agreed;
	int disagree;
};

/* One replica receipt: a copy of its host (its key, with --trust) when
 * intact, trusted and passing; else not a verified copy, and when intact
 * and trusted but failed, that host's copy failing since it finished. */
static void judge_replica(struct status *s, const struct found *f, json_t *entry, struct replicas *r)
{
	int passed = strcmp(f->result ?: "", "pass") == 0;
	int usable = f->intact && (!s->trust || f->trusted) && passed;
	if (s->trust && !f->trusted && f->intact && passed)
		s->untrusted++;
	/* with --trust a host is its key, as for prune: a name in a file is anyone's */
	const char *who = s->trust ? (f->trusted ? f->signer : NULL) : f->host;
	if (!usable || !who) {
		json_array_append(r->failed, entry);
		json_t *last = who ? json_object_get(r->failing, who) : NULL;
		if (who && f->intact && !passed && (!last || later(f->finished, ev_inventory_field(last, "finished"))))
			json_object_set_new(r->failing, who, json_pack("{s:s, s:s}", "finished", f->finished ?: "",
								       "receipt", f->path));
		return;
	}
	const char *c = f->comparable;
	if (r->agreed && c && strcmp(r->agreed, c) != 0)
		r->disagree = 1;
	r->agreed = r->agreed ?: c;
	json_t *copy = json_object_get(r->copies, who);
	if (!copy) {
		copy = json_pack("{s:s, s:s, s:[]}", "host", f->host ?: "", "last_verified", f->finished ?: "", "receipts");
		json_object_set_new(r->copies, who, copy);
	}
	if (later(f->finished, ev_inventory_field(copy, "last_verified")))
		json_object_set_new(copy, "last_verified", json_string(f->finished));
	json_array_append_new(json_object_get(copy, "receipts"), json_string(f->path));
}

/* The copies (by host, or key) as rows, each aged with a maximum age;
 * *hosts the ones that count: fresh (all, without a maximum), and not
 * failing (their host's latest verification, no earlier than its last
 * pass, failed: the copy may have rotted since); *stale the others. */
static json_t *copy_rows(const struct status *s, const struct replicas *r, size_t *hosts, size_t *stale)
{
	json_t *rows = json_array();
	const char *key;
	json_t *v;
	json_object_foreach(r->copies, key, v) {
		json_t *copy = json_pack("{s:s, s:O, s:O, s:O}", "key", key, "host", json_object_get(v, "host"),
					 "last_verified", json_object_get(v, "last_verified"), "receipts",
					 json_object_get(v, "receipts"));
		set_age(s, copy, ev_inventory_field(v, "last_verified"));
		const json_t *failing = json_object_get(r->failing, key);
		/* the same second cannot say which came first: the failure stands */
		int failed_since = failing && !later(ev_inventory_field(v, "last_verified"), ev_inventory_field(failing, "finished"));
		if (failed_since)
			json_object_set_new(copy, "failed_since", json_pack("{s:O, s:O}", "finished", json_object_get(failing, "finished"),
									    "receipt", json_object_get(failing, "receipt")));
		*hosts += fresh(copy) && !failed_since;
		*stale += !fresh(copy);
		json_array_append_new(rows, copy);
	}
	return rows;
}

/* One campaign: everything known of the seal seal_hex. candidates: the
 * receipts that may belong to it, in the walk's order (a JSON array of
 * their indexes), each judged here. */
static json_t *campaign_row(struct status *s, const char *seal_hex, const json_t *candidates)
{
	const struct seal_file *sf = seal_file_of(s, seal_hex);
	struct replicas r = {.copies = json_object(), .failing = json_object(), .failed = json_array()};
	json_t *audits = json_array(), *cleanups = json_array();
	json_t *missing = json_array(), *sealed = json_null(), *edited = json_array(), *checks = json_array();
	json_t *captured = json_array();
	const char *root = sf ? sf->root : NULL;
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
			if (json_is_null(sealed) || later(f->finished, ev_inventory_field(sealed, "finished")))
				json_decref(sealed), sealed = json_incref(entry);
		} else if (strcmp(kind, "replica") == 0) {
			judge_replica(s, f, entry, &r);
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
			if (f->registration && f->intact) /* the line as the receipt's digest holds it */
				json_object_set_new(entry, "registration", json_string(f->registration));
			json_array_append(audits, entry);
		}
		json_decref(entry);
	}
	size_t hosts = 0, stale = 0;
	json_t *copy_list = copy_rows(s, &r, &hosts, &stale);
	json_decref(r.copies);
	json_decref(r.failing);
	json_array_foreach(audits, ci, cv)
		set_age(s, cv, ev_inventory_field(cv, "finished"));
	const char *prune = prune_verdict(s, hosts, stale, r.disagree);
	what_is_missing(s, hosts, r.disagree, sealed, copy_list, audits, edited, missing);
	json_decref(edited);
	json_t *stamp = seal_stamp(s, seal_hex);
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:s, s:I, s:I}, s:o, s:s*, s:o}",
			 "seal_sha256", seal_hex, "campaign", root ?: "", "captured", captured, "sealed", sealed,
			 "seal_checks", checks, "copies", copy_list, "failed_copies", r.failed, "audits", audits, "cleanups",
			 cleanups, "prune", "would_hold", !r.disagree && (long)hosts >= s->min_hosts,
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
json_t *ev_inventory_campaigns(struct status *s, const char *only)
{
	s->by_digest = seal_order(s);
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
	free(s->by_digest);
	s->by_digest = NULL;
	return rows;
}

