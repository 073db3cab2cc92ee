/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/receipt/receipt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"

void ev_utc_now(char *buf, size_t cap)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *tool_object(const char *name)
{
	uint8_t digest[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1] = "unknown";
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (ev_sha256_path("/proc/self/exe", digest, NULL, &ignored) == EV_OK)
		ev_sha256_hex(digest, hex);
	return json_pack("{s:s, s:s, s:s}", "name", name, "version", PACKAGE_VERSION, "sha256",
			 hex);
}

void ev_utc_stamp(char *buf, size_t cap)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y%m%dT%H%M%SZ", &tm);
}

/* How the tool was run, for a continuation to run it again: argv and the
 * working directory its relative paths mean. NULL when unknown. */
static json_t *invocation_object(const struct ev_invocation *how)
{
	char cwd[4096];
	if (!how || how->argc < 1 || !getcwd(cwd, sizeof cwd))
		return NULL;
	json_t *argv = json_array();
	for (int i = 0; i < how->argc; i++) {
		json_t *arg = json_string(how->argv[i]);
		if (!arg) { /* not UTF-8: cannot be recorded, so cannot be rerun */
			json_decref(argv);
			return NULL;
		}
		json_array_append_new(argv, arg);
	}
	json_t *cwd_json = json_string(cwd);
	if (!cwd_json) {
		json_decref(argv);
		return NULL;
	}
	return json_pack("{s:o, s:o}", "argv", argv, "cwd", cwd_json);
}

json_t *ev_receipt_new(const char *kind, const char *tool_name, const struct ev_invocation *how,
		       struct ev_error *err)
{
	char host[256] = "unknown", now[32];
	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "unknown");
	host[sizeof host - 1] = '\0';
	ev_utc_now(now, sizeof now);
	json_t *r = json_pack("{s:s, s:s, s:o, s:s, s:s, s:[], s:[], s:[], s:{}}", "format",
			      EV_RECEIPT_FORMAT, "kind", kind, "tool", tool_object(tool_name),
			      "host", host, "started", now, "inputs", "outputs", "checks",
			      "facts");
	if (!r)
		ev_error_set(err, EV_ERROR, "receipt: out of memory");
	json_t *invocation = r ? invocation_object(how) : NULL;
	if (invocation)
		json_object_set_new(r, "invocation", invocation);
	return r;
}

static ev_status add_named(json_t *r, const char *list, const char *name, const char *path,
			   const char *sha256_hex, struct ev_error *err)
{
	json_t *o = json_pack("{s:s}", "name", name);
	if (o && path)
		json_object_set_new(o, "path", json_string(path));
	if (o && sha256_hex)
		json_object_set_new(o, "sha256", json_string(sha256_hex));
	if (!o || json_array_append_new(json_object_get(r, list), o) != 0)
		return ev_error_set(err, EV_ERROR, "receipt: out of memory");
	return EV_OK;
}

ev_status ev_receipt_add_input(json_t *r, const char *name, const char *path,
			       const char *sha256_hex, struct ev_error *err)
{
	return add_named(r, "inputs", name, path, sha256_hex, err);
}

ev_status ev_receipt_add_output(json_t *r, const char *name, const char *path,
				const char *sha256_hex, struct ev_error *err)
{
	return add_named(r, "outputs", name, path, sha256_hex, err);
}

ev_status ev_receipt_add_output_receipt(json_t *r, const char *name, const char *path, const char *sha256_hex,
					const char *comparable_hex, struct ev_error *err)
{
	ev_status st = add_named(r, "outputs", name, path, sha256_hex, err);
	json_t *outputs = json_object_get(r, "outputs");
	if (st == EV_OK &&
	    json_object_set_new(json_array_get(outputs, json_array_size(outputs) - 1), "comparable",
				json_string(comparable_hex)) != 0)
		st = ev_error_set(err, EV_ERROR, "receipt: out of memory");
	return st;
}

