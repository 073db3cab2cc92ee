/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/stats/reference.h"

static int only_keys(const json_t *obj, const char *const *allowed, const char **bad)
{
	return !(*bad = ev_json_unknown_key(obj, allowed));
}

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 1 || n > 64)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static ev_status check_descriptor(const json_t *d, const char *path, struct ev_error *err)
{
	static const char *const top[] = {"format", "name", "published", "statistics", "hardware", "stack",
					  "tolerance_percent", NULL};
	static const char *const published[] = {"where", "when", NULL};
	static const char *const statistics[] = {"path", "sha256", NULL};
	static const char *const hardware[] = {"cpu_model", NULL};
	static const char *const stack[] = {"kernel_release", "os", "network", "program_sha256", NULL};
	const char *bad = NULL;
	if (!only_keys(d, top, &bad))
		return ev_error_set(err, EV_USAGE,
				    "%s: \"%s\": not a key of a reference (format, name, published, statistics, hardware, stack, tolerance_percent)",
				    path, bad);
	if (!valid_name(json_string_value(json_object_get(d, "name"))))
		return ev_error_set(err, EV_USAGE, "%s: \"name\": expected 1 to 64 of A-Za-z0-9_.-", path);
	const struct {
		const char *key;
		const char *const *keys;
		const char *need;
	} parts[] = {{"published", published, "where"}, {"statistics", statistics, "path"},
		     {"hardware", hardware, "cpu_model"}, {"stack", stack, NULL}};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		const json_t *o = json_object_get(d, parts[i].key);
		if (!json_is_object(o))
			return ev_error_set(err, EV_USAGE, "%s: \"%s\": missing, or not an object", path, parts[i].key);
		if (!only_keys(o, parts[i].keys, &bad))
			return ev_error_set(err, EV_USAGE, "%s: \"%s\": \"%s\": not a key there", path, parts[i].key, bad);
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)o, k, v)
			if (!json_is_string(v) || !*json_string_value(v))
				return ev_error_set(err, EV_USAGE, "%s: \"%s\".\"%s\": expected a string", path, parts[i].key, k);
		if (parts[i].need && !json_object_get(o, parts[i].need))
			return ev_error_set(err, EV_USAGE, "%s: \"%s\": \"%s\" is required", path, parts[i].key, parts[i].need);
	}
	if (!json_object_get(json_object_get(d, "published"), "when"))
		return ev_error_set(err, EV_USAGE, "%s: \"published\": \"when\" is required", path);
	if (!ev_sha256_hex_valid(json_string_value(json_object_get(json_object_get(d, "statistics"), "sha256"))))
		return ev_error_set(err, EV_USAGE, "%s: \"statistics\": \"sha256\": expected 64 lower-case hex digits (the pin of the published file)",
				    path);
	if (!json_object_size(json_object_get(d, "stack")))
		return ev_error_set(err, EV_USAGE,
				    "%s: \"stack\": name at least one of kernel_release, os, network, program_sha256 (a reproduction names the stack it reproduces)",
				    path);
	const char *net = json_string_value(json_object_get(json_object_get(d, "stack"), "network"));
	if (net && strcmp(net, "kernel") != 0 && strcmp(net, "onload") != 0)
		return ev_error_set(err, EV_USAGE, "%s: \"stack\".\"network\": expected \"kernel\" or \"onload\", found \"%s\"", path, net);
	const json_t *tol = json_object_get(d, "tolerance_percent");
	if (tol && (!json_is_number(tol) || json_number_value(tol) <= 0 || json_number_value(tol) > 100))
		return ev_error_set(err, EV_USAGE, "%s: \"tolerance_percent\": expected a number above 0, at most 100", path);
	return EV_OK;
}

ev_status ev_reference_load(const char *path, const char *pinned, struct ev_reference *ref, struct ev_error *err)
{
	memset(ref, 0, sizeof *ref);
	uint8_t d[EV_SHA256_LEN];
	ev_status st = ev_json_load(path, EV_REFERENCE_FORMAT, 0, &ref->doc, d, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(d, ref->sha256);
	if (pinned && strcmp(pinned, ref->sha256) != 0)
		return ev_error_set(err, EV_USAGE, "%s: its SHA-256 is %s, --reference-sha256 pins %s: not the reference you pinned",
				    path, ref->sha256, pinned);
	if ((st = check_descriptor(ref->doc, path, err)) != EV_OK)
		return st;
	ref->name = json_string_value(json_object_get(ref->doc, "name"));
	const json_t *tol = json_object_get(ref->doc, "tolerance_percent");
	ref->tolerance_percent = tol ? json_number_value(tol) : 10.0;
	const json_t *stats = json_object_get(ref->doc, "statistics");
	const char *rel = json_string_value(json_object_get(stats, "path"));
	const char *pin = json_string_value(json_object_get(stats, "sha256"));
	char dir[PATH_MAX], where[PATH_MAX + 32];
	snprintf(dir, sizeof dir, "%s", path);
	snprintf(where, sizeof where, "%s: statistics.path", path);
	const char *root = dirname(dir);
	int absent = 0;
	if ((st = ev_input_check_beneath(root, rel, where, &absent, err)) != EV_OK)
		return st;
	if (ev_path_join(ref->stats_path, sizeof ref->stats_path, root, rel) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", where);
	if (absent)
		return ev_error_set(err, EV_USAGE, "%s: %s: no such file (the published statistics it pins)", path,
				    ref->stats_path);
	char after[EV_SHA256_HEX_LEN + 1];
	if ((st = ev_input_sha256_hex(ref->stats_path, "reference statistics", ref->stats_sha256, err)) != EV_OK)
		return st;
	if (strcmp(ref->stats_sha256, pin) != 0)
		return ev_error_set(err, EV_USAGE,
				    "%s: its SHA-256 is %s, the reference %s pins %s: these are not the published statistics",
				    ref->stats_path, ref->stats_sha256, path, pin);
	if ((st = ev_native_load(ref->stats_path, &ref->native, err)) != EV_OK)
		return st;
	if ((st = ev_input_sha256_hex(ref->stats_path, "reference statistics", after, err)) != EV_OK)
		return st;
	if (strcmp(after, ref->stats_sha256) != 0)
		return ev_error_set(err, EV_USAGE, "%s: changed while it was read (SHA-256 %s, then %s)", ref->stats_path,
				    ref->stats_sha256, after);
	if (ref->native.nmissing)
		return ev_error_set(err, EV_USAGE, "%s: the %s block lacks its %s line: a published block is quoted whole",
				    ref->stats_path, ref->native.tool, ref->native.missing[0]);
	struct ev_native_broken broken[1];
	if (ev_native_check_consistency(&ref->native, broken, 1))
		return ev_error_set(err, EV_USAGE, "%s: the block breaks its own promise: %s", ref->stats_path, broken[0].text);
	return EV_OK;
}

void ev_reference_free(struct ev_reference *ref)
{
	json_decref(ref->doc);
	ref->doc = NULL;
}
