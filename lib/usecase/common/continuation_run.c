/* SPDX-License-Identifier: Apache-2.0 */
/* continuation_run: a failed receipt continued (continuation_run.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/common/continuation_run.h"

#define ACCEPTED_LISTED_MAX 1000

static int starts_option(const char *arg, const char *opt)
{
	size_t n = strlen(opt);
	return strncmp(arg, opt, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int dropped(const char *arg, const struct ev_continuable *s)
{
	if (starts_option(arg, s->receipt_option))
		return 1;
	for (const char *const *d = s->drop; d && *d; d++)
		if (starts_option(arg, *d))
			return 1;
	return 0;
}

/* The original's argv with its receipt options left out, then the
 * subcommand's additions, then our receipt. NULL-ended; free the array. */
static char **rerun_argv(const json_t *argv, const struct ev_continuable *s, const char *receipt)
{
	size_t n = json_array_size(argv), extra = 0;
	for (const char *const *a = s->append; a && *a; a++)
		extra++;
	char **out = calloc(n + extra + 3, sizeof *out);
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *arg = json_string_value(json_array_get(argv, i));
		if (i >= 2 && dropped(arg, s)) {
			if (!strchr(arg, '=')) /* "--receipt FILE": its value goes too */
				i++;
			continue;
		}
		out[k++] = (char *)arg;
	}
	for (const char *const *a = s->append; a && *a; a++)
		out[k++] = (char *)*a;
	out[k++] = (char *)s->receipt_option;
	out[k++] = (char *)receipt;
	out[k] = NULL;
	return out;
}

/* The last lines of the rerun's output, for a refusal that quotes them. */
static void tail_of(const char *path, char *buf, size_t cap)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	char all[8192];
	size_t len = fread(all, 1, sizeof all - 1, f);
	fclose(f);
	all[len] = '\0';
	const char *from = all;
	while (len > 1500) {
		const char *nl = strchr(from, '\n');
		if (!nl)
			break;
		len -= (size_t)(nl + 1 - from);
		from = nl + 1;
	}
	size_t n = strlen(from);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, from, n);
	buf[n] = '\0';
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
}

static ev_status rerun(struct ev_continuation *c, const struct ev_continuable *s, struct ev_error *err)
{
	const json_t *inv = json_object_get(c->orig, "invocation");
	const char *cwd = json_string_value(json_object_get(inv, "cwd"));
	char exe[PATH_MAX], fresh[PATH_MAX + 16], log[PATH_MAX + 16];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len < 0)
		return ev_error_errno(err, errno, "/proc/self/exe: cannot find this executable to rerun it");
	exe[len] = '\0';
	struct stat sb;
	if (stat(cwd, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_REFUSED,
				    "%s: the original ran in %s, which is gone; a continuation reruns the same "
				    "command where it ran (restore the directory)",
				    c->original, cwd);
	ev_status made = ev_scratch_open(&c->tmp, "evidence-continue", err);
	if (made != EV_OK)
		return made;
	snprintf(fresh, sizeof fresh, "%s/fresh.json", c->tmp.path);
	snprintf(log, sizeof log, "%s/rerun.log", c->tmp.path);
	char **args = rerun_argv(json_object_get(inv, "argv"), s, fresh);
	if (!args)
		return ev_error_set(err, EV_ERROR, "continuation: out of memory");
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		free(args);
		return ev_error_errno(err, e, "cannot start the rerun");
	}
	if (pid == 0) {
		/* the rerun ends with its continuation, even one killed outright */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
			_exit(127);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		if (chdir(cwd) != 0) {
			dprintf(2, "%s: cannot enter: %s\n", cwd, strerror(errno));
			_exit(127);
		}
		/* program: /proc/self/exe; the original receipt gives only its arguments */
		execv(exe, args);
		dprintf(2, "%s: cannot run: %s\n", exe, strerror(errno));
		_exit(127);
	}
	free(args);
	int status, passed_on = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return ev_error_errno(err, errno, "waiting for the rerun");
		if (*c->interrupted && !passed_on) {
			kill(pid, (int)*c->interrupted);
			passed_on = 1;
		}
	}
	if (*c->interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; the rerun was stopped, "
				    "nothing is claimed, no receipt written");
	char said[2048];
	tail_of(log, said, sizeof said);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (code != 0 && code != 1)
		return ev_error_set(err, EV_REFUSED, "the rerun of '%s %s' could not run its checks (exit %d); it said:\n%s",
				    c->tool, s->subcommand, code, said[0] ? said : "(nothing)");
	uint8_t ignored[EV_SHA256_LEN];
	ev_status st = ev_receipt_load(fresh, &c->fresh, ignored, err);
	if (st != EV_OK)
		return ev_error_set(err, st, "the rerun of '%s %s' wrote no readable receipt (exit %d); it said:\n%s",
				    c->tool, s->subcommand, code, said[0] ? said : "(nothing)");
	return EV_OK;
}

