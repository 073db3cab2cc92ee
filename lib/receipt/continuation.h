/* SPDX-License-Identifier: Apache-2.0 */
/* continuation: a failed receipt kept as it is, and a new receipt that
 * names it, states exactly which differences it accepts, and records a
 * fresh run of the same checks on the same inputs (doc/design.md principle
 * 1, kind "continuation"; doc/formats.md "Continuations").
 *
 * The pieces here are pure (no text, no processes): reading a receipt's
 * differences, compiling and vetting accept rules, and classifying a fresh
 * run's differences. continue_cli.h runs the subcommand that every tool
 * shares ("TOOL continue").
 *
 * A receipt's differences are its findings, one per thing that differed:
 *  - a failed check named "<check>:<subject>" (seal verify, seal
 *    integrate, replicate verify), found/expected from its fields;
 *  - an entry of facts.first_findings (audit journal), check = its rule;
 *  - any other failed check, found = its detail, unless it is explained by
 *    findings: a check is explained by the findings filed under its own
 *    name, and "members" by the member findings ("<check>:<member>").
 */
#ifndef EV_CONTINUATION_H
#define EV_CONTINUATION_H

#include <regex.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/status.h"

struct ev_difference {
	char *check;    /* "enum-value", "sha256", "count" */
	char *subject;  /* the member or record ("pair 1 sender log.txt at 120"), or "" */
	char *expected; /* "" when not stated */
	char *found;    /* the value an accept rule is matched against */
};

/* The differences of receipt r, in the order the receipt lists them.
 * @return EV_OK (an empty list for a receipt that passed). */
ev_status ev_receipt_differences(const json_t *r, struct ev_difference **out, size_t *n,
				 struct ev_error *err);
/* Free the n differences and the array. */
void ev_differences_free(struct ev_difference *v, size_t n);

/* One accept rule: the check it relaxes and the one value (exact) or the
 * values (a POSIX extended regular expression, matched in full) it
 * accepts as found. */
struct ev_accept {
	char *check;
	char *text;  /* the value or the pattern as the user wrote it */
	int exact;
	regex_t re;  /* when compiled */
	int compiled;
	size_t matched; /* differences of a fresh run it accepted */
};

/* Parse "CHECK=VALUE" (exact) or "CHECK=PATTERN" into a. A pattern that
 * does not compile, or that would accept an empty value or any value
 * (it matches "" or every one of a few unrelated probes), is refused with
 * EV_USAGE: a continuation names one difference, not a blank cheque. */
ev_status ev_accept_parse(struct ev_accept *a, const char *spec, int exact, struct ev_error *err);
void ev_accept_free(struct ev_accept *a);

/* Does a accept d (same check, found matched in full)? */
int ev_accept_matches(const struct ev_accept *a, const struct ev_difference *d);

/* Vet the rules against the original's differences: each must name a
 * check the original failed and accept at least one of its findings of
 * that check; otherwise EV_REFUSED, naming the rule, the checks the
 * original did fail, and (for a rule that matches none) a value it has. */
ev_status ev_accepts_vet(const struct ev_accept *accepts, size_t naccepts,
			 const struct ev_difference *orig, size_t norig, struct ev_error *err);

/* The inputs of two receipts agree: same names in the same order, same
 * sha256 and same git_tree (a repository's tree id) where one is stated? On a difference, what to tell the user goes
 * to why (cap bytes). */
int ev_receipt_same_inputs(const json_t *a, const json_t *b, char *why, size_t cap);

#endif
