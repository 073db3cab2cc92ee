/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"

#define SPEC_MAX_BYTES ((size_t)1 << 20)

int ev_fixspec_shape_match(const char *shape, const char *value, uint32_t len)
{
	uint32_t i = 0;
	for (; shape[i] && i < len; i++) {
		unsigned char c = (unsigned char)value[i];
		if (shape[i] == '#' ? c < '0' || c > '9' : shape[i] != '?' && shape[i] != (char)c)
			return 0;
	}
	return !shape[i] && i == len;
}

int ev_fixspec_field_ok(const struct ev_fixspec_field *f, const char *value, uint32_t len)
{
	if (f->value) {
		if (f->value_len != len)
			return 0;
		for (uint32_t i = 0; i < len; i++) /* values are short: no call */
			if (f->value[i] != value[i])
				return 0;
		return 1;
	}
	for (size_t i = 0; i < f->nshapes; i++)
		if (f->shape_lens[i] == len && ev_fixspec_shape_match(f->shapes[i], value, len))
			return 1;
	return 0;
}

void ev_fixspec_field_describe(const struct ev_fixspec_field *f, char *buf, size_t cap)
{
	if (f->value) {
		snprintf(buf, cap, "%s", f->value);
		return;
	}
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < f->nshapes && used < cap; i++) {
		int n = snprintf(buf + used, cap - used, "%sshape %s", i ? " or " : "", f->shapes[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static ev_status bad(struct ev_error *err, const char *path, const char *what)
{
	return ev_error_set(err, EV_REFUSED, "%s: %s", path, what);
}

/* Only these keys, so that a misspelt one is not silently ignored. */
static ev_status only_keys(const json_t *o, const char *const *allowed, const char *path,
			   const char *where, struct ev_error *err)
{
	const char *key = ev_json_unknown_key(o, allowed);
	return key ? ev_error_set(err, EV_REFUSED, "%s: %s: unknown key \"%s\"", path, where, key) : EV_OK;
}

static ev_status read_tag(const json_t *o, const char *path, const char *where, uint32_t *tag,
			  struct ev_error *err)
{
	json_t *t = json_object_get(o, "tag");
	if (!json_is_integer(t) || json_integer_value(t) < 1 || json_integer_value(t) > 999999999)
		return ev_error_set(err, EV_REFUSED, "%s: %s: \"tag\" must be a FIX tag number", path,
				    where);
	*tag = (uint32_t)json_integer_value(t);
	return EV_OK;
}

static ev_status read_field(const json_t *o, const char *path, const char *where,
			    struct ev_fixspec_field *f, struct ev_error *err)
{
	static const char *const keys[] = {"tag", "value", "shape", NULL};
	ev_status st;
	if (!json_is_object(o))
		return ev_error_set(err, EV_REFUSED, "%s: %s: expected {\"tag\": N, \"value\" or \"shape\": ...}",
				    path, where);
	if ((st = only_keys(o, keys, path, where, err)) || (st = read_tag(o, path, where, &f->tag, err)))
		return st;
	json_t *value = json_object_get(o, "value"), *shape = json_object_get(o, "shape");
	if (!!value == !!shape)
		return ev_error_set(err, EV_REFUSED, "%s: %s (tag %u): give exactly one of \"value\" and \"shape\"",
				    path, where, f->tag);
	if (value) {
		if (!json_is_string(value))
			return ev_error_set(err, EV_REFUSED, "%s: %s (tag %u): \"value\" must be a string",
					    path, where, f->tag);
		f->value = json_string_value(value);
		f->value_len = (uint32_t)json_string_length(value);
		return EV_OK;
	}
	size_t n = json_is_array(shape) ? json_array_size(shape) : 1;
	f->shapes = calloc(n ? n : 1, sizeof *f->shapes);
	f->shape_lens = calloc(n ? n : 1, sizeof *f->shape_lens);
	if (!f->shapes || !f->shape_lens)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_is_array(shape) ? json_array_get(shape, i) : shape;
		if (!json_is_string(s))
			return ev_error_set(err, EV_REFUSED, "%s: %s (tag %u): \"shape\" must be a string or a list of strings",
					    path, where, f->tag);
		f->shape_lens[f->nshapes] = (uint32_t)json_string_length(s);
		f->shapes[f->nshapes++] = json_string_value(s);
	}
	if (!f->nshapes)
		return ev_error_set(err, EV_REFUSED, "%s: %s (tag %u): an empty list of shapes", path,
				    where, f->tag);
	return EV_OK;
}

static ev_status read_counter(const json_t *doc, const char *key, const char *path,
			      uint32_t *tag, uint64_t *first, struct ev_error *err)
{
	static const char *const keys[] = {"tag", "first", NULL};
	json_t *o = json_object_get(doc, key);
	ev_status st;
	if (!json_is_object(o))
		return ev_error_set(err, EV_REFUSED, "%s: \"%s\" must be {\"tag\": N, \"first\": N}",
				    path, key);
	if ((st = only_keys(o, keys, path, key, err)) || (st = read_tag(o, path, key, tag, err)))
		return st;
	json_t *f = json_object_get(o, "first");
	if (!json_is_integer(f) || json_integer_value(f) < 0)
		return ev_error_set(err, EV_REFUSED, "%s: %s: \"first\" must be a number >= 0", path, key);
	*first = (uint64_t)json_integer_value(f);
	return EV_OK;
}

static ev_status read_msgtype(json_t *v, const char *path, const char *where,
			      char out[EV_FIXSPEC_MSGTYPE_MAX], struct ev_error *err)
{
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= EV_FIXSPEC_MSGTYPE_MAX)
		return ev_error_set(err, EV_REFUSED, "%s: %s must be a MsgType string", path, where);
	strcpy(out, json_string_value(v));
	return EV_OK;
}

static ev_status read_orders(struct ev_fixspec *s, const json_t *o, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"execution_reports", "unanswered", NULL};
	if (!o)
		return EV_OK;
	ev_status st;
	if (!json_is_object(o))
		return bad(err, path, "\"orders\" must be an object ({\"execution_reports\": true})");
	if ((st = only_keys(o, keys, path, "\"orders\"", err)))
		return st;
	const json_t *er = json_object_get(o, "execution_reports"), *un = json_object_get(o, "unanswered");
	if (!json_is_boolean(er))
		return bad(err, path, "\"orders\": \"execution_reports\" must be true or false");
	s->execution_reports = json_is_true(er);
	if (un && (!json_is_string(un) || (strcmp(json_string_value(un), "finding") != 0 &&
					  strcmp(json_string_value(un), "listed") != 0)))
		return bad(err, path, "\"orders\": \"unanswered\" must be \"finding\" or \"listed\"");
	s->unanswered_is_finding = un && strcmp(json_string_value(un), "finding") == 0;
	return EV_OK;
}

