/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the runs: each run.json loaded (lib/campaign/run), and each
 * run audited: its series recomputed, its native statistics compared, its
 * journals audited together. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/usecase/audit/series_analysis.h"
#include "lib/usecase/audit/journal/audit_journal.h"
#include "lib/campaign/run.h"
#include "lib/core/hash_job.h"
#include "lib/core/input.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"
#include "lib/usecase/audit/campaign/parts.h"

/* out = a "/" b; 0, or -1 (out empty) when it does not fit */
struct run_finding {
	const struct ev_audit_campaign *ca;
	struct ev_audited_run *r;
};

/* A finding of a run's series, named by the run. */
static void run_finding(void *ctx, const struct ev_finding *f)
{
	struct run_finding *rf = ctx;
	ev_audit_campaign_finding(rf->ca, rf->r->name, f);
	rf->r->findings++;
}

/* An output of a role in run.json, as a path, or "" (check_run_paths
 * has held every output beneath the run's directory). */
static void output_path(const struct ev_audited_run *r, const struct ev_run *doc, const char *role, const char *name,
			char *out, size_t cap)
{
	const char *rel = ev_run_output(doc, role, name);
	out[0] = 0;
	if (rel)
		ev_path_join(out, cap, r->dir, rel);
}

/* sockperf's clock as the run's recorded argv says: --no-rdtsc is its
 * monotonic clock, anything else its TSC default. Not sockperf: unknown. */
static enum ev_sockperf_clock recorded_sockperf_clock(const struct ev_run *doc)
{
	size_t k;
	json_t *a;
	struct ev_run_process p;
	for (size_t i = 0; i < ev_run_process_count(doc); i++) {
		if (ev_run_process(doc, i, &p) != 0 || strcmp(p.role ?: "", "sender") != 0)
			continue;
		int sockperf = 0, no_rdtsc = 0;
		json_array_foreach(p.argv, k, a) {
			const char *w = json_string_value(a) ?: "";
			const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
			sockperf |= strcmp(base, "sockperf") == 0;
			no_rdtsc |= strcmp(w, "--no-rdtsc") == 0;
		}
		if (sockperf)
			return no_rdtsc ? EV_SOCKPERF_CLOCK_MONOTONIC : EV_SOCKPERF_CLOCK_TSC;
	}
	return EV_SOCKPERF_CLOCK_UNKNOWN;
}

/* Every output run.json declares that audit campaign has no reader for,
 * counted by side and name for the coverage (sequence stores, logs). */
static void note_unread_outputs(struct ev_audit_campaign *ca, const struct ev_run *doc)
{
	static const char *const read_by_name[][2] = {
		{"sender", "series"}, {"sender", "report"}, {"sender", "delay_series"}, {"sender", "journal"},
		{"sender", "log"}, {"sender", "incoming"}, {"peer", "journal"}, {"peer", "outgoing"}};
	struct ev_run_process p;
	if (!ca->unread)
		ca->unread = json_object();
	for (size_t i = 0; i < ev_run_process_count(doc); i++) {
		if (ev_run_process(doc, i, &p) != 0 || !p.role)
			continue;
		const char *name;
		json_t *v;
		json_object_foreach((json_t *)p.outputs, name, v) {
			int known = 0;
			for (size_t k = 0; k < sizeof read_by_name / sizeof *read_by_name; k++)
				known |= strcmp(read_by_name[k][0], p.role) == 0 && strcmp(read_by_name[k][1], name) == 0;
			/* sockperf's log is read only when there is no series */
			if (known && strcmp(name, "log") == 0 && ev_run_output(doc, "sender", "series"))
				known = 0;
			if (known)
				continue;
			char key[200];
			snprintf(key, sizeof key, "the %s's output %s", p.role, name);
			json_t *n = json_object_get(ca->unread, key);
			json_object_set_new(ca->unread, key, json_integer(n ? json_integer_value(n) + 1 : 1));
		}
	}
}

/* Each side's programs (and launchers) as capture checked them before
 * the launch, once each: what a published reference's stack is held
 * against (audit compare --reference). */
