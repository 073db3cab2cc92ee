/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign: the stack options each side asked for against those its
 * stack really used, per cell, read cold from what capture's observers
 * kept (doc/formats.md "Stack options").
 *
 * For every run, every output of an observer whose format is "onload" is
 * hashed again and held against run.json (a changed output is a finding
 * and fails the run's check) and parsed (lib/campaign/onload); a side's
 * effective options are those of its last output that shows any.
 * Requested: the Onload profile its argv names (--profile=P), read from
 * the copy in its working directory when P is one of its inputs, else
 * from Onload's profile directory (--onload-profiles), in either syntax
 * Onload accepts (lib/campaign/onload), its imports first; then the
 * side's EF_ environment entries as executed. A run whose effective value
 * of an option differs from the request, or from the value most of its
 * cell's runs show (the first run's, on a tie), is flagged, and the
 * cell's check fails. A side its observer never saw in a run fails that
 * run unless the observer is optional. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/usecase/audit/campaign/parts.h"
#include "lib/campaign/onload.h"
#include "lib/campaign/run.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

#define OUTPUT_MAX ((size_t)16 << 20)

struct options_ctx {
	struct ev_audit_campaign *ca;
	const char *run;
	unsigned findings;
};

/* A finding of a run's stack options, named by the run. */
static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct options_ctx *o = ctx;
	ev_audit_campaign_finding(o->ca, o->run, f);
	o->findings++;
}

/* An option whose effective value is not the one requested, named by
 * its run: what the cell's table flags, shown as it is found. */
static void show_flagged(void *ctx, const struct ev_finding *f)
{
	const struct ev_audit_campaign *ca = ctx;
	ev_audit_campaign_finding(ca, NULL, f);
}

#define PROFILE_DIR_DEFAULT "/usr/libexec/onload/profiles"
#define IMPORT_DEPTH_MAX 8

/* Where a requested option could not be read, for the coverage. */
static void not_read_add(json_t *not_read, const struct ev_audited_run *r, const char *side, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void not_read_add(json_t *not_read, const struct ev_audited_run *r, const char *side, const char *fmt, ...)
{
	char text[900];
	int n = snprintf(text, sizeof text, "cell %s %s: ", r->cell, side);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	va_end(ap);
	json_array_append_new(not_read, json_string(text));
}

/* A profile of Onload's profile directory (NAME.opf), read as a
 * reference of the auditor's host like --perf, its SHA-256 in the
 * receipt's inputs. @return 0, or -1 when it cannot be read. */
static int read_profile_dir(struct ev_audit_campaign *ca, const char *name, char **bytes, size_t *len)
{
	char file[NAME_MAX + 1], path[PATH_MAX];
	const char *dir = ca->onload_profiles ? ca->onload_profiles : PROFILE_DIR_DEFAULT;
	size_t n = strlen(name);
	struct ev_error err;
	ev_error_clear(&err);
	int absent = 0;
	/* the name is the evidence's: one entry of the directory, never a link */
	if (strchr(name, '/') || !n ||
	    (size_t)snprintf(file, sizeof file, "%s%s", name, n > 4 && strcmp(name + n - 4, ".opf") == 0 ? "" : ".opf") >=
		    sizeof file ||
	    ev_input_check_beneath(dir, file, "onload profile", &absent, &err) != EV_OK || absent ||
	    ev_path_join(path, sizeof path, dir, file) != 0 || ev_file_read_all(path, OUTPUT_MAX, bytes, len, &err) != EV_OK)
		return -1;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1], input[300];
	if (ev_sha256_buffer(*bytes, *len, d, &err) == EV_OK) {
		ev_sha256_hex(d, hex);
		snprintf(input, sizeof input, "onload profile %s", name);
		int known = 0;
		size_t i;
		json_t *in;
		json_array_foreach(ev_receipt_inputs(ca->receipt), i, in)
			known |= strcmp(json_string_value(json_object_get(in, "path")) ?: "", path) == 0;
		if (!known)
			ev_receipt_add_input(ca->receipt, input, path, hex, &err);
	}
	return 0;
}

/* A profile's text into req: its imports first (each from the profile
 * directory), then its own lines over them; what could not be read or
 * understood named in not_read. */
