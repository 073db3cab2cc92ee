/* SPDX-License-Identifier: Apache-2.0 */
/* fixorders: quantities are read exactly (8 places, no exponent, no
 * overflow); an order filled in decimal quantities, a replace that
 * changes OrderQty, a cancel answered by Pending Cancel and Canceled, and
 * an AvgPx printed as a double with 14 places raise nothing; a fill whose CumQty skips, a report after Canceled and
 * an unknown order are each one finding of their rule. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/fix/fixorders.h"

struct seen {
	unsigned n, by_rule[EV_RULE_COUNT];
};

static void note(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, uint32_t tag,
		 const char *message, const char *expected, const char *found)
{
	(void)where;
	(void)tag;
	(void)message;
	(void)expected;
	(void)found;
	struct seen *s = ctx;
	s->n++;
	s->by_rule[rule]++;
}

static struct ev_fix_record rec;

static struct ev_fixorders_text text(const char *v)
{
	struct ev_fixorders_text t = {v, v ? (uint32_t)strlen(v) : 0};
	return t;
}

static struct ev_fixorders_number num(const char *v)
{
	struct ev_fixorders_number n = {0};
	if (!v)
		return n;
	n.present = 1;
	n.ok = 1; /* every value here is a well-formed decimal */
	n.exact = ev_fixorders_quantity(v, (uint32_t)strlen(v), &n.units) == 0;
	n.value = strtod(v, NULL);
	const char *dot = strchr(v, '.');
	n.decimals = dot ? (int)strlen(dot + 1) : 0;
	return n;
}

static void request(struct ev_fixorders *o, char type, const char *id, const char *orig, const char *qty)
{
	struct ev_fixorders_msg m = {.type = type, .clordid = text(id), .orig_clordid = text(orig), .order_qty = num(qty)};
	rec.record++;
	ev_fixorders_request(o, &m, &rec);
}

static void report(struct ev_fixorders *o, const char *id, const char *orig, const char *exec, char et, char os,
		   const char *qty, const char *cum, const char *leaves, const char *last, const char *px, const char *avg)
{
	struct ev_fixorders_msg m = {.type = '8', .clordid = text(id), .orig_clordid = text(orig), .exec_id = text(exec),
				     .exec_type = et, .ord_status = os, .order_qty = num(qty), .cum_qty = num(cum),
				     .leaves_qty = num(leaves), .last_qty = num(last), .last_px = num(px),
				     .avg_px = num(avg)};
	rec.record++;
	ev_fixorders_answer(o, &m, &rec);
}

static void quantities_are_exact(void)
{
	int64_t u;
	CHECK(ev_fixorders_quantity("10", 2, &u) == 0 && u == 1000000000);
	CHECK(ev_fixorders_quantity("0.5", 3, &u) == 0 && u == 50000000);
	CHECK(ev_fixorders_quantity("1.00000001", 10, &u) == 0 && u == 100000001);
	CHECK(ev_fixorders_quantity("1.000000010", 11, &u) == 0 && u == 100000001);
	CHECK(ev_fixorders_quantity("1.000000001", 11, &u) == -1); /* a ninth place that matters */
	CHECK(ev_fixorders_quantity("1e3", 3, &u) == -1);
	CHECK(ev_fixorders_quantity("", 0, &u) == -1);
	CHECK(ev_fixorders_quantity(".", 1, &u) == -1);
	CHECK(ev_fixorders_quantity("99999999999999999999", 20, &u) == -1); /* would overflow */
}

static void a_correct_life_is_no_finding(void)
{
	struct seen s = {0};
	struct ev_fixorders *o;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK(ev_fixorders_new(&o, note, &s, &err) == EV_OK);
	request(o, 'D', "1", NULL, "10.5");
	report(o, "1", NULL, "E1", '0', '0', "10.5", "0", "10.5", NULL, NULL, "0");
	report(o, "1", NULL, "E2", 'F', '1', "10.5", "0.5", "10", "0.5", "100", "100");
	request(o, 'G', "r1", "1", "20");
	report(o, "r1", "1", "E3", 'E', 'E', "10.5", "0.5", "10", NULL, NULL, "100");
	report(o, "r1", "1", "E4", '5', '1', "20", "0.5", "19.5", NULL, NULL, "100");
	report(o, "r1", NULL, "E5", 'F', '2', "20", "20", "0", "19.5", "101", "100.975");
	request(o, 'D', "5", NULL, "3");
	report(o, "5", NULL, "E5a", 'F', '1', "3", "1", "2", "1", "100", "100");
	report(o, "5", NULL, "E5b", 'F', '2', "3", "3", "0", "2", "101", "100.66666666666667"); /* 15 places */
	request(o, 'D', "2", NULL, "5");
	report(o, "2", NULL, "E6", '0', '0', "5", "0", "5", NULL, NULL, "0");
	request(o, 'F', "c2", "2", "5");
	report(o, "c2", "2", "E7", '6', '6', "5", "0", "5", NULL, NULL, "0");
	report(o, "c2", "2", "E8", '4', '4', "5", "0", "0", NULL, NULL, "0");
	ev_fixorders_finish(o, 1);
	CHECK_INT_EQ(s.n, 0);
	const struct ev_fixorders_facts *f = ev_fixorders_facts(o);
	CHECK_INT_EQ(f->filled, 2);
	CHECK_INT_EQ(f->canceled, 1);
	CHECK_INT_EQ(f->replaced, 1);
	CHECK_INT_EQ(f->answered, 3);

	/* after Canceled, a fill; a CumQty that skips; an order never sent */
	report(o, "c2", "2", "E9", 'F', '2', "5", "5", "0", "5", "100", "100");
	CHECK_INT_EQ(s.by_rule[EV_RULE_ORDER_STATE], 1);
	request(o, 'D', "3", NULL, "10");
	report(o, "3", NULL, "E10", 'F', '1', "10", "7", "3", "4", "100", "100");
	CHECK_INT_EQ(s.by_rule[EV_RULE_ORDER_QUANTITY], 1); /* not the sum of the fills */
	report(o, "4", NULL, "E11", '0', '0', "10", "0", "10", NULL, NULL, "0");
	CHECK_INT_EQ(s.by_rule[EV_RULE_ORDER_STATE], 2);
	CHECK_INT_EQ(s.by_rule[EV_RULE_ORDER_AVGPX], 0);
	ev_fixorders_free(o);
}

int main(void)
{
	quantities_are_exact();
	a_correct_life_is_no_finding();
	return check_exit("test_fixorders_follows_fills_cancels_and_replaces");
}
