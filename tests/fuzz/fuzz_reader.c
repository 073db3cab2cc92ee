/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: one journal reader (FUZZ_KIND: llfix, raw, qf-store
 * or qf-log) and every rule behind it. The input is cut into pieces at
 * places its first bytes choose, as reads would cut it, and fed through
 * the reader into a checker with the shipped dictionaries and spec; for a
 * FileStore the input's second half is the .header beside the .body.
 * Whatever the bytes, nothing crashes, leaks or reads out of bounds, and
 * every finding names a rule. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fix/fixcheck.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fingerprint.h"
#include "lib/fix/fixread.h"
#include "lib/fix/fixspec.h"

static struct ev_fixdict *dict;
static struct ev_fixspec spec;
static struct ev_fingerprint_key key;
static char header_path[64], body_path[64];

static void on_finding(void *ctx, const struct ev_fix_finding *f)
{
	(void)ctx;
	if ((unsigned)f->rule >= EV_RULE_COUNT || !ev_fix_rule_name(f->rule))
		abort();
}

static void sink_record(void *ctx, const struct ev_fix_record *r)
{
	ev_fixcheck_record(ctx, r);
}

static void sink_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
			uint64_t offset, const char *message, const char *expected, const char *found)
{
	ev_fixcheck_damage(ctx, rule, file, record, offset, message, expected, found);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char a[4096], b[4096], s[4096];
	snprintf(a, sizeof a, "%s/share/fix/FIXT11.xml", EV_TOP_SRCDIR);
	snprintf(b, sizeof b, "%s/share/fix/FIX50.xml", EV_TOP_SRCDIR);
	snprintf(s, sizeof s, "%s/share/audit/llfix-tx-new-order.json", EV_TOP_SRCDIR);
	char *paths[] = {a, b};
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_fixdict_load(&dict, paths, 2, &err) != EV_OK || ev_fixspec_load(s, &spec, NULL, &err) != EV_OK ||
	    ev_fingerprint_key_new(&key, &err) != EV_OK) {
		fprintf(stderr, "fuzz: %s\n", err.text);
		exit(1);
	}
	spec.warmups = 1;
	spec.measured = 2;
	spec.execution_reports = 1; /* the qf-log target follows orders through the peer's answers */
	snprintf(body_path, sizeof body_path, "/tmp/evidence-fuzz-%ld.body", (long)getpid());
	snprintf(header_path, sizeof header_path, "/tmp/evidence-fuzz-%ld.header", (long)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t step = (size_t)data[0] * 7 + 1; /* how the reads cut it */
	data++;
	size--;
	int kind = ev_fixread_kind_parse(FUZZ_KIND);
	struct ev_fingerprint_set set = {0};
	struct ev_fixcheck_opts co = {.side = "fuzz", .dict = dict, .spec = &spec,
				      .sender_compid = kind == EV_FIXREAD_QF_LOG ? "CLIENT1" : NULL,
				      .max_per_rule = 3, .prints = EV_FINGERPRINT_RECORD, .key = &key,
				      .set = &set};
	struct ev_fixcheck *c = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_fixcheck_new(&c, &co, on_finding, NULL, &err) != EV_OK)
		return 0;
	struct ev_fixread_sink sink = {sink_record, sink_damage, c, NULL, NULL, NULL, NULL};
	struct ev_fixread *r = ev_fixread_new((enum ev_fixread_kind)kind, &sink);
	size_t body = size;
	if (kind == EV_FIXREAD_QF_STORE) {
		body = size / 2;
		FILE *h = fopen(header_path, "wb");
		if (h) {
			fwrite(data + body, 1, size - body, h);
			fclose(h);
		}
		ev_fixread_companion(r, body_path);
	}
	ev_fixread_begin(r, "1.bin", 0, &err);
	for (size_t at = 0; at < body; at += step)
		ev_fixread_feed(r, data + at, body - at < step ? body - at : step, &err);
	ev_fixread_end(r, &err);
	ev_fixread_finish(r);
	ev_fixcheck_finish(c);
	ev_fixread_free(r);
	ev_fixcheck_free(c);
	ev_fingerprint_set_free(&set);
	if (kind == EV_FIXREAD_QF_STORE)
		unlink(header_path);
	return 0;
}
