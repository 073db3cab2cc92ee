/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixorders.h"
#include "lib/core/grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNITS 100000000 /* quantities to 8 decimal places */

struct alias {
	uint64_t hash;
	uint32_t order;
	uint8_t len;
	char id[EV_FIXORDERS_ID_MAX];
};

struct order {
	struct ev_fix_record at; /* the NewOrderSingle (its bytes not kept) */
	int64_t qty, cum, pending_qty;
	double notional;         /* sum of LastQty * LastPx over the fills */
	uint32_t alias;          /* the NewOrderSingle's ClOrdID */
	char status;             /* OrdStatus of the last answer; 0: none yet */
	uint8_t answered, cancel_pending, replace_pending, qty_known;
};

struct ev_fixorders {
	ev_fixsession_report_fn report;
	void *ctx;
	struct order *orders;
	size_t norders, orders_cap;
	struct alias *aliases;
	size_t naliases, aliases_cap;
	uint32_t *table; /* alias index + 1 by hash; 0: empty */
	size_t table_cap;
	uint64_t *execs; /* ExecID hashes; 0: empty */
	size_t nexecs, execs_cap;
	int oom;
	struct ev_fixorders_facts facts;
};

static uint64_t hash_of(const char *v, uint32_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)v[i]) * 1099511628211ull;
	return h ? h : 1;
}

static void shown(const struct ev_fixorders_text *t, char *out, size_t cap)
{
	size_t n = t->len < cap - 1 ? t->len : cap - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = t->v[i] >= 0x20 && t->v[i] < 0x7f ? t->v[i] : '.';
	out[n] = 0;
}

ev_status ev_fixorders_new(struct ev_fixorders **out, ev_fixsession_report_fn report, void *ctx,
			   struct ev_error *err)
{
	struct ev_fixorders *o = calloc(1, sizeof *o);
	if (!o)
		return ev_error_set(err, EV_ERROR, "out of memory");
	o->report = report;
	o->ctx = ctx;
	*out = o;
	return EV_OK;
}

void ev_fixorders_free(struct ev_fixorders *o)
{
	if (!o)
		return;
	free(o->orders);
	free(o->aliases);
	free(o->table);
	free(o->execs);
	free(o);
}

const struct ev_fixorders_facts *ev_fixorders_facts(const struct ev_fixorders *o)
{
	return &o->facts;
}

int ev_fixorders_quantity(const char *v, uint32_t len, int64_t *units)
{
	uint32_t i = 0;
	int neg = 0;
	if (len && v[0] == '-') {
		neg = 1;
		i++;
	}
	int64_t whole = 0, frac = 0;
	int digits = 0, places = -1;
	for (; i < len; i++) {
		if (v[i] == '.' && places < 0) {
			places = 0;
			continue;
		}
		if (v[i] < '0' || v[i] > '9')
			return -1;
		digits++;
		if (places < 0) {
			if (whole > (INT64_MAX / UNITS - 9) / 10)
				return -1;
			whole = whole * 10 + (v[i] - '0');
		} else if (places < 8) {
			frac = frac * 10 + (v[i] - '0');
			places++;
		} else if (v[i] != '0') {
			return -1; /* more than 8 places that matter */
		}
	}
	if (!digits)
		return -1;
	for (int p = places < 0 ? 0 : places; p < 8; p++)
		frac *= 10;
	*units = (neg ? -1 : 1) * (whole * UNITS + frac);
	return 0;
}

/* --- ClOrdIDs ------------------------------------------------------------ */

static int same_id(const struct alias *a, uint64_t h, const struct ev_fixorders_text *t)
{
	uint32_t n = t->len < EV_FIXORDERS_ID_MAX ? t->len : EV_FIXORDERS_ID_MAX;
	return a->hash == h && a->len == n && memcmp(a->id, t->v, n) == 0;
}

static struct order *find(struct ev_fixorders *o, const struct ev_fixorders_text *t)
{
	if (!t->v || !o->table_cap)
		return NULL;
	uint64_t h = hash_of(t->v, t->len);
	for (size_t i = h & (o->table_cap - 1);; i = (i + 1) & (o->table_cap - 1)) {
		uint32_t k = o->table[i];
		if (!k)
			return NULL;
		if (same_id(&o->aliases[k - 1], h, t))
			return &o->orders[o->aliases[k - 1].order];
	}
}

