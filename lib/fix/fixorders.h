/* SPDX-License-Identifier: Apache-2.0 */
/* fixorders: the application layer of an order session, as the FIX order
 * state change matrices (FIX 4.4 Vol. 4, Appendix D; FIX 5.0 Vol. 4) have
 * an order go: one copy's requests (NewOrderSingle D, OrderCancelRequest
 * F, OrderCancelReplaceRequest G) and the peer's answers (ExecutionReport
 * 8, OrderCancelReject 9).
 *
 * An order is known by the ClOrdID(11) of its NewOrderSingle and by every
 * ClOrdID a cancel or replace request gave it (OrigClOrdID(41) names the
 * one before). Each ExecutionReport is held to:
 *   order-state     it answers an order this copy sent; ExecType(150) and
 *                   OrdStatus(39) present; Pending Cancel (6) and Pending
 *                   Replace (E) and Replaced (5) only after the request;
 *                   Rejected (8) only before the order was accepted; New (0)
 *                   and Pending New (A) only before a fill; nothing but
 *                   Order Status (I) and Restated (D) after a terminal
 *                   state (Filled 2, Canceled 4, Rejected 8, Done for day
 *                   3, Expired C); an ExecID(17) never repeated without 43=Y
 *   order-quantity  CumQty(14) + LeavesQty(151) = OrderQty(38) while the
 *                   order lives, LeavesQty 0 once it is done; a fill
 *                   (ExecType F, or 1 and 2 before FIX 4.3) adds its
 *                   LastQty(32) to CumQty, which never goes back;
 *                   OrdStatus agrees with CumQty (New: 0, Partially
 *                   filled: between, Filled: all)
 *   order-avgpx     AvgPx(6) is the fills' LastQty-weighted LastPx(31), to
 *                   half a unit of AvgPx's last printed digit
 *   order-unanswered an order never answered (a finding when the spec says
 *                   so; otherwise listed)
 * Quantities are exact (decimals to 8 places); prices are compared as
 * doubles within the tolerance above.
 */
#ifndef EV_FIXORDERS_H
#define EV_FIXORDERS_H

#include <stdint.h>

#include "lib/core/status.h"
#include "lib/fix/fixmsg.h"
#include "lib/fix/fixsession.h"

#define EV_FIXORDERS_ID_MAX 48     /* ClOrdIDs and ExecIDs longer are cut for showing, hashed whole */
#define EV_FIXORDERS_LISTED 8      /* unanswered orders named in the facts */

/* A text value as found in a message (NULL when absent). */
struct ev_fixorders_text {
	const char *v;
	uint32_t len;
};

/* A quantity or price field: present, readable, its value. */
struct ev_fixorders_number {
	int present, ok; /* ok: a decimal (value and decimals are set) */
	int exact;       /* units is the value exactly (at most 8 places): quantities need it */
	int64_t units;   /* the value times 10^8 */
	double value;    /* prices */
	int decimals;    /* digits after the point, as printed */
};

struct ev_fixorders_msg {
	char type;                            /* 'D', 'F', 'G' (requests); '8', '9' (answers) */
	int poss_dup;                         /* 43=Y */
	struct ev_fixorders_text clordid, orig_clordid, exec_id;
	char exec_type, ord_status;           /* 0 when absent */
	struct ev_fixorders_number order_qty, cum_qty, leaves_qty, last_qty, last_px, avg_px;
};

struct ev_fixorders_facts {
	uint64_t orders, cancel_requests, replace_requests;
	uint64_t execution_reports, cancel_rejects, duplicates; /* duplicates: 43=Y with an ExecID seen */
	uint64_t answered, unanswered, filled, partially_filled, canceled, replaced, rejected, expired, open;
	char unanswered_ids[EV_FIXORDERS_LISTED][EV_FIXORDERS_ID_MAX + 1];
	uint64_t unanswered_records[EV_FIXORDERS_LISTED];
};

struct ev_fixorders;

ev_status ev_fixorders_new(struct ev_fixorders **out, ev_fixsession_report_fn report, void *ctx,
			   struct ev_error *err);
void ev_fixorders_free(struct ev_fixorders *o);

/* A request of the copy's own direction (a resend of one already seen is
 * not given). */
void ev_fixorders_request(struct ev_fixorders *o, const struct ev_fixorders_msg *m, const struct ev_fix_record *where);

/* An answer of the peer's direction. */
void ev_fixorders_answer(struct ev_fixorders *o, const struct ev_fixorders_msg *m, const struct ev_fix_record *where);

/* The end of the copy: orders never answered are counted, listed, and
 * with unanswered_is_finding each is an order-unanswered finding. */
void ev_fixorders_finish(struct ev_fixorders *o, int unanswered_is_finding);

const struct ev_fixorders_facts *ev_fixorders_facts(const struct ev_fixorders *o);

/* "10.5" as 1050000000 (10^8 units); -1 when it is not a decimal of at
 * most 8 places that fits. */
int ev_fixorders_quantity(const char *v, uint32_t len, int64_t *units);

#endif
