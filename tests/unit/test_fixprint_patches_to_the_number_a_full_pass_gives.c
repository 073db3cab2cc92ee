/* SPDX-License-Identifier: Apache-2.0 */
/* fixprint: a message split as the one before it gets, from the kept
 * gather and only its changed values, exactly the two parts a full pass
 * over its bytes gives, also when either part is longer than the
 * multilinear hash covers; a resend keeps the invariant part of its
 * original and changes the other; a changed order field changes the
 * invariant. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fix/fixmsg.h"
#include "lib/fix/fixprint.h"
#include "check.h"
#include "fix_text.h"

static void ignore(void *ctx, enum ev_fix_rule rule, uint32_t at, const char *expected, const char *found)
{
	(void)ctx, (void)rule, (void)at, (void)expected, (void)found;
}

static struct ev_fix_template tpl;
static struct ev_fix_msg msg;
static uint64_t diff[EV_FIX_TEMPLATE_MAX / 64];
static uint32_t changed[EV_FIX_MAX_FIELDS];
static size_t nchanged;

/* Split data as fixcheck does: like the template when it can be, listing
 * the fields whose values changed; @return that list, or NULL when it was
 * scanned whole. */
static const uint32_t *split(const char *data, size_t len)
{
	unsigned problems;
	if (ev_fix_rescan(data, len, &tpl, &msg, diff, &problems, ignore, NULL)) {
		uint32_t j = 0;
		nchanged = 0;
		for (size_t w = 0; w * 64 < len; w++)
			for (uint64_t bits = diff[w]; bits; bits &= bits - 1) {
				uint32_t at = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
				while (j < msg.n && msg.f[j].off + msg.f[j].len <= at)
					j++;
				if (j < msg.n && (!nchanged || changed[nchanged - 1] != j))
					changed[nchanged++] = j;
			}
		return changed;
	}
	ev_fix_scan(data, len, NULL, &msg, ignore, NULL);
	ev_fix_template_set(&tpl, &msg);
	return NULL;
}

/* Both parts by a print that has seen nothing. */
static void whole(const struct ev_fingerprint_key *k, uint64_t *inv, uint64_t *chg)
{
	struct ev_fixprint fresh = {0};
	ev_fixprint_parts(&fresh, k, &msg, NULL, 0, inv, chg);
	ev_fixprint_free(&fresh);
}

static unsigned patched_runs;

/* The message of text given to p, its parts held against a full pass:
 * @return whether p was given it as a patch of the one before. */
static int against_a_full_pass(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const char *text)
{
	size_t len;
	char *data = fix_text(text, &len);
	const uint32_t *s = split(data, len);
	uint64_t inv, chg, want_inv, want_chg;
	ev_fixprint_parts(p, k, &msg, s, nchanged, &inv, &chg);
	whole(k, &want_inv, &want_chg);
	CHECK(inv == want_inv);
	CHECK(chg == want_chg);
	free(data);
	return s != NULL;
}

/* n orders, each differing from the one before in random digits of
 * random values (now and then in a value's length, which needs a full
 * pass); every message's parts are checked against a full pass. */
static void orders_agree_with_full_passes(const struct ev_fingerprint_key *k, unsigned n, unsigned seed)
{
	srand(seed);
	memset(&tpl, 0, sizeof tpl);
	struct ev_fixprint p = {0};
	char text[1024];
	int clordid_digits = 5;
	for (unsigned i = 0; i < n; i++) {
		if (rand() % 50 == 0)
			clordid_digits = 4 + rand() % 3;
		snprintf(text, sizeof text,
			 "8=FIXT.1.1|9=?|35=D|34=%07u|49=CLIENT1|52=20261202-08:%02u:%02u.%03u|56=EXECUTOR|"
			 "%s11=%0*u|55=NOKIA.HE|54=%u|38=%u|44=%05u|40=2|59=0|453=2|448=PARTY1|447=D|452=1|"
			 "448=PARTY2|447=D|452=3|60=20261202-08:00:%02u.%03u|10=?|",
			 1000000 + i, (unsigned)rand() % 60, (unsigned)rand() % 60, (unsigned)rand() % 1000,
			 rand() % 7 == 0 ? "43=Y|122=20261202-07:59:59.999|" : "", clordid_digits,
			 (unsigned)rand() % 100000, 1 + (unsigned)rand() % 2, 10 + (unsigned)rand() % 90,
			 (unsigned)rand() % 100000, (unsigned)rand() % 60, (unsigned)rand() % 1000);
		patched_runs += against_a_full_pass(&p, k, text);
	}
	ev_fixprint_free(&p);
}

/* Messages beyond the multilinear hash's reach in either part: a long
 * SendingTime (the six's part past 1 KiB, hashed whole) or a long Text
 * (the invariant part past it, never patched); each against a full pass. */
static void long_parts_agree_with_full_passes(const struct ev_fingerprint_key *k, int long_six)
{
	memset(&tpl, 0, sizeof tpl);
	struct ev_fixprint p = {0};
	static char text[4096], filler[1201];
	for (unsigned i = 0; i < 200; i++) {
		for (size_t j = 0; j < sizeof filler - 1; j++)
			filler[j] = (char)('0' + (j * 7 + i * (j % 3 == 0)) % 10);
		filler[sizeof filler - 1] = 0;
		snprintf(text, sizeof text, "8=FIX.4.4|9=?|35=D|34=%u|49=A|52=%s|56=B|11=%05u|58=%s|10=?|", 1000 + i,
			 long_six ? filler : "20261202-08:00:00.000", (unsigned)rand() % 100000, long_six ? "x" : filler);
		against_a_full_pass(&p, k, text);
	}
	ev_fixprint_free(&p);
}

int main(void)
{
	struct ev_fingerprint_key k;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fingerprint_key_new(&k, &err), EV_OK);

	for (unsigned seed = 1; seed <= 4; seed++)
		orders_agree_with_full_passes(&k, 500, seed);
	CHECK(patched_runs > 1000); /* the patched path was the one taken */
	long_parts_agree_with_full_passes(&k, 1);
	long_parts_agree_with_full_passes(&k, 0);

	/* a resend: 43, 97 and 122 added, 52 and the envelope changed */
	size_t len;
	uint64_t inv_orig, chg_orig, inv_resend, chg_resend, inv_other, chg_other;
	char *orig = fix_text("8=FIX.4.4|9=?|35=D|34=7|49=A|52=20261202-08:00:00.000|56=B|11=X1|38=10|10=?|", &len);
	ev_fix_scan(orig, len, NULL, &msg, ignore, NULL);
	whole(&k, &inv_orig, &chg_orig);
	free(orig);
	char *resend = fix_text("8=FIX.4.4|9=?|35=D|34=7|43=Y|49=A|52=20261202-08:00:05.000|56=B|"
				"122=20261202-08:00:00.000|11=X1|38=10|97=Y|10=?|",
				&len);
	ev_fix_scan(resend, len, NULL, &msg, ignore, NULL);
	whole(&k, &inv_resend, &chg_resend);
	free(resend);
	CHECK(inv_resend == inv_orig);
	CHECK(chg_resend != chg_orig);
	char *other = fix_text("8=FIX.4.4|9=?|35=D|34=7|49=A|52=20261202-08:00:00.000|56=B|11=X1|38=11|10=?|", &len);
	ev_fix_scan(other, len, NULL, &msg, ignore, NULL);
	whole(&k, &inv_other, &chg_other);
	free(other);
	CHECK(inv_other != inv_orig);
	CHECK(inv_orig != 0 && inv_other != 0);
	return check_exit("test_fixprint_patches_to_the_number_a_full_pass_gives");
}
