/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_push: what goes where and when. One thread per destination
 * sends the seal and the archive (lib/remote/transport) and runs the
 * verifier there; the check here runs the same verifier on the archive
 * as it is here; the receipts are judged together once all ended. */
#include "config.h"

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
#include "lib/archive/seal.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"
#include "lib/remote/child.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "lib/usecase/replicate/replicate_push.h"

#define RECEIPT_MAX ((size_t)64 << 20)

/* The receipt the verifier said it wrote ("replicate: receipt written:
 * PATH", its last such line on stderr), into out; "" when it said none. */
static void said_receipt(const char *tool, const struct ev_child *c, char *out, size_t cap)
{
	char mark[64];
	snprintf(mark, sizeof mark, "%s: receipt written: ", tool);
	const char *at = NULL, *p = c->errtail;
	while ((p = strstr(p, mark)) != NULL) {
		at = p + strlen(mark);
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
static ev_status verify_there(struct ev_push_destination *d, struct ev_error *err)
{
	const struct ev_replicate_push *o = d->push;
	char seal_path[PATH_MAX], archive_path[PATH_MAX];
	char *args[20];
	struct ev_remote_command cmd;
	size_t n = 0;
	if (d->local_check) {
		snprintf(seal_path, sizeof seal_path, "%s", o->seal);
		snprintf(archive_path, sizeof archive_path, "%s", o->archive);
	} else {
		join_path(seal_path, sizeof seal_path, d->ep.dir, EV_SEAL_FILENAME);
		join_path(archive_path, sizeof archive_path, d->ep.dir, o->files[1].name);
	}
	args[n++] = (char *)"verify";
	args[n++] = (char *)"--seal";
	args[n++] = seal_path;
	args[n++] = (char *)"--seal-sha256";
	args[n++] = (char *)o->files[0].sha256;
	args[n++] = (char *)"--archive-sha256";
	args[n++] = (char *)o->files[1].sha256;
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
	ev_remote_command_build(&o->transport, &d->ep, progress_env, args, &cmd);
	struct ev_child c;
	ev_status st = ev_child_start(&c, cmd.argv, progress_env, RECEIPT_MAX, o->transport.idle_seconds, d->ep.spec,
				   o->interrupted, err);
	if (st != EV_OK)
		return st;
	c.doing = "verifying the copy";
	int code = -1;
	/* Its stdin stays open while it verifies: when it closes (we, or the
	 * ssh between us, are gone) the verifier stops without a receipt. */
	if ((st = ev_child_read_all(&c, err)) == EV_OK)
		st = ev_child_wait(&c, &code, err);
	said_receipt(o->tool, &c, d->verifier_receipt, sizeof d->verifier_receipt);
	if (d->local_check)
		snprintf(d->receipt_path, sizeof d->receipt_path, "%s", d->verifier_receipt);
	if (st == EV_OK && (code == 0 || code == 1) && !d->verifier_receipt[0])
		st = ev_error_set(err, EV_ERROR, "%s: replicate verify did not say where it wrote its receipt", d->ep.spec);
	if (st == EV_OK && code != 0 && code != 1) {
		char why[512];
		ev_child_last_error(&c, why, sizeof why);
		st = ev_error_set(err, EV_ERROR, "%s: replicate verify ended with status %d%s%s",
				  d->ep.spec, code, why[0] ? ": " : "", why);
	}
	json_t *r = NULL;
	if (st == EV_OK)
		st = ev_json_parse(c.outbuf, c.outlen, d->ep.spec, EV_RECEIPT_FORMAT,
				   EV_JSON_REQUIRE_CANONICAL, &r, err);
	if (st == EV_OK && *o->interrupted)
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
		d->outcome = code == 0 ? EV_PUSH_VERIFIED : EV_PUSH_FAILED_CHECK;
		const char *result = ev_receipt_result(r);
		snprintf(d->message, sizeof d->message, "%s; receipt %s",
			 result && strcmp(result, "pass") == 0 ? "pass" : "FAIL", d->receipt_path);
	}
	json_decref(r);
	c.killed_status = -1;
	ev_child_free(&c);
	/* stopped before it said so: whether it may have published one */
	d->verifier_unsure = !d->verifier_receipt[0] && c.killed_status != -1 && c.killed_status != 2;
	return st;
}

/* This host's latest tree head offered to d, which keeps it only when
 * it extends the head kept from the last push. */
static ev_status exchange_head(struct ev_push_destination *d, struct ev_error *err)
{
	const struct ev_replicate_push *o = d->push;
	struct ev_receipt_log l = {.dir = o->log};
	json_t *head = NULL, *proof = NULL;
	char label[128], why[1024] = "", line[1200];
	ev_status st = ev_receipt_log_offer(&l, 0, NULL, &head, &proof, label, sizeof label, why, sizeof why, err);
	json_decref(head);
	json_decref(proof);
	head = proof = NULL;
	if (st != EV_OK)
		return st == EV_MISMATCH ? ev_error_set(err, EV_ERROR, "%s: %s", o->log, why) : st;
	char *args[] = {(char *)"keep-head", d->ep.dir, label, NULL};
	struct ev_remote_command cmd;
	ev_remote_command_build(&o->transport, &d->ep, NULL, args, &cmd);
	struct ev_child c;
	if ((st = ev_child_start(&c, cmd.argv, NULL, 1 << 16, o->transport.idle_seconds, d->ep.spec, o->interrupted,
				 err)) != EV_OK)
		return st;
	c.doing = "offering this host's tree head";
	size_t old_size = 0;
	char old_root[EV_SHA256_HEX_LEN + 2] = "";
	if ((st = ev_child_read_line(&c, line, sizeof line, err)) == EV_OK &&
	    sscanf(line, "have %zu %65s", &old_size, old_root) != 2)
		st = ev_error_set(err, EV_ERROR, "%s: the far end answered '%.80s', not 'have N ROOT'", d->ep.spec, line);
	if (st == EV_OK) {
		st = ev_receipt_log_offer(&l, old_size, old_root, &head, &proof, label, sizeof label, why, sizeof why, err);
		if (st == EV_MISMATCH) { /* caught here: nothing is offered */
			d->outcome = EV_PUSH_FAILED_CHECK;
			size_t used = strlen(d->message);
			snprintf(d->message + used, sizeof d->message - used, "; tree head REFUSED: %s", why);
			st = EV_OK;
			goto out;
		}
	}
	char *bytes = NULL, *note = NULL;
	size_t len = 0, size = (size_t)json_integer_value(json_object_get(head, "size"));
	json_t *msg = st == EV_OK ? json_pack("{s:O, s:O}", "head", head, "proof", proof) : NULL;
	/* a signed log's checkpoint too, for a replica that cosigns it */
	if (st == EV_OK && msg && (st = ev_receipt_log_checkpoint(&l, size, &note, &len, err)) == EV_OK && note)
		json_object_set_new(msg, "checkpoint", json_stringn(note, len));
	free(note);
	if (st == EV_OK && (!msg || ev_json_dump(msg, &bytes, &len, err) != EV_OK))
		st = err->status ? err->status : ev_error_set(err, EV_ERROR, "out of memory");
	json_decref(msg);
	if (st == EV_OK)
		st = ev_child_write(&c, bytes, len, err);
	free(bytes);
	if (st == EV_OK) {
		ev_child_close_input(&c);
		st = ev_child_read_line(&c, line, sizeof line, err);
	}
	if (st == EV_OK) {
		size_t used = strlen(d->message);
		char *cosigned = strstr(line, " cosigned ");
		if (strncmp(line, "kept ", 5) == 0 && cosigned) {
			char name[256];
			*cosigned = '\0';
			if ((st = ev_receipt_log_keep_cosignature(&l, size, cosigned + 10, name, sizeof name, why, sizeof why,
								 err)) == EV_OK) {
				snprintf(d->message + used, sizeof d->message - used, "; tree head %s kept there, cosigned by %s",
					 line + 5, name);
			} else if (st == EV_MISMATCH) {
				d->outcome = EV_PUSH_FAILED_CHECK;
				snprintf(d->message + used, sizeof d->message - used, "; tree head %s kept there, its cosignature "
					 "REFUSED: %s", line + 5, why);
				st = EV_OK;
			}
		} else if (strncmp(line, "kept ", 5) == 0 && strstr(line, " not cosigned: ")) {
			char *reason = strstr(line, " not cosigned: ");
			*reason = '\0';
			snprintf(d->message + used, sizeof d->message - used, "; tree head %s kept there, not cosigned: %s",
				 line + 5, reason + 15);
		} else if (strncmp(line, "kept ", 5) == 0) {
			snprintf(d->message + used, sizeof d->message - used, "; tree head %s kept there", line + 5);
		} else {
			d->outcome = EV_PUSH_FAILED_CHECK;
			snprintf(d->message + used, sizeof d->message - used, "; tree head REFUSED there: %s",
				 strncmp(line, "refused: ", 9) == 0 ? line + 9 : line);
		}
		int code;
		ev_child_wait(&c, &code, err);
		ev_error_clear(err);
	}
out:
	json_decref(head);
	json_decref(proof);
	ev_child_free(&c);
	return st;
}

static void *destination_main(void *arg)
{
	struct ev_push_destination *d = arg;
	const struct ev_replicate_push *o = d->push;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = EV_OK;
	int resumed[2] = {0, 0};
	if (!d->local_check)
		for (int i = 0; i < 2 && st == EV_OK; i++)
			st = ev_transport_send_file(&o->transport, &d->ep, &o->files[i], i == 1 ? &d->sent : NULL, &d->sending_archive,
						 &resumed[i], &err);
	if (st == EV_OK)
		st = verify_there(d, &err);
	if (st == EV_OK && !d->local_check && o->log)
		st = exchange_head(d, &err);
	if (st != EV_OK) {
		char sent[32], total[32];
		ev_format_bytes(atomic_load(&d->sent), sent, sizeof sent);
		ev_format_bytes(o->files[1].size, total, sizeof total);
		d->outcome = EV_PUSH_UNREACHABLE;
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

static ev_status describe(const struct ev_replicate_push *p, struct ev_payload *f, const char *path, const char *name,
			  struct ev_error *err)
{
	uint8_t digest[EV_SHA256_LEN];
	f->path = path;
	f->name = name;
	int fd = ev_input_open(path, name, err);
	if (fd < 0)
		return err->status;
	ev_status st = ev_sha256_fd_until(fd, path, digest, &f->size, p->interrupted, err);
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

static ev_status check_before_copying(const struct ev_replicate_push *o, const struct ev_payload *seal,
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


ev_status ev_replicate_push_prepare(struct ev_replicate_push *p, struct ev_error *err)
{
	ev_status st;
	p->ndests = p->n_to + 1;
	p->dests = calloc(p->ndests, sizeof *p->dests);
	p->archive_copy = strdup(p->archive);
	if (!p->dests || !p->archive_copy)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *archive_name = basename(p->archive_copy);
	if (archive_name[0] == '.' || strcmp(archive_name, EV_SEAL_FILENAME) == 0)
		return ev_error_set(err, EV_USAGE, "%s: the archive's name must not start with '.' or be SEAL.json",
				    p->archive);
	struct stat sb;
	if (stat(p->receipts, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "%s: the receipt directory (--receipt-dir) does not exist",
				    p->receipts);
	if ((st = describe(p, &p->files[0], p->seal, EV_SEAL_FILENAME, err)) != EV_OK ||
	    (st = check_before_copying(p, &p->files[0], err)) != EV_OK ||
	    (st = describe(p, &p->files[1], p->archive, archive_name, err)) != EV_OK)
		return st;
	p->transport.stop = p->interrupted;
	ssize_t len = readlink("/proc/self/exe", p->transport.self_exe, sizeof p->transport.self_exe - 1);
	if (len <= 0)
		return ev_error_set(err, EV_ERROR, "cannot find my own executable (/proc/self/exe)");
	p->transport.self_exe[len] = '\0';
	for (size_t i = 0; i < p->ndests; i++) {
		struct ev_push_destination *d = &p->dests[i];
		d->push = p;
		if (i == p->n_to) {
			d->local_check = 1;
			d->ep.spec = "here";
		} else if (ev_endpoint_parse(&d->ep, p->to[i]) != 0) {
			return ev_error_set(err, EV_USAGE, "--to %s: expected HOST:DIR or a local DIR", p->to[i]);
		}
	}
	return EV_OK;
}

/* Every destination's worker, until all ended; the meter advanced by the
 * archive's bytes sent. On a signal the workers see the flag, stop their
 * children and end; this waits for them. */
static ev_status run_destinations(struct ev_replicate_push *p, struct ev_error *err)
{
	for (size_t i = 0; i < p->ndests; i++)
		if (pthread_create(&p->dests[i].thread, NULL, destination_main, &p->dests[i]) != 0) {
			for (size_t k = 0; k < i; k++)
				pthread_join(p->dests[k].thread, NULL);
			return ev_error_set(err, EV_ERROR, "cannot start a thread");
		}
	ev_meter_goal(p->meter, p->files[1].size * p->n_to, 0);
	uint64_t shown = 0;
	for (;;) {
		int running = 0;
		uint64_t sent = 0;
		for (size_t i = 0; i < p->ndests; i++) {
			running += !atomic_load(&p->dests[i].finished);
			sent += atomic_load(&p->dests[i].sent);
		}
		if (sent > shown)
			ev_meter_advance(p->meter, sent - shown, 0);
		shown = sent;
		if (!running)
			break;
		struct timespec pause = {0, 50 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	for (size_t i = 0; i < p->ndests; i++)
		pthread_join(p->dests[i].thread, NULL);
	return EV_OK;
}

/* The receipts of every destination reached, judged together. */
static ev_status judge(struct ev_replicate_push *p, struct ev_error *err)
{
	char *paths[EV_PUSH_MAX_DESTINATIONS + 1];
	struct ev_trust *trust = NULL;
	for (size_t i = 0; i < p->ndests; i++)
		if (p->dests[i].outcome != EV_PUSH_UNREACHABLE)
			paths[p->nreceipts++] = p->dests[i].receipt_path;
	ev_status st = ev_trust_from_files((const char *const *)p->trust_files, p->n_trust, &trust, err);
	if (st != EV_OK)
		return st;
	ev_error_clear(&p->judge_err);
	p->problems = ev_receipt_set_load(&p->set, paths, p->nreceipts, trust, p->on_finding, p->ctx, &p->judged,
					  &p->judge_err);
	if (p->judged != EV_OK)
		p->failed = 1;
	else
		p->differing = ev_receipt_set_disagreements(&p->set, p->on_finding, p->ctx);
	p->agree = p->judged == EV_OK && p->differing == 0 && p->problems == 0;
	ev_trust_free(trust);
	return EV_OK;
}

ev_status ev_replicate_push_run(struct ev_replicate_push *p, struct ev_error *err)
{
	ev_status st = run_destinations(p, err);
	if (st != EV_OK)
		return st;
	if (*p->interrupted)
		return ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal");
	for (size_t i = 0; i < p->ndests; i++) {
		const struct ev_push_destination *d = &p->dests[i];
		p->failed |= d->outcome == EV_PUSH_FAILED_CHECK;
		p->unreachable |= d->outcome == EV_PUSH_UNREACHABLE;
		if (p->on_destination)
			p->on_destination(p->ctx, d);
	}
	return judge(p, err);
}

void ev_replicate_push_free(struct ev_replicate_push *p)
{
	for (size_t i = 0; p->dests && i < p->ndests; i++) {
		free(p->dests[i].ep.host);
		free(p->dests[i].ep.dir);
	}
	free(p->dests);
	p->dests = NULL;
	free(p->archive_copy);
	p->archive_copy = NULL;
	ev_receipt_set_free(&p->set);
}

json_t *ev_replicate_push_json(const struct ev_replicate_push *p, json_t *findings)
{
	static const char *const names[] = {"pending", "pass", "fail", "error"};
	json_t *list = json_array();
	for (size_t i = 0; i < p->ndests; i++) {
		const struct ev_push_destination *d = &p->dests[i];
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s?}", "to", d->local_check ? "here" : d->ep.spec,
						      "status", names[d->outcome], "message", d->message, "receipt",
						      d->outcome == EV_PUSH_UNREACHABLE ? NULL : d->receipt_path));
	}
	return json_pack("{s:s, s:o, s:b, s:O}", "format", EV_PUSH_FORMAT, "destinations", list, "agree", p->agree,
			 "findings", findings);
}
