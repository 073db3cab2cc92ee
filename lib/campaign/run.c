/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/run.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"

ev_status ev_run_parse(const char *bytes, size_t len, const char *display, struct ev_run *run,
		       struct ev_error *err)
{
	run->doc = NULL;
	return ev_json_parse(bytes, len, display, EV_RUN_FORMAT, 0, &run->doc, err);
}

ev_status ev_run_load(const char *path, unsigned flags, struct ev_run *run, uint8_t sha256[EV_SHA256_LEN],
		      struct ev_error *err)
{
	run->doc = NULL;
	return ev_json_load(path, EV_RUN_FORMAT, flags, &run->doc, sha256, NULL, NULL, err);
}

const char *ev_run_string(const struct ev_run *run, const char *key)
{
	return json_string_value(json_object_get(run->doc, key));
}

int ev_run_repeat(const struct ev_run *run)
{
	return (int)json_integer_value(json_object_get(run->doc, "repeat"));
}

uint64_t ev_run_count(const struct ev_run *run, const char *which)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(run->doc, "counts"), which));
}

size_t ev_run_process_count(const struct ev_run *run)
{
	return json_array_size(json_object_get(run->doc, "processes"));
}

int ev_run_process(const struct ev_run *run, size_t i, struct ev_run_process *out)
{
	json_t *p = json_array_get(json_object_get(run->doc, "processes"), i);
	if (!json_is_object(p))
		return -1;
	json_t *pid = json_object_get(p, "pid"), *ticks = json_object_get(p, "start_ticks");
	json_t *argv = json_object_get(p, "argv"), *outputs = json_object_get(p, "outputs");
	*out = (struct ev_run_process){
		.role = json_string_value(json_object_get(p, "role")),
		.has_pid = json_is_integer(pid),
		.pid = json_integer_value(pid),
		.has_start_ticks = json_is_integer(ticks),
		.start_ticks = json_integer_value(ticks),
		.argv = json_is_array(argv) ? argv : NULL,
		.outputs = json_is_object(outputs) ? outputs : NULL,
	};
	return 0;
}

const char *ev_run_output(const struct ev_run *run, const char *role, const char *name)
{
	struct ev_run_process p;
	size_t n = ev_run_process_count(run);
	for (size_t i = 0; i < n; i++)
		if (ev_run_process(run, i, &p) == 0 && p.role && strcmp(p.role, role) == 0)
			return json_string_value(json_object_get(p.outputs, name));
	return NULL;
}

void ev_run_free(struct ev_run *run)
{
	json_decref(run->doc);
	run->doc = NULL;
}

static ev_status broken(const char *dir, const char *what, struct ev_error *err)
{
	return ev_error_set(err, EV_ERROR, "%s/%s would not be a run (%s); nothing was written", dir,
			    EV_RUN_FILENAME, what);
}

ev_status ev_run_publish(const char *dir, json_t *doc, struct ev_error *err)
{
	static const char *const strings[] = {"name", "arm", "cell", "result"};
	if (strcmp(json_string_value(json_object_get(doc, "format")) ?: "", EV_RUN_FORMAT) != 0)
		return broken(dir, "\"format\" is not " EV_RUN_FORMAT, err);
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		if (!json_is_string(json_object_get(doc, strings[i])))
			return broken(dir, strings[i], err);
	json_t *counts = json_object_get(doc, "counts"), *procs = json_object_get(doc, "processes");
	if (!json_is_integer(json_object_get(doc, "repeat")))
		return broken(dir, "repeat", err);
	if (!json_is_integer(json_object_get(counts, "warmups")) || !json_is_integer(json_object_get(counts, "measured")))
		return broken(dir, "counts", err);
	if (!json_is_array(procs))
		return broken(dir, "processes", err);
	size_t i;
	json_t *p;
	json_array_foreach(procs, i, p) {
		if (!json_is_string(json_object_get(p, "role")))
			return broken(dir, "a process without a role", err);
	}
	char path[4096];
	if (ev_path_join(path, sizeof path, dir, EV_RUN_FILENAME) != 0)
		return ev_error_set(err, EV_ERROR, "%s: path too long", dir);
	return ev_publish_json(path, doc, err);
}

/* One path run.json names, held beneath the run's directory. */
static ev_status check_one(const char *run_dir, const char *display, const char *field, const json_t *value,
			   struct ev_error *err)
{
	char where[4096 + 256];
	snprintf(where, sizeof where, "%s: %s", display, field);
	if (!json_is_string(value))
		return ev_error_set(err, EV_USAGE, "%s: expected a path (a string), found another JSON value; refused",
				    where);
	return ev_input_check_beneath(run_dir, json_string_value(value), where, NULL, err);
}

ev_status ev_run_check_paths(const struct ev_run *run, const char *run_dir, const char *display,
			     struct ev_error *err)
{
	char field[512];
	size_t i, k;
	json_t *proc, *obs, *out, *v;
	const char *key;
	ev_status st = EV_OK;
	json_array_foreach(json_object_get(run->doc, "processes"), i, proc) {
		json_object_foreach(json_object_get(proc, "outputs"), key, v) {
			snprintf(field, sizeof field, "processes[%zu].outputs.%.200s", i, key);
			if ((st = check_one(run_dir, display, field, v, err)) != EV_OK)
				return st;
		}
		static const char *const streams[] = {"stdout", "stderr"};
		for (int s = 0; s < 2; s++)
			if ((v = json_object_get(proc, streams[s]))) {
				snprintf(field, sizeof field, "processes[%zu].%s", i, streams[s]);
				if ((st = check_one(run_dir, display, field, v, err)) != EV_OK)
					return st;
			}
		if ((v = json_object_get(json_object_get(proc, "profile"), "perf_data"))) {
			snprintf(field, sizeof field, "processes[%zu].profile.perf_data", i);
			if ((st = check_one(run_dir, display, field, v, err)) != EV_OK)
				return st;
		}
	}
	json_array_foreach(json_object_get(run->doc, "observers"), i, obs)
		json_array_foreach(json_object_get(obs, "outputs"), k, out)
			if ((v = json_object_get(out, "stdout"))) {
				snprintf(field, sizeof field, "observers[%zu].outputs[%zu].stdout", i, k);
				if ((st = check_one(run_dir, display, field, v, err)) != EV_OK)
					return st;
			}
	if ((v = json_object_get(run->doc, "tcp_samples")))
		st = check_one(run_dir, display, "tcp_samples", v, err);
	return st;
}
