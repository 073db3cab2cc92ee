/* SPDX-License-Identifier: Apache-2.0 */
/* fixmsg: a message is split into its fields without a copy; each
 * envelope rule (envelope-order, body-length, checksum, field-syntax) is
 * named at the right byte; DATA values may hold SOH; a message longer
 * than the vectorised path's limit is judged the same; nothing past the
 * given length is read (ASan runs this); ev_fix_frame finds message
 * boundaries in a stream; a message like the template takes its split
 * only when exactly its values changed, and is judged as a scan would. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "fix_text.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fixmsg.h"

struct seen {
	unsigned n;
	enum ev_fix_rule rule[8];
	uint32_t at[8];
	char expected[8][64], found[8][64];
};

static void note(void *ctx, enum ev_fix_rule rule, uint32_t at, const char *expected,
		 const char *found)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		s->rule[s->n] = rule;
		s->at[s->n] = at;
		snprintf(s->expected[s->n], 64, "%s", expected ? expected : "");
		snprintf(s->found[s->n], 64, "%s", found ? found : "");
	}
	s->n++;
}

static struct ev_fix_msg msg;

static unsigned scan_text(const char *text, struct seen *s)
{
	size_t len;
	char *m = fix_text(text, &len);
	memset(s, 0, sizeof *s);
	unsigned n = ev_fix_scan(m, len, NULL, &msg, note, s);
	free(m);
	return n;
}

#define ORDER "8=FIXT.1.1|9=?|35=D|34=2|49=CLIENT1|52=20261202-08:03:14.257|56=EXECUTOR|11=1|55=NOKIA.HE|10=?|"

static void valid_message_splits_into_fields(void)
{
	size_t len;
	char *m = fix_text(ORDER, &len);
	struct seen s = {0};
	CHECK_INT_EQ(ev_fix_scan(m, len, NULL, &msg, note, &s), 0);
	CHECK_INT_EQ(msg.n, 10);
	CHECK(msg.syntax_ok);
	CHECK_INT_EQ(msg.f[0].tag, 8);
	CHECK_INT_EQ(msg.f[2].tag, 35);
	CHECK_INT_EQ(msg.f[5].tag, 52);
	CHECK_INT_EQ(msg.f[5].len, 21);
	CHECK(memcmp(ev_fix_value(&msg, 5), "20261202-08:03:14.257", 21) == 0);
	CHECK(ev_fix_value(&msg, 8) == m + msg.f[8].off); /* no copy: into the caller's bytes */
	CHECK_INT_EQ(ev_fix_find(&msg, 55, 0), 8);
	CHECK_INT_EQ(ev_fix_find(&msg, 55, 9), -1);
	free(m);
}

static void each_envelope_rule_is_named_at_its_byte(void)
{
	struct seen s;
	/* a wrong BodyLength: named at the value of 9 */
	CHECK_INT_EQ(scan_text("8=FIXT.1.1|9=6|35=0|10=000|", &s) >= 1, 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_BODY_LENGTH);
	CHECK_INT_EQ(s.at[0], 13);
	CHECK_STR_EQ(s.expected[0], "5");
	CHECK_STR_EQ(s.found[0], "6");

	/* one flipped bit inside a value: checksum, expected the true sum */
	size_t len;
	char *m = fix_text(ORDER, &len);
	m[50] ^= 1;
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_fix_scan(m, len, NULL, &msg, note, &s), 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_CHECKSUM);
	CHECK_INT_EQ(s.at[0], len - 4);
	free(m);

	/* CheckSum not of three digits */
	scan_text("8=FIXT.1.1|9=5|35=0|10=12|", &s);
	CHECK_INT_EQ(s.rule[s.n - 1], EV_RULE_CHECKSUM);
	CHECK_STR_EQ(s.found[s.n - 1], "12");

	scan_text("8=FIXT.1.1|9=5|35=0|10=.12|", &s);
	CHECK_INT_EQ(s.rule[s.n - 1], EV_RULE_CHECKSUM);

	/* 35 not third */
	CHECK_INT_EQ(scan_text("8=FIXT.1.1|9=?|34=2|35=0|10=?|", &s), 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_ENVELOPE_ORDER);
	CHECK_STR_EQ(s.expected[0], "tag 35 as field 3");
	CHECK_STR_EQ(s.found[0], "tag 34");

	/* 10 not last */
	CHECK_INT_EQ(scan_text("8=FIXT.1.1|9=?|35=0|10=?|58=x|", &s), 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_ENVELOPE_ORDER);
	CHECK_STR_EQ(s.expected[0], "tag 10 last");
}