static void take_profile(struct ev_audit_campaign *ca, const struct ev_audited_run *r, const char *side, const char *name,
			 const char *bytes, size_t len, json_t *req, json_t *not_read, int depth)
{
	json_t *own = json_object(), *imports = json_array(), *odd = json_array(), *v;
	size_t i;
	ev_onload_requested_profile(bytes, len, own, imports, odd);
	json_array_foreach(imports, i, v) {
		const char *imp = json_string_value(v);
		char *ib = NULL;
		size_t il = 0;
		if (depth >= IMPORT_DEPTH_MAX)
			not_read_add(not_read, r, side, "profile %s imports %s %d levels deep: not followed", name, imp, depth);
		else if (read_profile_dir(ca, imp, &ib, &il) != 0)
			not_read_add(not_read, r, side, "profile %s imports %s, not readable in %s: its options are not "
				     "counted as requested (--onload-profiles DIR)", name, imp,
				     ca->onload_profiles ? ca->onload_profiles : PROFILE_DIR_DEFAULT);
		else
			take_profile(ca, r, side, imp, ib, il, req, not_read, depth + 1);
		free(ib);
	}
	json_object_update(req, own);
	json_array_foreach(odd, i, v)
		not_read_add(not_read, r, side, "profile %s %s: not understood, not counted as requested", name,
			     json_string_value(v));
	json_decref(own);
	json_decref(imports);
	json_decref(odd);
}

/* The profile an onload launcher in argv names (--profile=P or
 * --profile P), or NULL. */
static const char *profile_named(const json_t *argv)
{
	size_t i;
	json_t *v;
	json_array_foreach(argv, i, v) {
		const char *arg = json_string_value(v);
		if (arg && strncmp(arg, "--profile=", 10) == 0)
			return arg + 10;
		if (arg && strcmp(arg, "--profile") == 0)
			return json_string_value(json_array_get(argv, i + 1));
	}
	return NULL;
}

/* The requested options of one process: the profile its onload launcher
 * names (the copy among its inputs, else Onload's profile directory),
 * then its EF_ environment, which Onload reads last. */
static json_t *requested_of(struct ev_audit_campaign *ca, const struct ev_audited_run *r, const json_t *proc, const char *side,
			    json_t *not_read)
{
	json_t *req = json_object(), *v;
	size_t i;
	const char *profile = profile_named(json_object_get(proc, "argv"));
	if (profile) {
		const char *copy = NULL;
		json_t *in;
		json_array_foreach(json_object_get(proc, "inputs"), i, in)
			if (strcmp(json_string_value(json_object_get(in, "name")) ?: "", profile) == 0 ||
			    strcmp(json_string_value(json_object_get(in, "path")) ?: "", profile) == 0)
				copy = json_string_value(json_object_get(in, "name"));
		char path[PATH_MAX], rel[PATH_MAX], *bytes = NULL;
		size_t len = 0;
		struct ev_error err;
		ev_error_clear(&err);
		const char *cwd = json_string_value(json_object_get(proc, "cwd"));
		const char *base = cwd ? strrchr(cwd, '/') : NULL; /* the working directory, inside this run's */
		/* the copy in the side's working directory, never outside the run's */
		if (copy && base && ev_path_join(rel, sizeof rel, base + 1, copy) == 0 &&
		    ev_input_check_beneath(r->dir, rel, "run.json: inputs", NULL, &err) == EV_OK &&
		    ev_path_join(path, sizeof path, r->dir, rel) == 0 &&
		    ev_file_read_all(path, OUTPUT_MAX, &bytes, &len, &err) == EV_OK)
			take_profile(ca, r, side, profile, bytes, len, req, not_read, 0);
		else if (!copy && read_profile_dir(ca, profile, &bytes, &len) == 0)
			take_profile(ca, r, side, profile, bytes, len, req, not_read, 0);
		else
			not_read_add(not_read, r, side, "profile %s is neither among the side's inputs nor readable in "
				     "Onload's profile directory %s: its options are not counted as requested", profile,
				     ca->onload_profiles ? ca->onload_profiles : PROFILE_DIR_DEFAULT);
		free(bytes);
	}
	json_array_foreach(json_object_get(proc, "env"), i, v)
		ev_onload_requested_env(json_string_value(v), req);
	return req;
}

/* One run: each onload output checked and read; per side, the requested
 * and effective options, into cells[cell][side]. */
