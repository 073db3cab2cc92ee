/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/selection.h"

#include <string.h>

#include "lib/core/json.h"
#include "lib/core/publish.h"

ev_status ev_selection_load(const char *path, struct ev_selection *sel, struct ev_error *err)
{
	json_t *doc = NULL;
	memset(sel, 0, sizeof *sel);
	ev_status st = ev_json_load(path, EV_SELECTION_FORMAT, EV_JSON_REQUIRE_CANONICAL, &doc, NULL,
				    NULL, NULL, err);
	if (st != EV_OK)
		return st;
	const char *hex;
	if ((st = ev_json_get_string(doc, "seal_sha256", path, &hex, err)) != EV_OK)
		goto out;
	if (!ev_sha256_hex_valid(hex)) {
		st = ev_error_set(err, EV_REFUSED, "%s: seal_sha256 must be 64 lower-case hex digits",
				  path);
		goto out;
	}
	memcpy(sel->seal_sha256, hex, EV_SHA256_HEX_LEN + 1);
	st = ev_seal_from_json(doc, path, EV_SEAL_SUBSET, &sel->members, err);
out:
	json_decref(doc);
	return st;
}

void ev_selection_free(struct ev_selection *sel)
{
	ev_seal_free(&sel->members);
}

ev_status ev_selection_publish(const char *path, const struct ev_seal *subset, const char *seal_sha256,
			       const char *const *includes, size_t nincludes, struct ev_error *err)
{
	json_t *doc = ev_seal_to_json(subset), *list = json_array();
	ev_status st;
	for (size_t p = 0; list && p < nincludes; p++)
		json_array_append_new(list, json_string(includes[p]));
	if (!doc || !list || json_object_set_new(doc, "format", json_string(EV_SELECTION_FORMAT)) ||
	    json_object_set_new(doc, "seal_sha256", json_string(seal_sha256)) ||
	    json_object_set(doc, "includes", list))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	else
		st = ev_publish_json(path, doc, err);
	json_decref(list);
	json_decref(doc);
	return st;
}
