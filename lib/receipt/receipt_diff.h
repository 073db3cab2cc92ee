/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_diff: where two receipts differ, item by item, over exactly what
 * their "comparable" digest covers (receipt.h): kind, tool name and
 * version, inputs and outputs (by name: their sha256), facts (by key),
 * checks (by name: result and detail) and result.
 *
 * Two receipts with equal comparable digests have no differences; when
 * the digests differ, this says where, so that a person reads "check
 * sha256:runs/A-1/journal/1.bin: only in B" rather than two hex strings.
 * Pure functions over jansson values; no global state.
 */
#ifndef EV_RECEIPT_DIFF_H
#define EV_RECEIPT_DIFF_H

#include <jansson.h>

#include "lib/core/finding.h"

/* Report every difference between a (the reference) and b as a finding:
 *   check "differs": subject names the item ("input archive", "fact
 *     totals", "check members", "result", "kind", "tool"), expected is a's
 *     value, found is b's;
 *   check "only-in-one": the item is in one receipt only; expected holds
 *     a's value or is empty, found holds b's value or is empty.
 * Values are shown as their compact JSON or "pass"/"fail: detail", cut
 * at the finding's value limit. @return the number of differences. */
unsigned ev_receipt_diff(const json_t *a, const json_t *b, ev_finding_fn on_finding, void *ctx);

#endif
