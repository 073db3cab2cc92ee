/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/cli/cli.h"
#include "lib/core/json.h"
#include "lib/core/stop.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t ev_cli_interrupted;

static struct ev_invocation invocation;

const struct ev_invocation *ev_cli_invocation(void)
{
	return invocation.argv ? &invocation : NULL;
}

void ev_cli_set_invocation(int argc, char *const *argv)
{
	invocation = (struct ev_invocation){argc, argv};
}

void ev_cli_init(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			_exit(2);
	signal(SIGPIPE, SIG_IGN);
	/* libarchive converts names through the locale. */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
}

static void on_signal(int sig)
{
	ev_cli_interrupted = sig;
}

/* Catch SIG into ev_cli_interrupted. Unless FORCE, a signal the process
 * inherited as ignored stays ignored: that is how nohup, and a shell's
 * background job without job control, ask a command to live through a
 * hangup or a keyboard interrupt. */
static void catch_signal(int sig, int force)
{
	struct sigaction sa, old;
	if (!force && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void ev_cli_catch_signals(void)
{
	catch_signal(SIGINT, 0);
	catch_signal(SIGHUP, 0);
	/* SIGTERM is how a supervisor or kill(1) stops us; ignoring it by
	 * inheritance would only turn a clean stop into a later SIGKILL. */
	catch_signal(SIGTERM, 1);
	ev_stop_on(&ev_cli_interrupted);
}

static void *watch_stdin(void *unused)
{
	(void)unused;
	char buf[512];
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		kill(getpid(), SIGHUP);
		return NULL;
	}
}

int ev_cli_stop_when_stdin_closes(void)
{
	/* The closed input is the caller's own way of saying stop, which
	 * an inherited SIG_IGN (a nohup'd push's verifier) must not mute. */
	catch_signal(SIGHUP, 1);
	pthread_t t;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return -1;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int r = pthread_create(&t, &attr, watch_stdin, NULL);
	pthread_attr_destroy(&attr);
	return r == 0 ? 0 : -1;
}

void ev_cli_error(const char *tool, const struct ev_error *err)
{
	fprintf(stderr, "%s: %s\n", tool, err->text);
}

int ev_cli_exit(const char *tool, ev_status st, const struct ev_error *err)
{
	if (st >= EV_ERROR || (st == EV_MISMATCH && err->status != EV_OK))
		ev_cli_error(tool, err);
	return ev_status_exit_code(st);
}

void ev_cli_finding(FILE *stream, const char *prefix, const struct ev_finding *f)
{
	char line[4096];
	ev_finding_format(f, line, sizeof line);
	fprintf(stream, "%s%s\n", prefix, line);
}

void ev_cli_findings_init(struct ev_cli_findings *s, FILE *stream, const char *prefix, int quiet,
			  json_t *receipt, uint64_t max_per_check)
{
	*s = (struct ev_cli_findings){.stream = stream, .prefix = prefix, .quiet = quiet,
				      .receipt = receipt, .max_per_check = max_per_check,
				      .by_check = json_object()};
}

void ev_cli_findings_add(struct ev_cli_findings *s, const struct ev_finding *shown,
			 const struct ev_finding *recorded)
{
	s->total++;
	json_int_t n = 0;
	if (s->by_check) {
		n = json_integer_value(json_object_get(s->by_check, shown->check)) + 1;
		json_object_set_new(s->by_check, shown->check, json_integer(n));
	}
	if (s->max_per_check && (uint64_t)n > s->max_per_check)
		return;
	if (!s->quiet)
		ev_cli_finding(s->stream, s->prefix, shown);
	if (s->receipt && !recorded->in_receipt) {
		struct ev_error ignored;
		ev_error_clear(&ignored);
		ev_receipt_add_finding(s->receipt, recorded, &ignored);
	}
}

ev_status ev_cli_findings_finish(struct ev_cli_findings *s, struct ev_error *err)
{
	if (!s->by_check)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *check;
	json_t *count;
	ev_status st = EV_OK;
	json_object_foreach(s->by_check, check, count)
	{
		uint64_t n = (uint64_t)json_integer_value(count);
		if (!s->max_per_check || n <= s->max_per_check)
			continue;
		char name[256], detail[256];
		snprintf(detail, sizeof detail, "%" PRIu64 " more not shown (--max-findings %" PRIu64 "; %" PRIu64
			 " in all)", n - s->max_per_check, s->max_per_check, n);
		if (!s->quiet)
			fprintf(s->stream, "%s%s: %s\n", s->prefix, check, detail);
		snprintf(name, sizeof name, "%s:more", check);
		if (s->receipt && st == EV_OK)
			st = ev_receipt_add_check(s->receipt, name, 0, detail, err);
	}
	if (s->receipt && st == EV_OK &&
	    (st = ev_receipt_set_fact(s->receipt, "findings_by_check", json_deep_copy(s->by_check), err)) == EV_OK)
		st = ev_receipt_set_fact(s->receipt, "max_findings_per_check",
					 json_integer((json_int_t)s->max_per_check), err);
	return st;
}

ev_status ev_cli_receipt_emit(struct ev_cli_findings *shown, json_t *receipt, const struct ev_signing_key *key,
			      const char *chosen, const char *dir, const char *stem, int json, const char *say_path,
			      char *path, size_t cap, struct ev_error *err)
{
	ev_status st = ev_cli_findings_finish(shown, err);
	if (st == EV_OK)
		st = ev_receipt_finish_signed(receipt, key, err);
	if (st == EV_OK)
		st = ev_receipt_write_chosen(receipt, chosen, dir, stem, path, cap, err);
	if (st == EV_OK && json) {
		if (say_path)
			fprintf(stderr, "%s: receipt written: %s\n", say_path, path);
		st = ev_json_print(receipt, stdout, err);
	}
	return st;
}

void ev_cli_findings_free(struct ev_cli_findings *s)
{
	json_decref(s->by_check);
	s->by_check = NULL;
}

int ev_cli_trust_add(const char *tool, struct ev_trust **trust, const char *path)
{
	struct ev_error err;
	ev_error_clear(&err);
	if (!*trust && !(*trust = ev_trust_new())) {
		fprintf(stderr, "%s: out of memory\n", tool);
		return 2;
	}
	if (ev_trust_add_file(*trust, path, &err) != EV_OK) {
		ev_cli_error(tool, &err);
		ev_trust_free(*trust);
		*trust = NULL;
		return 2;
	}
	return 0;
}

int ev_cli_sign_key(const char *tool, const char *path, struct ev_signing_key **key)
{
	struct ev_error err;
	ev_error_clear(&err);
	ev_signing_key_free(*key);
	*key = NULL;
	if (path && ev_signing_key_load(path, key, &err) != EV_OK) {
		ev_cli_error(tool, &err);
		return 2;
	}
	return 0;
}

ev_status ev_json_print(const json_t *value, FILE *stream, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_json_dump(value, &bytes, &len, err);
	if (st == EV_OK && fwrite(bytes, 1, len, stream) != len)
		st = ev_error_set(err, EV_ERROR, "cannot write JSON to standard output");
	free(bytes);
	return st;
}
