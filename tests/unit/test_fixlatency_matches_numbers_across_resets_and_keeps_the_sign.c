/* SPDX-License-Identifier: Apache-2.0 */
/* fixlatency: the two copies of a direction are matched by MsgSeqNum
 * within a numbering a reset restarts, the first of a repeated number in
 * each copy counts, resends and messages without a stamp, a number or a
 * SendingTime are left out and counted by why, a difference below zero
 * keeps its sign through the quantiles, and a resolution is the coarsest
 * power of ten that divides every value. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/fix/fixlatency.h"

static void add(struct ev_fixlatency_stream *s, uint64_t seq, uint64_t stamp, uint64_t sending)
{
	ev_fixlatency_add(s, 1, seq, stamp, 1, sending, 0, "A", 1, "B", 1);
}

static void matched_across_a_reset(void)
{
	struct ev_fixlatency_stream sent = {0}, got = {0};
	/* numbers 1..3, a reset, 1..2; the receiver lost 2 before the reset and holds 3 twice */
	add(&sent, 1, 1000, 0);
	add(&sent, 2, 2000, 0);
	add(&sent, 3, 3000, 0);
	add(&sent, 1, 10000, 0);
	add(&sent, 2, 11000, 0);
	add(&got, 1, 1500, 0);
	add(&got, 3, 3700, 0);
	add(&got, 3, 3900, 0); /* a repeat: the first 3 is the one that counts */
	add(&got, 1, 10100, 0);
	add(&got, 2, 11400, 0);
	ev_fixlatency_add(&got, 1, 4, 12000, 1, 0, 1, NULL, 0, NULL, 0); /* a resend */
	ev_fixlatency_add(&got, 1, 5, 0, 1, 0, 0, NULL, 0, NULL, 0);     /* no stamp */
	ev_fixlatency_add(&got, 0, 0, 13000, 1, 0, 0, NULL, 0, NULL, 0); /* no MsgSeqNum */
	ev_fixlatency_add(&got, 1, 6, 13000, 0, 0, 0, NULL, 0, NULL, 0); /* no SendingTime */
	CHECK_INT_EQ(got.resends, 1);
	CHECK_INT_EQ(got.unstamped, 1);
	CHECK_INT_EQ(got.unnumbered, 1);
	CHECK_INT_EQ(got.untimed, 1);
	CHECK_STR_EQ(got.from, "A");
	int64_t *d;
	size_t n;
	uint64_t only_sent, only_got;
	CHECK_INT_EQ(ev_fixlatency_one_way(&sent, &got, &d, &n, &only_sent, &only_got), 0);
	/* before the reset 1 and 3 match and 2 is only sent; after it 1 and 2 match */
	CHECK_INT_EQ(n, 4);
	CHECK_INT_EQ(only_sent, 1);
	CHECK_INT_EQ(only_got, 0);
	CHECK_INT_EQ(d[0], 500);
	CHECK_INT_EQ(d[1], 700);
	CHECK_INT_EQ(d[2], 100);
	CHECK_INT_EQ(d[3], 400);
	free(d);
	ev_fixlatency_stream_free(&sent);
	ev_fixlatency_stream_free(&got);

	/* the same numbering in both: every message matched */
	struct ev_fixlatency_stream a = {0}, b = {0};
	for (uint64_t k = 1; k <= 3; k++) {
		add(&a, k, 1000 * k, 0);
		add(&b, k, 1000 * k + 10, 0);
	}
	add(&a, 1, 9000, 0); /* a reset in both */
	add(&b, 1, 9020, 0);
	CHECK_INT_EQ(ev_fixlatency_one_way(&a, &b, &d, &n, &only_sent, &only_got), 0);
	CHECK_INT_EQ(n, 4);
	CHECK_INT_EQ(only_sent, 0);
	CHECK_INT_EQ(only_got, 0);
	CHECK_INT_EQ(d[3], 20);
	free(d);
	ev_fixlatency_stream_free(&a);
	ev_fixlatency_stream_free(&b);
}

static void below_zero_keeps_its_sign(void)
{
	int64_t v[] = {-30, 10, -10, 20, 0};
	struct ev_fixlatency_summary s;
	CHECK_INT_EQ(ev_fixlatency_summarize(v, 5, EV_QRULE_NEAREST_RANK, &s), 0);
	CHECK_INT_EQ(s.min, -30);
	CHECK_INT_EQ(s.max, 20);
	CHECK_INT_EQ((long long)s.sum, -10);
	CHECK_INT_EQ((long long)s.q[0], 0);  /* p50: the 3rd of 5 */
	CHECK_INT_EQ((long long)s.q[1], 20); /* p90: the 5th */
	int64_t w[] = {-30, 10, -10, 20};
	CHECK_INT_EQ(ev_fixlatency_summarize(w, 4, EV_QRULE_LINEAR, &s), 0);
	CHECK(s.q[0] == 0.0); /* halfway between -10 and 10 */
}

static void resolution_is_what_every_value_allows(void)
{
	struct ev_fixlatency_stream s = {0};
	add(&s, 1, 1796198400123456000ull, 1796198400123000000ull);
	add(&s, 2, 1796198400123457000ull, 1796198400124000000ull);
	CHECK_INT_EQ(s.stamp_resolution_ns, 1000);
	CHECK_INT_EQ(s.sending_resolution_ns, 1000000);
	add(&s, 3, 1796198400123457001ull, 1796198401000000000ull);
	CHECK_INT_EQ(s.stamp_resolution_ns, 1);
	CHECK_INT_EQ(s.sending_resolution_ns, 1000000);
	CHECK_INT_EQ(ev_fixlatency_coarser(1, 1000000), 1000000);
	ev_fixlatency_stream_free(&s);
}

int main(void)
{
	matched_across_a_reset();
	below_zero_keeps_its_sign();
	resolution_is_what_every_value_allows();
	return check_exit("test_fixlatency_matches_numbers_across_resets_and_keeps_the_sign");
}