static ev_status parse(struct ev_fixspec *s, const char *path, struct ev_error *err)
{
	static const char *const keys[] = {"format", "name", "begin_string", "order_msgtype",
					   "other_msgtypes", "fields", "groups", "owner",
					   "sequence", "warmups", "measured", "orders", NULL};
	const json_t *doc = s->doc;
	ev_status st;
	if ((st = only_keys(doc, keys, path, "the spec", err)))
		return st;
	s->name = json_string_value(json_object_get(doc, "name"));
	s->begin_string = json_string_value(json_object_get(doc, "begin_string"));
	if (!s->begin_string)
		return bad(err, path, "\"begin_string\" must be a string (e.g. \"FIXT.1.1\")");
	if ((st = read_msgtype(json_object_get(doc, "order_msgtype"), path, "\"order_msgtype\"",
			       s->order_msgtype, err)))
		return st;
	json_t *other = json_object_get(doc, "other_msgtypes");
	if (other && !json_is_array(other))
		return bad(err, path, "\"other_msgtypes\" must be a list of MsgType strings");
	s->nother = other ? json_array_size(other) : 0;
	s->other_msgtypes = calloc(s->nother ? s->nother : 1, sizeof *s->other_msgtypes);
	if (!s->other_msgtypes)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < s->nother; i++)
		if ((st = read_msgtype(json_array_get(other, i), path, "\"other_msgtypes\"",
				       s->other_msgtypes[i], err)))
			return st;
	json_t *fields = json_object_get(doc, "fields");
	if (!json_is_array(fields))
		return bad(err, path, "\"fields\" must be a list of {\"tag\", \"value\" or \"shape\"}");
	s->nfields = json_array_size(fields);
	s->fields = calloc(s->nfields ? s->nfields : 1, sizeof *s->fields);
	if (!s->fields)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < s->nfields; i++)
		if ((st = read_field(json_array_get(fields, i), path, "fields", &s->fields[i], err)))
			return st;
	json_t *groups = json_object_get(doc, "groups");
	if (groups && !json_is_array(groups))
		return bad(err, path, "\"groups\" must be a list of {\"tag\", \"instances\"}");
	s->ngroups = groups ? json_array_size(groups) : 0;
	s->groups = calloc(s->ngroups ? s->ngroups : 1, sizeof *s->groups);
	if (!s->groups)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < s->ngroups; i++) {
		static const char *const gkeys[] = {"tag", "instances", NULL};
		struct ev_fixspec_group *g = &s->groups[i];
		json_t *o = json_array_get(groups, i), *inst = json_object_get(o, "instances");
		if ((st = only_keys(o, gkeys, path, "groups", err)) ||
		    (st = read_tag(o, path, "groups", &g->tag, err)))
			return st;
		if (!json_is_array(inst))
			return ev_error_set(err, EV_REFUSED, "%s: group %u: \"instances\" must be a list of lists",
					    path, g->tag);
		g->count = (uint32_t)json_array_size(inst);
		size_t total = 0;
		for (size_t k = 0; k < g->count; k++)
			total += json_array_size(json_array_get(inst, k));
		g->members = calloc(total ? total : 1, sizeof *g->members);
		if (!g->members)
			return ev_error_set(err, EV_ERROR, "out of memory");
		for (size_t k = 0; k < g->count; k++) {
			json_t *one = json_array_get(inst, k);
			if (!json_is_array(one) || json_array_size(one) == 0)
				return ev_error_set(err, EV_REFUSED, "%s: group %u: each instance must be a non-empty list",
						    path, g->tag);
			for (size_t m = 0; m < json_array_size(one); m++)
				if ((st = read_field(json_array_get(one, m), path, "group member",
						     &g->members[g->nmembers++], err)))
					return st;
		}
	}
	if ((st = read_counter(doc, "owner", path, &s->owner_tag, &s->owner_first, err)) ||
	    (st = read_counter(doc, "sequence", path, &s->sequence_tag, &s->sequence_first, err)))
		return st;
	json_t *w = json_object_get(doc, "warmups"), *m = json_object_get(doc, "measured");
	if (!json_is_integer(w) || !json_is_integer(m) || json_integer_value(w) < 0 ||
	    json_integer_value(m) < 0)
		return bad(err, path, "\"warmups\" and \"measured\" must be counts");
	s->warmups = (uint64_t)json_integer_value(w);
	s->measured = (uint64_t)json_integer_value(m);
	return read_orders(s, json_object_get(doc, "orders"), path, err);
}

ev_status ev_fixspec_load(const char *path, struct ev_fixspec *spec,
			  char sha256_hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	uint8_t digest[EV_SHA256_LEN];
	memset(spec, 0, sizeof *spec);
	ev_status st = ev_json_load(path, EV_FIXSPEC_FORMAT, 0, &spec->doc, digest, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	if (sha256_hex)
		ev_sha256_hex(digest, sha256_hex);
	if ((st = parse(spec, path, err)) != EV_OK)
		ev_fixspec_free(spec);
	return st;
}

void ev_fixspec_free(struct ev_fixspec *spec)
{
	for (size_t i = 0; spec->fields && i < spec->nfields; i++) {
		free(spec->fields[i].shapes);
		free(spec->fields[i].shape_lens);
	}
	for (size_t i = 0; spec->groups && i < spec->ngroups; i++) {
		for (size_t m = 0; m < spec->groups[i].nmembers; m++) {
			free(spec->groups[i].members[m].shapes);
			free(spec->groups[i].members[m].shape_lens);
		}
		free(spec->groups[i].members);
	}
	free(spec->fields);
	free(spec->groups);
	free(spec->other_msgtypes);
	json_decref(spec->doc);
	memset(spec, 0, sizeof *spec);
}