static const struct ev_continuable *load_original(struct ev_continuation *c, const struct ev_continuable *subs,
						  size_t nsubs, struct ev_error *err)
{
	uint8_t sha[EV_SHA256_LEN];
	if (ev_receipt_load(c->original, &c->orig, sha, err) != EV_OK)
		return NULL;
	ev_sha256_hex(sha, c->orig_hex);
	if (c->original_sha && strcasecmp(c->original_sha, c->orig_hex) != 0) {
		ev_error_set(err, EV_REFUSED, "%s: SHA-256 is %s, not the %s given with --original-sha256",
			     c->original, c->orig_hex, c->original_sha);
		return NULL;
	}
	int holds = ev_receipt_comparable_holds(c->orig, err);
	if (holds != 1) {
		if (holds == 0)
			ev_error_set(err, EV_REFUSED,
				     "%s: its comparable digest no longer matches its content: it was edited, "
				     "and an edited receipt cannot be continued",
				     c->original);
		return NULL;
	}
	const char *tool = ev_receipt_tool_name(c->orig);
	const char *kind = ev_receipt_kind(c->orig);
	if (!tool || strcmp(tool, c->tool) != 0) {
		ev_error_set(err, EV_REFUSED, "%s: written by '%s', not '%s': continue it with '%s continue'",
			     c->original, tool ? tool : "an unnamed tool", c->tool, tool ? tool : "its tool");
		return NULL;
	}
	if (strcmp(kind, "continuation") == 0) {
		ev_error_set(err, EV_REFUSED,
			     "%s: is itself a continuation; continue the original it names, with every rule at once",
			     c->original);
		return NULL;
	}
	if (strcmp(ev_receipt_result(c->orig), "fail") != 0) {
		ev_error_set(err, EV_REFUSED, "%s: passed; only a failed receipt is continued", c->original);
		return NULL;
	}
	const json_t *argv = json_object_get(json_object_get(c->orig, "invocation"), "argv");
	const char *cwd = json_string_value(json_object_get(json_object_get(c->orig, "invocation"), "cwd"));
	const char *sub = json_string_value(json_array_get(argv, 1));
	size_t i;
	json_t *a;
	json_array_foreach(argv, i, a) if (!json_is_string(a)) sub = NULL;
	if (!sub || !cwd) {
		ev_error_set(err, EV_REFUSED,
			     "%s: does not record how it was run (no \"invocation\": written by an earlier "
			     "version), so it cannot be rerun; run the command again and continue that receipt",
			     c->original);
		return NULL;
	}
	for (size_t k = 0; k < nsubs; k++)
		if (strcmp(sub, subs[k].subcommand) == 0)
			return &subs[k];
	char list[128] = "";
	for (size_t k = 0; k < nsubs; k++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", subs[k].subcommand);
	ev_error_set(err, EV_REFUSED, "%s: a receipt of '%s %s'; '%s continue' continues receipts of: %s",
		     c->original, c->tool, sub, c->tool, list);
	return NULL;
}

static json_t *difference_json(const struct ev_difference *d)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "check", d->check, "subject", d->subject, "found", d->found);
	if (o && d->expected[0])
		json_object_set_new(o, "expected", json_string(d->expected));
	return o;
}

/* Judge the fresh run and write the continuation. @return EV_OK when
 * every fresh difference is accepted, EV_MISMATCH when one remains. */
