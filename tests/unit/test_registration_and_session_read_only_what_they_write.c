/* SPDX-License-Identifier: Apache-2.0 */
/* A registration and a session record are read back exactly as they are
 * written, and a document edited past their rules is refused naming what
 * broke: an unknown key, a digest that is not one, a statistic or a result
 * of another vocabulary, runs that are not counts, a start without its
 * nonce. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/campaign/registration.h"
#include "lib/campaign/session.h"
#include "lib/core/json.h"

#define HEX_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HEX_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static char dir[] = "/tmp/test-registration-XXXXXX";

/* doc, canonical, at dir/name, after edit (a key set to a JSON value, or
 * removed when the value is NULL). */
static const char *written(const char *name, json_t *doc, const char *key, const char *value)
{
	static char path[256];
	if (key && value)
		json_object_set_new(doc, key, json_loads(value, JSON_DECODE_ANY, NULL));
	else if (key)
		json_object_del(doc, key);
	char *bytes = NULL;
	size_t len = 0;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK(ev_json_dump(doc, &bytes, &len, &err) == EV_OK);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f && fwrite(bytes, 1, len, f) == len);
	fclose(f);
	free(bytes);
	return path;
}

/* What reading path as kind said: "ok", or the error's text after the path. */
static const char *read_as(int registration, const char *path)
{
	static char said[EV_ERROR_TEXT_MAX];
	struct ev_error err;
	ev_error_clear(&err);
	json_t *doc = NULL;
	ev_status st = registration ? ev_registration_load(path, &doc, NULL, &err) : ev_session_load(path, &doc, NULL, &err);
	json_decref(doc);
	if (st == EV_OK)
		return "ok";
	const char *after = strstr(err.text, ": ");
	snprintf(said, sizeof said, "%s", after ? after + 2 : err.text);
	return said;
}

static json_t *registration(void)
{
	return json_pack("{s:[], s:s, s:{s:s, s:b, s:s, s:i}, s:{s:[s], s:[s, s], s:s, s:s}, s:{s:s, s:s}, s:i, s:[s]}",
			 "comparisons", "format", EV_REGISTRATION_FORMAT, "grades", "name", "evidence-default", "pinned", 0,
			 "require", "any", "version", 1, "plan", "arms", "baseline", "cells", "A", "B", "name", "lab",
			 "sha256", HEX_A, "registered", "host", "lab1", "time", "2026-12-07T09:00:00Z", "sessions", 1,
			 "statistics", "p99");
}

int main(void)
{
	CHECK(mkdtemp(dir) != NULL);
	json_t *r = registration();
	CHECK_STR_EQ(read_as(1, written("r.json", r, NULL, NULL)), "ok");
	CHECK_STR_EQ(read_as(1, written("r.json", r, "statistics", "[\"p42\"]")),
		     "not a registration as capture register writes one: statistics: item 1: expected p50 p95 p99 p99.9 mean max");
	CHECK_STR_EQ(read_as(1, written("r.json", r, "statistics", "[\"p99\", \"p99\"]")),
		     "not a registration as capture register writes one: statistics: p99 named twice");
	json_object_set_new(r, "statistics", json_pack("[s]", "p99"));
	CHECK_STR_EQ(read_as(1, written("r.json", r, "comparisons", "[{\"kind\": \"arms\", \"a\": \"x\"}]")),
		     "not a registration as capture register writes one: comparisons: item 1: \"b\": expected a string");
	CHECK_STR_EQ(read_as(1, written("r.json", r, "comparisons", "[{\"kind\": \"gate\", \"ratio\": \"0.5\"}]")),
		     "not a registration as capture register writes one: comparisons: item 1: \"ratio\": expected a ratio above 1");
	json_object_set_new(r, "comparisons", json_array());
	CHECK_STR_EQ(read_as(1, written("r.json", r, "sessions", "0")),
		     "not a registration as capture register writes one: sessions: expected a whole number, 1 or more");
	json_object_set_new(r, "sessions", json_integer(1));
	CHECK_STR_EQ(read_as(1, written("r.json", r, "verdict", "\"pass\"")),
		     "not a registration as capture register writes one: registration: unknown key \"verdict\"");
	json_object_del(r, "verdict");
	json_object_set_new(json_object_get(r, "plan"), "sha256", json_string("not hex"));
	CHECK_STR_EQ(read_as(1, written("r.json", r, NULL, NULL)),
		     "not a registration as capture register writes one: plan: expected {name, sha256 (64 hex digits), arms, cells}");
	json_decref(r);

	json_t *s = ev_session_start(HEX_A, HEX_B, "/srv/c", "lab1", "boot");
	CHECK(s != NULL);
	CHECK_INT_EQ(strlen(json_string_value(json_object_get(s, "nonce"))), 32);
	CHECK_STR_EQ(read_as(0, written("s.json", s, NULL, NULL)), "ok");
	struct ev_session_tally t = {2, 1, 1, 0, 0};
	json_t *e = ev_session_end(s, HEX_B, "failed", &t, HEX_A, NULL);
	CHECK_STR_EQ(read_as(0, written("e.json", e, NULL, NULL)), "ok");
	CHECK_STR_EQ(read_as(0, written("e.json", e, "result", "\"passed\"")),
		     "not a session as capture run writes one: \"start\" (a SHA-256) and \"result\" (ok, failed, interrupted or error) expected");
	json_object_set_new(e, "result", json_string("failed"));
	CHECK_STR_EQ(read_as(0, written("e.json", e, "runs", "{\"made\": -1, \"ok\": 0, \"failed\": 0, \"earlier\": 0, \"not_run\": 0}")),
		     "not a session as capture run writes one: \"runs\": expected whole numbers");
	CHECK_STR_EQ(read_as(0, written("e.json", e, "receipt", "\"edited\"")),
		     "not a session as capture run writes one: \"receipt\": expected a SHA-256");
	CHECK_STR_EQ(read_as(0, written("s.json", s, "nonce", NULL)),
		     "not a session as capture run writes one: \"boot_id\" and \"nonce\": expected strings");
	CHECK_STR_EQ(read_as(0, written("s.json", s, "event", "\"middle\"")),
		     "not a session as capture run writes one: \"event\": expected start or end");
	json_decref(s);
	json_decref(e);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_exit("test_registration_and_session_read_only_what_they_write");
}