static void field_syntax_is_strict(void)
{
	struct seen s;
	static const char *bad[] = {
		"8=FIXT.1.1|9=?|35=0|034=2|10=?|",  /* a leading zero */
		"8=FIXT.1.1|9=?|35=0|34|10=?|",     /* no '=' */
		"8=FIXT.1.1|9=?|35=0|=2|10=?|",     /* no tag */
		"8=FIXT.1.1|9=?|35=0|3x4=2|10=?|",  /* a letter in the tag */
		"8=FIXT.1.1|9=?|35=0|1234567890=2|10=?|", /* ten digits */
		"8=FIXT.1.1|9=5|35=0|10=000",       /* the last value without its SOH */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		scan_text(bad[i], &s);
		CHECK(s.n >= 1);
		CHECK_INT_EQ(s.rule[0], EV_RULE_FIELD_SYNTAX);
		CHECK(!msg.syntax_ok);
	}
	/* the fields read before the damage are kept */
	scan_text("8=FIXT.1.1|9=?|35=D|34=7|541|10=?|", &s);
	CHECK_INT_EQ(msg.n, 4);
	CHECK_INT_EQ(msg.f[3].tag, 34);
	CHECK_INT_EQ(s.at[0], 26);
	/* an empty value is syntax, not damage (the dictionary judges it) */
	CHECK_INT_EQ(scan_text("8=FIXT.1.1|9=?|35=0|58=|10=?|", &s), 0);
}

static void data_values_may_hold_soh(void)
{
	static uint32_t length_tag[100];
	length_tag[96] = 95; /* RawData, its length in RawDataLength */
	struct ev_fix_data_tags dt = {length_tag, 99};
	size_t len;
	char *m = fix_text("8=FIXT.1.1|9=?|35=A|95=5|96=a|b|c|98=0|10=?|", &len);
	struct seen s = {0};
	CHECK_INT_EQ(ev_fix_scan(m, len, &dt, &msg, note, &s), 0);
	CHECK_INT_EQ(msg.n, 7);
	CHECK_INT_EQ(msg.f[4].tag, 96);
	CHECK_INT_EQ(msg.f[4].len, 5);
	/* without the dictionary's word, the SOH inside is a field end */
	memset(&s, 0, sizeof s);
	CHECK(ev_fix_scan(m, len, NULL, &msg, note, &s) >= 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_FIELD_SYNTAX);
	/* a stated length past the end is not believed */
	free(m);
	m = fix_text("8=FIXT.1.1|9=?|35=A|95=500|96=abc|10=?|", &len);
	memset(&s, 0, sizeof s);
	ev_fix_scan(m, len, &dt, &msg, note, &s);
	CHECK(msg.syntax_ok);
	free(m);
}

/* The same verdicts above the vectorised path's limit (4 KiB) and at
 * every length around 16-byte block edges. */
static void long_and_odd_length_messages_are_judged_the_same(void)
{
	char text[9000];
	struct seen s;
	for (size_t pad = 0; pad < 40; pad++) {
		snprintf(text, sizeof text, "8=FIXT.1.1|9=?|35=0|58=%.*s|10=?|", (int)pad + 1,
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		CHECK_INT_EQ(scan_text(text, &s), 0);
		CHECK_INT_EQ(msg.n, 5);
	}
	int n = snprintf(text, sizeof text, "8=FIXT.1.1|9=?|35=0|58=");
	memset(text + n, 'y', 6000);
	snprintf(text + n + 6000, sizeof text - (size_t)n - 6000, "|10=?|");
	CHECK_INT_EQ(scan_text(text, &s), 0);
	CHECK_INT_EQ(msg.f[3].len, 6000);
	size_t len;
	char *m = fix_text(text, &len);
	m[100] = 'z';
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_fix_scan(m, len, NULL, &msg, note, &s), 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_CHECKSUM);
	free(m);
}