/* What a continuation's pass means: the original held and the check
 * rerun on the same inputs (the rerun's own coverage, carried over), and
 * what it did not judge again: the differences the rules accepted. */
static json_t *continuation_coverage(const struct ev_continuation *c, size_t accepted)
{
	json_t *done = json_pack("[s, s]", "the original receipt unaltered (its comparable digest holds), read only",
				 "the check rerun on inputs with the original's SHA-256 (fresh_receipt)");
	json_t *not = json_array();
	const json_t *fresh = json_object_get(json_object_get(c->fresh, "facts"), "coverage");
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(fresh, "recomputed"), i, v)
		json_array_append(done, v);
	json_array_foreach(json_object_get(fresh, "not_checked"), i, v)
		json_array_append(not, v);
	if (!fresh)
		json_array_append_new(not, json_string("the rerun's own coverage: its receipt records none"));
	char text[256];
	snprintf(text, sizeof text, "%zu difference%s of the rerun, accepted by the rules given (accepted), not judged "
		 "again", accepted, accepted == 1 ? "" : "s");
	json_array_append_new(not, json_string(text));
	return json_pack("{s:o, s:o}", "recomputed", done, "not_checked", not);
}

static ev_status conclude(struct ev_continuation *c, const struct ev_continuable *s, char *path, size_t cap,
			  size_t *accepted, size_t *remaining, struct ev_error *err)
{
	json_t *r = c->out = ev_receipt_new("continuation", c->tool, c->invocation, err);
	if (!r)
		return err->status;
	ev_receipt_add_input(r, "original", c->original, c->orig_hex, err);
	size_t i;
	json_t *item;
	json_array_foreach(json_object_get(c->fresh, "inputs"), i, item)
	json_array_append_new(json_object_get(r, "inputs"), json_deep_copy(item));
	json_t *rules = json_array(), *took = json_array(), *left = json_array();
	*accepted = *remaining = 0;
	for (size_t d = 0; d < c->nfresh; d++) {
		const struct ev_difference *diff = &c->fresh_diffs[d];
		struct ev_accept *by = NULL;
		for (size_t a = 0; a < c->naccepts && !by; a++)
			if (ev_accept_matches(&c->accepts[a], diff))
				by = &c->accepts[a];
		if (by) {
			by->matched++;
			if ((*accepted)++ < ACCEPTED_LISTED_MAX)
				json_array_append_new(took, difference_json(diff));
			continue;
		}
		(*remaining)++;
		json_array_append_new(left, difference_json(diff));
		struct ev_finding f;
		ev_finding_make(&f, diff->subject[0] ? diff->subject : diff->check, diff->check,
				"differs, and no rule of this continuation accepts it", diff->expected, diff->found);
		ev_receipt_add_finding(r, &f, err);
	}
	for (size_t a = 0; a < c->naccepts; a++)
		json_array_append_new(rules, json_pack("{s:s, s:s, s:I}", "check", c->accepts[a].check,
						       c->accepts[a].exact ? "value" : "pattern", c->accepts[a].text,
						       "accepted", (json_int_t)c->accepts[a].matched));
	const json_t *orig_tool = json_object_get(c->orig, "tool");
	ev_receipt_set_fact(r, "original",
			    json_pack("{s:s, s:O, s:s, s:O, s:O, s:O}", "sha256", c->orig_hex, "kind",
				      json_object_get(c->orig, "kind"), "command", s->subcommand, "result",
				      json_object_get(c->orig, "result"), "comparable",
				      json_object_get(c->orig, "comparable"), "tool_sha256",
				      json_object_get(orig_tool, "sha256")),
			    err);
	ev_receipt_set_fact(r, "rules", rules, err);
	ev_receipt_set_fact(r, "fresh",
			    json_pack("{s:O, s:O, s:O, s:I}", "kind", json_object_get(c->fresh, "kind"), "result",
				      json_object_get(c->fresh, "result"), "comparable",
				      json_object_get(c->fresh, "comparable"), "differences", (json_int_t)c->nfresh),
			    err);
	ev_receipt_set_fact(r, "accepted", took, err);
	ev_receipt_set_fact(r, "accepted_count", json_integer((json_int_t)*accepted), err);
	ev_receipt_set_fact(r, "remaining", left, err);
	char detail[256];
	snprintf(detail, sizeof detail, "%zu differences in the fresh run: %zu accepted by %zu rule%s, %zu remain",
		 c->nfresh, *accepted, c->naccepts, c->naccepts == 1 ? "" : "s", *remaining);
	ev_receipt_add_check(r, "original", 1, "failed, unaltered (comparable digest holds), read only", err);
	ev_receipt_add_check(r, "same-inputs", 1, "the rerun read every input with the original's SHA-256", err);
	ev_receipt_add_check(r, "continued", *remaining == 0, detail, err);
	json_object_set(r, "fresh_receipt", c->fresh);
	if (err->status != EV_OK)
		return err->status;
	if (*c->interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed, no "
				    "receipt written");
	ev_receipt_set_fact(r, "coverage", continuation_coverage(c, *accepted), err);
	ev_status st = ev_receipt_finish_signed(r, c->sign_key, err);
	if (st != EV_OK)
		return st;
	if (c->receipt_path) {
		snprintf(path, cap, "%s", c->receipt_path);
		st = ev_receipt_write(r, c->receipt_path, err);
	} else {
		char base[PATH_MAX], stem[PATH_MAX + 16];
		snprintf(base, sizeof base, "%s", c->original);
		const char *b = basename(base);
		size_t n = strlen(b);
		if (n > 5 && strcmp(b + n - 5, ".json") == 0)
			n -= 5;
		snprintf(stem, sizeof stem, "%.*s-continuation", (int)n, b);
		st = ev_receipt_write_fresh(r, EV_RECEIPT_DEFAULT_DIR, stem, path, cap, err);
	}
	if (st != EV_OK)
		return st;
	return *remaining ? EV_MISMATCH : EV_OK;
}

