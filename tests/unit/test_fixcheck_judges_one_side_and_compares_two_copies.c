/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck: one side's stream is judged message by message (a checksum
 * broken, a MsgSeqNum gap, a CompID changed, a SendingTime going back each
 * named at their record, every finding counted by rule but only the first
 * max_per_rule handed over), and the second side of a pair is held
 * against the first (fixcross): a message whose bytes differ, one the
 * first has and this one lacks, one only this one has, each named once;
 * a MsgSeqNum used twice pairs each record with its identical twin. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fix_text.h"
#include "lib/fix/fixcheck.h"

struct seen {
	unsigned n;
	struct ev_fix_finding f[16];
};

static void note(void *ctx, const struct ev_fix_finding *f)
{
	struct seen *s = ctx;
	if (s->n < 16)
		s->f[s->n] = *f;
	s->n++;
}

static unsigned count_rule(const struct seen *s, enum ev_fix_rule rule)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->n && i < 16; i++)
		n += s->f[i].rule == rule;
	return n;
}

static const struct ev_fix_finding *first_of(const struct seen *s, enum ev_fix_rule rule)
{
	for (unsigned i = 0; i < s->n && i < 16; i++)
		if (s->f[i].rule == rule)
			return &s->f[i];
	return NULL;
}

/* An order with MsgSeqNum seq, SendingTime second sec, ClOrdID id and
 * SenderCompID from; bad: its checksum is off by one. */
static void feed(struct ev_fixcheck *c, unsigned seq, unsigned sec, const char *id, const char *from, int bad,
		 uint64_t record)
{
	char text[512];
	snprintf(text, sizeof text,
		 "8=FIXT.1.1|9=?|35=D|34=%u|49=%s|52=20261202-08:03:%02u.000|56=EXECUTOR|11=%s|55=NOKIA.HE|10=?|", seq,
		 from, sec, id);
	size_t len;
	char *m = fix_text(text, &len);
	if (bad)
		m[len - 2] = m[len - 2] == '9' ? '0' : (char)(m[len - 2] + 1);
	struct ev_fix_record r = {m, (uint32_t)len, "1.bin", 0, record, record * 1000, 0};
	ev_fixcheck_record(c, &r);
	free(m);
}

static struct ev_fixcheck *checker(const char *side, enum ev_fingerprint_mode mode, unsigned max_per_rule,
				   const struct ev_fingerprint_key *key, struct ev_fingerprint_set *set,
				   struct seen *s)
{
	struct ev_fixcheck_opts o = {.side = side, .max_per_rule = max_per_rule, .prints = mode, .key = key,
				     .set = set};
	struct ev_fixcheck *c = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	memset(s, 0, sizeof *s);
	CHECK_INT_EQ(ev_fixcheck_new(&c, &o, note, s, &err), EV_OK);
	return c;
}

static void one_side(void)
{
	struct seen s;
	struct ev_fixcheck *c = checker("sender", EV_FINGERPRINT_NONE, 0, NULL, NULL, &s);
	feed(c, 1, 10, "1", "CLIENT1", 0, 1);
	feed(c, 2, 11, "2", "CLIENT1", 1, 2);  /* checksum */
	feed(c, 4, 12, "3", "CLIENT1", 0, 3);  /* MsgSeqNum 3 skipped */
	feed(c, 5, 13, "4", "CLIENT2", 0, 4);  /* another SenderCompID */
	feed(c, 6, 9, "5", "CLIENT1", 0, 5);   /* SendingTime back */
	ev_fixcheck_finish(c);
	const struct ev_fixcheck_stats *st = ev_fixcheck_stats(c);
	CHECK_INT_EQ(st->messages, 5);
	CHECK_INT_EQ(st->by_rule[EV_RULE_CHECKSUM], 1);
	CHECK_INT_EQ(st->by_rule[EV_RULE_SEQ_GAP], 1);
	CHECK_INT_EQ(st->by_rule[EV_RULE_COMPID], 1);
	CHECK_INT_EQ(st->by_rule[EV_RULE_SENDING_TIME], 1);
	const struct ev_fix_finding *f = first_of(&s, EV_RULE_CHECKSUM);
	CHECK(f && f->record == 2 && strcmp(f->file, "1.bin") == 0 && strcmp(f->side, "sender") == 0);
	f = first_of(&s, EV_RULE_SEQ_GAP); /* named where the gap was seen, at the end */
	CHECK(f && f->record == 3 && strcmp(f->found, "MsgSeqNum 3") == 0);
	f = first_of(&s, EV_RULE_COMPID);
	CHECK(f && f->record == 4 && strstr(f->found, "CLIENT2"));
	f = first_of(&s, EV_RULE_SENDING_TIME);
	CHECK(f && f->record == 5);
	ev_fixcheck_free(c);

	/* counted, but only the first handed over */
	c = checker("sender", EV_FINGERPRINT_NONE, 1, NULL, NULL, &s);
	feed(c, 1, 10, "1", "CLIENT1", 0, 1);
	feed(c, 3, 11, "2", "CLIENT1", 0, 2);
	feed(c, 5, 12, "3", "CLIENT1", 0, 3);
	ev_fixcheck_finish(c);
	CHECK_INT_EQ(ev_fixcheck_stats(c)->by_rule[EV_RULE_SEQ_GAP], 2);
	CHECK_INT_EQ(count_rule(&s, EV_RULE_SEQ_GAP), 1);
	ev_fixcheck_free(c);
}

