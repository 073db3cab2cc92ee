/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the registration (doc/formats.md "Registration: what
 * the audit judges"): the registration the campaign was run under,
 * held to the capture receipts, the sessions and the receipt log; its
 * order before the first run; what the summary publishes against what
 * was registered; and every session of it the log holds, counted. A
 * campaign without one is graded unregistered, never quietly passed. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/campaign/registration.h"
#include "lib/campaign/session.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/text.h"
#include "lib/receipt/log_files.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/timestamp_beside.h"
#include "lib/usecase/audit/campaign/parts.h"
#include "lib/usecase/replicate/receipt_log.h"

#define REGISTRATION_FILE "registration.json"

/* What the judge holds while it judges. */
struct judge {
	struct ev_audit_campaign *ca;
	json_t *reg;                          /* the registration, as read */
	char path[PATH_MAX];
	char hex[EV_SHA256_HEX_LEN + 1];
	json_t *sessions;                     /* the campaign's session files: name -> {sha256, doc} */
	json_t *facts;                        /* summary.json's "registration" */
	struct ev_log_entries log;            /* with --log */
	char origin[EV_NOTE_NAME_MAX];
	long index;                           /* the registration's log entry; -1: not in it */
	char gen_time[32], tsa[256];          /* its trusted time, when judged */
	json_t *not_checked;                  /* what was not judged for want of --log or --tsa-ca, as sentences */
	int failed;
};

/* "YYYY-MM-DDTHH:MM:SS[.fraction]Z" as seconds and nanoseconds; 0 when
 * it is not one. */
static int utc_parse(const char *s, long long *sec, long *ns)
{
	struct tm tm = {0};
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	if (!end)
		return 0;
	*ns = 0;
	if (*end == '.') {
		long scale = 100000000;
		for (end++; *end >= '0' && *end <= '9'; end++, scale /= 10)
			*ns += (*end - '0') * scale;
	}
	if (strcmp(end, "Z") != 0)
		return 0;
	*sec = (long long)timegm(&tm);
	return 1;
}

/* <0, 0, >0 as a is before, with, after b; both UTC times. */
static int utc_compare(const char *a, const char *b)
{
	long long sa, sb;
	long na, nb;
	if (!utc_parse(a, &sa, &na) || !utc_parse(b, &sb, &nb))
		return strcmp(a, b);
	return sa != sb ? (sa < sb ? -1 : 1) : (na > nb) - (na < nb);
}

static void check(struct judge *j, const char *name, int pass, const char *detail, struct ev_error *err)
{
	j->failed |= !pass;
	ev_receipt_add_check(j->ca->receipt, name, pass, detail, err);
}

/* The text of a list of sentences, "; " between them. */
static void joined(const json_t *list, char *out, size_t cap)
{
	size_t i, used = 0;
	json_t *v;
	out[0] = 0;
	json_array_foreach(list, i, v)
		if (used < cap)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? "; " : "", json_string_value(v));
}

static void problem(json_t *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(json_t *list, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_string(text));
}

/* STEM.json or STEM-N.json, as capture names a session's files: never
 * what lies beside one (STEM.json.inclusion.json). */
static int session_file(const char *name)
{
	static const char *const stems[] = {"session-start", "session-end"};
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(stems[i]);
		if (strncmp(name, stems[i], n) != 0)
			continue;
		const char *at = name + n;
		if (*at == '-' && at[1] >= '1' && at[1] <= '9')
			at += 1 + strspn(at + 1, "0123456789");
		if (strcmp(at, ".json") == 0)
			return 1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The campaign's session files (session-start*.json, session-end*.json),
 * each read as capture wrote it and named among the receipt's inputs. */
static ev_status read_session_files(struct judge *j, struct ev_error *err)
{
	struct ev_audit_campaign *ca = j->ca;
	char *names[256];
	size_t n = 0;
	DIR *d = opendir(ca->dir);
	struct dirent *de;
	while (d && (de = readdir(d)) && n < 256)
		if (session_file(de->d_name) && (names[n] = strdup(de->d_name)))
			n++;
	if (d)
		closedir(d);
	qsort(names, n, sizeof *names, by_name);
	ev_status st = EV_OK;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
		uint8_t digest[EV_SHA256_LEN];
		json_t *doc = NULL;
		if (st == EV_OK && ev_path_join(path, sizeof path, ca->dir, names[i]) == 0 &&
		    (st = ev_input_check_beneath(ca->dir, names[i], ca->dir, NULL, err)) == EV_OK &&
		    (st = ev_session_load(path, &doc, digest, err)) == EV_OK) {
			ev_sha256_hex(digest, hex);
			json_object_set_new(j->sessions, names[i], json_pack("{s:s, s:o}", "sha256", hex, "doc", doc));
			st = ev_receipt_add_input(ca->receipt, names[i], path, hex, err);
		}
		free(names[i]);
	}
	return st;
}

