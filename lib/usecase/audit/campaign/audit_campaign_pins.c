/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the pins: what capture recorded of every file a run
 * left (each capture receipt's outputs "runs/RUN/PATH" with their
 * SHA-256) held against the bytes the audit read. A program that keeps
 * no raw series leaves only its printed numbers; without a seal, the
 * capture receipt is what catches an edit made after capture. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/usecase/audit/campaign/parts.h"
#include "lib/campaign/run.h"
#include "lib/core/input.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt_read.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The capture receipts' names in the campaign directory, sorted; *n of
 * them (at most cap). */
static size_t capture_receipt_names(const char *dir, char **names, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)) && n < cap)
		if (strncmp(de->d_name, "receipt-capture", 15) == 0 && strstr(de->d_name, ".json") &&
		    (names[n] = strdup(de->d_name)))
			n++;
	if (d)
		closedir(d);
	qsort(names, n, sizeof *names, by_name);
	return n;
}

/* The campaign-relative path an output of a capture receipt pins: its
 * name "runs/RUN/PATH", or for a run's run.json the run's name. NULL for
 * what is not of a run (policy). */
static const char *pinned_path(const json_t *out, char *buf, size_t cap)
{
	const char *name = json_string_value(json_object_get(out, "name"));
	const char *path = json_string_value(json_object_get(out, "path"));
	if (!name || !path)
		return NULL;
	if (strncmp(name, "runs/", 5) == 0)
		return name;
	size_t pl = strlen(path), tail = strlen("/" EV_RUN_FILENAME);
	if (!strchr(name, '/') && pl > tail && strcmp(path + pl - tail, "/" EV_RUN_FILENAME) == 0 &&
	    (size_t)snprintf(buf, cap, "runs/%s/" EV_RUN_FILENAME, name) < cap)
		return buf;
	return NULL;
}

static void refuse_receipt(struct ev_audit_campaign *ca, const char *name, const char *why, struct ev_error *err)
{
	char check[320];
	snprintf(check, sizeof check, "capture receipt %s", name);
	ev_audit_campaign_note(ca, "%s/%s: %s; what it pins is not used", ca->dir, name, why);
	ev_receipt_add_check(ca->receipt, check, 0, why, err);
	ca->capture_receipts_refused++;
}

ev_status ev_audit_campaign_load_capture_pins(struct ev_audit_campaign *ca, struct ev_error *err)
{
	char *names[64];
	size_t n = capture_receipt_names(ca->dir, names, 64);
	ev_status st = EV_OK;
	ca->capture_pins = json_object();
	ca->capture_registrations = json_object();
	for (size_t i = 0; i < n && st == EV_OK; i++) {
		char path[PATH_MAX], why[512];
		json_t *r = NULL;
		if (ev_path_join(path, sizeof path, ca->dir, names[i]) != 0)
			continue;
		if ((st = ev_input_check_beneath(ca->dir, names[i], ca->dir, NULL, err)) != EV_OK ||
		    (st = ev_receipt_load(path, &r, NULL, err)) != EV_OK)
			break;
		ca->capture_receipts++;
		struct ev_error cerr;
		ev_error_clear(&cerr);
		if (ev_receipt_comparable_holds(r, &cerr) != 1) {
			refuse_receipt(ca, names[i], "altered after it was written (its comparable digest does not hold)", err);
			json_decref(r);
			continue;
		}
		if (ca->trust) {
			why[0] = 0;
			ev_status vs = ev_receipt_check_signature(r, ca->trust, NULL, why, sizeof why, err);
			if (vs == EV_ERROR) {
				st = vs;
				json_decref(r);
				break;
			}
			if (vs != EV_OK) {
				refuse_receipt(ca, names[i], why, err);
				json_decref(r);
				continue;
			}
		}
		size_t k;
		json_t *out, *in;
		json_array_foreach(ev_receipt_inputs(r), k, in)
			if (strcmp(json_string_value(json_object_get(in, "name")) ?: "", "registration") == 0)
				json_object_set(ca->capture_registrations, names[i], json_object_get(in, "sha256"));
		json_array_foreach(ev_receipt_outputs(r), k, out) {
			char buf[PATH_MAX];
			const char *rel = pinned_path(out, buf, sizeof buf);
			const char *hex = json_string_value(json_object_get(out, "sha256"));
			if (!rel || !hex)
				continue;
			json_t *had = json_object_get(ca->capture_pins, rel);
			if (!had) {
				json_object_set_new(ca->capture_pins, rel,
						    json_pack("{s:s, s:s}", "sha256", hex, "receipt", names[i]));
			} else if (strcmp(json_string_value(json_object_get(had, "sha256")), hex) != 0) {
				/* two sessions disagree: the file changed between them */
				json_object_set_new(had, "conflict", json_string(names[i]));
			}
		}
		json_decref(r);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return st;
}

static struct ev_audited_run *run_named(struct ev_audit_campaign *ca, const char *rel)
{
	/* rel is "runs/RUN/..." */
	const char *name = rel + 5, *slash = strchr(name, '/');
	if (!slash)
		return NULL;
	for (size_t i = 0; i < ca->nruns; i++)
		if (strlen(ca->runs[i].name) == (size_t)(slash - name) &&
		    strncmp(ca->runs[i].name, name, (size_t)(slash - name)) == 0)
			return &ca->runs[i];
	return NULL;
}

struct pin_hold {
	struct ev_audit_campaign *ca;
	struct ev_error *err;
};

/* One input that lies in a run, against the pins. */
static void hold_input(void *ctx, const char *rel, const char *hex, const char *path)
{
	struct pin_hold *h = ctx;
	(void)path;
	struct ev_audited_run *r = strncmp(rel, "runs/", 5) == 0 ? run_named(h->ca, rel) : NULL;
	if (!r)
		return;
	const json_t *pin = json_object_get(h->ca->capture_pins, rel);
	const char *want = json_string_value(json_object_get(pin, "sha256"));
	const char *conflict = json_string_value(json_object_get(pin, "conflict"));
	if (!pin) {
		r->pin_unpinned++;
		return;
	}
	if (!conflict && strcmp(want, hex) == 0) {
		r->pin_held++;
		return;
	}
	r->pin_altered++;
	char check[256], detail[PATH_MAX + 256];
	if (conflict)
		snprintf(detail, sizeof detail, "%s: the capture receipts %s and %s pin different bytes (changed "
			 "between capture sessions)", rel, json_string_value(json_object_get(pin, "receipt")), conflict);
	else
		snprintf(detail, sizeof detail, "%s: its SHA-256 is not the one %s recorded (changed after capture)",
			 rel, json_string_value(json_object_get(pin, "receipt")));
	ev_audit_campaign_note(h->ca, "%s: %s", r->name, detail);
	snprintf(check, sizeof check, "run %s against the capture receipt", r->name);
	ev_receipt_add_check(h->ca->receipt, check, 0, detail, h->err);
}

ev_status ev_audit_campaign_check_capture_pins(struct ev_audit_campaign *ca, struct ev_error *err)
{
	struct pin_hold h = {ca, err};
	return ev_audit_campaign_each_input(ca, hold_input, &h, err);
}

const char *ev_audit_campaign_run_pinned_by(const struct ev_audit_campaign *ca, const struct ev_audited_run *r)
{
	if (ca->seal_hex[0])
		return "seal";
	if (r->pin_held && !r->pin_unpinned && !r->pin_altered)
		return "capture receipt";
	if (r->pin_held)
		return "capture receipt, in part";
	return "nothing";
}