static void note_programs(struct ev_audit_campaign *ca, const struct ev_run *doc)
{
	if (!ca->programs)
		ca->programs = json_array();
	size_t i, k, j;
	json_t *proc, *bin, *have;
	json_array_foreach(json_object_get(doc->doc, "processes"), i, proc) {
		const json_t *role = json_object_get(proc, "role");
		json_array_foreach(json_object_get(proc, "binaries"), k, bin) {
			const json_t *path = json_object_get(bin, "path"), *sha = json_object_get(bin, "sha256");
			if (!json_is_string(role) || !json_is_string(path) || !json_is_string(sha))
				continue;
			json_t *entry = json_pack("{s:O, s:O, s:O}", "side", role, "path", path, "sha256", sha);
			int seen = 0;
			json_array_foreach(ca->programs, j, have) seen |= json_equal(have, entry);
			if (!seen && json_array_size(ca->programs) < 256)
				json_array_append(ca->programs, entry);
			json_decref(entry);
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ev_audited_run *)a)->name, ((const struct ev_audited_run *)b)->name);
}

/* Kept whole: runs/ walked once: each run directory checked (not a link,
 * what it says) and read as it is met, then the inputs added in the runs'
 * order; one exit closes the directory and frees a partial list. */
ev_status ev_audit_campaign_load_runs(struct ev_audit_campaign *ca, struct ev_error *err)
{
	char runs_dir[PATH_MAX];
	if (ev_path_join(runs_dir, sizeof runs_dir, ca->dir, "runs") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->dir);
	/* runs/ and each run directory in it are what they say, not links */
	ev_status st = ev_input_check_beneath(ca->dir, "runs", ca->dir, NULL, err);
	if (st != EV_OK)
		return st;
	DIR *d = opendir(runs_dir);
	if (!d)
		return ev_error_errno(err, errno, "%s: cannot read the campaign's runs (is it a capture campaign?)",
				      runs_dir);
	ca->runs = calloc(EV_CAMPAIGN_MAX_RUNS, sizeof *ca->runs);
	if (!ca->runs) {
		closedir(d);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	struct dirent *e;
	while (st == EV_OK && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (ca->nruns == EV_CAMPAIGN_MAX_RUNS) {
			st = ev_error_set(err, EV_USAGE, "%s: more than %d runs", runs_dir, EV_CAMPAIGN_MAX_RUNS);
			break;
		}
		struct ev_audited_run *r = &ca->runs[ca->nruns];
		char path[PATH_MAX];
		if (strlen(e->d_name) >= sizeof r->name || ev_path_join(r->dir, sizeof r->dir, runs_dir, e->d_name) != 0 ||
		    ev_path_join(path, sizeof path, r->dir, EV_RUN_FILENAME) != 0) {
			ev_audit_campaign_note(ca, "%s/%s: name too long: left out", runs_dir, e->d_name);
			continue;
		}
		if (access(path, F_OK) != 0) {
			ev_audit_campaign_note(ca, "%s: no run.json (a run cut short): left out", r->dir);
			continue;
		}
		struct ev_run run;
		const struct ev_run *doc = &run;
		uint8_t digest[EV_SHA256_LEN];
		if ((st = ev_run_load(path, 0, &run, digest, err)) != EV_OK)
			break;
		if ((st = ev_run_check_paths(&run, r->dir, path, err)) != EV_OK) {
			ev_run_free(&run);
			break;
		}
		ev_sha256_hex(digest, r->run_json_sha256);
		memcpy(r->name, e->d_name, strlen(e->d_name) + 1);
		snprintf(r->arm, sizeof r->arm, "%s", ev_run_string(doc, "arm") ?: "");
		snprintf(r->cell, sizeof r->cell, "%s", ev_run_string(doc, "cell") ?: "");
		snprintf(r->result, sizeof r->result, "%s", ev_run_string(doc, "result") ?: "unknown");
		r->repeat = ev_run_repeat(doc);
		r->warmups = ev_run_count(doc, "warmups");
		r->measured = ev_run_count(doc, "measured");
		output_path(r, doc, "sender", "series", r->series, sizeof r->series);
		output_path(r, doc, "sender", "report", r->native, sizeof r->native);
		output_path(r, doc, "sender", "delay_series", r->delay, sizeof r->delay);
		output_path(r, doc, "sender", "journal", r->sjournal, sizeof r->sjournal);
		output_path(r, doc, "peer", "journal", r->pjournal, sizeof r->pjournal);
		output_path(r, doc, "peer", "outgoing", r->poutgoing, sizeof r->poutgoing);
		output_path(r, doc, "sender", "incoming", r->sincoming, sizeof r->sincoming);
		int has_report = r->native[0] != 0;
		if (!r->series[0]) { /* sockperf: the full log is series and a copy of the summary */
			output_path(r, doc, "sender", "log", r->series, sizeof r->series);
			snprintf(r->native_log, sizeof r->native_log, "%s", r->series);
		}
		if (!r->native[0]) { /* what the sender printed is what was published */
			int absent = 0;
			if ((st = ev_input_check_beneath(r->dir, "native/sender.stdout", path, &absent, err)) != EV_OK) {
				ev_run_free(&run);
				break;
			}
			if (absent || ev_path_join(r->native, sizeof r->native, r->dir, "native/sender.stdout") != 0 ||
			    access(r->native, R_OK) != 0)
				snprintf(r->native, sizeof r->native, "%s", r->native_log);
		}
		if (strcmp(r->native, r->native_log) == 0)
			r->native_log[0] = 0;
		if (has_report) { /* what the sender printed beside its report is published too */
			int absent = 0;
			if ((st = ev_input_check_beneath(r->dir, "native/sender.stdout", path, &absent, err)) != EV_OK) {
				ev_run_free(&run);
				break;
			}
			if (!absent)
				ev_path_join(r->native_stdout, sizeof r->native_stdout, r->dir, "native/sender.stdout");
		}
		note_unread_outputs(ca, doc);
		r->sockperf_clock = recorded_sockperf_clock(doc);
		size_t k;
		json_t *proc;
		json_array_foreach(json_object_get(run.doc, "processes"), k, proc) {
			r->profiled |= json_object_get(proc, "profile") != NULL;
			const char *exec = json_string_value(json_object_get(json_object_get(proc, "wall"), "exec"));
			if (exec && strlen(exec) < sizeof r->started && (!r->started[0] || strcmp(exec, r->started) < 0))
				snprintf(r->started, sizeof r->started, "%s", exec); /* one format: ordered as text */
		}
		ev_audit_campaign_grade_run(ca, r, doc);
		note_programs(ca, doc);
		ev_run_free(&run);
		ca->nruns++;
	}
	closedir(d);
	if (ca->nruns > 1)
		qsort(ca->runs, ca->nruns, sizeof *ca->runs, by_name);
	/* inputs in the runs' order, not the directory's: two hosts that read
	 * the same campaign write the same comparable digest */
	for (size_t i = 0; st == EV_OK && i < ca->nruns; i++) {
		char name[sizeof ca->runs[i].name + 8], path[PATH_MAX];
		snprintf(name, sizeof name, "run %s", ca->runs[i].name);
		if (ev_path_join(path, sizeof path, ca->runs[i].dir, EV_RUN_FILENAME) == 0)
			st = ev_receipt_add_input(ca->receipt, name, path, ca->runs[i].run_json_sha256, err);
	}
	return st;
}

static ev_status add_input_file(const struct ev_audit_campaign *ca, const char *name, const char *path,
				 struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	/* a series may be gigabytes: hashed where a signal is seen */
	int fd = ev_input_open(path, "input", err);
	if (fd < 0)
		return err->status;
	ev_status st = ev_sha256_fd_until(fd, path, d, NULL, ca->interrupted, err);
	close(fd);
	if (st == EV_OK) {
		ev_sha256_hex(d, hex);
		st = ev_receipt_add_input(ca->receipt, name, path, hex, err);
	}
	return st;
}

/* The time series decimated: the largest value of each of at most
 * EV_CAMPAIGN_TIMESERIES_POINTS buckets of consecutive calls. */
static void decimate(struct ev_audited_run *r, const uint64_t *v, size_t n)
{
	size_t per = (n + EV_CAMPAIGN_TIMESERIES_POINTS - 1) / EV_CAMPAIGN_TIMESERIES_POINTS;
	r->nts = 0;
	for (size_t at = 0; per && at < n; at += per) {
		uint64_t mx = 0;
		for (size_t k = at; k < n && k < at + per; k++)
			mx = v[k] > mx ? v[k] : mx;
		r->ts_x[r->nts] = (double)at;
		r->ts_y[r->nts++] = (double)(mx ? mx : 1);
	}
}

/* The native statistics of one file compared; each that differs or is
 * missing named with its run (on_note), and counted. */
static json_t *compare_native(const struct ev_audit_campaign *ca, struct ev_audited_run *r, const char *file, const struct ev_native *nat, struct ev_series *s)
{
	unsigned differ = 0;
	json_t *rows = ev_analysis_compare_native(nat, s, &r->dist, &r->m, r->sockperf_clock, &differ), *row;
	size_t i;
	r->differ += differ;
	json_array_foreach(rows, i, row) {
		const char *verdict = json_string_value(json_object_get(row, "verdict"));
		if (strcmp(verdict, "differs") != 0 && strcmp(verdict, "missing") != 0)
			continue;
		const char *native = json_string_value(json_object_get(row, "native"));
		const char *recomputed = json_string_value(json_object_get(row, "recomputed"));
		ev_audit_campaign_note(ca, "%s: %s: %s: %s (native %s, recomputed %s)", r->name, file,
			json_string_value(json_object_get(row, "name")), verdict, *native ? native : "absent",
			*recomputed ? recomputed : "nothing");
	}
	return rows;
}

/* The printed figures a cell's median takes, in ns: the summary's
 * quantiles where the block prints them, its mean and maximum. */
static void keep_printed(struct ev_audited_run *r, const struct ev_native *nat)
{
	for (size_t i = 0; i < nat->n; i++) {
		const struct ev_native_stat *st = &nat->stats[i];
		double v, slack;
		if (ev_native_stat_ns(st, &v, &slack) != 0)
			continue;
		if (st->what == EV_NSTAT_MEAN) {
			r->pmean = v;
			r->pmean_have = 1;
		} else if (st->what == EV_NSTAT_MAX) {
			r->pmax = v;
			r->pmax_have = 1;
		} else if (st->what == EV_NSTAT_QUANTILE) {
			for (int k = 0; k < EV_CAMPAIGN_NQ; k++) {
				struct ev_prob p;
				if (ev_prob_parse_percent(ev_audit_campaign_q_percent[k], &p) == 0 &&
				    (unsigned __int128)p.num * st->p.den == (unsigned __int128)st->p.num * p.den) {
					r->pq[k] = v;
					r->pq_have[k] = 1;
				}
			}
		}
	}
}

/* A run whose program kept no raw series (the llfix benchmark as a cell):
 * what it printed is read whole and shown as printed, never called
 * recomputed. What can be checked without a series is: the sample count
 * against the plan, and the block against itself (a P99 edited below the
 * P50 is caught here); a line the tool always prints and the block lacks
 * is missing. The bytes themselves are held against the capture receipt
 * (audit_campaign_pins.c). */
static void native_as_printed(struct ev_audit_campaign *ca, struct ev_audited_run *r)
{
	struct ev_native nat;
	struct ev_error nerr;
	ev_error_clear(&nerr);
	if (ev_native_load(r->native, &nat, &nerr) != EV_OK) {
		json_object_set_new(r->json, "native", json_string(nerr.text));
		return; /* a stdout that states no statistic: nothing was published */
	}
	char name[PATH_MAX + 32];
	snprintf(name, sizeof name, "%s native report", r->name);
	add_input_file(ca, name, r->native, &nerr);
	json_t *rows = json_array();
	size_t recomputed = 0, printed = 0;
	for (size_t i = 0; i < nat.n; i++) {
		const struct ev_native_stat *st = &nat.stats[i];
		printed++;
		if (st->what == EV_NSTAT_COUNT) {
			char want[32];
			snprintf(want, sizeof want, "%" PRIu64, r->measured);
			int same = strcmp(want, st->text) == 0;
			recomputed++;
			if (!same) {
				r->differ++;
				ev_audit_campaign_note(ca, "%s: %s: %s: differs (native %s, the plan's measured %s)", r->name,
					r->native, st->name, st->text, want);
			}
			json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", st->name, "rule", "plan",
							      "native", st->text, "recomputed", want, "verdict",
							      same ? "equal" : "differs"));
			continue;
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", st->name, "rule",
						      ev_qrule_name(nat.rule), "native", st->text, "recomputed", "", "verdict",
						      "not recomputable", "why", "the run recorded no raw series"));
	}
	for (size_t i = 0; i < nat.nmissing; i++)
		ev_audit_campaign_note(ca, "%s: %s: %s: missing (native absent)", r->name, r->native, nat.missing[i]);
	r->differ += (unsigned)ev_analysis_native_rest(&nat, rows);
	struct ev_native_broken broken[EV_NATIVE_BROKEN_MAX];
	size_t nb = ev_native_check_consistency(&nat, broken, EV_NATIVE_BROKEN_MAX);
	json_t *consistency = json_array();
	for (size_t i = 0; i < nb && i < EV_NATIVE_BROKEN_MAX; i++) {
		ev_audit_campaign_note(ca, "%s: %s: %s: inconsistent: %s", r->name, r->native, broken[i].stat, broken[i].text);
		json_array_append_new(consistency, json_string(broken[i].text));
	}
	r->inconsistent = (unsigned)nb;
	r->differ += (unsigned)nb;
	r->printed = 1;
	snprintf(r->rule, sizeof r->rule, "%s", ev_qrule_name(nat.rule));
	keep_printed(r, &nat);
	char coverage[320];
	snprintf(coverage, sizeof coverage, "printed, not recomputable (no series): the count compared with the plan, "
		 "the block checked against itself (%s), the other %zu of %zu statistics shown as printed",
		 nb ? "INCONSISTENT" : "consistent", printed - recomputed, printed);
	json_object_set_new(r->json, "native", json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "tool", nat.tool, "rule",
							 ev_qrule_name(nat.rule), "file", r->native, "unit", "ns",
							 "coverage", coverage, "consistency", consistency, "statistics", rows));
}

