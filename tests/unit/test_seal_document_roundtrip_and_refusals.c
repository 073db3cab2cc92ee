/* SPDX-License-Identifier: Apache-2.0 */
/* A seal serializes canonically and reads back identical; a document that
 * breaks any rule of the format is refused with the member named. */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/core/json.h"
#include "lib/archive/seal.h"

static const char *digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

/* Parse a seal from text; @return status, err holds the reason. */
static ev_status load_text(const char *text, struct ev_error *err)
{
	json_t *doc = NULL;
	struct ev_seal seal;
	ev_error_clear(err);
	ev_status st = ev_json_parse(text, strlen(text), "S.json", EV_SEAL_FORMAT, 0, &doc, err);
	if (st == EV_OK)
		st = ev_seal_from_json(doc, "S.json", 0, &seal, err);
	if (st == EV_OK)
		ev_seal_free(&seal);
	json_decref(doc);
	return st;
}

static char *seal_text(const char *members, const char *totals)
{
	static char buf[4096];
	snprintf(buf, sizeof buf,
		 "{\"format\":\"evidence-seal/1\",\"members\":[%s],\"root\":\"c\",\"totals\":%s}\n",
		 members, totals);
	return buf;
}

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_seal s;
	ev_seal_init(&s);
	s.root = strdup("campaign");
	s.count = 3;
	s.members = calloc(3, sizeof *s.members);
	s.members[0] = (struct ev_member){.path = strdup("runs/a.bin"), .type = EV_MEMBER_FILE,
					  .mode = 0600, .size = 7};
	s.members[1] = (struct ev_member){.path = strdup("runs"), .type = EV_MEMBER_DIR,
					  .mode = 0755};
	s.members[2] = (struct ev_member){.path = strdup("README"), .type = EV_MEMBER_FILE,
					  .mode = 0644, .size = 0};
	memset(s.members[0].sha256, 0xab, EV_SHA256_LEN);
	ev_seal_finish(&s);
	CHECK_STR_EQ(s.members[0].path, "README");
	CHECK_STR_EQ(s.members[1].path, "runs");
	CHECK_INT_EQ(s.files, 2);
	CHECK_INT_EQ(s.dirs, 1);
	CHECK_INT_EQ(s.bytes, 7);
	char *bytes = NULL;
	size_t len = 0;
	CHECK_INT_EQ(ev_seal_serialize(&s, &bytes, &len, &err), EV_OK);
	CHECK(strstr(bytes, "{\"mode\":\"0600\",\"path\":\"runs/a.bin\",\"sha256\":\"abab") != NULL);

	json_t *doc = NULL;
	struct ev_seal back;
	CHECK_INT_EQ(ev_json_parse(bytes, len, "S", EV_SEAL_FORMAT, EV_JSON_REQUIRE_CANONICAL,
				   &doc, &err), EV_OK);
	CHECK_INT_EQ(ev_seal_from_json(doc, "S", 0, &back, &err), EV_OK);
	CHECK_INT_EQ(back.count, 3);
	CHECK_INT_EQ(ev_seal_find(&back, "runs/a.bin"), 2);
	CHECK_INT_EQ(ev_seal_find(&back, "runs/b.bin"), -1);
	CHECK_INT_EQ(back.members[2].mode, 0600);
	CHECK(memcmp(back.members[2].sha256, s.members[2].sha256, EV_SHA256_LEN) == 0);
	char *again = NULL;
	size_t again_len = 0;
	CHECK_INT_EQ(ev_seal_serialize(&back, &again, &again_len, &err), EV_OK);
	CHECK(again_len == len && memcmp(again, bytes, len) == 0);
	free(again);

	/* written member by member, the bytes are those of the whole document
	 * dumped at once: with a source, escapes and non-ASCII names, and with
	 * enough members to grow the buffer many times */
	struct ev_seal big;
	ev_seal_init(&big);
	big.root = strdup("caf\xc3\xa9 \"q\"");
	big.source = json_pack("{s:{s:s, s:i}}", "git", "commit", "0123abcd", "depth", 3);
	big.count = 5000;
	big.members = calloc(big.count, sizeof *big.members);
	for (size_t i = 0; i < big.count; i++) {
		char path[64];
		snprintf(path, sizeof path, i % 7 ? "runs/%05zu.bin" : "runs/\xce\xbb%05zu\ttab", i);
		big.members[i] = (struct ev_member){.path = strdup(path), .type = i % 5 ? EV_MEMBER_FILE : EV_MEMBER_DIR,
						    .mode = i % 5 ? 0644 : 0755, .size = i * 1000003u};
		memset(big.members[i].sha256, (int)i, EV_SHA256_LEN);
	}
	ev_seal_finish(&big);
	char *streamed = NULL, *whole = NULL;
	size_t streamed_len = 0, whole_len = 0;
	json_t *whole_doc = ev_seal_to_json(&big);
	CHECK_INT_EQ(ev_seal_serialize(&big, &streamed, &streamed_len, &err), EV_OK);
	CHECK_INT_EQ(ev_json_dump(whole_doc, &whole, &whole_len, &err), EV_OK);
	CHECK(streamed_len == whole_len && memcmp(streamed, whole, whole_len) == 0);
	CHECK(strstr(streamed, "\"source\":{\"git\":{\"commit\":\"0123abcd\",\"depth\":3}},\"totals\"") != NULL);
	free(streamed);
	free(whole);
	json_decref(whole_doc);
	ev_seal_free(&big);
	free(bytes);
	json_decref(doc);
	ev_seal_free(&back);
	ev_seal_free(&s);

	char file[512];
	snprintf(file, sizeof file,
		 "{\"mode\":\"0644\",\"path\":\"a\",\"sha256\":\"%s\",\"size\":3,\"type\":\"file\"}",
		 digest);
	const char *one_file = "{\"bytes\":3,\"dirs\":0,\"files\":1}";
	CHECK_INT_EQ(load_text(seal_text(file, one_file), &err), EV_OK);

	char members[2048];
	snprintf(members, sizeof members, "%s,%s", file, file);
	CHECK_INT_EQ(load_text(seal_text(members, "{\"bytes\":6,\"dirs\":0,\"files\":2}"), &err),
		     EV_REFUSED);
	CHECK_STR_EQ(err.text, "S.json: member a: out of byte order or duplicated (after a)");

	CHECK_INT_EQ(load_text(seal_text(file, "{\"bytes\":4,\"dirs\":0,\"files\":1}"), &err),
		     EV_REFUSED);
	CHECK(strstr(err.text, "totals disagree with the members") != NULL);

	snprintf(members, sizeof members,
		 "{\"mode\":\"0644\",\"path\":\"d/a\",\"sha256\":\"%s\",\"size\":3,\"type\":\"file\"}",
		 digest);
	CHECK_INT_EQ(load_text(seal_text(members, one_file), &err), EV_REFUSED);
	CHECK_STR_EQ(err.text, "S.json: member d/a: its parent directory is not a dir member");

	snprintf(members, sizeof members,
		 "{\"mode\":\"4755\",\"path\":\"a\",\"sha256\":\"%s\",\"size\":3,\"type\":\"file\"}",
		 digest);
	CHECK_INT_EQ(load_text(seal_text(members, one_file), &err), EV_REFUSED);
	CHECK(strstr(err.text, "member a: mode must be 4 octal digits") != NULL);

	snprintf(members, sizeof members,
		 "{\"mode\":\"0644\",\"path\":\"../a\",\"sha256\":\"%s\",\"size\":3,\"type\":\"file\"}",
		 digest);
	CHECK_INT_EQ(load_text(seal_text(members, one_file), &err), EV_REFUSED);
	CHECK_STR_EQ(err.text, "S.json: member 0: path \"../a\" has a '.' or '..' component");

	CHECK_INT_EQ(load_text(seal_text("{\"mode\":\"0644\",\"path\":\"a\",\"sha256\":\"00\","
					 "\"size\":3,\"type\":\"file\"}", one_file), &err),
		     EV_REFUSED);
	CHECK_STR_EQ(err.text, "S.json: member a: sha256 must be 64 lower-case hex digits");

	CHECK_INT_EQ(load_text(seal_text("{\"mode\":\"0755\",\"path\":\"a\",\"type\":\"symlink\"}",
					 "{\"bytes\":0,\"dirs\":0,\"files\":0}"), &err),
		     EV_REFUSED);
	CHECK_STR_EQ(err.text,
		     "S.json: member a: type must be \"file\" or \"dir\" (found \"symlink\")");

	CHECK_INT_EQ(load_text(seal_text("{\"extra\":1,\"mode\":\"0755\",\"path\":\"a\",\"type\":\"dir\"}",
					 "{\"bytes\":0,\"dirs\":1,\"files\":0}"), &err),
		     EV_REFUSED);
	CHECK_STR_EQ(err.text, "S.json: member a: unexpected keys for a dir member");
	return check_exit("test_seal_document_roundtrip_and_refusals");
}
