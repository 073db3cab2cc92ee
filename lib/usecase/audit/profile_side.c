/* SPDX-License-Identifier: Apache-2.0 */
/* profile_side: one profiled side of a run read cold (profile_side.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/campaign/perfreport.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/profile_side.h"

#define REPORT_MAX ((size_t)256 << 20)
#define TOP_ROWS 20

/* The split the campaigns quote, by object. */
static const char *category(const char *dso, char mark, const char *program)
{
	const char *base = strrchr(dso, '/') ? strrchr(dso, '/') + 1 : dso;
	if (mark == 'k' || strncmp(dso, "[kernel", 7) == 0 || strcmp(dso, "[guest.kernel.kallsyms]") == 0)
		return "kernel";
	if (program && strcmp(base, program) == 0)
		return "application";
	static const char *const stacks[] = {"libonload", "libefvi", "libzf", "libvma", "libxlio", "libciul", NULL};
	for (const char *const *p = stacks; *p; p++)
		if (strncmp(base, *p, strlen(*p)) == 0)
			return "network stack";
	static const char *const libc[] = {"libc.so", "libc-", "ld-linux", "libm.so", "libpthread", "libdl.so", "librt.so",
					   NULL};
	for (const char *const *p = libc; *p; p++)
		if (strncmp(base, *p, strlen(*p)) == 0)
			return "libc";
	return "other";
}

struct side_profile {
	const char *program; /* the side's program's file name */
	long pid;
	uint64_t samples, foreign; /* all; those of another PID */
	long foreign_pid;
	json_t *dsos, *syms, *cats, *children;
	int has_children;
};

static void add(json_t *o, const char *key, uint64_t n)
{
	json_t *v = json_object_get(o, key);
	json_object_set_new(o, key, json_integer((v ? json_integer_value(v) : 0) + (json_int_t)n));
}

static void on_row(void *ctx, const struct ev_perf_row *r)
{
	struct side_profile *p = ctx;
	p->samples += r->samples;
	char sym[1600];
	snprintf(sym, sizeof sym, "%s %s", r->dso, r->sym);
	add(p->dsos, r->dso, r->samples);
	add(p->syms, sym, r->samples);
	add(p->cats, category(r->dso, r->mark, p->program), r->samples);
	if (r->children_percent >= 0) {
		p->has_children = 1;
		json_object_set_new(p->children, sym, ev_json_decimal_of(r->children_percent, 2));
	}
}

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct ev_profile_ctx *a = ctx;
	a->findings++;
	a->on_finding(a->ctx, f);
}

/* A check about the file rel that failed, as a finding. */
static void found(struct ev_profile_ctx *a, const char *rel, const char *check, const char *detail)
{
	ev_finding_emit(on_finding, a, rel, check, detail, NULL, NULL);
}

/* perf's output for data (report, or script with script set), into a
 * file under the system's temporary directory that has no name from the
 * moment it is made, so no exit of ours, SIGKILL included, leaves it;
 * out_path names it (/proc/self/fd/N) for the caller to read, and
 * close(*out_fd) removes it. */
static ev_status run_perf(const struct ev_profile_ctx *a, const char *perf, int script, const char *data, char *out_path, size_t cap,
			  int *out_fd, struct ev_error *err)
{
	char made[PATH_MAX];
	snprintf(made, sizeof made, "%s/audit-profile.XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkostemp(made, O_CLOEXEC);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot create", made);
	unlink(made);
	snprintf(out_path, cap, "/proc/self/fd/%d", fd);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	char *report[] = {(char *)perf, "report", "--stdio", "--children", "-g", "none", "--field-separator=;",
			  "--sort", "pid,dso,sym", "-F", "overhead_children,overhead,sample,pid,dso,sym", "-i", (char *)data,
			  NULL};
	/* the process of every sample (report's "pid" is the thread's), and
	 * the forks that make a process the native's child */
	char *per_sample[] = {(char *)perf, "script", "--show-task-events", "-F", "pid", "-i", (char *)data, NULL};
	char **argv = script ? per_sample : report;
	static char *const envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				     "PAGER=cat", NULL};
	pid_t pid;
	/* program: the command line (--perf, default /usr/bin/perf), never the evidence */
	int e = posix_spawn(&pid, perf, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		close(fd);
		return ev_error_errno(err, e, "cannot run %s", perf);
	}
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (*a->interrupted) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(fd);
			return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed");
		}
		struct timespec tick = {0, 10 * 1000 * 1000};
		nanosleep(&tick, NULL);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		close(fd);
		return ev_error_set(err, EV_ERROR, "%s: perf %s failed (status %d): perf.data unreadable", data,
				    script ? "script" : "report", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	*out_fd = fd;
	return EV_OK;
}