/* One run: its series read, its statistics recomputed and checked.
 * Kept whole: one run's series is mapped once and every figure is taken
 * from that mapping, first in the series' own order (the page cohorts),
 * then selected at once (the summary's quantiles and the plot's spectrum),
 * while the hashing thread reads the same pages; the thread is joined on
 * every path. */
ev_status ev_audit_campaign_analyse_run(struct ev_audit_campaign *ca, struct ev_audited_run *r, struct ev_error *err)
{
	struct ev_series s;
	struct ev_native nat;
	struct run_finding rf = {ca, r};
	int have_native = 0;
	ev_status st;
	char name[PATH_MAX + 32];
	r->json = json_pack("{s:s, s:s, s:s, s:i, s:s}", "name", r->name, "arm", r->arm, "cell", r->cell,
			    "repeat", r->repeat, "result", r->result);
	if (strcmp(r->result, "ok") != 0) { /* shown, not summed up; the campaign did not hold */
		snprintf(name, sizeof name, "run %s result", r->name);
		ev_receipt_add_check(ca->receipt, name, 0, "capture recorded the run as not ok", err);
	}
	if (!r->series[0] || access(r->series, R_OK) != 0) {
		json_object_set_new(r->json, "series", json_string("none: the run has no series output"));
		if (r->native[0])
			native_as_printed(ca, r);
		return EV_OK; /* its check once its bytes are held (ev_audit_campaign_check_printed) */
	}
	if (r->native[0]) {
		struct ev_error nerr;
		ev_error_clear(&nerr);
		have_native = ev_native_load(r->native, &nat, &nerr) == EV_OK;
		if (!have_native) { /* printed, yet not read: never a pass */
			json_object_set_new(r->json, "native", json_string(nerr.text));
			ev_audit_campaign_note(ca, "%s: %s", r->name, nerr.text);
			r->differ++;
		}
	}
	if ((st = ev_series_load(r->series, &s, run_finding, &rf, err)) != EV_OK)
		return ev_error_wrap(err, "run %s", r->name);
	/* the series hashed on another core while this one reads it */
	struct ev_hash_job job;
	ev_hash_job_init(&job, r->series, "series", ca->interrupted);
	ev_hash_job_start(&job);
	r->analysed = 1;
	snprintf(r->clock, sizeof r->clock, "%s", s.clock);
	r->tps = s.ticks_per_second;
	r->source_hz = s.source_hz;
	ev_moments_of(s.v, s.n, &r->m);
	if (!*ca->interrupted)
		decimate(r, s.v, s.n);
	int dst = *ca->interrupted ? -2 : ev_distribution_of(s.v, s.n, &r->dist, ca->interrupted);
	ev_hash_job_wait(&job);
	snprintf(name, sizeof name, "%s series", r->name);
	char series_hex[EV_SHA256_HEX_LEN + 1];
	if (dst == 0 && (st = ev_hash_job_finish(&job, series_hex, err)) == EV_OK)
		st = ev_receipt_add_input(ca->receipt, name, r->series, series_hex, err);
	if (dst == 0 && st == EV_OK && have_native) {
		snprintf(name, sizeof name, "%s native report", r->name);
		st = add_input_file(ca, name, r->native, err);
	}
	if (dst != 0 || st != EV_OK) {
		ev_series_free(&s);
		if (dst == -2) /* the passes above stop early on a signal */
			return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
		if (dst != 0)
			return ev_error_set(err, EV_ERROR, "run %s: out of memory for its distribution", r->name);
		return st;
	}
	/* in the series' own order: the journal-page cohorts */
	if (r->sjournal[0] && s.n) {
		uint8_t *labels = NULL;
		struct ev_error lerr;
		ev_error_clear(&lerr);
		if (ev_analysis_page_labels(r->sjournal, r->warmups, s.n, 4096, &labels, &lerr) == EV_OK) {
			/* the p99, read from the mapped series: no copy of it */
			struct ev_wanted p99 = {.rule = EV_QRULE_NEAREST_RANK, .p = {99, 100}};
			ev_analysis_select(s.v, s.n, &r->dist, &p99, 1);
			uint64_t threshold = (uint64_t)p99.value;
			json_object_set_new(r->json, "cohorts",
					    json_pack("{s:I, s:I, s:o}", "page_size", (json_int_t)4096, "threshold",
						      (json_int_t)threshold, "by_displacement",
						      ev_analysis_cohorts(s.v, s.n, labels, threshold)));
			free(labels);
		} else {
			json_object_set_new(r->json, "cohorts", json_string(lerr.text));
		}
	}
	enum ev_qrule rule = have_native ? nat.rule : EV_QRULE_NEAREST_RANK;
	snprintf(r->rule, sizeof r->rule, "%s", ev_qrule_name(rule));
	if (have_native) {
		json_t *rows = compare_native(ca, r, r->native, &nat, &s);
		char coverage[640];
		ev_analysis_native_coverage(rows, coverage, sizeof coverage);
		json_object_set_new(r->json, "native", json_pack("{s:s, s:s, s:s, s:s, s:o}", "tool", nat.tool, "rule",
								 ev_qrule_name(nat.rule), "file", r->native, "coverage",
								 coverage, "statistics", rows));
		struct ev_native copy;
		struct ev_error nerr;
		ev_error_clear(&nerr);
		if (r->native_stdout[0] && ev_native_load(r->native_stdout, &copy, &nerr) == EV_OK) {
			snprintf(name, sizeof name, "%s native stdout", r->name);
			add_input_file(ca, name, r->native_stdout, err);
			json_object_set_new(r->json, "native_stdout", json_pack("{s:s, s:o}", "file", r->native_stdout,
									"statistics", compare_native(ca, r, r->native_stdout, &copy, &s)));
			ca->stdout_compared++;
		} else if (r->native_stdout[0]) {
			ca->stdout_without_block++;
		}
		ev_error_clear(&nerr);
		if (r->native_log[0] && ev_native_load(r->native_log, &copy, &nerr) == EV_OK) {
			snprintf(name, sizeof name, "%s native log summary", r->name);
			add_input_file(ca, name, r->native_log, err);
			json_object_set_new(r->json, "native_log", json_pack("{s:s, s:o}", "file", r->native_log,
									     "statistics", compare_native(ca, r, r->native_log, &copy, &s)));
		}
	}
	/* the summary's quantiles and the plot's spectrum, selected at once */
	struct ev_wanted want[EV_CAMPAIGN_NQ + EV_CAMPAIGN_SPECTRUM_STEPS] = {0};
	size_t nw = 0;
	for (int i = 0; i < EV_CAMPAIGN_NQ; i++) {
		want[nw].rule = rule;
		ev_prob_parse_percent(ev_audit_campaign_q_percent[i], &want[nw++].p);
	}
	double nines_max = s.n > 1 ? log10((double)s.n) : 0;
	r->nspectrum = 0;
	for (int k = 0; k < EV_CAMPAIGN_SPECTRUM_STEPS && k / 10.0 <= nines_max + 1e-9; k++) {
		/* 1 - 10^-x as a fraction over 10^9: for the plot, not for a verdict */
		double p = 1 - pow(10, -k / 10.0);
		want[nw].rule = EV_QRULE_NEAREST_RANK;
		want[nw].p = (struct ev_prob){(uint64_t)llround(p * 1e9), 1000000000u};
		nw++;
		r->nspectrum++;
	}
	ev_analysis_select(s.v, s.n, &r->dist, want, nw);
	json_t *q = json_object();
	for (int i = 0; i < EV_CAMPAIGN_NQ; i++) {
		r->q[i] = want[i].value;
		json_object_set_new(q, ev_audit_campaign_q_names[i], ev_analysis_quantile_json(&want[i]));
	}
	for (size_t k = 0; k < r->nspectrum; k++)
		r->spectrum[k] = want[EV_CAMPAIGN_NQ + k].value > 0 ? want[EV_CAMPAIGN_NQ + k].value : 1;
	json_t *stats = ev_analysis_moments_json(&r->m);
	json_object_set_new(stats, "rule", json_string(r->rule));
	json_object_set_new(stats, "quantiles", q);
	json_object_set_new(r->json, "recomputed", stats);
	json_object_set_new(r->json, "series",
			    json_pack("{s:s, s:s, s:I, s:I, s:I}", "shape", ev_series_kind_name(s.kind), "clock", s.clock,
				      "ticks_per_second", (json_int_t)s.ticks_per_second, "source_hz",
				      (json_int_t)s.source_hz, "findings", (json_int_t)r->findings));
	ev_series_free(&s);
	if (r->delay[0] && have_native) {
		r->rate = nat.pacing_rate; /* the pair's report, as nativestats read it */
		struct ev_series d;
		uint64_t missed;
		if (r->rate && ev_series_load(r->delay, &d, run_finding, &rf, err) == EV_OK) {
			json_object_set_new(r->json, "pacing", ev_analysis_pacing(&d, r->rate, &missed));
			ev_series_free(&d);
		}
	}
	char check[256], detail[256];
	snprintf(check, sizeof check, "run %s statistics", r->name);
	snprintf(detail, sizeof detail, "%u native statistic%s differ, %u series finding%s", r->differ,
		 r->differ == 1 ? "" : "s", r->findings, r->findings == 1 ? "" : "s");
	ev_receipt_add_check(ca->receipt, check, !r->differ && !r->findings, detail, err);
	return EV_OK;
}

