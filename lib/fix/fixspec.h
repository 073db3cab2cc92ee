/* SPDX-License-Identifier: Apache-2.0 */
/* fixspec: what the orders of a benchmark must be ("evidence-fix-spec/1").
 *
 *   {"format": "evidence-fix-spec/1", "name": "...",
 *    "begin_string": "FIXT.1.1",
 *    "order_msgtype": "D", "other_msgtypes": ["A", "5"],
 *    "fields": [{"tag": 49, "value": "CLIENT1"},
 *               {"tag": 52, "shape": "########-##:##:##.###"}, ...],
 *    "groups": [{"tag": 453, "instances": [[{"tag": 448, "value": "PARTY1"}, ...], ...]}],
 *    "owner": {"tag": 11, "first": 1},
 *    "sequence": {"tag": 34, "first": 1},
 *    "warmups": 1000, "measured": 1000000,
 *    "orders": {"execution_reports": true, "unanswered": "finding"}}
 *
 * orders (optional) declares that the peer answers each order with
 * ExecutionReports: each is then followed through the order state
 * matrices (fixorders.h) wherever a copy holds both directions; an order
 * never answered is a finding with "unanswered": "finding", listed only
 * with "listed" (the default). Without it, as in the llfix TX benchmark,
 * nothing of the kind is asked.
 *
 * fields and groups apply to orders; owner (the tag whose values count up
 * by one from first across the orders) to orders; sequence to every
 * message of a journal. A shape is a pattern: '#' one ASCII digit, '?' any
 * one character, anything else itself; "shape" may also be a list of
 * alternatives. The spec owns its strings. No global state.
 */
#ifndef EV_FIXSPEC_H
#define EV_FIXSPEC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_FIXSPEC_FORMAT "evidence-fix-spec/1"
#define EV_FIXSPEC_MSGTYPE_MAX 16

struct ev_fixspec_field {
	uint32_t tag;
	const char *value;     /* exact value, or NULL */
	uint32_t value_len;
	const char **shapes;   /* alternatives, when value is NULL */
	uint32_t *shape_lens;
	size_t nshapes;
};

struct ev_fixspec_group {
	uint32_t tag;          /* the NumInGroup tag */
	uint32_t count;        /* instances */
	struct ev_fixspec_field *members; /* every instance's fields, in order */
	size_t nmembers;
};

struct ev_fixspec {
	const char *name, *begin_string;
	char order_msgtype[EV_FIXSPEC_MSGTYPE_MAX];
	char (*other_msgtypes)[EV_FIXSPEC_MSGTYPE_MAX];
	size_t nother;
	struct ev_fixspec_field *fields;
	size_t nfields;
	struct ev_fixspec_group *groups;
	size_t ngroups;
	uint32_t owner_tag, sequence_tag;
	uint64_t owner_first, sequence_first;
	uint64_t warmups, measured;
	int execution_reports;           /* "orders": the peer answers each order */
	int unanswered_is_finding;
	json_t *doc;           /* owns every string above */
};

/* Read and check a spec; sha256_hex (65 bytes, may be NULL) gets the
 * digest of its bytes. Every key is checked (a typo is an error naming
 * it). On failure spec is left empty. */
ev_status ev_fixspec_load(const char *path, struct ev_fixspec *spec,
			  char sha256_hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err);
void ev_fixspec_free(struct ev_fixspec *spec);

/* Does value (len bytes) have this shape? */
int ev_fixspec_shape_match(const char *shape, const char *value, uint32_t len);

/* Does value match the field's value or one of its shapes? */
int ev_fixspec_field_ok(const struct ev_fixspec_field *f, const char *value, uint32_t len);

/* "CLIENT1", or the shape(s) "########-##:##:##.###" for messages. */
void ev_fixspec_field_describe(const struct ev_fixspec_field *f, char *buf, size_t cap);

#endif