/* The n largest entries of counts as [{"name", "samples", "share"}]. */
static json_t *top(json_t *counts, uint64_t total, size_t n, json_t *children)
{
	json_t *out = json_array();
	json_t *left = json_deep_copy(counts);
	while (json_array_size(out) < n && json_object_size(left)) {
		const char *key, *best = NULL;
		json_t *v;
		json_int_t most = -1;
		json_object_foreach(left, key, v)
			if (json_integer_value(v) > most || (json_integer_value(v) == most && strcmp(key, best) < 0)) {
				most = json_integer_value(v);
				best = key;
			}
		json_t *row = json_pack("{s:s, s:I, s:o}", "name", best, "samples", most, "share",
					ev_json_decimal_of(total ? (double)most / (double)total : 0, 4));
		if (children && json_object_get(children, best))
			json_object_set(row, "children", json_object_get(children, best));
		json_array_append_new(out, row);
		json_object_del(left, best);
	}
	json_decref(left);
	return out;
}

/* Kept whole: one reading of perf's output, line by line, that attributes
 * each sample to the program or its launcher from run.json's process tree
 * in the same pass; the tree and the counts are the pass's state. */
ev_status ev_profile_side(struct ev_profile_ctx *a, const char *run_dir, const char *perf, const json_t *proc,
			     json_t *facts, struct ev_error *err)
{
	const char *role = json_string_value(json_object_get(proc, "role"));
	json_t *prof = json_object_get(proc, "profile");
	const char *rel = json_string_value(json_object_get(prof, "perf_data"));
	const char *want = json_string_value(json_object_get(prof, "sha256"));
	char data[PATH_MAX], check[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1] = "";
	if (!rel || ev_path_problem(rel, strlen(rel)) || ev_path_join(data, sizeof data, run_dir, rel) != 0)
		return ev_error_set(err, EV_REFUSED, "%s/run.json: the %s's profile names no perf.data inside the run", a->run,
				    role);
	int fd = ev_input_open(data, "perf.data", err);
	if (fd < 0)
		return err->status;
	uint8_t d[EV_SHA256_LEN];
	ev_status st = ev_sha256_fd(fd, data, d, NULL, err);
	close(fd);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(d, hex);
	snprintf(check, sizeof check, "%s%s perf.data", a->prefix, role);
	char name[PATH_MAX];
	snprintf(name, sizeof name, "%s%s perf.data", a->prefix, role);
	ev_receipt_add_input(a->receipt, name, data, hex, err);
	int same = want && strcmp(want, hex) == 0;
	char detail[300];
	snprintf(detail, sizeof detail, same ? "SHA-256 as run.json records" : "SHA-256 differs from run.json (expected %s, found %s)",
		 want ? want : "none", hex);
	ev_receipt_add_check(a->receipt, check, same, detail, err);
	if (!same) {
		found(a, rel, "perf-data", detail);
		return EV_OK; /* not read: it is not the file capture recorded */
	}
	char report[PATH_MAX], *bytes = NULL;
	size_t len = 0;
	int report_fd = -1;
	if ((st = run_perf(a, perf, 0, data, report, sizeof report, &report_fd, err)) != EV_OK)
		return st;
	st = ev_file_read_all(report, REPORT_MAX, &bytes, &len, err);
	close(report_fd);
	if (st != EV_OK)
		return st;
	struct side_profile p = {0};
	/* run.json's binaries: the program first, then its launcher */
	const char *program = json_string_value(json_object_get(json_array_get(json_object_get(proc, "binaries"), 0), "path"));
	p.program = program && strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
	p.pid = (long)json_integer_value(json_object_get(proc, "pid"));
	p.dsos = json_object();
	p.syms = json_object();
	p.cats = json_pack("{s:i, s:i, s:i, s:i, s:i}", "application", 0, "network stack", 0, "libc", 0, "kernel", 0,
			   "other", 0);
	p.children = json_object();
	struct ev_perf_header h;
	ev_perf_report_parse(bytes, len, rel, &h, on_row, &p, on_finding, a);
	free(bytes);
	uint64_t lost = h.has_lost ? h.lost : 0;
	snprintf(check, sizeof check, "%s%s lost samples", a->prefix, role);
	snprintf(detail, sizeof detail, h.has_lost ? "%" PRIu64 " lost" : "perf report gave no count of lost samples", lost);
	ev_receipt_add_check(a->receipt, check, h.has_lost && lost == 0, detail, err);
	if (!h.has_lost || lost)
		found(a, rel, "lost-samples", detail);
	/* whose every sample is: perf script's process id, sample by sample */
	uint64_t per_sample = 0, descendants = 0;
	long tree[256];
	size_t ntree = 1;
	tree[0] = p.pid;
	report_fd = -1;
	if ((st = run_perf(a, perf, 1, data, report, sizeof report, &report_fd, err)) != EV_OK ||
	    (st = ev_file_read_all(report, REPORT_MAX, &bytes, &len, err)) != EV_OK) {
		if (report_fd >= 0)
			close(report_fd);
		json_decref(p.dsos), json_decref(p.syms), json_decref(p.cats), json_decref(p.children);
		return st;
	}
	close(report_fd);
	for (char *line = bytes, *end = bytes + len; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (nl)
			*nl = 0;
		char *q;
		long pid = strtol(line, &q, 10), child, ctid, parent, ptid;
		while (*q == ' ')
			q++;
		int in_tree = 0;
		for (size_t t = 0; t < ntree && !in_tree; t++)
			in_tree = tree[t] == pid;
		if (q != line && !*q) {
			per_sample++;
			if (!in_tree) {
				p.foreign++;
				p.foreign_pid = pid;
			} else if (pid != p.pid) {
				descendants++;
			}
		} else if (strstr(line, "PERF_RECORD_FORK(")) {
			/* a child of the native (a helper it forks) is the native's */
			if (sscanf(strstr(line, "PERF_RECORD_FORK("), "PERF_RECORD_FORK(%ld:%ld):(%ld:%ld)", &child, &ctid, &parent,
				   &ptid) == 4) {
				int known = 0;
				for (size_t t = 0; t < ntree; t++)
					known |= tree[t] == parent ? 1 : tree[t] == child ? 2 : 0;
				if ((known & 1) && !(known & 2) && ntree < sizeof tree / sizeof *tree)
					tree[ntree++] = child;
			}
		} else if (strstr(line, "PERF_RECORD_")) {
			; /* COMM, EXIT, MMAP: not samples */
		} else if (*line) {
			ev_finding_emit(on_finding, a, rel, "perf-script", "a line that is not a process id", NULL, line);
			p.foreign++;
		}
		line = nl ? nl + 1 : end;
	}
	free(bytes);
	bytes = NULL;
	snprintf(check, sizeof check, "%s%s samples are the run's native", a->prefix, role);
	if (p.foreign)
		snprintf(detail, sizeof detail, "%" PRIu64 " samples of PID %ld, not the %s's %ld", p.foreign, p.foreign_pid, role, p.pid);
	else
		snprintf(detail, sizeof detail, "%" PRIu64 " samples, all of PID %ld%s", per_sample, p.pid,
			 descendants ? " or processes it forked" : "");
	if (!p.foreign && per_sample != p.samples) {
		snprintf(detail, sizeof detail, "perf script gave %" PRIu64 " samples, perf report %" PRIu64, per_sample, p.samples);
		p.foreign = 1;
	}
	ev_receipt_add_check(a->receipt, check, p.foreign == 0 && p.samples > 0, p.samples ? detail : "no sample", err);
	if (p.foreign || !p.samples)
		found(a, rel, "samples", p.samples ? detail : "no sample");
	json_t *cats = json_object();
	const char *key;
	json_t *v;
	json_object_foreach(p.cats, key, v)
		json_object_set_new(cats, key, ev_json_decimal_of(p.samples ? (double)json_integer_value(v) / (double)p.samples : 0, 4));
	json_object_set_new(facts, role,
			    json_pack("{s:I, s:s, s:I, s:I, s:b, s:o, s:o, s:o}", "pid", (json_int_t)p.pid, "event",
				      h.event, "samples", (json_int_t)p.samples, "lost", (json_int_t)lost, "call_graphs",
				      p.has_children, "split", cats, "objects", top(p.dsos, p.samples, TOP_ROWS, NULL),
				      "symbols", top(p.syms, p.samples, TOP_ROWS, p.has_children ? p.children : NULL)));
	json_decref(p.dsos);
	json_decref(p.syms);
	json_decref(p.cats);
	json_decref(p.children);
	return EV_OK;
}

