/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/receipt/receipt_read.h"

static const char *text(const json_t *r, const char *key)
{
	return json_string_value(json_object_get(r, key));
}

static const json_t *list(const json_t *r, const char *key)
{
	const json_t *v = json_object_get(r, key);
	return json_is_array(v) ? v : NULL;
}

const char *ev_receipt_kind(const json_t *r)
{
	return text(r, "kind");
}

const char *ev_receipt_tool_name(const json_t *r)
{
	return text(json_object_get(r, "tool"), "name");
}

void ev_receipt_command(const json_t *r, char *out, size_t cap)
{
	const json_t *argv = json_object_get(json_object_get(r, "invocation"), "argv");
	const char *tool = ev_receipt_tool_name(r) ?: "?";
	const char *sub = json_string_value(json_array_get(argv, 1));
	snprintf(out, cap, "%s%s%s", tool, sub ? " " : "", sub ?: "");
}

const char *ev_receipt_result(const json_t *r)
{
	return text(r, "result");
}

int ev_receipt_passed(const json_t *r)
{
	const char *result = ev_receipt_result(r);
	return result && strcmp(result, "pass") == 0;
}

const char *ev_receipt_host(const json_t *r)
{
	return text(r, "host");
}

const char *ev_receipt_finished(const json_t *r)
{
	return text(r, "finished");
}

const char *ev_receipt_comparable_digest(const json_t *r)
{
	return text(r, "comparable");
}

const json_t *ev_receipt_inputs(const json_t *r)
{
	return list(r, "inputs");
}

const json_t *ev_receipt_outputs(const json_t *r)
{
	return list(r, "outputs");
}

const json_t *ev_receipt_checks(const json_t *r)
{
	return list(r, "checks");
}

const char *ev_receipt_named_sha256(const json_t *entries, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n && strcmp(n, name) == 0)
			return json_string_value(json_object_get(e, "sha256"));
	}
	return NULL;
}

const char *ev_receipt_input_sha256(const json_t *r, const char *name)
{
	return ev_receipt_named_sha256(ev_receipt_inputs(r), name);
}

const char *ev_receipt_output_sha256(const json_t *r, const char *name)
{
	return ev_receipt_named_sha256(ev_receipt_outputs(r), name);
}

const json_t *ev_receipt_fact(const json_t *r, const char *name)
{
	return json_object_get(json_object_get(r, "facts"), name);
}

const json_t *ev_receipt_coverage(const json_t *r)
{
	return ev_receipt_fact(r, "coverage");
}
