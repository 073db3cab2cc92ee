/* Canonical JSON is sorted, compact, newline-terminated; reading refuses a
 * wrong format tag, duplicate keys and (when asked) non-canonical bytes. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/json.h"

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
	return check_exit("test_json_is_canonical_and_strict");
}