/* A run's journal as run.json declares it: "" when it declares none,
 * else its path, and whether it is there. */
static int journal_there(const char *path)
{
	struct stat sb;
	return path[0] && lstat(path, &sb) == 0;
}

/* One direction of a session: whose outgoing journal, and where its copy
 * arrived. */
struct direction {
	size_t out_at, in_at;           /* offsetof struct ev_audited_run: the stream as sent, and as received */
	const char *out_side, *in_side; /* "sender", "peer" */
	const char *json_key;           /* the run's pair number in summary.json */
	int orders;                     /* the plan's orders go this way (else none: the peer answers) */
};

static const struct direction directions[2] = {
	{offsetof(struct ev_audited_run, sjournal), offsetof(struct ev_audited_run, pjournal), "sender", "peer", "journal_pair", 1},
	{offsetof(struct ev_audited_run, poutgoing), offsetof(struct ev_audited_run, sincoming), "peer", "sender", "journal_pair_reverse", 0},
};

#define RUN_PATH(r, at) ((char *)(r) + (at))

/* Both directions of every run's session that declares a journal for
 * them, audited as audit journal would, each run with its own counts (the
 * plan's orders from sender to peer; none back), its receipt in the
 * summary. A declared journal that is not there is a finding of its run;
 * no run is left out for the number of runs or their counts.
 * Kept whole: both directions of every run in one pass: the audit's
 * options set once, the pairs gathered, audited, and their results handed
 * back to each run in order; one exit frees the pairs. */