/* The log given (--log), read whole; its origin. */
static ev_status read_log(struct judge *j, struct ev_error *err)
{
	struct stat sb;
	const char *dir = j->ca->log_dir;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "--log %s: not a directory (expected the receipt log the registration and "
				    "its sessions were appended to, or a copy of it)", dir);
	ev_status st = ev_log_entries_read(dir, &j->log, err);
	if (st == EV_OK)
		st = ev_log_origin_read(dir, j->origin, err);
	if (st == EV_OK && !j->origin[0])
		snprintf(j->origin, sizeof j->origin, "%s", dir);
	return st;
}

static const char *entry_string(const struct judge *j, size_t i, const char *key)
{
	return json_string_value(json_object_get(j->log.doc[i], key)) ?: "";
}

static long log_index_of(const struct judge *j, const char *hex)
{
	for (size_t i = 0; i < j->log.n; i++)
		if (strcmp(entry_string(j, i, "sha256"), hex) == 0)
			return (long)i;
	return -1;
}

/* "registered": the registration read, the plan's, named by every
 * capture receipt and session, in the log, its timestamp verified. */
static void judge_registered(struct judge *j, struct ev_error *err)
{
	struct ev_audit_campaign *ca = j->ca;
	json_t *wrong = json_array();
	char detail[2048];
	const char *plan = ev_registration_plan_sha256(j->reg);
	if (ca->plan_sha256[0] && strcmp(plan, ca->plan_sha256) != 0)
		problem(wrong, "it registers the plan whose bytes hash to %s; the campaign's plan.json hashes to %s", plan,
			ca->plan_sha256);
	const char *name;
	json_t *v;
	json_object_foreach(ca->capture_registrations, name, v)
		if (strcmp(json_string_value(v), j->hex) != 0)
			problem(wrong, "%s names the registration %s; registration.json hashes to %s: edited after the "
				"capture", name, json_string_value(v), j->hex);
	json_object_foreach(j->sessions, name, v) {
		const char *named = json_string_value(json_object_get(json_object_get(v, "doc"), "registration"));
		if (strcmp(named ?: "", j->hex) != 0)
			problem(wrong, "%s names the registration %s; registration.json hashes to %s", name, named ?: "none",
				j->hex);
	}
	if (ca->log_dir) {
		j->index = log_index_of(j, j->hex);
		if (j->index < 0)
			problem(wrong, "not in the log %s (no entry has SHA-256 %s): it was never appended, or edited after", ca->log_dir,
				j->hex);
		else if (strcmp(entry_string(j, (size_t)j->index, "kind"), "registration") != 0)
			problem(wrong, "the log's entry %ld with its SHA-256 is a %s, not a registration", j->index,
				entry_string(j, (size_t)j->index, "kind"));
	}
	char tsr[PATH_MAX + 8];
	snprintf(tsr, sizeof tsr, "%s.tsr", j->path);
	if (ev_timestamp_present(j->path) && ca->tsa_ca) {
		struct ev_timestamp_verdict tv;
		char why[512] = "";
		struct ev_error terr;
		ev_error_clear(&terr);
		if (ev_timestamp_check(j->path, ca->tsa_ca, &tv, why, sizeof why, &terr) == EV_OK) {
			snprintf(j->gen_time, sizeof j->gen_time, "%s", tv.gen_time);
			snprintf(j->tsa, sizeof j->tsa, "%s", tv.tsa);
		} else {
			problem(wrong, "its timestamp %s does not hold: %s", tsr, why);
		}
	} else if (ev_timestamp_present(j->path)) {
		ev_audit_campaign_note(ca, "%s: its trusted time is not judged without --tsa-ca FILE", tsr);
	} else if (ca->tsa_ca) {
		problem(wrong, "--tsa-ca given, but %s lies not beside it: the registration has no trusted time", tsr);
	}
	if (json_array_size(wrong)) {
		joined(wrong, detail, sizeof detail);
	} else {
		size_t used = (size_t)snprintf(detail, sizeof detail, "registration.json, SHA-256 %s", j->hex);
		if (j->index >= 0)
			used += (size_t)snprintf(detail + used, sizeof detail - used, "; log %s, entry %ld", j->origin, j->index);
		if (j->gen_time[0] && used < sizeof detail)
			snprintf(detail + used, sizeof detail - used, "; trusted time %s (%s)", j->gen_time, j->tsa);
	}
	check(j, "registered", !json_array_size(wrong), detail, err);
	json_decref(wrong);
}