static int grow_table(struct ev_fixorders *o)
{
	size_t cap = o->table_cap ? o->table_cap * 2 : 1024;
	uint32_t *t = calloc(cap, sizeof *t);
	if (!t)
		return -1;
	for (size_t a = 0; a < o->naliases; a++) {
		size_t i = o->aliases[a].hash & (cap - 1);
		while (t[i])
			i = (i + 1) & (cap - 1);
		t[i] = (uint32_t)a + 1;
	}
	free(o->table);
	o->table = t;
	o->table_cap = cap;
	return 0;
}

/* Name order by t (a later ClOrdID of the same text names the later order). */
static int add_alias(struct ev_fixorders *o, const struct ev_fixorders_text *t, uint32_t order)
{
	if (o->naliases == o->aliases_cap) {
		size_t cap = o->aliases_cap ? o->aliases_cap * 2 : 1024;
		struct alias *a = ev_grow(o->aliases, cap * sizeof *a);
		if (!a)
			return -1;
		o->aliases = a;
		o->aliases_cap = cap;
	}
	if ((o->naliases + 1) * 2 > o->table_cap && grow_table(o) != 0)
		return -1;
	struct alias *a = &o->aliases[o->naliases];
	a->hash = hash_of(t->v, t->len);
	a->order = order;
	a->len = (uint8_t)(t->len < EV_FIXORDERS_ID_MAX ? t->len : EV_FIXORDERS_ID_MAX);
	memcpy(a->id, t->v, a->len);
	size_t i = a->hash & (o->table_cap - 1);
	while (o->table[i] && !same_id(&o->aliases[o->table[i] - 1], a->hash, t))
		i = (i + 1) & (o->table_cap - 1);
	o->table[i] = (uint32_t)o->naliases + 1;
	o->naliases++;
	return 0;
}

/* 1 when this ExecID was seen before (and is now remembered). */
static int exec_seen(struct ev_fixorders *o, const struct ev_fixorders_text *t)
{
	if (!t->v)
		return 0;
	if ((o->nexecs + 1) * 2 > o->execs_cap) {
		size_t cap = o->execs_cap ? o->execs_cap * 2 : 1024;
		uint64_t *e = calloc(cap, sizeof *e);
		if (!e) {
			o->oom = 1;
			return 0;
		}
		for (size_t k = 0; k < o->execs_cap; k++)
			if (o->execs[k]) {
				size_t i = o->execs[k] & (cap - 1);
				while (e[i])
					i = (i + 1) & (cap - 1);
				e[i] = o->execs[k];
			}
		free(o->execs);
		o->execs = e;
		o->execs_cap = cap;
	}
	uint64_t h = hash_of(t->v, t->len);
	size_t i = h & (o->execs_cap - 1);
	while (o->execs[i]) {
		if (o->execs[i] == h)
			return 1;
		i = (i + 1) & (o->execs_cap - 1);
	}
	o->execs[i] = h;
	o->nexecs++;
	return 0;
}

/* --- requests ------------------------------------------------------------ */

void ev_fixorders_request(struct ev_fixorders *o, const struct ev_fixorders_msg *m, const struct ev_fix_record *where)
{
	if (!m->clordid.v || o->oom)
		return;
	if (m->type == 'D') {
		if (o->norders == o->orders_cap) {
			size_t cap = o->orders_cap ? o->orders_cap * 2 : 1024;
			struct order *more = ev_grow(o->orders, cap * sizeof *more);
			if (!more) {
				o->oom = 1;
				return;
			}
			o->orders = more;
			o->orders_cap = cap;
		}
		struct order *ord = &o->orders[o->norders];
		memset(ord, 0, sizeof *ord);
		ord->at = *where;
		ord->at.msg = NULL;
		ord->at.len = 0;
		ord->qty_known = m->order_qty.exact;
		ord->qty = m->order_qty.units;
		ord->alias = (uint32_t)o->naliases;
		if (add_alias(o, &m->clordid, (uint32_t)o->norders) != 0) {
			o->oom = 1;
			return;
		}
		o->norders++;
		o->facts.orders++;
		return;
	}
	/* F or G: the order OrigClOrdID names takes this ClOrdID too */
	struct order *ord = find(o, &m->orig_clordid);
	if (m->type == 'F')
		o->facts.cancel_requests++;
	else
		o->facts.replace_requests++;
	if (!ord) {
		char id[EV_FIXORDERS_ID_MAX + 1], msg[160];
		shown(&m->orig_clordid, id, sizeof id);
		snprintf(msg, sizeof msg, "%s for an order this copy never sent",
			 m->type == 'F' ? "OrderCancelRequest" : "OrderCancelReplaceRequest");
		o->report(o->ctx, EV_RULE_ORDER_STATE, where, 41, msg, "the ClOrdID of an order sent", m->orig_clordid.v ? id : "none");
		return;
	}
	if (m->type == 'F') {
		ord->cancel_pending = 1;
	} else {
		ord->replace_pending = 1;
		ord->pending_qty = m->order_qty.exact ? m->order_qty.units : ord->qty;
	}
	if (add_alias(o, &m->clordid, (uint32_t)(ord - o->orders)) != 0)
		o->oom = 1;
}

