/* audit journal's shared state: one run, its pairs and their sides, and
 * the archive reader that fills them from a sealed archive. Only
 * audit/journal*.c include this. */
#ifndef AUDIT_JOURNAL_H
#define AUDIT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fixcheck.h"
#include "lib/fixdict.h"
#include "lib/fixprint.h"
#include "lib/fixread.h"
#include "lib/fixspec.h"
#include "lib/sha256.h"

#define JOURNAL_MAX_PAIRS 256
#define JOURNAL_MAX_DICTS 8
#define EV_SEAL_NAME "SEAL.json"

struct finding_list {
	struct ev_fix_finding *v;
	size_t n, cap;
	int oom;
};

struct side {
	const char *role;           /* "sender" or "receiver" */
	const char *path;
	int present;
	enum ev_fixread_kind kind;
	char **files;
	size_t nfiles;
	uint8_t (*digests)[EV_SHA256_LEN];
	uint64_t *bytes, *records;
	struct ev_fixcheck_stats stats;
};

struct pair {
	size_t number;              /* 1-based */
	struct side side[2];        /* sender, receiver */
	struct ev_fixprint_set prints;
	struct finding_list findings;
	ev_status st;
	struct ev_error err;
};

struct journal_run {
	const char *spec_path, *archive, *seal, *receipt, *sender_compid;
	char *dicts[JOURNAL_MAX_DICTS];
	size_t ndicts;
	char spec_hex[EV_SHA256_HEX_LEN + 1], dict_hex[JOURNAL_MAX_DICTS][EV_SHA256_HEX_LEN + 1];
	char archive_hex[EV_SHA256_HEX_LEN + 1], seal_hex[EV_SHA256_HEX_LEN + 1];
	int format, json;
	long warmups, measured;
	size_t jobs;
	unsigned max_findings;
	struct ev_fixspec spec;
	struct ev_fixdict *dict;
	struct ev_fixprint_key key;
	struct pair *pairs;
	size_t npairs;
};

/* A checker for one side, findings into findings. */
ev_status journal_side_checker(const struct journal_run *run, struct side *s,
			       enum ev_fixprint_mode mode, struct ev_fixprint_set *set,
			       struct finding_list *findings, struct ev_fixcheck **out,
			       struct ev_error *err);

/* Fill every side of run from the sealed archive, streamed once. */
ev_status journal_from_archive(struct journal_run *run, struct ev_error *err);

#endif
