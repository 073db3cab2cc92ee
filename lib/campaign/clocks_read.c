/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/campaign/clocks_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/run.h"
#include "lib/core/json.h"

void ev_clocks_duration_text(long long ns, char *out, size_t cap)
{
	long long a = ns < 0 ? -ns : ns;
	if (a < 1000)
		snprintf(out, cap, "%lld ns", ns);
	else if (a < 1000000)
		snprintf(out, cap, "%.1f us", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(out, cap, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(out, cap, "%.1f s", (double)ns / 1e9);
}

/* A year in ns: no recorded clock figure is larger, and sums of a few stay
 * far inside a long long. */
#define ERROR_MAX (366LL * 86400 * 1000000000)

static long long integer(const json_t *o, const char *key, int *have)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		*have = 0;
	return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static int judge_chrony(const json_t *c, struct ev_clock_judgement *out)
{
	if (!json_is_object(c))
		return 0;
	int have = 1;
	long long fast = integer(c, "system_fast_ns", &have), delay = integer(c, "root_delay_ns", &have),
		  dispersion = integer(c, "root_dispersion_ns", &have), stratum = integer(c, "stratum", &have);
	const char *leap = json_string_value(json_object_get(c, "leap_status"));
	const char *ref = json_string_value(json_object_get(c, "reference"));
	const char *ref_id = json_string_value(json_object_get(c, "reference_id"));
	if (!have || !leap || !json_is_boolean(json_object_get(c, "synchronised"))) {
		snprintf(out->how, sizeof out->how, "chrony's tracking is recorded without its figures");
		return 1;
	}
	if (!json_is_true(json_object_get(c, "synchronised"))) {
		snprintf(out->how, sizeof out->how, "chrony says the clock is not synchronised (leap status %s, stratum %lld)",
			 leap, stratum);
		return 1;
	}
	if (fast < -ERROR_MAX || fast > ERROR_MAX || delay < 0 || delay > ERROR_MAX || dispersion < 0 || dispersion > ERROR_MAX) {
		snprintf(out->how, sizeof out->how, "chrony's tracking is recorded with figures no clock has (edited?)");
		return 1;
	}
	out->synchronised = 1;
	out->error_ns = (fast < 0 ? -fast : fast) + dispersion + delay / 2;
	char f[32], d[32], s[32], e[32];
	ev_clocks_duration_text(fast < 0 ? -fast : fast, f, sizeof f);
	ev_clocks_duration_text(delay, d, sizeof d);
	ev_clocks_duration_text(dispersion, s, sizeof s);
	ev_clocks_duration_text(out->error_ns, e, sizeof e);
	snprintf(out->how, sizeof out->how,
		 "chrony: synchronised to %s (stratum %lld), the clock %s %s, root delay %s, root dispersion %s: within %s",
		 ref && *ref ? ref : ref_id ? ref_id : "?", stratum, f, fast < 0 ? "slow" : "fast", d, s, e);
	return 1;
}

void ev_clocks_judge(const json_t *record, struct ev_clock_judgement *out)
{
	out->synchronised = 0;
	out->error_ns = 0;
	out->how[0] = 0;
	if (judge_chrony(json_object_get(record, "chrony"), out))
		return;
	const json_t *k = json_object_get(record, "kernel");
	int have = 1;
	long long maxerror = integer(k, "maxerror_us", &have);
	const json_t *sync = json_object_get(k, "synchronised");
	if (!json_is_object(k) || !have || !json_is_boolean(sync)) {
		snprintf(out->how, sizeof out->how, "no clock state is recorded (%s)",
			 json_is_string(k) ? json_string_value(k) : "kernel: absent");
		return;
	}
	if (!json_is_true(sync)) {
		snprintf(out->how, sizeof out->how, "the kernel says the clock is not synchronised (%s), and no chronyd answered",
			 json_string_value(json_object_get(k, "state")) ?: "?");
		return;
	}
	if (maxerror < 0 || maxerror > ERROR_MAX / 1000) {
		snprintf(out->how, sizeof out->how, "the kernel's maximum error is recorded as %lld us, which no clock has (edited?)", maxerror);
		return;
	}
	out->synchronised = 1;
	out->error_ns = maxerror * 1000;
	char e[32];
	ev_clocks_duration_text(out->error_ns, e, sizeof e);
	snprintf(out->how, sizeof out->how, "the kernel: synchronised, maximum error %s", e);
}

/* Whose clock a record is: the document's, or the run's. */
static void whose(const json_t *doc, struct ev_clock_judgement *out)
{
	snprintf(out->host, sizeof out->host, "%s", json_string_value(json_object_get(doc, "host")) ?: "");
	snprintf(out->boot_id, sizeof out->boot_id, "%s", json_string_value(json_object_get(doc, "boot_id")) ?: "");
}

ev_status ev_clocks_load(const char *path, struct ev_clock_judgement *out, uint8_t sha256[EV_SHA256_LEN],
			 json_t **doc_out, struct ev_error *err)
{
	json_t *doc = NULL;
	ev_status st = ev_json_load(path, NULL, 0, &doc, sha256, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	const char *format = json_string_value(json_object_get(doc, "format"));
	memset(out, 0, sizeof *out);
	whose(doc, out);
	if (format && strcmp(format, EV_CLOCKS_FORMAT) == 0) {
		ev_clocks_judge(doc, out);
	} else if (format && strcmp(format, EV_RUN_FORMAT) == 0) {
		const json_t *clocks = json_object_get(doc, "clocks");
		const json_t *b = json_object_get(clocks, "before"), *a = json_object_get(clocks, "after");
		if (!json_is_object(b) || !json_is_object(a)) {
			json_decref(doc);
			return ev_error_set(err, EV_USAGE,
					    "%s: a run.json without its clocks before and after the run (captured before they were recorded): give a clock record of each host (capture clocks)",
					    path);
		}
		struct ev_clock_judgement before = *out, after = *out;
		ev_clocks_judge(b, &before);
		ev_clocks_judge(a, &after);
		*out = !before.synchronised ? before
		       : !after.synchronised ? after
		       : after.error_ns > before.error_ns ? after : before;
	} else {
		st = ev_error_set(err, EV_USAGE, "%s: expected a clock record (%s, capture clocks) or a run.json (%s), found %s",
				  path, EV_CLOCKS_FORMAT, EV_RUN_FORMAT, format ? format : "no \"format\"");
		json_decref(doc);
		return st;
	}
	if (doc_out)
		*doc_out = doc;
	else
		json_decref(doc);
	return EV_OK;
}