static void frame_finds_message_boundaries(void)
{
	size_t len;
	char *m = fix_text(ORDER, &len);
	CHECK_INT_EQ(ev_fix_frame(m, len), (long)len);
	CHECK_INT_EQ(ev_fix_frame(m, len - 1), 0); /* more bytes needed */
	CHECK_INT_EQ(ev_fix_frame(m, 5), 0);
	CHECK_INT_EQ(ev_fix_frame("9=5\0018=FIX", 9), -1);
	CHECK_INT_EQ(ev_fix_frame("8=FIX\0019=x\001", 12), -1);
	m[len - 7] = 'X'; /* "10=" is not where BodyLength says */
	CHECK_INT_EQ(ev_fix_frame(m, len), -1);
	free(m);
	uint64_t v;
	CHECK_INT_EQ(ev_fix_parse_u64("0123", 4, &v), 0);
	CHECK_INT_EQ(v, 123);
	CHECK_INT_EQ(ev_fix_parse_u64("12a", 3, &v), -1);
	CHECK_INT_EQ(ev_fix_parse_u64("", 0, &v), -1);
	CHECK_INT_EQ(ev_fix_parse_u64("1.5", 3, &v), -1);
	CHECK_INT_EQ(ev_fix_parse_u64("12345678901234567890", 20, &v), -1);
}

/* A copy of text with one byte at `at` set to c. */
static char *with_byte(const char *m, size_t len, size_t at, char c)
{
	char *x = malloc(len);
	memcpy(x, m, len);
	x[at] = c;
	return x;
}

static void rescan_takes_the_template_only_for_changed_values(void)
{
	static struct ev_fix_template t;
	static struct ev_fix_msg scanned;
	size_t len, len2;
	char *a = fix_text(ORDER, &len);
	char *b = fix_text("8=FIXT.1.1|9=?|35=D|34=3|49=CLIENT1|52=20261202-08:03:14.258|56=EXECUTOR|11=2|55=NOKIA.HE|10=?|",
		       &len2);
	CHECK_INT_EQ(len, len2);
	ev_fix_scan(a, len, NULL, &msg, NULL, NULL);
	ev_fix_template_set(&t, &msg);
	CHECK_INT_EQ(t.len, len);

	uint64_t diff[EV_FIX_TEMPLATE_MAX / 64];
	unsigned problems = 99;
	struct seen s = {0};
	CHECK_INT_EQ(ev_fix_rescan(b, len, &t, &msg, diff, &problems, note, &s), 1);
	CHECK_INT_EQ(problems, 0);
	ev_fix_scan(b, len, NULL, &scanned, NULL, NULL);
	CHECK_INT_EQ(msg.n, scanned.n);
	CHECK(memcmp(msg.f, scanned.f, msg.n * sizeof *msg.f) == 0);
	CHECK(msg.data == b);
	/* the changed bytes, and only they: 34's digit, 52's last, 11's, 10's */
	int bits = 0;
	for (size_t i = 0; i < len; i++)
		if (diff[i / 64] >> (i % 64) & 1) {
			bits++;
			CHECK(a[i] != b[i]);
		} else {
			CHECK(a[i] == b[i]);
		}
	CHECK(bits >= 3);
	/* the template is now b: the same message again has no changed byte */
	CHECK_INT_EQ(ev_fix_rescan(b, len, &t, &msg, diff, &problems, note, &s), 1);
	for (size_t w = 0; w < (len + 63) / 64; w++)
		CHECK_INT_EQ(diff[w], 0);

	/* a value changed without fixing the CheckSum: judged as a scan judges it */
	char *bad = with_byte(b, len, 60, b[60] == 'X' ? 'Y' : 'X');
	memset(&s, 0, sizeof s);
	CHECK_INT_EQ(ev_fix_rescan(bad, len, &t, &msg, diff, &problems, note, &s), 1);
	CHECK_INT_EQ(problems, 1);
	CHECK_INT_EQ(s.rule[0], EV_RULE_CHECKSUM);
	free(bad);
	ev_fix_scan(b, len, NULL, &msg, NULL, NULL);
	ev_fix_template_set(&t, &msg);

	/* an SOH inside a value splits it: not the template's split */
	size_t v55 = (size_t)(memchr(b, 'N', len) ? (const char *)memchr(b, 'N', len) - b : 0);
	char *soh = with_byte(b, len, v55 + 2, '\001');
	CHECK_INT_EQ(ev_fix_rescan(soh, len, &t, &msg, diff, &problems, note, &s), 0);
	CHECK_INT_EQ(t.len, 0); /* dropped: it was partly overwritten */
	free(soh);

	/* a tag digit changed, the length the same: not the template's split */
	ev_fix_scan(b, len, NULL, &msg, NULL, NULL);
	ev_fix_template_set(&t, &msg);
	size_t tag56 = (size_t)(strstr(b, "\00156=") - b) + 1;
	char *tag = with_byte(b, len, tag56, '7');
	CHECK_INT_EQ(ev_fix_rescan(tag, len, &t, &msg, diff, &problems, note, &s), 0);
	free(tag);

	/* another length: scanned, and the template kept for a field-by-field look */
	ev_fix_scan(b, len, NULL, &msg, NULL, NULL);
	ev_fix_template_set(&t, &msg);
	CHECK_INT_EQ(ev_fix_rescan(b, len - 1, &t, &msg, diff, &problems, note, &s), 0);
	CHECK_INT_EQ(t.len, len);

	/* no template from a message with a syntax problem or a DATA field */
	struct seen ignored;
	scan_text("8=FIXT.1.1|9=?|35=0|34|10=?|", &ignored);
	ev_fix_template_set(&t, &msg);
	CHECK_INT_EQ(t.len, 0);
	free(a);
	free(b);
}