/* --- answers ------------------------------------------------------------- */

static const char *status_name(char s)
{
	switch (s) {
	case '0': return "New";
	case '1': return "Partially filled";
	case '2': return "Filled";
	case '3': return "Done for day";
	case '4': return "Canceled";
	case '5': return "Replaced";
	case '6': return "Pending Cancel";
	case '7': return "Stopped";
	case '8': return "Rejected";
	case '9': return "Suspended";
	case 'A': return "Pending New";
	case 'B': return "Calculated";
	case 'C': return "Expired";
	case 'D': return "Accepted for bidding";
	case 'E': return "Pending Replace";
	default: return "another status";
	}
}

static int terminal(char s)
{
	return s == '2' || s == '3' || s == '4' || s == '8' || s == 'C';
}

static void units_text(int64_t u, char *out, size_t cap)
{
	int64_t whole = u / UNITS, frac = u % UNITS;
	if (frac < 0)
		frac = -frac;
	if (!frac) {
		snprintf(out, cap, "%" PRId64, whole);
		return;
	}
	char f[16];
	snprintf(f, sizeof f, "%08" PRId64, frac);
	for (int k = 7; k > 0 && f[k] == '0'; k--)
		f[k] = 0;
	snprintf(out, cap, "%s%" PRId64 ".%s", u < 0 && whole == 0 ? "-" : "", whole, f);
}

struct answer {
	struct ev_fixorders *o;
	const struct ev_fixorders_msg *m;
	const struct ev_fix_record *where;
	char id[EV_FIXORDERS_ID_MAX + 1];
};

static void finding(struct answer *a, enum ev_fix_rule rule, uint32_t tag, const char *what, const char *expected,
		    const char *found)
{
	char msg[256];
	snprintf(msg, sizeof msg, "ExecutionReport for ClOrdID %s: %s", a->id, what);
	a->o->report(a->o->ctx, rule, a->where, tag, msg, expected, found);
}

/* ExecType and the order's state before it. @return 0 when the report
 * may not change the order (it is judged no further). */
static int transition(struct answer *a, struct order *ord)
{
	const struct ev_fixorders_msg *m = a->m;
	char e = m->exec_type, was = ord->status;
	char found[96], expected[96];
	if (terminal(was) && e != 'I' && e != 'D') {
		snprintf(found, sizeof found, "ExecType %c after %s", e, status_name(was));
		finding(a, EV_RULE_ORDER_STATE, 150, "a report after the order was done", "nothing but Order Status (I) "
			"or Restated (D)", found);
		return 0;
	}
	const char *need = NULL;
	switch (e) {
	case '6':
		if (!ord->cancel_pending)
			need = "Pending Cancel (6) only after an OrderCancelRequest";
		break;
	case 'E':
		if (!ord->replace_pending)
			need = "Pending Replace (E) only after an OrderCancelReplaceRequest";
		break;
	case '5':
		if (!ord->replace_pending)
			need = "Replaced (5) only after an OrderCancelReplaceRequest";
		break;
	case '8':
		if (was && was != 'A')
			need = "Rejected (8) only before the order was accepted";
		break;
	case '0':
	case 'A':
		if (was == '1' || was == '2' || (e == 'A' && was))
			need = e == 'A' ? "Pending New (A) only as the first answer" : "New (0) only before a fill";
		break;
	default:
		break;
	}
	if (need) {
		snprintf(found, sizeof found, "ExecType %c after %s", e, was ? status_name(was) : "no answer");
		snprintf(expected, sizeof expected, "%s", need);
		finding(a, EV_RULE_ORDER_STATE, 150, "a transition the order state matrices do not have", expected, found);
	}
	return 1;
}

