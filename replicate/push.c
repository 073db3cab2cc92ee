/* replicate push: copy a sealed archive to several hosts at once (over the
 * user's own ssh, or to local directories), verify it there, fetch the
 * receipts and compare them with a receipt made here. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/archive/archive_reader.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt_read.h"
#include "replicate/child.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt_set.h"
#include "replicate/transport.h"
#include "replicate/replicate.h"

#define MAX_DESTINATIONS 64
#define RECEIPT_MAX ((size_t)64 << 20)
#define DEFAULT_IDLE_SECONDS 60

struct push_opts {
	const char *archive, *seal, *seal_sha256, *receipts, *ssh, *ssh_config, *remote_replicate, *sign_key,
		*remote_sign_key;
	const char *ssh_options[REPLICATE_MAX_SSH_OPTIONS];
	size_t n_ssh_options;
	const char *to[MAX_DESTINATIONS];
	size_t n_to;
	char *trust[MAX_DESTINATIONS];
	size_t n_trust;
	int idle_seconds, json;
};

enum outcome { PENDING, VERIFIED, FAILED_CHECK, UNREACHABLE };

struct destination {
	const struct push_opts *o;
	const struct replicate_payload *files; /* SEAL.json, then the archive */
	const struct replicate_transport *t;
	struct replicate_endpoint ep; /* spec "here" for the local check */
	int local_check;             /* the receipt made here, not a copy */
	pthread_t thread;
	atomic_uint_fast64_t sent;
	atomic_int finished;         /* set by the worker when outcome is final */
	int sending_archive;         /* between the first and the last byte of it */
	enum outcome outcome;
	char message[EV_ERROR_TEXT_MAX + PATH_MAX + 200];
	char receipt_path[PATH_MAX];
	char verifier_receipt[PATH_MAX]; /* where its verifier said it wrote its receipt ("": not said) */
	int verifier_unsure;  /* killed without saying whether it published a receipt */
};

/* The receipt the verifier said it wrote ("replicate: receipt written:
 * PATH", its last such line on stderr), into out; "" when it said none. */
static void said_receipt(const struct child *c, char *out, size_t cap)
{
	static const char mark[] = TOOL ": receipt written: ";
	const char *at = NULL, *p = c->errtail;
	while ((p = strstr(p, mark)) != NULL) {
		at = p + sizeof mark - 1;
		p = at;
	}
	out[0] = 0;
	if (at)
		snprintf(out, cap, "%.*s", (int)strcspn(at, "\r\n"), at);
}

