/* SPDX-License-Identifier: Apache-2.0 */
/* fixdict: QuickFIX's FIXT11.xml and FIX50.xml (share/fix) compile into
 * lookups that answer as the XML says: field types, enumerations (one
 * character or longer, and multiple-value types word by word), messages
 * by MsgType, layouts in dictionary order with components expanded,
 * groups with their delimiter, required flags (not inside an optional
 * component), DATA fields with their LENGTH field. A broken dictionary is
 * refused with the file and the name it lacks; a file that is not XML or
 * not there cannot be read; an external entity is never fetched. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/fix/fixdict.h"

static char dir[] = "/tmp/evidence-fixdict-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static int enum_ok(const struct ev_fixdict *d, uint32_t tag, const char *v)
{
	return ev_fixdict_enum_ok(d, ev_fixdict_field(d, tag), v, (uint32_t)strlen(v));
}

static int required_in(const struct ev_fixdict *d, uint32_t layout, uint32_t tag)
{
	const struct ev_fixdict_entry *e = ev_fixdict_entry(d, layout, tag);
	return e ? e->required : -1;
}

static void shipped_dictionaries(const char *src)
{
	char a[4096], b[4096];
	snprintf(a, sizeof a, "%s/share/fix/FIXT11.xml", src);
	snprintf(b, sizeof b, "%s/share/fix/FIX50.xml", src);
	char *paths[] = {a, b};
	struct ev_fixdict *d = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixdict_load(&d, paths, 2, &err), EV_OK);
	if (!d)
		return;
	CHECK_STR_EQ(ev_fixdict_field(d, 52)->name, "SendingTime");
	CHECK_INT_EQ(ev_fixdict_field(d, 52)->type, EV_FIX_T_UTCTIMESTAMP);
	CHECK_INT_EQ(ev_fixdict_field(d, 38)->type, EV_FIX_T_FLOAT);   /* Qty */
	CHECK_INT_EQ(ev_fixdict_field(d, 34)->type, EV_FIX_T_UINT);    /* SeqNum */
	CHECK_INT_EQ(ev_fixdict_field(d, 453)->type, EV_FIX_T_UINT);   /* NumInGroup */
	CHECK_INT_EQ(ev_fixdict_field(d, 96)->type, EV_FIX_T_DATA);
	CHECK_INT_EQ(d->data_length_tag[96], 95); /* RawData after RawDataLength */
	CHECK(ev_fixdict_field(d, 9999) == NULL);
	/* enumerations */
	CHECK(enum_ok(d, 54, "1") && enum_ok(d, 54, "2") && !enum_ok(d, 54, "Z") && !enum_ok(d, 54, "11"));
	CHECK(enum_ok(d, 35, "D") && enum_ok(d, 35, "AE") && !enum_ok(d, 35, "ZZ"));
	CHECK(enum_ok(d, 98, "0") && !enum_ok(d, 98, "9"));
	CHECK(enum_ok(d, 18, "1 2") && !enum_ok(d, 18, "1 ?") && !enum_ok(d, 18, "1  2")); /* ExecInst */
	CHECK(enum_ok(d, 55, "NOKIA.HE")); /* no enumeration: any value */
	/* a NUL inside a value is a byte, not its end (fuzzing found the read
	 * past an enumeration this once caused) */
	char *nul = malloc(3);
	memcpy(nul, "A\0Z", 3);
	CHECK(!ev_fixdict_enum_ok(d, ev_fixdict_field(d, 35), nul, 3));
	CHECK(ev_fixdict_message(d, nul, 2) == NULL);
	CHECK(ev_fixdict_message(d, nul, 1) != NULL);
	free(nul);
	/* messages and layouts */
	const struct ev_fixdict_message *nos = ev_fixdict_message(d, "D", 1);
	CHECK(nos && strcmp(nos->name, "NewOrderSingle") == 0);
	CHECK(ev_fixdict_message(d, "A", 1) != NULL && ev_fixdict_message(d, "ZZ", 2) == NULL);
	CHECK_INT_EQ(required_in(d, nos->body, 11), 1);   /* ClOrdID */
	CHECK_INT_EQ(required_in(d, nos->body, 54), 1);   /* Side */
	CHECK_INT_EQ(required_in(d, nos->body, 55), 0);   /* Symbol, in Instrument: not required in 5.0 */
	CHECK_INT_EQ(required_in(d, nos->body, 453), 0);  /* Parties is optional */
	CHECK_INT_EQ(required_in(d, nos->body, 37), -1);  /* OrderID is not in it */
	CHECK_INT_EQ(required_in(d, d->header, 49), 1);
	CHECK_INT_EQ(required_in(d, d->header, 50), 0);
	CHECK_INT_EQ(required_in(d, d->trailer, 10), 1);
	const struct ev_fixdict_entry *parties = ev_fixdict_entry(d, nos->body, 453);
	CHECK(parties && parties->group >= 0);
	if (parties && parties->group >= 0) {
		const struct ev_fixdict_group *g = &d->groups[parties->group];
		CHECK_INT_EQ(g->delimiter, 448);
		const struct ev_fixdict_layout *l = &d->layouts[g->layout];
		CHECK_INT_EQ(d->entries[l->first].tag, 448);
		CHECK_INT_EQ(d->entries[l->first + 1].tag, 447);
		CHECK_INT_EQ(d->entries[l->first + 2].tag, 452);
	}
	ev_fixdict_free(d);
}