static void read_run(struct ev_audit_campaign *ca, struct ev_audited_run *r, json_t *cells, json_t *not_read)
{
	char path[PATH_MAX];
	struct ev_run run;
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_path_join(path, sizeof path, r->dir, EV_RUN_FILENAME) != 0 || ev_run_load(path, 0, &run, NULL, &err) != EV_OK)
		return;
	json_t *observers = json_object_get(run.doc, "observers");
	struct options_ctx ctx = {ca, r->name, 0};
	size_t i, checked = 0;
	json_t *rec;
	json_array_foreach(observers, i, rec) {
		const char *format = json_string_value(json_object_get(rec, "format"));
		const char *side = json_string_value(json_object_get(rec, "side"));
		if (!format || strcmp(format, "onload") != 0 || !side)
			continue;
		json_t *effective = NULL;
		size_t k;
		json_t *out;
		json_array_foreach(json_object_get(rec, "outputs"), k, out) {
			const char *rel = json_string_value(json_object_get(out, "stdout"));
			const char *want = json_string_value(json_object_get(out, "sha256"));
			char file[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1], *bytes = NULL;
			size_t len = 0;
			uint8_t d[EV_SHA256_LEN];
			if (!rel || !want || ev_path_join(file, sizeof file, r->dir, rel) != 0)
				continue;
			ev_error_clear(&err);
			if (ev_file_read_all(file, OUTPUT_MAX, &bytes, &len, &err) != EV_OK) {
				ev_finding_emit(on_finding, &ctx, rel, "missing", "an observer's output cannot be read",
						want, err.text);
				continue;
			}
			checked++;
			ev_sha256_buffer(bytes, len, d, &err);
			ev_sha256_hex(d, hex);
			if (strcmp(hex, want) != 0) {
				ev_finding_emit(on_finding, &ctx, rel, "sha256", "an observer's output changed since capture",
						want, hex);
				free(bytes);
				continue;
			}
			json_t *options, *counters;
			ev_onload_parse(bytes, len, rel, &options, &counters, on_finding, &ctx);
			if (json_object_size(options)) {
				json_decref(effective);
				effective = json_incref(options);
			}
			json_decref(options);
			json_decref(counters);
			free(bytes);
		}
		json_t *cell = json_object_get(cells, r->cell);
		if (!cell)
			json_object_set_new(cells, r->cell, cell = json_object());
		json_t *s = json_object_get(cell, side);
		if (!s)
			json_object_set_new(cell, side, s = json_pack("{s:o, s:o, s:[]}", "requested", json_null(), "runs",
								      json_object(), "flagged"));
		json_t *proc = NULL, *p;
		json_array_foreach(json_object_get(run.doc, "processes"), k, p)
			if (strcmp(json_string_value(json_object_get(p, "role")) ?: "", side) == 0)
				proc = p;
		if (json_is_null(json_object_get(s, "requested")) && proc)
			json_object_set_new(s, "requested", requested_of(ca, r, proc, side, not_read));
		if (!effective) { /* the observer ran and the stack showed no option: never a silent pass */
			const char *obs = json_string_value(json_object_get(rec, "name")) ?: "?";
			if (json_is_true(json_object_get(rec, "optional"))) {
				not_read_add(not_read, r, side, "run %s: its stack was not observed (observer %s is optional)",
					     r->name, obs);
			} else {
				char text[300];
				snprintf(text, sizeof text, "the %s's stack was never observed: observer %s showed no option in "
					 "any output (a run too short for it, or no stack; say \"optional\": true to allow it)",
					 side, obs);
				ev_finding_emit(on_finding, &ctx, side, "not-observed", text, "options", "none");
			}
		}
		json_t *values = json_object();
		const char *name;
		json_t *v;
		json_object_foreach(effective, name, v)
			json_object_set(values, name, json_object_get(v, "value"));
		json_object_set_new(json_object_get(s, "runs"), r->name, effective ? values : (json_decref(values), json_null()));
		json_decref(effective);
	}
	if (checked || ctx.findings) {
		char check[256], detail[128];
		snprintf(check, sizeof check, "run %s observers", r->name);
		snprintf(detail, sizeof detail, "%zu output%s hashed again, %u finding%s", checked, checked == 1 ? "" : "s",
			 ctx.findings, ctx.findings == 1 ? "" : "s");
		ev_receipt_add_check(ca->receipt, check, ctx.findings == 0, detail, &err);
	}
	ev_run_free(&run);
}

/* Every run's effective value of every requested option against the
 * request: a difference is flagged ("requested") and fails the check
 * "cell CELL SIDE requested options"; an option the observer did not
 * show is named in the coverage (Onload's dump may omit defaults). */
