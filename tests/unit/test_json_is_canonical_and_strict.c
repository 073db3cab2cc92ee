/* SPDX-License-Identifier: Apache-2.0 */
/* Canonical JSON is sorted, compact, newline-terminated (and hashed as it
 * is written gives the digest of those bytes); reading refuses a
 * wrong format tag, duplicate keys and (when asked) non-canonical bytes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"

static ev_status parse(const char *text, const char *format, unsigned flags, struct ev_error *err)
{
	json_t *doc = NULL;
	ev_error_clear(err);
	ev_status st = ev_json_parse(text, strlen(text), "doc.json", format, flags, &doc, err);
	json_decref(doc);
	return st;
}

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *v = json_pack("{s:s, s:i, s:[i,i], s:s}", "zeta", "\xC3\xA9t\xC3\xA9", "alpha", 1,
			      "mid", 2, 3, "format", "evidence-test/1");
	char *out = NULL;
	size_t len = 0;
	CHECK_INT_EQ(ev_json_dump(v, &out, &len, &err), EV_OK);
	CHECK_STR_EQ(out, "{\"alpha\":1,\"format\":\"evidence-test/1\",\"mid\":[2,3],"
			  "\"zeta\":\"\xC3\xA9t\xC3\xA9\"}\n");
	CHECK_INT_EQ(len, strlen(out));
	CHECK_INT_EQ(parse(out, "evidence-test/1", EV_JSON_REQUIRE_CANONICAL, &err), EV_OK);
	free(out);
	json_decref(v);

	CHECK_INT_EQ(parse("{\"format\":\"evidence-seal/1\"}\n", "evidence-test/1", 0, &err),
		     EV_REFUSED);
	CHECK_STR_EQ(err.text,
		     "doc.json: wrong format (expected \"evidence-test/1\", found \"evidence-seal/1\")");
	CHECK_INT_EQ(parse("{\"a\":1}\n", "evidence-test/1", 0, &err), EV_REFUSED);
	CHECK_STR_EQ(err.text, "doc.json: no \"format\" tag (expected \"evidence-test/1\")");
	CHECK_INT_EQ(parse("{\"a\":1,\"a\":2}", NULL, 0, &err), EV_REFUSED);
	CHECK(strstr(err.text, "duplicate") != NULL);
	CHECK_INT_EQ(parse("[1]", NULL, 0, &err), EV_REFUSED);
	CHECK_STR_EQ(err.text, "doc.json: expected a JSON object at the top");
	CHECK_INT_EQ(parse("{\"format\": \"evidence-test/1\"}\n", "evidence-test/1", 0, &err),
		     EV_OK);
	CHECK_INT_EQ(parse("{\"format\": \"evidence-test/1\"}\n", "evidence-test/1",
			   EV_JSON_REQUIRE_CANONICAL, &err),
		     EV_REFUSED);
	CHECK(strstr(err.text, "not in canonical form") != NULL);
	CHECK_INT_EQ(parse("{\"format\":\"evidence-test/1\"}", "evidence-test/1",
			   EV_JSON_REQUIRE_CANONICAL, &err),
		     EV_REFUSED); /* no trailing newline */
	CHECK_INT_EQ(parse("{\"format\":\"evidence-test/1\"", NULL, 0, &err), EV_REFUSED);
	CHECK(strncmp(err.text, "doc.json: not valid JSON (line 1", 32) == 0);
	/* integers only: a fraction is a decimal string computed in integers,
	 * the same bytes on every host; a real is refused, named */
	struct { unsigned __int128 num; uint64_t den; unsigned digits; const char *text; } dec[] = {
		{7446491114ULL, 1000000, 9, "7446.491114000"}, {1, 3, 9, "0.333333333"}, {2, 3, 9, "0.666666667"},
		{11, 2, 0, "6"}, {1, 2, 0, "1"}, {0, 7, 3, "0.000"}, {999999, 1000000, 3, "1.000"},
		{(unsigned __int128)UINT64_MAX * 1000, 1000, 1, "18446744073709551615.0"},
	};
	for (size_t i = 0; i < sizeof dec / sizeof *dec; i++) {
		json_t *d = ev_json_decimal(dec[i].num, dec[i].den, dec[i].digits);
		CHECK_STR_EQ(json_string_value(d), dec[i].text);
		json_decref(d);
	}
	json_t *d = ev_json_decimal_of(5.5, 9);
	CHECK_STR_EQ(json_string_value(d), "5.500000000");
	json_decref(d);
	json_t *real = json_pack("{s:s, s:{s:f}}", "format", "evidence-test/1", "facts", "mean", 30.2);
	char *bytes = NULL;
	size_t blen = 0;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_json_dump(real, &bytes, &blen, &err), EV_ERROR);
	CHECK(strstr(err.text, "a real number at \"mean\"") != NULL);
	CHECK(bytes == NULL);
	/* hashed as written: the SHA-256 of ev_json_dump's bytes, a string
	 * longer than the hashing buffer and many small tokens alike */
	uint8_t got[EV_SHA256_LEN], want[EV_SHA256_LEN];
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_json_sha256(real, got, &err), EV_ERROR);
	CHECK(strstr(err.text, "a real number at \"mean\"") != NULL);
	json_decref(real);
	char *long_text = malloc(10001);
	CHECK(long_text != NULL);
	memset(long_text, 'q', 10000);
	long_text[10000] = '\0';
	json_t *big = json_pack("{s:s, s:[]}", "long", long_text, "many");
	for (int i = 0; i < 3000; i++)
		json_array_append_new(json_object_get(big, "many"), json_integer(i));
	json_t *small = json_pack("{s:s, s:i}", "z", "\xC3\xA9", "a", 1);
	json_t *docs[] = {big, small};
	for (size_t i = 0; i < 2; i++) {
		ev_error_clear(&err);
		CHECK_INT_EQ(ev_json_dump(docs[i], &bytes, &blen, &err), EV_OK);
		CHECK_INT_EQ(ev_sha256_buffer(bytes, blen, want, &err), EV_OK);
		CHECK_INT_EQ(ev_json_sha256(docs[i], got, &err), EV_OK);
		CHECK(memcmp(got, want, sizeof got) == 0);
		free(bytes);
		json_decref(docs[i]);
	}
	free(long_text);
	/* a misspelt key is found, never ignored */
	json_t *keyed = json_pack("{s:i, s:i}", "alpha", 1, "betta", 2);
	const char *both[] = {"alpha", "beta", NULL}, *all[] = {"alpha", "betta", NULL};
	CHECK_STR_EQ(ev_json_unknown_key(keyed, both), "betta");
	CHECK(ev_json_unknown_key(keyed, all) == NULL);
	json_decref(keyed);
	return check_exit("test_json_is_canonical_and_strict");
}