ev_status ev_continuation_run(struct ev_continuation *c, const struct ev_continuable *subs, size_t nsubs,
			      struct ev_error *err)
{
	const struct ev_continuable *s = load_original(c, subs, nsubs, err);
	if (!s)
		return err->status;
	ev_status st = ev_receipt_differences(c->orig, &c->orig_diffs, &c->norig, err);
	if (st == EV_OK)
		st = ev_accepts_vet(c->accepts, c->naccepts, c->orig_diffs, c->norig, err);
	if (st == EV_OK)
		st = rerun(c, s, err);
	if (st != EV_OK)
		return st;
	char why[1024];
	if (strcmp(ev_receipt_kind(c->fresh),
		   json_string_value(json_object_get(c->orig, "kind"))) != 0)
		return ev_error_set(err, EV_REFUSED, "the rerun wrote a receipt of another kind (%s, not %s)",
				    json_string_value(json_object_get(c->fresh, "kind")),
				    json_string_value(json_object_get(c->orig, "kind")));
	if (!ev_receipt_same_inputs(c->orig, c->fresh, why, sizeof why))
		return ev_error_set(err, EV_REFUSED,
				    "%s: the inputs are not the original's: %s; a continuation reruns the same "
				    "inputs (restore them, or run the check again and continue that receipt)",
				    c->original, why);
	if ((st = ev_receipt_differences(c->fresh, &c->fresh_diffs, &c->nfresh, err)) != EV_OK)
		return st;
	st = conclude(c, s, c->path, sizeof c->path, &c->accepted, &c->remaining, err);
	c->sub = s;
	return st;
}

void ev_continuation_free(struct ev_continuation *c)
{
	ev_scratch_close(&c->tmp);
	for (size_t i = 0; i < c->naccepts; i++)
		ev_accept_free(&c->accepts[i]);
	ev_differences_free(c->orig_diffs, c->norig);
	ev_differences_free(c->fresh_diffs, c->nfresh);
	json_decref(c->orig);
	json_decref(c->fresh);
	json_decref(c->out);
	c->orig = c->fresh = c->out = NULL;
	c->orig_diffs = c->fresh_diffs = NULL;
	c->naccepts = c->norig = c->nfresh = 0;
}
