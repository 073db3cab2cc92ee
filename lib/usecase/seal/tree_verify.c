/* SPDX-License-Identifier: Apache-2.0 */
/* tree_verify: a directory against its seal or a selection (tree_verify.h). */
#include "config.h"

#include <string.h>

#include "lib/archive/tree_check.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/tree_verify.h"

/* Every finding passes here, to be counted on its way to the caller. */
static void counted(void *ctx, const struct ev_finding *f)
{
	struct ev_tree_verify *v = ctx;
	v->findings++;
	v->on_finding(v->ctx, f);
}

static ev_status load_seal(struct ev_tree_verify *v, json_t *receipt, struct ev_error *err)
{
	ev_status st = ev_seal_load_pinned(v->seal, v->seal_sha256, &v->seal_doc, v->seal_hex, NULL, NULL, err);
	if (st == EV_MISMATCH && !v->pin_is_a_check)
		return ev_seal_refuse_unpinned(v->seal, v->seal_hex, v->seal_sha256, err);
	if (v->seal_hex[0])
		ev_receipt_add_input(receipt, EV_SEAL_FILENAME, v->seal, v->seal_hex, err);
	if (v->seal_sha256 && v->pin_is_a_check && (st == EV_OK || st == EV_MISMATCH))
		ev_receipt_check_pin(receipt, v->seal, "seal-sha256",
				     "SEAL.json is not the pinned seal; nothing else was checked",
				     "SEAL.json bytes hash to the pinned value", v->seal_sha256, v->seal_hex, counted, v,
				     err);
	return st;
}

/* The selection must come from this seal, member for member: a member
 * edited in the selection would otherwise make an edited tree pass. */
static void hold_selection_to_seal(struct ev_tree_verify *v, json_t *receipt, struct ev_error *err)
{
	uint64_t before = v->findings;
	if (strcmp(v->sel.seal_sha256, v->seal_hex) != 0)
		ev_finding_emit(counted, v, v->selection, "selection-seal", "the selection was not made from this seal",
				v->seal_hex, v->sel.seal_sha256);
	for (size_t i = 0; i < v->sel.members.count; i++) {
		const struct ev_member *m = &v->sel.members.members[i];
		long at = ev_seal_find(&v->seal_doc, m->path);
		if (at < 0)
			ev_finding_emit(counted, v, m->path, "selection", "selected member is not in the seal", NULL,
					NULL);
		else
			ev_member_compare(&v->seal_doc.members[at], m, 1, counted, v);
	}
	ev_receipt_add_check(receipt, "selection-from-seal", v->findings == before, NULL, err);
}

ev_status ev_tree_verify_expect(struct ev_tree_verify *v, json_t *receipt, struct ev_error *err)
{
	ev_status st;
	v->expected = &v->seal_doc;
	if (v->seal && (st = load_seal(v, receipt, err)) != EV_OK)
		return st;
	ev_receipt_add_input(receipt, v->dir_input, v->dir_recorded ? v->dir_recorded : v->dir, NULL, err);
	if (v->selection) {
		if ((st = ev_selection_load(v->selection, &v->sel, err)) != EV_OK)
			return st;
		ev_receipt_add_input(receipt, "selection", v->selection, NULL, err);
		if (v->seal)
			hold_selection_to_seal(v, receipt, err);
		v->expected = &v->sel.members;
	}
	return EV_OK;
}

ev_status ev_tree_verify_check(struct ev_tree_verify *v, struct ev_error *err)
{
	return ev_tree_check(v->dir, v->expected, v->selection != NULL, counted, v, v->meter, v->interrupted, err);
}

void ev_tree_verify_free(struct ev_tree_verify *v)
{
	ev_seal_free(&v->seal_doc);
	ev_selection_free(&v->sel);
}