/* The earliest start of any run (its first process's exec), and its run. */
static const struct ev_audited_run *first_run(const struct ev_audit_campaign *ca)
{
	const struct ev_audited_run *first = NULL;
	for (size_t i = 0; i < ca->nruns; i++)
		if (ca->runs[i].started[0] && (!first || utc_compare(ca->runs[i].started, first->started) < 0))
			first = &ca->runs[i];
	return first;
}

/* "registered before the first run": by its trusted time against the
 * first run's start, and by the log's order against the campaign's
 * sessions (each appended before its first pair). */
static void judge_order(struct judge *j, struct ev_error *err)
{
	struct ev_audit_campaign *ca = j->ca;
	const struct ev_audited_run *first = first_run(ca);
	json_t *wrong = json_array(), *held = json_array();
	char detail[2048];
	if (!first) {
		check(j, "registered before the first run", 0, "no run records when it started (run.json's processes' "
		      "wall.exec): nothing to order the registration against", err);
		json_decref(wrong);
		json_decref(held);
		return;
	}
	json_object_set_new(j->facts, "first_run", json_pack("{s:s, s:s}", "run", first->name, "started", first->started));
	if (j->gen_time[0]) {
		/* genTime is to the second (our TSA's, and most): the token may
		 * have been made up to a second after it says, and only a run
		 * started after that second is surely later */
		long long sec;
		long ns;
		char token_end[40];
		struct tm tm;
		time_t end = utc_parse(j->gen_time, &sec, &ns) ? (time_t)sec + 1 : 0;
		gmtime_r(&end, &tm);
		strftime(token_end, sizeof token_end, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (end && utc_compare(token_end, first->started) <= 0)
			problem(held, "its trusted time %s is before the first run's start %s (run %s, by that host's clock)",
				j->gen_time, first->started, first->name);
		else
			problem(wrong, "its trusted time %s (to the second) is not before the first run's start %s (run %s, by "
				"that host's clock): the registration came after results existed", j->gen_time, first->started,
				first->name);
	}
	if (j->index >= 0) {
		const char *name, *earliest = NULL;
		json_t *v;
		json_object_foreach(j->sessions, name, v) {
			const json_t *doc = json_object_get(v, "doc");
			if (strcmp(json_string_value(json_object_get(doc, "event")) ?: "", "start") != 0)
				continue;
			const char *t = json_string_value(json_object_get(doc, "time")) ?: "";
			if (!earliest || utc_compare(t, earliest) < 0)
				earliest = t;
			long at = log_index_of(j, json_string_value(json_object_get(v, "sha256")));
			if (at >= 0 && at < j->index)
				problem(wrong, "%s is the log's entry %ld, before the registration's entry %ld", name, at, j->index);
		}
		if (!earliest)
			problem(wrong, "the campaign holds no session start (session-start.json): no run of it was made in a "
				"session on the record");
		else if (utc_compare(first->started, earliest) < 0)
			problem(wrong, "run %s started at %s, before the campaign's first session on the record began (%s): a "
				"run made outside the registered sessions", first->name, first->started, earliest);
		else
			problem(held, "the log's entry %ld, before every session of the campaign; the first run (%s, %s) in "
				"one of them", j->index, first->name, first->started);
	}
	if (!j->gen_time[0] && j->index < 0) {
		problem(j->not_checked, "that the registration came before the first run: neither a trusted time "
			"(--tsa-ca FILE) nor the log's order (--log DIR) was given");
		json_decref(wrong);
		json_decref(held);
		return;
	}
	joined(json_array_size(wrong) ? wrong : held, detail, sizeof detail);
	check(j, "registered before the first run", !json_array_size(wrong), detail, err);
	json_decref(wrong);
	json_decref(held);
}

/* Each of these not in those, named as said. */
static void each_missing(const json_t *these, const json_t *those, json_t *wrong, const char *said)
{
	size_t i, k;
	json_t *v, *w;
	json_array_foreach(these, i, v) {
		int found = 0;
		json_array_foreach(those, k, w)
			found |= json_equal(v, w);
		if (!found)
			problem(wrong, "%s is %s", json_string_value(v), said);
	}
}

/* "published as registered": the statistics the summary publishes are
 * the ones registered, none added and none dropped. */
static void judge_published(struct judge *j, json_t *published, struct ev_error *err)
{
	const json_t *registered = json_object_get(j->reg, "statistics");
	json_t *wrong = json_array(), *v;
	char detail[2048];
	size_t i;
	each_missing(published, registered, wrong, "published, not registered");
	each_missing(registered, published, wrong, "registered, not published");
	if (!json_array_size(wrong)) {
		size_t used = (size_t)snprintf(detail, sizeof detail, "published as registered:");
		json_array_foreach(published, i, v)
			if (used < sizeof detail)
				used += (size_t)snprintf(detail + used, sizeof detail - used, " %s", json_string_value(v));
	} else {
		joined(wrong, detail, sizeof detail);
	}
	check(j, "published as registered", !json_array_size(wrong), detail, err);
	json_decref(wrong);
}

/* The log as a whole: every head and proof holds (lib/usecase/replicate/
 * receipt_log), and it extends the head a replica kept (--log-head). */
static void first_log_finding(void *ctx, const struct ev_finding *f)
{
	char *first = ctx;
	if (!first[0])
		snprintf(first, 512, "%s: %s", f->subject ? f->subject : "log", f->message ? f->message : "");
}

static ev_status judge_log(struct judge *j, struct ev_error *err)
{
	struct ev_audit_campaign *ca = j->ca;
	char first[512] = "", detail[1024];
	struct ev_receipt_log l = {.dir = ca->log_dir, .trust = ca->trust, .on_finding = first_log_finding, .ctx = first};
	ev_status st = ev_receipt_log_verify(&l, err);
	if (st != EV_OK && st != EV_MISMATCH)
		return st;
	if (st == EV_MISMATCH)
		snprintf(detail, sizeof detail, "%s: %u finding%s, the first %s (replicate log verify names each)", ca->log_dir,
			 l.findings, l.findings == 1 ? "" : "s", first);
	else
		snprintf(detail, sizeof detail, "%s: %zu entries, %zu tree heads hold", ca->log_dir, l.size, l.heads);
	check(j, "receipt log holds", st == EV_OK, detail, err);
	if (!ca->log_head)
		return EV_OK;
	struct ev_log_head *last = NULL;
	size_t nheads = 0;
	char why[512] = "";
	json_t *proof = NULL;
	if ((st = ev_log_heads_read(ca->log_dir, 1, &last, &nheads, err)) != EV_OK)
		return st;
	if (!nheads) {
		check(j, "receipt log extends the kept head", 0, "the log has no tree head to hold to the kept one", err);
		return EV_OK;
	}
	st = ev_receipt_log_consistency(&l, ca->log_head, last[0].path, &proof, why, sizeof why, err);
	json_decref(proof);
	if (st == EV_OK || st == EV_MISMATCH) {
		if (st == EV_OK)
			snprintf(detail, sizeof detail, "%s is a prefix of the log's head of %zu entries", ca->log_head, last[0].size);
		else
			snprintf(detail, sizeof detail, "%s: %s: the log was rewritten after a replica kept that head", ca->log_head,
				 why);
		check(j, "receipt log extends the kept head", st == EV_OK, detail, err);
		st = EV_OK;
	}
	ev_log_heads_free(last, nheads);
	return st;
}

/* One session of the registration the log holds, in words. */
static void session_sentence(const json_t *start, const json_t *end, int here, char *out, size_t cap)
{
	const char *campaign = json_string_value(json_object_get(start, "campaign")) ?: "?";
	const char *began = json_string_value(json_object_get(start, "time")) ?: "?";
	size_t used = (size_t)snprintf(out, cap, "%s (%s, started %s): ", campaign, here ? "this campaign" : "not in this audit",
				       began);
	if (!end) {
		snprintf(out + used, cap - used, "started, no end on the record (abandoned, or still running)");
		return;
	}
	const json_t *runs = json_object_get(end, "runs");
	const char *result = json_string_value(json_object_get(end, "result")) ?: "?";
	long long made = json_integer_value(json_object_get(runs, "made")),
		  failed = json_integer_value(json_object_get(runs, "failed"));
	if (strcmp(result, "ok") == 0)
		snprintf(out + used, cap - used, "ended ok, %lld run%s made", made, made == 1 ? "" : "s");
	else if (strcmp(result, "failed") == 0)
		snprintf(out + used, cap - used, "ended failed, %lld run%s made, %lld failed", made, made == 1 ? "" : "s", failed);
	else
		snprintf(out + used, cap - used, "%s after %lld run%s%s%s", result, made, made == 1 ? "" : "s",
			 json_object_get(end, "why") ? ": " : "", json_string_value(json_object_get(end, "why")) ?: "");
}

/* "sessions accounted for": every session of the registration the log
 * holds, named; the campaign's own each in it; no more than planned. */
static void judge_sessions(struct judge *j, struct ev_error *err)
{
	json_t *wrong = json_array(), *listed = json_array();
	long long planned = json_integer_value(json_object_get(j->reg, "sessions"));
	size_t on_record = 0;
	char detail[4096], line[512];
	const char *name;
	json_t *v;
	json_object_foreach(j->sessions, name, v)
		if (log_index_of(j, json_string_value(json_object_get(v, "sha256"))) < 0)
			problem(wrong, "%s (%s) is not in the log: a session kept off the record", name,
				json_string_value(json_object_get(json_object_get(v, "doc"), "time")) ?: "?");
	for (size_t i = 0; i < j->log.n; i++) {
		const json_t *start = json_object_get(j->log.doc[i], "doc");
		if (strcmp(entry_string(j, i, "kind"), "session") != 0 ||
		    strcmp(json_string_value(json_object_get(start, "registration")) ?: "", j->hex) != 0 ||
		    strcmp(json_string_value(json_object_get(start, "event")) ?: "", "start") != 0)
			continue;
		const char *start_hex = entry_string(j, i, "sha256");
		const json_t *end = NULL;
		for (size_t k = i + 1; k < j->log.n && !end; k++) {
			const json_t *d = json_object_get(j->log.doc[k], "doc");
			if (strcmp(entry_string(j, k, "kind"), "session") == 0 &&
			    strcmp(json_string_value(json_object_get(d, "start")) ?: "", start_hex) == 0)
				end = d;
		}
		int here = 0;
		json_object_foreach(j->sessions, name, v)
			here |= strcmp(json_string_value(json_object_get(v, "sha256")), start_hex) == 0;
		session_sentence(start, end, here, line, sizeof line);
		on_record++;
		json_array_append_new(listed, json_pack("{s:I, s:O, s:O, s:s, s:b, s:s}", "log_index", (json_int_t)i, "campaign",
							 json_object_get(start, "campaign"), "started", json_object_get(start, "time"),
							 "result", end ? json_string_value(json_object_get(end, "result")) : "no end",
							 "this_campaign", here, "sentence", line));
	}
	if ((long long)on_record > planned)
		problem(wrong, "%zu sessions of this registration are on the record; it planned %lld", on_record, planned);
	json_object_set_new(j->facts, "sessions", json_pack("{s:I, s:I, s:o}", "planned", (json_int_t)planned, "on_record",
							     (json_int_t)on_record, "list", listed));
	size_t used = (size_t)snprintf(detail, sizeof detail, "%zu of %lld sessions of this registration on the record", on_record,
				       planned);
	size_t i;
	json_array_foreach(listed, i, v)
		if (used < sizeof detail)
			used += (size_t)snprintf(detail + used, sizeof detail - used, "%s%s", i ? "; " : ": ",
						 json_string_value(json_object_get(v, "sentence")));
	if (json_array_size(wrong))
		joined(wrong, detail, sizeof detail);
	check(j, "sessions accounted for", !json_array_size(wrong), detail, err);
	json_decref(wrong);
}

/* The statistics the summary publishes: --publish, else the ones
 * registered (none registered: every one it reports). */
static ev_status published_list(const struct ev_audit_campaign *ca, const json_t *reg, json_t **out, struct ev_error *err)
{
	if (!ca->publish) {
		*out = reg ? json_deep_copy(json_object_get(reg, "statistics")) : json_array();
		if (!reg)
			for (const char *s = EV_REGISTRATION_STATISTICS; *s;) {
				size_t n = strcspn(s, " ");
				json_array_append_new(*out, json_stringn(s, n));
				s += n + (s[n] == ' ');
			}
		return EV_OK;
	}
	*out = json_array();
	char copy[256];
	snprintf(copy, sizeof copy, "%s", ca->publish);
	for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!ev_text_word_in(EV_REGISTRATION_STATISTICS, w))
			return ev_error_set(err, EV_USAGE, "--publish: expected statistics of %s, comma-separated; found '%s'",
					    EV_REGISTRATION_STATISTICS, w);
		json_array_append_new(*out, json_string(w));
	}
	return EV_OK;
}