int ev_receipt_check_pin(json_t *r, const char *subject, const char *check, const char *message,
			 const char *pass_detail, const char *pinned_hex, const char *found_hex, ev_finding_fn fn,
			 void *ctx, struct ev_error *err)
{
	if (strcmp(pinned_hex, found_hex) == 0) {
		ev_receipt_add_check(r, check, 1, pass_detail, err);
		return 1;
	}
	struct ev_finding f;
	char detail[2 * EV_FINDING_VALUE_MAX];
	ev_finding_make(&f, subject, check, message, pinned_hex, found_hex);
	snprintf(detail, sizeof detail, "%s (expected %s, found %s)", message, pinned_hex, found_hex);
	ev_receipt_add_check(r, check, 0, detail, err);
	f.in_receipt = 1;
	fn(ctx, &f);
	return 0;
}

ev_status ev_receipt_set_fact(json_t *r, const char *key, json_t *value, struct ev_error *err)
{
	if (!value || json_object_set_new(json_object_get(r, "facts"), key, value) != 0)
		return ev_error_set(err, EV_ERROR, "receipt: out of memory");
	return EV_OK;
}

ev_status ev_receipt_add_check(json_t *r, const char *name, int pass, const char *detail,
			       struct ev_error *err)
{
	json_t *o = json_pack("{s:s, s:s}", "name", name, "result", pass ? "pass" : "fail");
	if (o && detail)
		json_object_set_new(o, "detail", json_string(detail));
	if (!o || json_array_append_new(json_object_get(r, "checks"), o) != 0)
		return ev_error_set(err, EV_ERROR, "receipt: out of memory");
	return EV_OK;
}

/* inputs/outputs reduced to name and sha256: paths differ between hosts. */
static json_t *names_and_digests(const json_t *list)
{
	json_t *out = json_array();
	size_t i;
	json_t *item;
	json_array_foreach(list, i, item)
	{
		json_t *o = json_object();
		json_object_set(o, "name", json_object_get(item, "name"));
		/* a receipt among the outputs is compared by what it says, not
		 * by its bytes, which hold its own times and host */
		if (json_object_get(item, "comparable"))
			json_object_set(o, "comparable", json_object_get(item, "comparable"));
		else if (json_object_get(item, "sha256"))
			json_object_set(o, "sha256", json_object_get(item, "sha256"));
		json_array_append_new(out, o);
	}
	return out;
}

ev_status ev_receipt_comparable(const json_t *r, char hex[65], struct ev_error *err)
{
	const json_t *tool = json_object_get(r, "tool");
	json_t *part = json_pack(
		"{s:O, s:{s:O, s:O}, s:o, s:o, s:O, s:O, s:O}", "kind", json_object_get(r, "kind"),
		"tool", "name", json_object_get(tool, "name"), "version",
		json_object_get(tool, "version"), "inputs",
		names_and_digests(json_object_get(r, "inputs")), "outputs",
		names_and_digests(json_object_get(r, "outputs")), "facts",
		json_object_get(r, "facts"), "checks", json_object_get(r, "checks"), "result",
		json_object_get(r, "result"));
	if (!part)
		return ev_error_set(err, EV_ERROR, "receipt: incomplete (cannot build comparable part)");
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_json_sha256(part, digest, err);
	if (st == EV_OK)
		ev_sha256_hex(digest, hex);
	json_decref(part);
	return st;
}

ev_status ev_receipt_finish(json_t *r, struct ev_error *err)
{
	int pass = 1;
	size_t i;
	json_t *check;
	json_array_foreach(json_object_get(r, "checks"), i, check)
	{
		if (strcmp(json_string_value(json_object_get(check, "result")), "pass") != 0)
			pass = 0;
	}
	char now[32], hex[65];
	ev_utc_now(now, sizeof now);
	json_object_set_new(r, "result", json_string(pass ? "pass" : "fail"));
	json_object_set_new(r, "finished", json_string(now));
	ev_status st = ev_receipt_comparable(r, hex, err);
	if (st == EV_OK)
		json_object_set_new(r, "comparable", json_string(hex));
	return st;
}