static void held_to_requested(struct ev_audit_campaign *ca, const char *cell, const char *side, json_t *s)
{
	json_t *runs = json_object_get(s, "runs"), *flagged = json_object_get(s, "flagged"), *eff, *want;
	const char *run, *name;
	size_t differ = 0, unseen = 0;
	char first[300] = "";
	json_object_foreach(json_object_get(s, "requested"), name, want) {
		json_object_foreach(runs, run, eff) {
			if (json_is_null(eff))
				continue;
			const char *val = json_string_value(json_object_get(eff, name));
			if (!val) {
				unseen++;
				continue;
			}
			if (strcmp(val, json_string_value(want)) == 0)
				continue;
			differ++;
			json_array_append_new(flagged, json_pack("{s:s, s:s, s:s, s:s}", "run", run, "option", name,
								 "effective", val, "requested", json_string_value(want)));
			char said[512];
			snprintf(said, sizeof said, "%s %s: requested %s, effective %s", side, name, json_string_value(want), val);
			ev_finding_emit(show_flagged, ca, run, "stack-option", said, NULL, NULL);
			if (!first[0])
				snprintf(first, sizeof first, "%s %s: requested %s, effective %s", run, name,
					 json_string_value(want), val);
		}
	}
	if (unseen) {
		char text[300];
		snprintf(text, sizeof text, "cell %s %s: %zu requested option value%s not shown by the runs' observers "
			 "(not compared)", cell, side, unseen, unseen == 1 ? "" : "s");
		json_array_append_new(ca->options_not_read, json_string(text));
	}
	char check[256], detail[512];
	snprintf(check, sizeof check, "cell %s %s requested options", cell, side);
	if (differ)
		snprintf(detail, sizeof detail, "%zu effective value%s differ%s from the request (first: %s)", differ,
			 differ == 1 ? "" : "s", differ == 1 ? "s" : "", first);
	else
		snprintf(detail, sizeof detail, "every requested option shown is in effect in every run observed");
	struct ev_error err;
	ev_error_clear(&err);
	ev_receipt_add_check(ca->receipt, check, differ == 0, detail, &err);
}

/* The effective value most runs of the side show (the first run's on a
 * tie); every run that differs goes to flagged. */
static void flag_side(struct ev_audit_campaign *ca, const char *cell, const char *side, json_t *s)
{
	json_t *runs = json_object_get(s, "runs"), *names = json_object();
	const char *run, *name;
	json_t *eff, *v;
	json_object_foreach(runs, run, eff)
		json_object_foreach(eff, name, v)
			json_object_set_new(names, name, json_true());
	json_object_foreach(json_object_get(s, "requested"), name, v)
		json_object_set_new(names, name, json_true());
	json_t *flagged = json_object_get(s, "flagged");
	json_object_foreach(names, name, v) {
		const char *best = NULL;
		size_t best_n = 0;
		json_object_foreach(runs, run, eff) {
			if (json_is_null(eff))
				continue;
			const char *val = json_string_value(json_object_get(eff, name));
			size_t n = 0;
			const char *r2;
			json_t *e2;
			json_object_foreach(runs, r2, e2) {
				const char *other = json_is_null(e2) ? NULL : json_string_value(json_object_get(e2, name));
				n += !json_is_null(e2) && ((!val && !other) || (val && other && strcmp(val, other) == 0));
			}
			if (n > best_n) {
				best_n = n;
				best = val ? val : "(absent)";
			}
		}
		json_object_foreach(runs, run, eff) {
			if (json_is_null(eff))
				continue;
			const char *val = json_string_value(json_object_get(eff, name));
			const char *shown = val ? val : "(absent)";
			if (best && strcmp(shown, best) != 0) {
				json_array_append_new(flagged, json_pack("{s:s, s:s, s:s, s:s}", "run", run, "option", name,
									 "effective", shown, "cell_others", best));
				char said[512];
				snprintf(said, sizeof said, "%s %s: effective %s, where the cell's other runs have %s", side,
					 name, shown, best);
				ev_finding_emit(show_flagged, ca, run, "stack-option-odd", said, NULL, NULL);
			}
		}
	}
	json_decref(names);
	char check[256], detail[512];
	snprintf(check, sizeof check, "cell %s %s effective options", cell, side);
	size_t nf = json_array_size(flagged);
	held_to_requested(ca, cell, side, s);
	if (nf)
		snprintf(detail, sizeof detail, "%zu option value%s differ%s from the cell's other runs (first: %s %s)", nf,
			 nf == 1 ? "" : "s", nf == 1 ? "s" : "",
			 json_string_value(json_object_get(json_array_get(flagged, 0), "run")),
			 json_string_value(json_object_get(json_array_get(flagged, 0), "option")));
	else
		snprintf(detail, sizeof detail, "the same in every run observed");
	struct ev_error err;
	ev_error_clear(&err);
	ev_receipt_add_check(ca->receipt, check, nf == 0, detail, &err);
}

json_t *ev_audit_campaign_stack_options(struct ev_audit_campaign *ca, json_t *not_read)
{
	json_t *cells = json_object();
	for (size_t i = 0; i < ca->nruns; i++)
		read_run(ca, &ca->runs[i], cells, not_read);
	const char *cell, *side;
	json_t *c, *s;
	json_object_foreach(cells, cell, c)
		json_object_foreach(c, side, s)
			flag_side(ca, cell, side, s);
	if (!json_object_size(cells)) {
		json_decref(cells);
		return NULL;
	}
	return cells;
}