/* The sentence a reviewer reads first. */
static void reviewer_line(struct judge *j)
{
	char line[512];
	const json_t *s = json_object_get(j->facts, "sessions");
	size_t used = (size_t)snprintf(line, sizeof line, "%s", j->failed ? "registration FAILED: "
							       : json_array_size(j->not_checked) ? "UNPROVEN: " : "");
	used += (size_t)snprintf(line + used, sizeof line - used, "registered%s%s", j->gen_time[0] ? " at " : "",
				 j->gen_time[0] ? j->gen_time : " (no trusted time)");
	if (j->index >= 0 && used < sizeof line)
		used += (size_t)snprintf(line + used, sizeof line - used, " (log %s, index %ld)", j->origin, j->index);
	if (s && used < sizeof line)
		snprintf(line + used, sizeof line - used, ", %lld of %lld sessions accounted for",
			 json_integer_value(json_object_get(s, "on_record")), json_integer_value(json_object_get(s, "planned")));
	else if (used < sizeof line)
		used += (size_t)snprintf(line + used, sizeof line - used, ", sessions not counted (no --log)");
	if (!j->gen_time[0] && j->index < 0 && used < sizeof line)
		snprintf(line + used, sizeof line - used, ", its order before the runs not judged (no --tsa-ca, no --log)");
	json_object_set_new(j->facts, "line", json_string(line));
}

