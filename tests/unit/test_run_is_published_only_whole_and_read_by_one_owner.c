/* SPDX-License-Identifier: Apache-2.0 */
/* run.json has one writer and one reader: a document that breaks the
 * contract is never published (and names the field), a published one is
 * canonical and read back field by field, absent fields read as absent,
 * another format is refused, and an existing run.json is never replaced. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/campaign/run.h"
#include "lib/core/json.h"

static json_t *good_run(void)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:{s:i, s:i}, s:s, s:[{s:s, s:i, s:i, s:[s,s], s:{s:s}},"
			 " {s:s, s:i, s:i, s:[s], s:{s:s, s:s}}]}",
			 "format", EV_RUN_FORMAT, "name", "base-c1-1", "arm", "base", "cell", "c1", "result", "ok",
			 "repeat", 1, "counts", "warmups", 10, "measured", 1000, "boot_id",
			 "0e6f5ab2-8d7c-4a07-9a43-5b8a1e5f0c11", "processes", "role", "peer", "pid", 41, "start_ticks",
			 7, "argv", "fix-receiver", "--port", "outputs", "journal", "native/peer.bin", "role", "sender",
			 "pid", 42, "start_ticks", 8, "argv", "sockperf", "outputs", "series", "native/series.bin",
			 "journal", "native/sender.bin");
}

int main(void)
{
	char dir[] = "/tmp/test_run.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, EV_RUN_FILENAME);
	struct ev_error err;
	ev_error_clear(&err);

	/* broken documents: nothing written, the field named */
	static const char *const fields[] = {"name", "arm", "cell", "result", "repeat", "counts", "processes"};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		json_t *doc = good_run();
		json_object_del(doc, fields[i]);
		ev_error_clear(&err);
		CHECK_INT_EQ(ev_run_publish(dir, doc, &err), EV_ERROR);
		CHECK(strstr(err.text, fields[i]) != NULL);
		CHECK(access(path, F_OK) != 0);
		json_decref(doc);
	}
	json_t *roleless = good_run();
	json_object_del(json_array_get(json_object_get(roleless, "processes"), 1), "role");
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_run_publish(dir, roleless, &err), EV_ERROR);
	CHECK(strstr(err.text, "a process without a role") != NULL);
	json_object_set_new(roleless, "format", json_string("evidence-run/2"));
	CHECK_INT_EQ(ev_run_publish(dir, roleless, &err), EV_ERROR);
	CHECK(access(path, F_OK) != 0);
	json_decref(roleless);

	/* published whole, canonical, read back by the one reader */
	json_t *doc = good_run();
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_run_publish(dir, doc, &err), EV_OK);
	struct ev_run run;
	uint8_t digest[EV_SHA256_LEN];
	CHECK_INT_EQ(ev_run_load(path, EV_JSON_REQUIRE_CANONICAL, &run, digest, &err), EV_OK);
	CHECK_STR_EQ(ev_run_string(&run, "arm"), "base");
	CHECK_STR_EQ(ev_run_string(&run, "cell"), "c1");
	CHECK_STR_EQ(ev_run_string(&run, "result"), "ok");
	CHECK(ev_run_string(&run, "failure") == NULL);
	CHECK_INT_EQ(ev_run_repeat(&run), 1);
	CHECK_INT_EQ(ev_run_count(&run, "warmups"), 10);
	CHECK_INT_EQ(ev_run_count(&run, "measured"), 1000);
	CHECK_INT_EQ(ev_run_process_count(&run), 2);
	struct ev_run_process p;
	CHECK_INT_EQ(ev_run_process(&run, 1, &p), 0);
	CHECK_STR_EQ(p.role, "sender");
	CHECK(p.has_pid && p.pid == 42 && p.has_start_ticks && p.start_ticks == 8);
	CHECK_INT_EQ(json_array_size(p.argv), 1);
	CHECK_INT_EQ(ev_run_process(&run, 2, &p), -1);
	CHECK_STR_EQ(ev_run_output(&run, "sender", "series"), "native/series.bin");
	CHECK_STR_EQ(ev_run_output(&run, "peer", "journal"), "native/peer.bin");
	CHECK(ev_run_output(&run, "peer", "series") == NULL);
	CHECK(ev_run_output(&run, "observer", "journal") == NULL);
	ev_run_free(&run);

	/* never replaced */
	json_object_set_new(doc, "result", json_string("failed"));
	CHECK_INT_EQ(ev_run_publish(dir, doc, &err), EV_REFUSED);
	CHECK_INT_EQ(ev_run_load(path, 0, &run, NULL, &err), EV_OK);
	CHECK_STR_EQ(ev_run_string(&run, "result"), "ok");
	ev_run_free(&run);
	json_decref(doc);

	/* the reader: absent fields read as absent; another format is refused */
	const char *bare = "{\"format\":\"evidence-run/1\"}";
	CHECK_INT_EQ(ev_run_parse(bare, strlen(bare), "bare", &run, &err), EV_OK);
	CHECK(ev_run_string(&run, "arm") == NULL);
	CHECK_INT_EQ(ev_run_repeat(&run), 0);
	CHECK_INT_EQ(ev_run_count(&run, "measured"), 0);
	CHECK_INT_EQ(ev_run_process_count(&run), 0);
	CHECK(ev_run_output(&run, "sender", "series") == NULL);
	ev_run_free(&run);
	const char *other = "{\"format\":\"evidence-seal/1\"}";
	ev_error_clear(&err);
	CHECK(ev_run_parse(other, strlen(other), "other", &run, &err) != EV_OK);
	CHECK(strstr(err.text, "evidence-run/1") != NULL);
	ev_run_free(&run);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return check_exit("test_run_is_published_only_whole_and_read_by_one_owner");
}