static void two_copies(void)
{
	struct ev_fingerprint_key key;
	struct ev_fingerprint_set set = {0};
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fingerprint_key_new(&key, &err), EV_OK);
	struct seen a, b;
	struct ev_fixcheck *first = checker("sender", EV_FINGERPRINT_RECORD, 0, &key, &set, &a);
	feed(first, 1, 10, "1", "CLIENT1", 0, 1);
	feed(first, 2, 11, "2", "CLIENT1", 0, 2);
	feed(first, 3, 12, "3", "CLIENT1", 0, 3);
	feed(first, 4, 13, "4", "CLIENT1", 0, 4);
	feed(first, 5, 14, "5a", "CLIENT1", 0, 5); /* MsgSeqNum 5 twice, */
	feed(first, 5, 14, "5b", "CLIENT1", 0, 6); /* two different orders */
	ev_fixcheck_finish(first);
	ev_fingerprint_sort(&set);

	struct ev_fixcheck *second = checker("receiver", EV_FINGERPRINT_COMPARE, 0, &key, &set, &b);
	feed(second, 1, 10, "1", "CLIENT1", 0, 1);
	feed(second, 2, 11, "X", "CLIENT1", 0, 2); /* differs */
	                                           /* 3 missing */
	feed(second, 4, 13, "4", "CLIENT1", 0, 3);
	feed(second, 5, 14, "5b", "CLIENT1", 0, 4); /* the twins, in the other order */
	feed(second, 5, 14, "5a", "CLIENT1", 0, 5);
	feed(second, 7, 15, "7", "CLIENT1", 0, 6);  /* only here */
	ev_fixcheck_finish(second);
	const char *files[] = {"1.bin"};
	ev_fixcheck_cross(second, "sender", files, NULL, NULL);
	CHECK_INT_EQ(ev_fixcheck_stats(second)->by_rule[EV_RULE_CROSS_AGREEMENT], 3);
	CHECK_INT_EQ(ev_fixcheck_stats(second)->compared, 6);
	CHECK_INT_EQ(ev_fixcheck_stats(second)->matched, 4);
	unsigned differ = 0, missing = 0, extra = 0;
	for (unsigned i = 0; i < b.n && i < 16; i++) {
		const struct ev_fix_finding *f = &b.f[i];
		if (f->rule != EV_RULE_CROSS_AGREEMENT)
			continue;
		if (strstr(f->message, "MsgSeqNum 2 differs from the sender's copy")) {
			differ++;
			CHECK(f->record == 2 && strstr(f->found, "11=X|") && strstr(f->expected, "byte 2000 of 1.bin"));
		} else if (strstr(f->message, "1 message of the sender is missing here")) {
			missing++;
			CHECK_STR_EQ(f->expected, "MsgSeqNum 3");
		} else if (strstr(f->message, "1 message here that the sender does not have")) {
			extra++;
			CHECK(f->record == 6 && strcmp(f->found, "MsgSeqNum 7") == 0);
		}
	}
	CHECK_INT_EQ(differ, 1);
	CHECK_INT_EQ(missing, 1);
	CHECK_INT_EQ(extra, 1);
	CHECK_INT_EQ(a.n, 1); /* the first side's own: MsgSeqNum 5 used twice */
	CHECK_INT_EQ(count_rule(&a, EV_RULE_SEQNUM), 1);
	ev_fixcheck_free(first);
	ev_fixcheck_free(second);
	ev_fingerprint_set_free(&set);
}

int main(void)
{
	one_side();
	two_copies();
	return check_exit("test_fixcheck_judges_one_side_and_compares_two_copies");
}