/* No registration.json: unregistered, unless something says there was
 * one (a capture receipt naming it, a session on the record). */
static ev_status unregistered(struct judge *j, struct ev_error *err)
{
	struct ev_audit_campaign *ca = j->ca;
	const char *name;
	json_t *v;
	char why[1024] = "";
	json_object_foreach(ca->capture_registrations, name, v)
		if (!why[0])
			snprintf(why, sizeof why, "%s names the registration %s", name, json_string_value(v));
	json_object_foreach(j->sessions, name, v)
		if (!why[0])
			snprintf(why, sizeof why, "%s names the registration %s", name,
				 json_string_value(json_object_get(json_object_get(v, "doc"), "registration")));
	if (why[0]) {
		char detail[1400];
		snprintf(detail, sizeof detail, "%s, but the campaign holds no registration.json: it was removed", why);
		check(j, "registered", 0, detail, err);
		json_object_set_new(j->facts, "state", json_string("failed"));
		json_object_set_new(j->facts, "line", json_string("registration FAILED: registration.json removed"));
		return EV_OK;
	}
	json_object_set_new(j->facts, "state", json_string("unregistered"));
	json_object_set_new(j->facts, "line", json_string("unregistered: nothing shows the set-up, the statistics or the "
							  "comparisons were chosen before the results"));
	if (ca->log_dir || ca->tsa_ca || ca->log_head)
		ev_audit_campaign_note(ca, "%s: the campaign is unregistered (no registration.json); --log, --log-head and "
				       "--tsa-ca were not used", ca->dir);
	return EV_OK;
}

