/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck: what a message reuses from the one before it (its layout, the
 * verdicts on unchanged values, the spec items away from its changes, the
 * session view, the CompIDs, the fingerprint patched word by word) never
 * changes a finding or a fingerprint. A stream of benchmark orders, with
 * the dictionary and the shipped spec, edited at random (a spec value, a
 * group member, a CompID, a MsgType, a number, a time, a format, an enum,
 * a checksum, a group count, a resend added, a value shortened), alone
 * and among the other direction's messages, is judged twice: as usual,
 * and with judge_afresh; both give the same findings, in the same order,
 * the same counts and the same fingerprints. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fix_text.h"
#include "lib/fix/fixcheck.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fixspec.h"

struct heard {
	char *text;
	size_t len, cap;
	unsigned n;
};

static void note(void *ctx, const struct ev_fix_finding *f)
{
	struct heard *h = ctx;
	char line[3 * EV_FIX_VALUE_MAX];
	int n = snprintf(line, sizeof line, "%s record %llu byte %llu tag %u: %s | %s | %s\n",
			 ev_fix_rule_name(f->rule), (unsigned long long)f->record, (unsigned long long)f->offset,
			 f->tag, f->message, f->expected, f->found);
	if (h->len + (size_t)n + 1 > h->cap) {
		h->cap = (h->len + (size_t)n + 1) * 2;
		h->text = realloc(h->text, h->cap);
	}
	memcpy(h->text + h->len, line, (size_t)n + 1);
	h->len += (size_t)n;
	h->n++;
}

/* Message i of the stream, edited now and then: its text into out; with
 * two_way, now and then a message of the other direction. */
static void order_text(unsigned i, unsigned *seq, int two_way, char *out, size_t cap)
{
	if (two_way && rand() % 5 == 0) {
		snprintf(out, cap, "8=FIXT.1.1|9=?|35=0|34=%u|49=EXECUTOR|52=20261202-08:00:%02u.%03u|56=CLIENT1|10=?|",
			 i, (i / 1000) % 60, i % 1000);
		return;
	}
	char v55[] = "NOKIA.HE", v49[] = "CLIENT1", v56[] = "EXECUTOR", v448[] = "PARTY2";
	char v35[] = "D", v54[] = "1", v38[] = "10", v453[] = "2";
	unsigned ms = i % 1000, clordid = i, sec = (i / 1000) % 60;
	const char *resend = "";
	unsigned next = *seq + 1;
	if (rand() % 3 == 0) { /* a run of untouched orders keeps every shortcut busy */
		switch (rand() % 15) {
		case 0: v55[7] = 'X'; break;
		case 1: v448[5] = '9'; break;
		case 2: v49[6] = '2'; break;
		case 3: v56[7] = 'X'; break;
		case 4: v35[0] = "F50A8"[rand() % 5]; break;
		case 5: next = *seq + 2; break;
		case 6: next = *seq > 2 ? *seq - 1 : *seq; break;
		case 7: sec = sec ? sec - 1 : 59; break;
		case 8: v38[1] = 'x'; break;
		case 9: v54[0] = '9'; break;
		case 10: v453[0] = '3'; break;
		case 11: resend = "43=Y|122=20261202-07:59:59.000|"; break;
		case 12: clordid += 2; break;
		case 13: v55[5] = 0; break; /* shorter: the fields move */
		default: break; /* the checksum, below */
		}
	}
	*seq = next;
	snprintf(out, cap,
		 "8=FIXT.1.1|9=?|35=%s|34=%u|49=%s|52=20261202-08:00:%02u.%03u|56=%s|%s50=SNDR_SUB|57=SRVR_SUB|"
		 "11=%u|55=%s|54=%s|38=%s|44=10000|40=2|59=0|453=%s|448=PARTY1|447=D|452=1|448=%s|447=D|452=3|"
		 "60=20261202-08:00:%02u.%03u|10=?|",
		 v35, next, v49, sec, ms, v56, resend, clordid, v55, v54, v38, v453, v448, sec, ms);
}

/* The first line where a and b differ, shown; NULL when they agree. */
static const char *first_difference(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	while (*a || *b) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
		if (la != lb || memcmp(a, b, la) != 0) {
			fprintf(stderr, "as usual:      %.*s\njudged afresh: %.*s\n", (int)la, a, (int)lb, b);
			return a;
		}
		a += la + (ea != NULL);
		b += lb + (eb != NULL);
	}
	return NULL;
}