static void quantities(struct answer *a, struct order *ord)
{
	const struct ev_fixorders_msg *m = a->m;
	char x[32], y[32], found[192], expected[128];
	int fill = m->exec_type == 'F' || m->exec_type == '1' || m->exec_type == '2';
	int64_t qty = m->order_qty.exact ? m->order_qty.units : ord->qty;
	int known = m->order_qty.exact || ord->qty_known;
	if (m->exec_type == '5') { /* the replacement's quantity from here on */
		ord->qty = m->order_qty.exact ? m->order_qty.units : ord->pending_qty;
		ord->qty_known = 1;
		qty = ord->qty;
		known = 1;
	}
	if (fill) {
		if (!m->last_qty.exact || m->last_qty.units <= 0) {
			finding(a, EV_RULE_ORDER_QUANTITY, 32, "a fill without a LastQty above zero", "LastQty > 0",
				m->last_qty.present ? "another value" : "none");
		} else {
			if (m->last_px.ok)
				ord->notional += (double)m->last_qty.units / UNITS * m->last_px.value;
			int64_t want = ord->cum + m->last_qty.units;
			if (m->cum_qty.exact && m->cum_qty.units != want) {
				units_text(want, x, sizeof x);
				units_text(m->cum_qty.units, y, sizeof y);
				snprintf(expected, sizeof expected, "%s (the CumQty before plus LastQty)", x);
				finding(a, EV_RULE_ORDER_QUANTITY, 14, "CumQty is not the fills' sum", expected, y);
			}
			ord->cum = want;
		}
	} else if (m->cum_qty.exact && m->cum_qty.units != ord->cum && m->exec_type != 'H' && m->exec_type != 'G' &&
		   m->exec_type != 'D') {
		units_text(ord->cum, x, sizeof x);
		units_text(m->cum_qty.units, y, sizeof y);
		snprintf(expected, sizeof expected, "%s (no fill in between)", x);
		finding(a, EV_RULE_ORDER_QUANTITY, 14, "CumQty changed without a fill", expected, y);
		ord->cum = m->cum_qty.units;
	}
	if (!m->cum_qty.exact || !m->leaves_qty.exact) {
		finding(a, EV_RULE_ORDER_QUANTITY, m->cum_qty.exact ? 151 : 14, "no readable CumQty and LeavesQty",
			"both, decimals", "missing or another value");
		return;
	}
	int64_t cum = m->cum_qty.units, leaves = m->leaves_qty.units;
	char s = m->ord_status;
	if (terminal(s)) {
		if (leaves != 0) {
			units_text(leaves, y, sizeof y);
			snprintf(found, sizeof found, "LeavesQty %s with OrdStatus %s", y, status_name(s));
			finding(a, EV_RULE_ORDER_QUANTITY, 151, "an order done with quantity left", "LeavesQty 0", found);
		}
	} else if (known && cum + leaves != qty) {
		units_text(cum, x, sizeof x);
		units_text(leaves, y, sizeof y);
		snprintf(found, sizeof found, "CumQty %s + LeavesQty %s", x, y);
		units_text(qty, x, sizeof x);
		snprintf(expected, sizeof expected, "OrderQty %s", x);
		finding(a, EV_RULE_ORDER_QUANTITY, 151, "CumQty + LeavesQty is not OrderQty", expected, found);
	}
	if (known && ((s == '0' && cum != 0) || (s == '1' && (cum <= 0 || cum >= qty)) || (s == '2' && cum != qty))) {
		units_text(cum, x, sizeof x);
		units_text(qty, y, sizeof y);
		snprintf(found, sizeof found, "OrdStatus %s with CumQty %s of OrderQty %s", status_name(s), x, y);
		finding(a, EV_RULE_ORDER_QUANTITY, 39, "OrdStatus disagrees with the quantities",
			s == '0' ? "CumQty 0" : s == '1' ? "0 < CumQty < OrderQty" : "CumQty = OrderQty", found);
	}
}

static void average(struct answer *a, struct order *ord)
{
	const struct ev_fixorders_msg *m = a->m;
	if (!m->avg_px.present)
		return;
	char found[64], expected[96];
	if (!m->avg_px.ok) {
		finding(a, EV_RULE_ORDER_AVGPX, 6, "AvgPx is not a decimal", "a decimal", "another value");
		return;
	}
	double filled = (double)ord->cum / UNITS; /* what the fills add up to, whatever CumQty says */
	double want = filled > 0 ? ord->notional / filled : 0;
	double half_unit = 0.5 * pow(10, -m->avg_px.decimals);
	if (fabs(m->avg_px.value - want) > half_unit + fabs(want) * 1e-12) {
		snprintf(expected, sizeof expected, "%.*f (the fills' average, to half a unit of the last digit)",
			 m->avg_px.decimals + 2, want);
		snprintf(found, sizeof found, "%.*f", m->avg_px.decimals, m->avg_px.value);
		finding(a, EV_RULE_ORDER_AVGPX, 6, "AvgPx is not the fills' average price", expected, found);
	}
}