static void join_path(char *out, size_t cap, const char *dir, const char *name)
{
	snprintf(out, cap, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

/* Run replicate verify on the destination (or here) and keep the receipt. */
static ev_status verify_there(struct destination *d, struct ev_error *err)
{
	const struct push_opts *o = d->o;
	char seal_path[PATH_MAX], archive_path[PATH_MAX];
	char *args[20];
	struct replicate_command cmd;
	size_t n = 0;
	if (d->local_check) {
		snprintf(seal_path, sizeof seal_path, "%s", o->seal);
		snprintf(archive_path, sizeof archive_path, "%s", o->archive);
	} else {
		join_path(seal_path, sizeof seal_path, d->ep.dir, EV_SEAL_FILENAME);
		join_path(archive_path, sizeof archive_path, d->ep.dir, d->files[1].name);
	}
	args[n++] = (char *)"verify";
	args[n++] = (char *)"--seal";
	args[n++] = seal_path;
	args[n++] = (char *)"--seal-sha256";
	args[n++] = (char *)d->files[0].sha256;
	args[n++] = (char *)"--archive-sha256";
	args[n++] = (char *)d->files[1].sha256;
	args[n++] = (char *)"--json";
	args[n++] = (char *)"--stop-when-stdin-closes";
	if (d->local_check) {
		/* the verifier claims its receipt's name itself, atomically (two
		 * pushes may share --receipt-dir), and says which it took */
		args[n++] = (char *)"--receipt-dir";
		args[n++] = (char *)o->receipts;
		if (o->sign_key) {
			args[n++] = (char *)"--sign-key";
			args[n++] = (char *)o->sign_key;
		}
	} else {
		args[n++] = (char *)"--receipt-dir"; /* beside the copy it judges, on its host */
		args[n++] = d->ep.dir;
	}
	if (!d->local_check && o->remote_sign_key) {
		args[n++] = (char *)"--sign-key";
		args[n++] = (char *)o->remote_sign_key;
	}
	args[n++] = archive_path;
	args[n] = NULL;
	/* A progress line on stderr keeps a long verification from looking idle. */
	static char progress_env[] = "EVIDENCE_PROGRESS=always";
	replicate_command_build(d->t, &d->ep, progress_env, args, &cmd);
	struct child c;
	ev_status st = replicate_child_start(&c, cmd.argv, progress_env, RECEIPT_MAX, o->idle_seconds, d->ep.spec,
				   &ev_cli_interrupted, err);
	if (st != EV_OK)
		return st;
	c.doing = "verifying the copy";
	int code = -1;
	/* Its stdin stays open while it verifies: when it closes (we, or the
	 * ssh between us, are gone) the verifier stops without a receipt. */
	if ((st = replicate_child_read_all(&c, err)) == EV_OK)
		st = replicate_child_wait(&c, &code, err);
	said_receipt(&c, d->verifier_receipt, sizeof d->verifier_receipt);
	if (d->local_check)
		snprintf(d->receipt_path, sizeof d->receipt_path, "%s", d->verifier_receipt);
	if (st == EV_OK && (code == 0 || code == 1) && !d->verifier_receipt[0])
		st = ev_error_set(err, EV_ERROR, "%s: replicate verify did not say where it wrote its receipt", d->ep.spec);
	if (st == EV_OK && code != 0 && code != 1) {
		char why[512];
		replicate_child_last_error(&c, why, sizeof why);
		st = ev_error_set(err, EV_ERROR, "%s: replicate verify ended with status %d%s%s",
				  d->ep.spec, code, why[0] ? ": " : "", why);
	}
	json_t *r = NULL;
	if (st == EV_OK)
		st = ev_json_parse(c.outbuf, c.outlen, d->ep.spec, EV_RECEIPT_FORMAT,
				   EV_JSON_REQUIRE_CANONICAL, &r, err);
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal", d->ep.spec);
	if (st == EV_OK && !d->local_check) {
		/* Named by destination: several may share one host. */
		char stem[160], label[128];
		ev_path_label(strncmp(d->ep.spec, "./", 2) == 0 ? d->ep.spec + 2 : d->ep.spec, label, sizeof label);
		snprintf(stem, sizeof stem, "replica-%s", label);
		st = ev_receipt_write_chosen(r, NULL, o->receipts, stem, d->receipt_path, sizeof d->receipt_path,
					     err);
	}
	if (st == EV_OK) {
		d->outcome = code == 0 ? VERIFIED : FAILED_CHECK;
		const char *result = ev_receipt_result(r);
		snprintf(d->message, sizeof d->message, "%s; receipt %s",
			 result && strcmp(result, "pass") == 0 ? "pass" : "FAIL", d->receipt_path);
	}
	json_decref(r);
	c.killed_status = -1;
	replicate_child_free(&c);
	/* stopped before it said so: whether it may have published one */
	d->verifier_unsure = !d->verifier_receipt[0] && c.killed_status != -1 && c.killed_status != 2;
	return st;
}

static void *destination_main(void *arg)
{
	struct destination *d = arg;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = EV_OK;
	int resumed[2] = {0, 0};
	if (!d->local_check)
		for (int i = 0; i < 2 && st == EV_OK; i++)
			st = replicate_send_file(d->t, &d->ep, &d->files[i], i == 1 ? &d->sent : NULL, &d->sending_archive,
						 &resumed[i], &err);
	if (st == EV_OK)
		st = verify_there(d, &err);
	if (st != EV_OK) {
		char sent[32], total[32];
		ev_format_bytes(atomic_load(&d->sent), sent, sizeof sent);
		ev_format_bytes(d->files[1].size, total, sizeof total);
		d->outcome = UNREACHABLE;
		if (d->sending_archive)
			snprintf(d->message, sizeof d->message, "%s (%s of %s sent)", err.text, sent, total);
		else
			snprintf(d->message, sizeof d->message, "%s", err.text);
	} else if (resumed[1]) {
		size_t used = strlen(d->message);
		snprintf(d->message + used, sizeof d->message - used, " (transfer resumed)");
	}
	atomic_store(&d->finished, 1);
	return NULL;
}

static ev_status describe(struct replicate_payload *f, const char *path, const char *name,
			  struct ev_error *err)
{
	uint8_t digest[EV_SHA256_LEN];
	f->path = path;
	f->name = name;
	int fd = ev_input_open(path, name, err);
	if (fd < 0)
		return err->status;
	ev_status st = ev_sha256_fd_until(fd, path, digest, &f->size, &ev_cli_interrupted, err);
	close(fd);
	if (st == EV_OK)
		ev_sha256_hex(digest, f->sha256);
	return st;
}

/* A wrong seal or an unusable key found after the copy would leave a
 * destination holding files that refuse every later, correct push. */
/* The error err holds, said again as a refusal that copied nothing. */
static ev_status nothing_copied(struct ev_error *err, ev_status status, const char *prefix)
{
	char why[EV_ERROR_TEXT_MAX + 32];
	snprintf(why, sizeof why, "%s%s", prefix, err->text);
	ev_error_clear(err);
	return ev_error_set(err, status, "%s; nothing was copied", why);
}

static ev_status check_before_copying(const struct push_opts *o, const struct replicate_payload *seal,
				      struct ev_error *err)
{
	char *embedded = NULL;
	size_t len = 0;
	if (o->seal_sha256 && strcmp(o->seal_sha256, seal->sha256) != 0)
		return nothing_copied(err, ev_seal_refuse_unpinned(o->seal, seal->sha256, o->seal_sha256, err),
				      "");
	ev_status st = ev_archive_embedded_seal(o->archive, (size_t)64 << 20, &embedded, &len, err);
	if (st != EV_OK)
		return nothing_copied(err, st == EV_MISMATCH ? EV_REFUSED : st, "");
	uint8_t digest[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	st = ev_sha256_buffer(embedded, len, digest, err);
	free(embedded);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(digest, hex);
	if (strcmp(hex, seal->sha256) != 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: is not the seal %s was made with (its embedded SEAL.json has SHA-256 "
				    "%s, %s has %s); give the archive's own seal; nothing was copied",
				    o->seal, o->archive, hex, o->seal, seal->sha256);
	if (o->sign_key) {
		struct ev_signing_key *key = NULL;
		if ((st = ev_signing_key_load(o->sign_key, &key, err)) != EV_OK)
			return nothing_copied(err, st, "--sign-key ");
		ev_signing_key_free(key);
	}
	return EV_OK;
}

struct judging {
	int json;
	json_t *findings;
	unsigned count;
};

static void on_receipt_finding(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct judging *j = ctx;
	j->count++;
	if (j->json) {
		json_t *o = ev_finding_to_json(f);
		json_object_set_new(o, "receipt", json_string(receipt_path));
		json_array_append_new(j->findings, o);
		return;
	}
	char prefix[PATH_MAX + 32];
	snprintf(prefix, sizeof prefix, TOOL ": %s: ", receipt_path);
	ev_cli_finding(stderr, strcmp(f->subject, receipt_path) == 0 ? TOOL ": " : prefix, f);
}

static int run_push(struct push_opts *o)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct replicate_payload files[2];
	struct destination *dests = calloc(o->n_to + 1, sizeof *dests);
	char *archive_copy = strdup(o->archive);
	int code = 2;
	if (!dests || !archive_copy) {
		fputs(TOOL ": out of memory\n", stderr);
		goto out;
	}
	const char *archive_name = basename(archive_copy);
	if (archive_name[0] == '.' || strcmp(archive_name, EV_SEAL_FILENAME) == 0) {
		fprintf(stderr, TOOL ": %s: the archive's name must not start with '.' or be SEAL.json\n",
			o->archive);
		goto out;
	}
	struct stat sb;
	if (stat(o->receipts, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, TOOL ": %s: the receipt directory (--receipt-dir) does not exist\n", o->receipts);
		goto out;
	}
	if (describe(&files[0], o->seal, EV_SEAL_FILENAME, &err) != EV_OK ||
	    check_before_copying(o, &files[0], &err) != EV_OK ||
	    describe(&files[1], o->archive, archive_name, &err) != EV_OK) {
		ev_cli_error(TOOL, &err);
		goto out;
	}
	size_t n = o->n_to + 1;
	struct replicate_transport transport = {.ssh = o->ssh, .ssh_config = o->ssh_config,
						.remote_replicate = o->remote_replicate, .ssh_options = o->ssh_options,
						.n_ssh_options = o->n_ssh_options, .idle_seconds = o->idle_seconds};
	ssize_t len = readlink("/proc/self/exe", transport.self_exe, sizeof transport.self_exe - 1);
	if (len <= 0) {
		fprintf(stderr, TOOL ": cannot find my own executable (/proc/self/exe)\n");
		goto out;
	}
	transport.self_exe[len] = '\0';
	for (size_t i = 0; i < n; i++) {
		struct destination *d = &dests[i];
		d->o = o;
		d->t = &transport;
		d->files = files;
		if (i == o->n_to) {
			d->local_check = 1;
			d->ep.spec = "here";
		} else if (replicate_endpoint_parse(&d->ep, o->to[i]) != 0) {
			fprintf(stderr, TOOL ": --to %s: expected HOST:DIR or a local DIR\n", o->to[i]);
			goto out;
		}
	}
	char total[32];
	ev_format_bytes(files[1].size, total, sizeof total);
	if (!o->json)
		printf("pushing %s (%s) to %zu destination%s\n", o->archive, total, o->n_to,
		       o->n_to == 1 ? "" : "s");
	fflush(stdout);
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&dests[i].thread, NULL, destination_main, &dests[i]) != 0) {
			fprintf(stderr, TOOL ": cannot start a thread\n");
			for (size_t k = 0; k < i; k++)
				pthread_join(dests[k].thread, NULL);
			goto out;
		}

	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": pushing", files[1].size * o->n_to, 0);
	uint64_t shown = 0;
	for (;;) {
		int running = 0;
		uint64_t sent = 0;
		for (size_t i = 0; i < n; i++) {
			running += !atomic_load(&dests[i].finished);
			sent += atomic_load(&dests[i].sent);
		}
		if (sent > shown)
			ev_progress_add(&progress, sent - shown, 0);
		shown = sent;
		if (!running)
			break;
		/* On a signal the workers see the flag, stop their children
		 * and end; the loop waits for them. */
		struct timespec pause = {0, 50 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	ev_progress_done(&progress);
	for (size_t i = 0; i < n; i++)
		pthread_join(dests[i].thread, NULL);
	if (ev_cli_interrupted) {
		/* A verification that ended before the signal wrote a true
		 * receipt: it stays, and is said (here and at the destination),
		 * so that "no receipt" is exact; where it cannot be known, where
		 * to look is said. */
		int kept = 0, maybe = 0;
		for (size_t i = 0; i < n; i++) {
			const struct destination *d = &dests[i];
			const char *where = d->local_check ? "here" : d->ep.spec;
			int judged = d->outcome == VERIFIED || d->outcome == FAILED_CHECK;
			if (judged) {
				fprintf(stderr, TOOL ": %s: verified before the signal; its receipt stays: %s\n", where,
					d->receipt_path);
				kept++;
			}
			if (d->verifier_receipt[0] && !d->local_check) {
				fprintf(stderr, TOOL ": %s: its verifier's receipt stays there: %s%s%s\n", where,
					d->ep.host ? d->ep.host : "", d->ep.host ? ":" : "", d->verifier_receipt);
				kept++;
			} else if (d->verifier_receipt[0] && !judged) {
				fprintf(stderr, TOOL ": %s: its verifier wrote a receipt before the signal; it stays: %s\n",
					where, d->verifier_receipt);
				kept++;
			} else if (d->verifier_unsure) {
				fprintf(stderr, TOOL ": %s: its verifier was stopped before it said it wrote a receipt; "
					"look for replica-*.json in %s in case it published one just then\n", where,
					d->local_check ? o->receipts : d->ep.dir);
				maybe++;
			}
		}
		fprintf(stderr, TOOL ": interrupted by a signal; every helper was stopped, %s, nothing "
			"is claimed (what was stored stays; a new push resumes it)\n",
			kept ? "every receipt that exists is named above" : maybe ? "no receipt is known to exist" :
			       "no receipt written");
		goto out;
	}

	/* Every destination's result, then the receipts judged together. */
	char *paths[MAX_DESTINATIONS + 1];
	size_t npaths = 0;
	int failed = 0, unreachable = 0;
	for (size_t i = 0; i < n; i++) {
		struct destination *d = &dests[i];
		failed |= d->outcome == FAILED_CHECK;
		unreachable |= d->outcome == UNREACHABLE;
		if (d->outcome != UNREACHABLE)
			paths[npaths++] = d->receipt_path;
		if (!o->json)
			printf("%s: %s\n", d->local_check ? "here" : d->ep.spec,
			       d->outcome == UNREACHABLE ? "error" : d->message);
		if (d->outcome == UNREACHABLE && !o->json)
			fprintf(stderr, TOOL ": %s\n", d->message);
	}
	struct ev_trust *trust = NULL;
	if (o->n_trust) {
		trust = ev_trust_new();
		for (size_t i = 0; trust && i < o->n_trust; i++)
			if (ev_trust_add_file(trust, o->trust[i], &err) != EV_OK) {
				ev_cli_error(TOOL, &err);
				ev_trust_free(trust);
				goto out;
			}
	}
	struct judging j = {.json = o->json, .findings = json_array()};
	struct ev_receipt_set set = {0};
	ev_status st;
	unsigned problems = ev_receipt_set_load(&set, paths, npaths, trust, on_receipt_finding, &j, &st, &err);
	size_t differing = 0;
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		failed = 1;
	} else {
		differing = ev_receipt_set_disagreements(&set, on_receipt_finding, &j);
	}
	int agree = st == EV_OK && differing == 0 && problems == 0;
	if (o->json) {
		json_t *list = json_array();
		for (size_t i = 0; i < n; i++) {
			struct destination *d = &dests[i];
			static const char *const names[] = {"pending", "pass", "fail", "error"};
			json_array_append_new(
				list, json_pack("{s:s, s:s, s:s, s:s?}", "to",
						d->local_check ? "here" : d->ep.spec, "status", names[d->outcome],
						"message", d->message,
						"receipt", d->outcome == UNREACHABLE ? NULL : d->receipt_path));
		}
		json_t *doc = json_pack("{s:s, s:o, s:b, s:O}", "format", "evidence-push/1",
					"destinations", list, "agree", agree, "findings", j.findings);
		char *bytes = NULL;
		size_t blen = 0;
		if (ev_json_dump(doc, &bytes, &blen, &err) == EV_OK)
			fwrite(bytes, 1, blen, stdout);
		free(bytes);
		json_decref(doc);
	} else if (npaths) {
		if (agree)
			printf("AGREE: %zu receipts, comparable %s\n", npaths, set.items[0].comparable);
		else
			printf("DIFFER: the receipts do not agree; %u problem%s named above\n", j.count,
			       j.count == 1 ? "" : "s");
	}
	json_decref(j.findings);
	ev_receipt_set_free(&set);
	ev_trust_free(trust);
	code = failed || !agree ? 1 : unreachable ? 2 : 0;
out:
	for (size_t i = 0; dests && i < o->n_to + 1; i++) {
		free(dests[i].ep.host);
		free(dests[i].ep.dir);
	}
	free(dests);
	free(archive_copy);
	return code;
}

int replicate_push_main(int argc, char **argv)
{
	struct push_opts o = {.ssh = "ssh", .remote_replicate = "replicate",
			      .idle_seconds = DEFAULT_IDLE_SECONDS};
	long v;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "push");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'F': o.ssh_config = optarg; break;
		case 'h':
			return ev_cli_help(&replicate_tool, "push");
		case 'j': o.json = 1; break;
		case 'K': o.remote_sign_key = optarg; break;
		case 'k': o.sign_key = optarg; break;
		case 'O':
			if (o.n_ssh_options == REPLICATE_MAX_SSH_OPTIONS)
				return ev_cli_usage(&replicate_tool, "push", "at most %d --ssh-option", REPLICATE_MAX_SSH_OPTIONS);
			o.ssh_options[o.n_ssh_options++] = optarg;
			break;
		case 'R': o.remote_replicate = optarg; break;
		case 'r': o.receipts = optarg; break;
		case 'D':
			return ev_cli_usage(&replicate_tool, "push",
					    "--receipts names the receipts prune judges; push keeps its receipts in "
					    "--receipt-dir DIR");
		case 'S': o.ssh = optarg; break;
		case 'p': o.seal_sha256 = optarg; break;
		case 's': o.seal = optarg; break;
		case 'T':
			if (o.n_to == MAX_DESTINATIONS)
				return ev_cli_usage(&replicate_tool, "push", "at most %d destinations", MAX_DESTINATIONS);
			o.to[o.n_to++] = optarg;
			break;
		case 't':
			if (ev_cli_parse_long(optarg, 1, 86400, &v))
				return ev_cli_usage(&replicate_tool, "push", "option --timeout: expected 1-86400 seconds, found '%s'",
						 optarg);
			o.idle_seconds = (int)v;
			break;
		case 'u':
			if (o.n_trust == MAX_DESTINATIONS)
				return ev_cli_usage(&replicate_tool, "push", "at most %d --trust files", MAX_DESTINATIONS);
			o.trust[o.n_trust++] = optarg;
			break;
		default:
			return ev_cli_usage(&replicate_tool, "push", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&replicate_tool, "push", optind == argc ? "no ARCHIVE given" : "more than one ARCHIVE given");
	o.archive = argv[optind];
	if (!o.seal)
		return ev_cli_usage(&replicate_tool, "push", "no seal given (--seal SEAL.json)");
	if (o.seal_sha256 && !ev_sha256_hex_valid(o.seal_sha256))
		return ev_cli_usage(&replicate_tool, "push", "option --seal-sha256: expected 64 lower-case hex digits");
	if (!o.n_to)
		return ev_cli_usage(&replicate_tool, "push", "no destination given (--to [HOST:]DIR)");
	if (!o.receipts)
		o.receipts = EV_RECEIPT_DEFAULT_DIR;
	ev_cli_catch_signals();
	return run_push(&o);
}
