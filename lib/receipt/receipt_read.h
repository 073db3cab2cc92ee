/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_read: what a receipt says, field by field, for every tool that
 * judges one (doc/formats.md "Receipts"): the one reader of a receipt's
 * fields, so that a field's name and meaning live in one place.
 *
 * Each accessor takes a receipt as ev_receipt_load gives it and never
 * fails: a field that is absent or of another type gives NULL (or 0),
 * and the caller says what that means. Whether the receipt is intact
 * (its comparable digest) or signed is judged elsewhere
 * (ev_receipt_comparable_holds, lib/receipt/signature). No global state.
 */
#ifndef EV_RECEIPT_READ_H
#define EV_RECEIPT_READ_H

#include <jansson.h>

/* "kind": seal, replica, audit, capture, cleanup, integration, continuation. */
const char *ev_receipt_kind(const json_t *r);

/* "tool"."name": the tool that wrote it. */
const char *ev_receipt_tool_name(const json_t *r);

/* "result": "pass" or "fail". */
const char *ev_receipt_result(const json_t *r);

/* The command a receipt records, its tool and first argument ("audit
 * journal", "replicate prune"; "?" for no tool), into out. */
void ev_receipt_command(const json_t *r, char *out, size_t cap);

/* 1 when "result" is "pass". */
int ev_receipt_passed(const json_t *r);

/* "host", "finished": where and when it was written. */
const char *ev_receipt_host(const json_t *r);
const char *ev_receipt_finished(const json_t *r);

/* "comparable": the digest two hosts' receipts are compared by. */
const char *ev_receipt_comparable_digest(const json_t *r);

/* "inputs", "outputs", "checks": arrays of objects, or NULL. */
const json_t *ev_receipt_inputs(const json_t *r);
const json_t *ev_receipt_outputs(const json_t *r);
const json_t *ev_receipt_checks(const json_t *r);

/* The SHA-256 (hex) of the first entry named name in list (a receipt's
 * inputs or outputs), or NULL. */
const char *ev_receipt_named_sha256(const json_t *list, const char *name);

/* The same, of r's input or output named name. */
const char *ev_receipt_input_sha256(const json_t *r, const char *name);
const char *ev_receipt_output_sha256(const json_t *r, const char *name);

/* facts.NAME, or NULL; "coverage" is facts.coverage. */
const json_t *ev_receipt_fact(const json_t *r, const char *name);
const json_t *ev_receipt_coverage(const json_t *r);

#endif