ev_status ev_audit_campaign_judge_registration(struct ev_audit_campaign *ca, struct ev_error *err)
{
	struct judge j = {.ca = ca, .index = -1, .sessions = json_object(), .facts = json_object(),
			  .not_checked = json_array()};
	json_t *published = NULL;
	uint8_t digest[EV_SHA256_LEN];
	int absent = 0;
	ev_status st = ev_input_check_beneath(ca->dir, REGISTRATION_FILE, ca->dir, &absent, err);
	if (st == EV_OK)
		st = read_session_files(&j, err);
	if (st == EV_OK && absent) {
		if ((st = published_list(ca, NULL, &published, err)) == EV_OK)
			st = unregistered(&j, err);
		goto out;
	}
	if (st == EV_OK && ca->log_dir)
		st = read_log(&j, err);
	if (st != EV_OK)
		goto out;
	ev_path_join(j.path, sizeof j.path, ca->dir, REGISTRATION_FILE);
	struct ev_error rerr;
	ev_error_clear(&rerr);
	if ((st = ev_registration_load(j.path, &j.reg, digest, &rerr)) != EV_OK) {
		if (st != EV_REFUSED) {
			*err = rerr;
			goto out;
		}
		check(&j, "registered", 0, rerr.text, err);
		json_object_set_new(j.facts, "state", json_string("failed"));
		json_object_set_new(j.facts, "line", json_string("registration FAILED: registration.json is not one"));
		st = published_list(ca, NULL, &published, err);
		goto out;
	}
	ev_sha256_hex(digest, j.hex);
	if ((st = ev_receipt_add_input(ca->receipt, "registration", j.path, j.hex, err)) != EV_OK ||
	    (st = published_list(ca, j.reg, &published, err)) != EV_OK)
		goto out;
	judge_registered(&j, err);
	judge_order(&j, err);
	judge_published(&j, published, err);
	if (ca->log_dir) {
		if ((st = judge_log(&j, err)) != EV_OK)
			goto out;
		judge_sessions(&j, err);
	} else {
		problem(j.not_checked, "the sessions of the registration: no receipt log given (--log DIR), so none was "
			"counted, and none kept off the record was caught");
	}
	reviewer_line(&j);
	json_object_set_new(j.facts, "state", json_string(j.failed ? "failed" : json_array_size(j.not_checked) ? "unproven"
								 : "registered"));
	json_object_set_new(j.facts, "sha256", json_string(j.hex));
	json_object_set_new(j.facts, "statistics", json_deep_copy(json_object_get(j.reg, "statistics")));
	json_object_set_new(j.facts, "comparisons", json_deep_copy(json_object_get(j.reg, "comparisons")));
	if (j.gen_time[0])
		json_object_set_new(j.facts, "time", json_pack("{s:s, s:s}", "trusted", j.gen_time, "tsa", j.tsa));
	if (j.index >= 0)
		json_object_set_new(j.facts, "log", json_pack("{s:s, s:I}", "origin", j.origin, "index", (json_int_t)j.index));
out:
	if (st == EV_OK) {
		json_object_set(j.facts, "published", published);
		if (json_array_size(j.not_checked))
			json_object_set(j.facts, "not_checked", j.not_checked);
		ca->registration = json_incref(j.facts);
		ev_receipt_set_fact(ca->receipt, "registration", json_incref(j.facts), err);
	}
	json_decref(published);
	json_decref(j.facts);
	json_decref(j.not_checked);
	json_decref(j.sessions);
	json_decref(j.reg);
	ev_log_entries_free(&j.log);
	return st;
}
