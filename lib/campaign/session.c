/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/campaign/session.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lib/core/json.h"
#include "lib/core/text.h"

#define RESULTS "ok failed interrupted error"

static void utc_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *ev_session_start(const char *registration_sha256, const char *plan_sha256, const char *dir, const char *host,
			 const char *boot_id)
{
	char now[32], nonce[33];
	unsigned char random[16];
	if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
		return NULL;
	for (size_t i = 0; i < sizeof random; i++)
		snprintf(nonce + 2 * i, 3, "%02x", random[i]);
	utc_now(now);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "format", EV_SESSION_FORMAT, "event", "start",
			 "registration", registration_sha256, "plan", plan_sha256, "campaign", dir, "host", host,
			 "boot_id", boot_id, "time", now, "nonce", nonce);
}

json_t *ev_session_end(const json_t *start, const char *start_sha256, const char *result,
		       const struct ev_session_tally *t, const char *receipt_sha256, const char *why)
{
	char now[32];
	utc_now(now);
	json_t *d = json_pack("{s:s, s:s, s:O, s:O, s:O, s:O, s:s, s:s, s:s, s:{s:i, s:i, s:i, s:i, s:i}}", "format",
			      EV_SESSION_FORMAT, "event", "end", "registration", json_object_get(start, "registration"),
			      "plan", json_object_get(start, "plan"), "campaign", json_object_get(start, "campaign"), "host",
			      json_object_get(start, "host"), "start", start_sha256, "time", now, "result", result, "runs",
			      "made", (int)t->made, "ok", (int)t->ok, "failed", (int)t->failed, "earlier", (int)t->earlier,
			      "not_run", (int)t->not_run);
	if (d && receipt_sha256)
		json_object_set_new(d, "receipt", json_string(receipt_sha256));
	if (d && why)
		json_object_set_new(d, "why", json_string(why));
	return d;
}

static ev_status refuse(struct ev_error *err, const char *path, const char *what)
{
	return ev_error_set(err, EV_REFUSED, "%s: not a session as capture run writes one: %s", path, what);
}

static int hex_at(const json_t *doc, const char *key)
{
	return ev_sha256_hex_valid(json_string_value(json_object_get(doc, key)));
}

static int string_at(const json_t *doc, const char *key)
{
	return json_is_string(json_object_get(doc, key));
}

ev_status ev_session_load(const char *path, json_t **doc, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err)
{
	static const char *const start[] = {"format", "event", "registration", "plan", "campaign", "host", "boot_id",
					    "time", "nonce", NULL};
	static const char *const end[] = {"format", "event", "registration", "plan", "campaign", "host", "start",
					  "time", "result", "runs", "receipt", "why", NULL};
	static const char *const runs[] = {"made", "ok", "failed", "earlier", "not_run", NULL};
	ev_status st = ev_json_load(path, EV_SESSION_FORMAT, EV_JSON_REQUIRE_CANONICAL, doc, sha256, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	const json_t *d = *doc;
	const char *event = json_string_value(json_object_get(d, "event"));
	const char *result = json_string_value(json_object_get(d, "result"));
	int is_end = event && strcmp(event, "end") == 0;
	const char *key = NULL, *what = NULL;
	char text[128];
	if (!event || (!is_end && strcmp(event, "start") != 0))
		what = "\"event\": expected start or end";
	else if ((key = ev_json_unknown_key(d, is_end ? end : start)))
		what = "an unknown key";
	else if (!hex_at(d, "registration") || !hex_at(d, "plan"))
		what = "\"registration\" and \"plan\": expected SHA-256 digests";
	else if (!string_at(d, "campaign") || !string_at(d, "host") || !string_at(d, "time"))
		what = "expected \"campaign\", \"host\" and \"time\"";
	else if (!is_end && (!string_at(d, "boot_id") || !string_at(d, "nonce")))
		what = "\"boot_id\" and \"nonce\": expected strings";
	else if (is_end && (!hex_at(d, "start") || !result || !ev_text_word_in(RESULTS, result)))
		what = "\"start\" (a SHA-256) and \"result\" (ok, failed, interrupted or error) expected";
	else if (is_end && json_object_get(d, "receipt") && !hex_at(d, "receipt"))
		what = "\"receipt\": expected a SHA-256";
	else if (is_end) {
		const json_t *r = json_object_get(d, "runs");
		if (!json_is_object(r) || (key = ev_json_unknown_key(r, runs)))
			what = "\"runs\": expected {made, ok, failed, earlier, not_run}";
		for (const char *const *k = runs; !what && *k; k++)
			if (!json_is_integer(json_object_get(r, *k)) || json_integer_value(json_object_get(r, *k)) < 0)
				what = "\"runs\": expected whole numbers";
	}
	if (!what)
		return EV_OK;
	if (key) {
		snprintf(text, sizeof text, "unknown key \"%s\"", key);
		what = text;
	}
	st = refuse(err, path, what);
	json_decref(*doc);
	*doc = NULL;
	return st;
}
