/* SPDX-License-Identifier: Apache-2.0 */
/* finding: one thing a check saw that differs from what was expected.
 *
 * Checks never stop at the first difference: they hand every finding to a
 * caller's callback (doc/design.md principle 4, "a finding names its
 * evidence"), and the tool prints them all. A finding is only valid during
 * the callback; copy what you keep.
 */
#ifndef EV_FINDING_H
#define EV_FINDING_H

#include <stddef.h>

#include <jansson.h>

#define EV_FINDING_VALUE_MAX 512

struct ev_finding {
	const char *subject;  /* the member path, file or record it is about */
	const char *check;    /* stable name: "missing", "extra", "type", "size",
				 "mode", "sha256", "order", "duplicate",
				 "refused", "changed-while-read", ... */
	const char *message;  /* a plain sentence: "size differs" */
	char expected[EV_FINDING_VALUE_MAX]; /* "" when not applicable */
	char found[EV_FINDING_VALUE_MAX];
	int in_receipt;       /* already in the receipt as a check of its own (a
				 failed pin): shown and counted, not added again */
};

typedef void (*ev_finding_fn)(void *ctx, const struct ev_finding *f);

/* Fill f; expected/found may be NULL. Values too long are cut with "...". */
void ev_finding_make(struct ev_finding *f, const char *subject, const char *check,
		     const char *message, const char *expected, const char *found);

/* Make a finding from these fields and hand it to fn(ctx, ...) at once:
 * what every check does for each difference it sees. */
void ev_finding_emit(ev_finding_fn fn, void *ctx, const char *subject, const char *check,
		     const char *message, const char *expected, const char *found);

/* "subject: message (expected X, found Y)" into buf ("(found Y)" when
 * nothing was expected, e.g. an extra member), with the subject quoted
 * safely (ev_path_quote). Cut with "..." if buf is too small. */
void ev_finding_format(const struct ev_finding *f, char *buf, size_t cap);

/* {"check":..,"subject":..,"message":..,"expected":..,"found":..}, new ref. */
json_t *ev_finding_to_json(const struct ev_finding *f);

#endif