ev_status ev_receipt_add_finding(json_t *r, const struct ev_finding *f, struct ev_error *err)
{
	char name[1200], detail[2 * EV_FINDING_VALUE_MAX + 200];
	snprintf(name, sizeof name, "%s:%s", f->check, f->subject);
	if (f->expected[0] || f->found[0])
		snprintf(detail, sizeof detail, "%s (expected %s, found %s)", f->message,
			 f->expected[0] ? f->expected : "nothing", f->found[0] ? f->found : "nothing");
	else
		snprintf(detail, sizeof detail, "%s", f->message);
	ev_status st = ev_receipt_add_check(r, name, 0, detail, err);
	/* The values again, whole, for a continuation to match against. */
	json_t *check = json_array_get(json_object_get(r, "checks"), json_array_size(json_object_get(r, "checks")) - 1);
	if (st == EV_OK && f->expected[0])
		json_object_set_new(check, "expected", json_string(f->expected));
	if (st == EV_OK && f->found[0])
		json_object_set_new(check, "found", json_string(f->found));
	return st;
}

ev_status ev_receipt_write(const json_t *r, const char *path, struct ev_error *err)
{
	return ev_publish_json(path, r, err);
}

ev_status ev_receipt_write_fresh(const json_t *r, const char *dir, const char *stem,
				 char *path_out, size_t cap, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_json_dump(r, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_publish_fresh(dir, stem, "json", bytes, len, 0644, path_out, cap, err);
	free(bytes);
	return st;
}

ev_status ev_receipt_refuse_existing(const char *path, struct ev_error *err)
{
	if (path && access(path, F_OK) == 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: already exists; evidence is never overwritten (choose a new name)", path);
	return EV_OK;
}

ev_status ev_receipt_write_chosen(const json_t *r, const char *path, const char *dir, const char *stem,
				  char *path_out, size_t cap, struct ev_error *err)
{
	if (path) {
		snprintf(path_out, cap, "%s", path);
		return ev_receipt_write(r, path, err);
	}
	char stamp[32], stamped[1024];
	ev_utc_stamp(stamp, sizeof stamp);
	snprintf(stamped, sizeof stamped, "%s-%s", stem, stamp);
	return ev_receipt_write_fresh(r, dir, stamped, path_out, cap, err);
}

ev_status ev_receipt_load(const char *path, json_t **out, uint8_t sha256_out[EV_SHA256_LEN],
			  struct ev_error *err)
{
	json_t *r = NULL;
	ev_status st = ev_json_load(path, EV_RECEIPT_FORMAT, EV_JSON_REQUIRE_CANONICAL, &r,
				    sha256_out, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	static const char *const required[] = {"kind", "host", "result", "comparable"};
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (!json_is_string(json_object_get(r, required[i]))) {
			json_decref(r);
			return ev_error_set(err, EV_REFUSED, "%s: not a complete receipt (no \"%s\" string)",
					    path, required[i]);
		}
	if (!json_is_object(json_object_get(r, "tool")) || !json_is_array(json_object_get(r, "checks"))) {
		json_decref(r);
		return ev_error_set(err, EV_REFUSED, "%s: not a complete receipt (no tool or checks)",
				    path);
	}
	*out = r;
	return EV_OK;
}

const char *ev_receipt_unknown_field(const json_t *r)
{
	static const char *const known[] = {"format", "kind", "tool", "host", "started", "finished",
					    "invocation", "inputs", "outputs", "facts", "checks", "result",
					    "comparable", "signature", "fresh_receipt"};
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)r, key, v) {
		size_t i = 0;
		while (i < sizeof known / sizeof *known && strcmp(key, known[i]) != 0)
			i++;
		if (i == sizeof known / sizeof *known)
			return key;
	}
	return NULL;
}

int ev_receipt_comparable_holds(const json_t *r, struct ev_error *err)
{
	const char *stated = json_string_value(json_object_get(r, "comparable"));
	char hex[65];
	if (!stated)
		return 0;
	if (ev_receipt_comparable(r, hex, err) != EV_OK)
		return -1;
	return strcmp(hex, stated) == 0;
}
