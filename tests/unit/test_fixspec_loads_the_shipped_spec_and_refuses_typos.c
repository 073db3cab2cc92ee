/* SPDX-License-Identifier: Apache-2.0 */
/* fixspec: the shipped llfix TX spec loads with its orders' fields,
 * shapes, group and counters; shapes match digit for digit; and every
 * malformed spec is refused with the file and the key or tag named,
 * leaving nothing allocated (ASan's leak check runs this). */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/fix/fixspec.h"

static char dir[] = "/tmp/evidence-fixspec-XXXXXX";

static ev_status load_text(const char *text, struct ev_fixspec *s, struct ev_error *err)
{
	char path[256];
	snprintf(path, sizeof path, "%s/spec.json", dir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	ev_error_clear(err);
	return ev_fixspec_load(path, s, NULL, err);
}

#define HEAD "{\"format\": \"evidence-fix-spec/1\", \"begin_string\": \"FIXT.1.1\", \"order_msgtype\": \"D\", "
#define TAIL "\"owner\": {\"tag\": 11, \"first\": 1}, \"sequence\": {\"tag\": 34, \"first\": 1}, \"warmups\": 1, \"measured\": 2}"

static void refused(const char *text, const char *needle)
{
	struct ev_fixspec s;
	struct ev_error err;
	ev_status st = load_text(text, &s, &err);
	CHECK_INT_EQ(st, EV_REFUSED);
	if (!strstr(err.text, needle) || !strstr(err.text, "spec.json"))
		fprintf(stderr, "  error was: %s\n  wanted: %s\n", err.text, needle);
	CHECK(strstr(err.text, needle) != NULL);
	CHECK(s.fields == NULL && s.doc == NULL);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	const char *src = getenv("EV_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/share/audit/llfix-tx-new-order.json", src ? src : ".");
	struct ev_fixspec s;
	struct ev_error err;
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixspec_load(path, &s, hex, &err), EV_OK);
	CHECK_STR_EQ(s.begin_string, "FIXT.1.1");
	CHECK_STR_EQ(s.order_msgtype, "D");
	CHECK_INT_EQ(s.nother, 2);
	CHECK_INT_EQ(s.nfields, 12);
	CHECK_INT_EQ(s.ngroups, 1);
	CHECK_INT_EQ(s.groups[0].tag, 453);
	CHECK_INT_EQ(s.groups[0].count, 2);
	CHECK_INT_EQ(s.groups[0].nmembers, 6);
	CHECK_INT_EQ(s.owner_tag, 11);
	CHECK_INT_EQ(s.sequence_first, 1);
	CHECK_INT_EQ(s.warmups + s.measured, 1001000);
	{
		/* the QuickFIX FIX.4.4 session's spec ships beside it */
		struct ev_fixspec q;
		char qpath[4096], qhex[EV_SHA256_HEX_LEN + 1];
		snprintf(qpath, sizeof qpath, "%s/share/audit/quickfix-fix44-new-order.json", src ? src : ".");
		CHECK_INT_EQ(ev_fixspec_load(qpath, &q, qhex, &err), EV_OK);
		CHECK_STR_EQ(q.begin_string, "FIX.4.4");
		CHECK_INT_EQ(q.nother, 3); /* Logon, Logout, Heartbeat */
		ev_fixspec_free(&q);
	}
	CHECK_INT_EQ(strlen(hex), 64);
	const struct ev_fixspec_field *t52 = &s.fields[4];
	CHECK_INT_EQ(t52->tag, 52);
	CHECK(ev_fixspec_field_ok(t52, "20261202-08:03:14.257", 21));
	CHECK(ev_fixspec_field_ok(t52, "20261202-08:03:14", 17));
	CHECK(!ev_fixspec_field_ok(t52, "20261202-08:03:14.25", 20));
	CHECK(!ev_fixspec_field_ok(t52, "2026120x-08:03:14.257", 21));
	CHECK(ev_fixspec_field_ok(&s.fields[0], "CLIENT1", 7));
	CHECK(!ev_fixspec_field_ok(&s.fields[0], "CLIENT", 6));
	char d[128];
	ev_fixspec_field_describe(&s.fields[0], d, sizeof d);
	CHECK_STR_EQ(d, "CLIENT1");
	ev_fixspec_field_describe(t52, d, sizeof d);
	CHECK(strncmp(d, "shape ########-##:##:## or shape", 32) == 0);
	ev_fixspec_free(&s);

	CHECK(ev_fixspec_shape_match("A?#", "Ax7", 3));
	CHECK(!ev_fixspec_shape_match("A?#", "Axy", 3));
	CHECK(!ev_fixspec_shape_match("#", ".", 1)); /* below '0' */
	CHECK(!ev_fixspec_shape_match("#", ":", 1)); /* above '9' */
	CHECK(!ev_fixspec_shape_match("##", "1", 1));

	refused(HEAD "\"fields\": [], \"feilds\": [], " TAIL, "unknown key \"feilds\"");
	refused(HEAD "\"fields\": [{\"tag\": 49}], " TAIL, "give exactly one of \"value\" and \"shape\"");
	refused(HEAD "\"fields\": [{\"tag\": 0, \"value\": \"x\"}], " TAIL, "\"tag\" must be a FIX tag number");
	refused(HEAD "\"fields\": [{\"tag\": 49, \"value\": 7}], " TAIL, "(tag 49): \"value\" must be a string");
	refused(HEAD "\"fields\": [{\"tag\": 52, \"shape\": []}], " TAIL, "an empty list of shapes");
	refused(HEAD "\"fields\": [{\"tag\": 49, \"value\": \"x\", \"vlaue\": 1}], " TAIL, "unknown key \"vlaue\"");
	refused(HEAD "\"fields\": [], \"groups\": [{\"tag\": 453, \"instances\": [[]]}], " TAIL,
		"group 453: each instance must be a non-empty list");
	refused(HEAD "\"fields\": [], \"warmups\": -1, \"measured\": 2, "
		"\"owner\": {\"tag\": 11, \"first\": 1}, \"sequence\": {\"tag\": 34, \"first\": 1}}",
		"\"warmups\" and \"measured\" must be counts");
	refused(HEAD "\"fields\": [], \"owner\": {\"tag\": 11}, \"sequence\": {\"tag\": 34, \"first\": 1}, "
		"\"warmups\": 1, \"measured\": 2}", "owner: \"first\" must be a number >= 0");
	refused("{\"format\": \"evidence-fix-spec/1\", \"order_msgtype\": \"D\", \"fields\": [], " TAIL,
		"\"begin_string\" must be a string");
	struct ev_fixspec other;
	CHECK(load_text("{\"format\": \"evidence-seal/1\"}", &other, &err) != EV_OK);
	CHECK(strstr(err.text, "evidence-fix-spec/1") != NULL);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		return 99;
	return check_exit("fixspec");
}