ev_status ev_audit_campaign_audit_journals(struct ev_audit_campaign *ca, struct ev_error *err)
{
	size_t cap = 2 * (ca->nruns ? ca->nruns : 1);
	const char **senders = calloc(cap, sizeof *senders);
	const char **receivers = calloc(cap, sizeof *receivers);
	size_t *of_run = calloc(cap, sizeof *of_run);
	int *dir_of = calloc(cap, sizeof *dir_of);
	ev_status st = EV_OK;
	if (!senders || !receivers || !of_run || !dir_of) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	size_t n = 0;
	for (int d = 0; d < 2; d++) {
		const struct direction *dir = &directions[d];
		for (size_t i = 0; i < ca->nruns; i++) {
			struct ev_audited_run *r = &ca->runs[i];
			const char *out_path = RUN_PATH(r, dir->out_at), *in_path = RUN_PATH(r, dir->in_at);
			if (!out_path[0] && !in_path[0])
				continue; /* a program that keeps no journal this way: named in the coverage */
			int out_there = journal_there(out_path), in_there = journal_there(in_path);
			/* declared and not there: a finding; not declared: one side
			 * audited alone, and the coverage says so */
			if ((out_path[0] && !out_there) || (in_path[0] && !in_there)) {
				char check[256], detail[PATH_MAX + 128];
				int first = out_path[0] && !out_there;
				snprintf(check, sizeof check, "run %s journals", r->name);
				if (d == 0)
					snprintf(detail, sizeof detail, "the %s's journal %s: missing", first ? "sender" : "peer",
						 first ? out_path : in_path);
				else
					snprintf(detail, sizeof detail, "the %s's %s journal %s: missing",
						 first ? dir->out_side : dir->in_side, first ? "outgoing" : "incoming",
						 first ? out_path : in_path);
				ev_audit_campaign_note(ca, "%s: %s", r->name, detail);
				ev_receipt_add_check(ca->receipt, check, 0, detail, err);
				ca->journals_missing++;
			}
			ca->journals_one_side += !out_path[0] || !in_path[0];
			if (!out_there && !in_there)
				continue;
			senders[n] = out_there ? out_path : NULL;
			receivers[n] = in_there ? in_path : NULL;
			dir_of[n] = d;
			of_run[n++] = i;
			ca->reverse_pairs += d == 1;
		}
	}
	ca->journal_pairs = n - ca->reverse_pairs;
	if (!n)
		goto out;
	char receipt[PATH_MAX];
	if (ev_path_join(receipt, sizeof receipt, ca->tmpdir, "audit-journal.json") != 0) {
		st = ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
		goto out;
	}
	struct ev_audit_journal jr;
	ev_audit_journal_init(&jr);
	if ((st = ev_audit_journal_prepare(&jr, senders, receivers, n, n, err)) != EV_OK) {
		ev_audit_journal_free(&jr);
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		/* the plan's counts as the run recorded them, not the series': a
		 * native program may keep none; the peer's answers carry no order */
		struct ev_audited_run *r = &ca->runs[of_run[k]];
		const struct direction *dir = &directions[dir_of[k]];
		jr.pairs[k].own_counts = 1;
		jr.pairs[k].warmups = dir->orders ? r->warmups : 0;
		jr.pairs[k].measured = dir->orders ? r->measured : 0;
		json_object_set_new(r->json, dir->json_key, json_integer((json_int_t)k + 1));
	}
	jr.receipt = receipt;
	jr.sign_key = ca->sign_key;
	jr.interrupted = ca->interrupted;
	jr.meter = ca->journals_meter;
	jr.shown_from = ca->archive ? ca->copies.shown_from : NULL;
	json_t *doc = ev_receipt_new("audit", ca->tool, ca->invocation, err);
	if (doc && ca->archive) { /* the journals were read out of the archive too: it says so */
		ev_receipt_add_input(doc, EV_SEAL_FILENAME, ca->seal_path, ca->seal_hex, err);
		ev_receipt_add_input(doc, "archive", ca->archive, ca->copies.archive_hex, err);
	}
	st = doc ? ev_audit_journal_run(&jr, doc, err) : err->status;
	json_decref(doc);
	if ((st == EV_OK || st == EV_MISMATCH) && ca->on_journals)
		ca->on_journals(ca->ctx, &jr);
	ca->journals_audited = st == EV_OK || st == EV_MISMATCH;
	ca->journal_findings = jr.findings;
	ev_audit_journal_free(&jr);
	if (st == EV_MISMATCH)
		st = EV_OK;
	if (st == EV_OK) {
		char detail[160], reverse[64] = "";
		if (ca->reverse_pairs)
			snprintf(reverse, sizeof reverse, " (%zu of them the other way)", ca->reverse_pairs);
		snprintf(detail, sizeof detail, "%zu runs' pairs%s, %" PRIu64 " findings (audit-journal.json)", n, reverse,
			 ca->journal_findings);
		ev_receipt_add_check(ca->receipt, "journals", ca->journal_findings == 0, detail, err);
	}
out:
	free(senders);
	free(receivers);
	free(of_run);
	free(dir_of);
	return st;
}

ev_status ev_audit_campaign_check_printed(struct ev_audit_campaign *ca, struct ev_error *err)
{
	for (size_t i = 0; i < ca->nruns; i++) {
		struct ev_audited_run *r = &ca->runs[i];
		if (r->analysed)
			continue;
		char name[sizeof r->name + 32], detail[512];
		const char *pinned = ev_audit_campaign_run_pinned_by(ca, r);
		snprintf(name, sizeof name, "run %s statistics", r->name);
		if (!r->printed)
			snprintf(detail, sizeof detail, "no raw series and no printed statistics: nothing to show");
		else
			snprintf(detail, sizeof detail, "printed, not recomputable (no series): %s; bytes pinned by %s",
				 r->inconsistent ? "the block contradicts itself" :
				 r->differ ? "the printed statistics differ from the plan or lack a line" :
				 "consistent, the count the plan's", pinned);
		ev_status st = ev_receipt_add_check(ca->receipt, name, !r->differ, detail, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}