/* What must hold before a message is judged, read from its first bytes
 * even when they are cut short: its BeginString, and under FIXT.1.1 the
 * application version its ApplVerID (1128, else 1137) names. */
static void versions_are_read_from_a_message_cut_short(void)
{
	const char *fixt = "8=FIXT.1.1\0019=70\00135=A\00134=1\0011137=7\001", *app = "8=FIXT.1.1\0019=70\00135=D\0011128=9\00111=1";
	char begin[24], appl[24], out[8];
	ev_fix_versions_of(fixt, strlen(fixt), begin, appl);
	CHECK_STR_EQ(begin, "FIXT.1.1");
	CHECK_STR_EQ(appl, "FIX.5.0");
	ev_fix_versions_of(app, strlen(app), begin, appl);
	CHECK_STR_EQ(appl, "FIX.5.0SP2");
	ev_fix_versions_of("8=FIX.4.4\0019=5", 14, begin, appl);
	CHECK_STR_EQ(begin, "FIX.4.4");
	CHECK_STR_EQ(appl, "");
	ev_fix_tag_text(app, strlen(app), "11", out, sizeof out); /* the last value, cut short: what there is */
	CHECK_STR_EQ(out, "1");
	ev_fix_tag_text(app, strlen(app), "1", out, sizeof out);
	CHECK_STR_EQ(out, "");
	ev_fix_tag_text("8=FIXT.1.1234567890", 19, "8", out, sizeof out);
	CHECK_STR_EQ(out, "FIXT.1.");
	CHECK(ev_fix_appl_version("1") == NULL && ev_fix_appl_version("10") == NULL);
	CHECK_STR_EQ(ev_fixdict_shipped_file("FIX.4.4"), "FIX44.xml");
	CHECK(ev_fixdict_shipped_file("FIX.4.2") == NULL);
}

int main(void)
{
	valid_message_splits_into_fields();
	each_envelope_rule_is_named_at_its_byte();
	field_syntax_is_strict();
	data_values_may_hold_soh();
	long_and_odd_length_messages_are_judged_the_same();
	frame_finds_message_boundaries();
	rescan_takes_the_template_only_for_changed_values();
	versions_are_read_from_a_message_cut_short();
	return check_exit("fixmsg");
}