static void judge(const struct ev_fixdict *d, const struct ev_fixspec *spec, const struct ev_fingerprint_key *key,
		  int afresh, unsigned n, unsigned seed, struct heard *h, struct ev_fingerprint_set *set,
		  struct ev_fixcheck_stats *stats)
{
	int two_way = seed % 2 == 0; /* a log of both directions, this side's kept */
	struct ev_fixcheck_opts o = {.side = "sender", .dict = d, .spec = spec, .prints = EV_FINGERPRINT_RECORD,
				     .key = key, .set = set, .judge_afresh = afresh,
				     .sender_compid = two_way ? "CLIENT1" : NULL};
	struct ev_fixcheck *c = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixcheck_new(&c, &o, note, h, &err), EV_OK);
	if (!c)
		return;
	srand(seed);
	unsigned seq = 0;
	uint64_t offset = 0;
	char text[1024];
	for (unsigned i = 1; i <= n; i++) {
		order_text(i, &seq, two_way, text, sizeof text);
		size_t len;
		char *m = fix_text(text, &len);
		if (rand() % 40 == 0) /* a CheckSum off by one */
			m[len - 2] = m[len - 2] == '9' ? '0' : (char)(m[len - 2] + 1);
		struct ev_fix_record r = {m, (uint32_t)len, "1.bin", 0, i, offset, 0};
		ev_fixcheck_record(c, &r);
		offset += len;
		free(m);
	}
	ev_fixcheck_finish(c);
	*stats = *ev_fixcheck_stats(c);
	ev_fixcheck_free(c);
}

int main(void)
{
	const char *src = getenv("EV_SRCDIR");
	char a[4096], b[4096], sp[4096];
	snprintf(a, sizeof a, "%s/share/fix/FIXT11.xml", src ? src : ".");
	snprintf(b, sizeof b, "%s/share/fix/FIX50.xml", src ? src : ".");
	snprintf(sp, sizeof sp, "%s/share/audit/llfix-tx-new-order.json", src ? src : ".");
	char *paths[] = {a, b};
	struct ev_fixdict *d = NULL;
	struct ev_fixspec spec;
	struct ev_fingerprint_key key;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixdict_load(&d, paths, 2, &err), EV_OK);
	CHECK_INT_EQ(ev_fixspec_load(sp, &spec, NULL, &err), EV_OK);
	CHECK_INT_EQ(ev_fingerprint_key_new(&key, &err), EV_OK);
	if (!d || err.status != EV_OK) {
		fprintf(stderr, "%s\n", err.text);
		return check_exit("test_fixcheck_reuses_a_verdict_only_where_judging_afresh_agrees");
	}
	for (unsigned seed = 1; seed <= 4; seed++) {
		struct heard usual = {0}, afresh = {0};
		struct ev_fingerprint_set su = {0}, sa = {0};
		struct ev_fixcheck_stats st_u, st_a;
		judge(d, &spec, &key, 0, 3000, seed, &usual, &su, &st_u);
		judge(d, &spec, &key, 1, 3000, seed, &afresh, &sa, &st_a);
		CHECK(usual.n > 100); /* the edits were found at all */
		CHECK_INT_EQ(usual.n, afresh.n);
		CHECK(first_difference(usual.text, afresh.text) == NULL);
		CHECK(memcmp(st_u.by_rule, st_a.by_rule, sizeof st_u.by_rule) == 0);
		CHECK_INT_EQ(st_u.orders, st_a.orders);
		CHECK_INT_EQ(su.n, sa.n);
		int same_prints = su.n == sa.n;
		for (size_t i = 0; same_prints && i < su.n; i++)
			same_prints = ev_fingerprint_same(&su.v[i], &sa.v[i]) && su.v[i].seq == sa.v[i].seq &&
				      su.v[i].orig_ns == sa.v[i].orig_ns;
		CHECK(same_prints);
		free(usual.text);
		free(afresh.text);
		ev_fingerprint_set_free(&su);
		ev_fingerprint_set_free(&sa);
	}
	ev_fixspec_free(&spec);
	ev_fixdict_free(d);
	return check_exit("test_fixcheck_reuses_a_verdict_only_where_judging_afresh_agrees");
}