void ev_fixorders_answer(struct ev_fixorders *o, const struct ev_fixorders_msg *m, const struct ev_fix_record *where)
{
	if (o->oom)
		return;
	struct answer a = {o, m, where, ""};
	shown(m->clordid.v ? &m->clordid : &m->orig_clordid, a.id, sizeof a.id);
	if (m->type == '8')
		o->facts.execution_reports++;
	else
		o->facts.cancel_rejects++;
	struct order *ord = find(o, &m->clordid);
	if (!ord)
		ord = find(o, &m->orig_clordid);
	if (m->type == '8' && exec_seen(o, &m->exec_id)) {
		if (m->poss_dup) {
			o->facts.duplicates++;
			return;
		}
		char id[EV_FIXORDERS_ID_MAX + 1];
		shown(&m->exec_id, id, sizeof id);
		finding(&a, EV_RULE_ORDER_STATE, 17, "an ExecID already reported, without PossDupFlag", "a new ExecID", id);
		return;
	}
	if (!ord) {
		a.o->report(o->ctx, EV_RULE_ORDER_STATE, where, 11,
			    m->type == '8' ? "an ExecutionReport for an order this copy never sent"
					   : "an OrderCancelReject for an order this copy never sent",
			    "the ClOrdID of an order sent", a.id[0] ? a.id : "none");
		return;
	}
	if (!ord->answered) {
		ord->answered = 1;
		o->facts.answered++;
	}
	if (m->type == '9') { /* the request failed: the order stays as it was */
		ord->cancel_pending = ord->replace_pending = 0;
		return;
	}
	if (!m->exec_type || !m->ord_status) {
		finding(&a, EV_RULE_ORDER_STATE, m->exec_type ? 39 : 150, "no ExecType or OrdStatus", "both",
			m->exec_type ? "no OrdStatus" : "no ExecType");
		return;
	}
	if (!transition(&a, ord))
		return;
	quantities(&a, ord);
	average(&a, ord);
	if (m->exec_type == '4' || m->exec_type == '6' || m->ord_status == '4')
		ord->cancel_pending = m->exec_type == '6';
	if (m->exec_type == '5' || m->ord_status == '5') {
		ord->replace_pending = 0;
		o->facts.replaced++;
	}
	if (m->exec_type != 'I')
		ord->status = m->ord_status;
}

void ev_fixorders_finish(struct ev_fixorders *o, int unanswered_is_finding)
{
	struct ev_fixorders_facts *f = &o->facts;
	f->unanswered = f->filled = f->partially_filled = f->canceled = f->rejected = f->expired = f->open = 0;
	for (size_t i = 0; i < o->norders; i++) {
		const struct order *ord = &o->orders[i];
		switch (ord->status) {
		case '2': f->filled++; break;
		case '4': f->canceled++; break;
		case '8': f->rejected++; break;
		case 'C': f->expired++; break;
		default: f->open++; break;
		}
		if (ord->status == '1')
			f->partially_filled++;
		if (ord->answered)
			continue;
		const struct alias *al = &o->aliases[ord->alias];
		struct ev_fixorders_text t = {al->id, al->len};
		if (f->unanswered < EV_FIXORDERS_LISTED) { /* shown on a terminal: printable only */
			shown(&t, f->unanswered_ids[f->unanswered], sizeof f->unanswered_ids[f->unanswered]);
			f->unanswered_records[f->unanswered] = ord->at.record;
		}
		f->unanswered++;
		if (unanswered_is_finding) {
			char id[EV_FIXORDERS_ID_MAX + 1];
			shown(&t, id, sizeof id);
			o->report(o->ctx, EV_RULE_ORDER_UNANSWERED, &ord->at, 11, "an order never answered by an "
				  "ExecutionReport", "an answer", id);
		}
	}
	if (o->oom)
		o->report(o->ctx, EV_RULE_ORDER_STATE, NULL, 0, "out of memory: orders past this point not followed",
			  NULL, NULL);
}