#define FIELDS "<fields><field number='8' name='BeginString' type='STRING'/>" \
	"<field number='35' name='MsgType' type='STRING'/><field number='10' name='CheckSum' type='STRING'/></fields>"

static void refused(const char *xml, ev_status want, const char *needle)
{
	const char *p = write_file("d.xml", xml);
	char *paths[] = {(char *)p};
	struct ev_fixdict *d = (struct ev_fixdict *)1;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixdict_load(&d, paths, 1, &err), want);
	if (!strstr(err.text, needle))
		fprintf(stderr, "  error was: %s\n  wanted: %s\n", err.text, needle);
	CHECK(strstr(err.text, needle) != NULL);
	CHECK(strstr(err.text, "d.xml") != NULL);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	const char *src = getenv("EV_SRCDIR");
	shipped_dictionaries(src ? src : ".");

	refused("<fix><header><field name='BeginString' required='Y'/></header>"
		"<messages><message name='X' msgtype='X'><field name='Nope' required='Y'/></message></messages>"
		FIELDS "</fix>", EV_REFUSED, "uses a field it does not define: Nope");
	refused("<fix><header><field name='BeginString' required='Y'/></header>"
		"<messages><message name='X' msgtype='X'><component name='Gone' required='Y'/></message></messages>"
		FIELDS "</fix>", EV_REFUSED, "uses a component it does not define: Gone");
	refused("<fix><header><field name='BeginString' required='Y'/></header>"
		"<messages><message name='X' msgtype='X'><component name='Loop' required='Y'/></message></messages>"
		"<components><component name='Loop'><component name='Loop' required='Y'/></component></components>"
		FIELDS "</fix>", EV_REFUSED, "nest too deep");
	refused("<fix><header><field name='BeginString' required='Y'/></header>"
		"<messages><message name='X'><field name='MsgType' required='Y'/></message></messages>"
		FIELDS "</fix>", EV_REFUSED, "a <message> without a usable msgtype");
	refused("<fix><messages/>" FIELDS "</fix>", EV_REFUSED, "no dictionary given has a <header>");
	refused("<fox/>", EV_REFUSED, "not a QuickFIX data dictionary");
	refused("<fix><unclosed>", EV_ERROR, "not a QuickFIX data dictionary");
	/* an external entity is neither fetched nor expanded */
	char xml[1024];
	snprintf(xml, sizeof xml,
		 "<?xml version='1.0'?><!DOCTYPE fix [<!ENTITY e SYSTEM 'file://%s/secret'>]>"
		 "<fix><header><field name='&e;' required='Y'/></header><messages/>" FIELDS "</fix>", dir);
	write_file("secret", "BeginString");
	refused(xml, EV_ERROR, "external entity");

	char *none[] = {"/nonexistent/FIX50.xml"};
	struct ev_fixdict *d = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_fixdict_load(&d, none, 1, &err), EV_ERROR);
	CHECK(strstr(err.text, "/nonexistent/FIX50.xml") != NULL);
	ev_fixdict_free(NULL);

	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 99;
	return check_exit("fixdict");
}
