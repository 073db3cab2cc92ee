/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck_message: the rules on one message: its dictionary (fields,
 * values, groups, required and repeated tags), and the spec's fields and
 * groups of an order, each verdict on unchanged bytes reused from the
 * message before (fixcheck_parts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/path.h"
#include "lib/fix/fixcheck_parts.h"
#include "lib/fix/fixformat.h"

/* The entry of tag in layout: a dense table once the layout is in use,
 * the dictionary's hash table when memory for one is short. */
static const struct ev_fixdict_entry *entry_of(struct ev_fixcheck *c, uint32_t layout, uint32_t tag)
{
	const struct ev_fixdict *d = c->o.dict;
	if (tag > d->max_tag)
		return NULL;
	uint32_t *t = c->dense[layout];
	if (!t) {
		const struct ev_fixdict_layout *l = &d->layouts[layout];
		if (!(t = calloc(d->max_tag + 1, sizeof *t)))
			return ev_fixdict_entry(d, layout, tag);
		for (uint32_t i = l->first + l->count; i-- > l->first;) /* the first of a repeat wins */
			t[d->entries[i].tag] = i + 1;
		c->dense[layout] = t;
	}
	return t[tag] ? &d->entries[t[tag] - 1] : NULL;
}

enum region { HEADER = 1, BODY = 2, TRAILER = 3 };
#define REGION_SHIFT 30
#define ENTRY_MASK ((1u << REGION_SHIFT) - 1)

/* The table of a message type's top level: header, then body, then
 * trailer (a tag in the header is a header field wherever it stands). */
static const uint32_t *top_of(struct ev_fixcheck *c, const struct ev_fixdict_message *def)
{
	const struct ev_fixdict *d = c->o.dict;
	size_t m = (size_t)(def - d->messages);
	if (c->top[m])
		return c->top[m];
	uint32_t *t = calloc(d->max_tag + 1, sizeof *t);
	if (!t)
		return NULL;
	const uint32_t layouts[3] = {d->trailer, def->body, d->header};
	const enum region regions[3] = {TRAILER, BODY, HEADER};
	for (int k = 0; k < 3; k++) { /* later layouts overwrite: the header wins */
		const struct ev_fixdict_layout *l = &d->layouts[layouts[k]];
		for (uint32_t i = l->first + l->count; i-- > l->first;)
			t[d->entries[i].tag] = (uint32_t)regions[k] << REGION_SHIFT | (i + 1);
	}
	return c->top[m] = t;
}


static void note_changed(struct ev_fixcheck *c, uint32_t i)
{
	c->changed_fields[c->nchanged++] = i;
	switch (c->msg.f[i].tag) {
	case 35: c->changed_session |= CHANGED_MSGTYPE; break;
	case 43: c->changed_session |= CHANGED_POSSDUP; break;
	case 49: case 56: c->changed_session |= CHANGED_COMPID; break;
	default: break;
	}
}

/* c->same for a message split as the template was: its bits mark the
 * changed bytes, each inside a value; fields are in offset order. */
static void ev_fixcheck_same_from_diff(struct ev_fixcheck *c)
{
	const struct ev_fix_msg *m = &c->msg;
	memset(c->same, 1, m->n);
	c->nchanged = 0;
	c->changed_session = 0;
	for (size_t w = 0; w * 64 < m->len; w++)
		for (uint64_t bits = c->changed[w]; bits; bits &= bits - 1) {
			/* inside a value (ev_fix_rescan): the template names its field */
			uint32_t f = c->tpl.value_of[w * 64 + (size_t)__builtin_ctzll(bits)];
			if (c->same[f]) {
				c->same[f] = 0;
				note_changed(c, f);
			}
		}
}

/* c->same for a message of the template's tags whose values moved (one
 * grew or shrank): value by value. */
static void ev_fixcheck_same_by_fields(struct ev_fixcheck *c)
{
	const struct ev_fix_msg *m = &c->msg;
	c->nchanged = 0;
	c->changed_session = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct ev_fix_field *f = &m->f[i], *g = &c->tpl.f[i];
		c->same[i] = f->len == g->len &&
			     memcmp(m->data + f->off, c->tpl.bytes + g->off, f->len) == 0;
		if (!c->same[i])
			note_changed(c, i);
	}
}

/* Format and enum checks for one field against its definition. */
static void ev_fixcheck_value_rules(struct ev_fixcheck *c, uint32_t i, const struct ev_fixdict_field *def)
{
	const struct ev_fix_field *f = &c->msg.f[i];
	const char *v = ev_fix_value(&c->msg, i);
	c->ok[i] = 1;
	if (c->prev_ok[i] && c->same[i])
		return; /* the same bytes were found clean a message ago */
	c->ok[i] = 0;
	if (f->len == 0) {
		ev_fixcheck_report(c, EV_RULE_EMPTY_VALUE, f->tag, f->off, NULL, "a value", "nothing");
		return;
	}
	if (!def) {
		c->ok[i] = 1;
		return;
	}
	uint64_t secs;
	uint32_t ns;
	int well_formed = def->type == EV_FIX_T_UTCTIMESTAMP
				  ? ev_fix_utc_timestamp_memo(&c->times[i], v, f->len, &secs, &ns) == 0
				  : ev_fix_format_ok((enum ev_fix_type)def->type, v, f->len);
	if (!well_formed) {
		ev_fixcheck_report_field(c, EV_RULE_DATA_FORMAT, i, ev_fix_type_name((enum ev_fix_type)def->type));
	} else if (!ev_fixdict_enum_ok(c->o.dict, def, v, f->len)) {
		ev_fixcheck_report_field(c, EV_RULE_ENUM_VALUE, i, "one of the dictionary's values");
	} else {
		c->ok[i] = 1;
	}
}

/* Findings under the rules that judge a message's structure: they depend
 * only on its tags and its NumInGroup values. */
static uint64_t structural_findings(const struct ev_fixcheck *c)
{
	static const enum ev_fix_rule rules[] = {
		EV_RULE_UNKNOWN_MSGTYPE, EV_RULE_UNKNOWN_TAG, EV_RULE_TAG_NOT_IN_MESSAGE,
		EV_RULE_REQUIRED_FIELD, EV_RULE_REPEATED_TAG, EV_RULE_HEADER_ORDER,
		EV_RULE_GROUP_COUNT, EV_RULE_GROUP_DELIMITER, EV_RULE_GROUP_ORDER,
	};
	uint64_t n = 0;
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		n += c->st.by_rule[rules[i]];
	return n;
}

static void check_required(struct ev_fixcheck *c, const struct ev_fixdict_layout *l,
			   const uint32_t *stamp, uint32_t serial, const char *where)
{
	const struct ev_fixdict *d = c->o.dict;
	for (uint32_t k = l->req_first; k < l->req_first + l->req_count; k++) {
		uint32_t tag = d->required[k];
		if (tag < c->tracked && stamp[tag] == serial)
			continue;
		char want[96];
		const struct ev_fixdict_field *def = ev_fixdict_field(d, tag);
		snprintf(want, sizeof want, "%u (%s)%s", tag, def ? def->name : "?", where);
		ev_fixcheck_report(c, EV_RULE_REQUIRED_FIELD, tag, NO_OFFSET, NULL, want, "nothing");
	}
}

/* A repeating group whose NumInGroup is field i: its instances, their
 * members' order, values and required members. @return the index after it. */
static uint32_t check_group(struct ev_fixcheck *c, uint32_t i, const struct ev_fixdict_group *g,
			    int depth)
{
	const struct ev_fixdict *d = c->o.dict;
	const struct ev_fixdict_layout *l = &d->layouts[g->layout];
	uint64_t stated = 0;
	int count_ok = ev_fix_parse_u64(ev_fix_value(&c->msg, i), c->msg.f[i].len, &stated) == 0;
	if (c->groups < MEMO_GROUPS_MAX)
		c->group_pos[c->groups] = i;
	c->groups++;
	uint32_t count_at = i, instances = 0;
	long last = -1;
	uint32_t inst = 0;
	for (i = i + 1; i < c->msg.n;) {
		const struct ev_fix_field *f = &c->msg.f[i];
		const struct ev_fixdict_entry *e = entry_of(c, g->layout, f->tag);
		if (!e)
			break; /* the group ended */
		long pos = (long)(e - &d->entries[l->first]);
		if (f->tag == g->delimiter || instances == 0) {
			if (instances)
				check_required(c, l, c->inst_seen, inst, " in a group instance");
			if (f->tag != g->delimiter) {
				char want[64];
				snprintf(want, sizeof want, "%u first in the instance", g->delimiter);
				ev_fixcheck_report_field(c, EV_RULE_GROUP_DELIMITER, i, want);
			}
			instances++;
			if ((inst = ++c->instance) == 0) { /* wrapped: start the stamps again */
				memset(c->inst_seen, 0, c->tracked * sizeof *c->inst_seen);
				inst = c->instance = 1;
			}
			last = -1;
		}
		if (pos <= last) {
			char want[64];
			snprintf(want, sizeof want, "after tag %u", d->entries[l->first + (uint32_t)last].tag);
			ev_fixcheck_report_field(c, EV_RULE_GROUP_ORDER, i, want);
		}
		last = pos;
		if (f->tag < c->tracked)
			c->inst_seen[f->tag] = inst;
		ev_fixcheck_value_rules(c, i, ev_fixdict_field(d, f->tag));
		if (e->group >= 0 && depth < GROUP_DEPTH_MAX)
			i = check_group(c, i, &d->groups[e->group], depth + 1);
		else
			i++;
	}
	if (instances)
		check_required(c, l, c->inst_seen, inst, " in a group instance");
	if (count_ok && stated != instances) {
		char want[32];
		snprintf(want, sizeof want, "%u instances", instances);
		ev_fixcheck_report_field(c, EV_RULE_GROUP_COUNT, count_at, want);
	}
	return i;
}

/* The dictionary's rules for the whole message. */
static void ev_fixcheck_dictionary_rules(struct ev_fixcheck *c)
{
	const struct ev_fixdict *d = c->o.dict;
	struct ev_fix_msg *m = &c->msg;
	const struct ev_fixdict_message *def = NULL;
	const struct ev_fix_field *t = field_of(c, 35);
	if (t) {
		const char *type = m->data + t->off;
		def = c->last_def;
		if (!def || ev_fix_cmp_str(def->msgtype, type, t->len) != 0)
			def = c->last_def = ev_fixdict_message(d, type, t->len);
	}
	if (!def) {
		if (t)
			ev_fixcheck_report_field(c, EV_RULE_UNKNOWN_MSGTYPE, (uint32_t)(t - m->f),
				     "a MsgType of the dictionary");
		return;
	}
	/* Same message type, same tags, same NumInGroup values, clean last
	 * time: the structure is as it was, only the values need judging. (A
	 * MsgType edited in place, D to 0, keeps the tags but not the rules.) */
	int same_structure = c->shape && c->prev_struct_ok && def == c->prev_def &&
			     c->prev_groups <= MEMO_GROUPS_MAX;
	c->struct_def = def;
	for (uint32_t g = 0; same_structure && g < c->prev_groups; g++)
		same_structure = c->same[c->prev_group_pos[g]];
	if (same_structure && c->prev_all_ok) {
		/* what the loop below does, with only the changed values to judge */
		memset(c->ok, 1, m->n);
		for (uint32_t k = 0; k < c->nchanged; k++)
			ev_fixcheck_value_rules(c, c->changed_fields[k], ev_fixdict_field(d, m->f[c->changed_fields[k]].tag));
	} else if (same_structure) {
		for (uint32_t i = 0; i < m->n; i++) {
			if (c->prev_ok[i] && c->same[i]) { /* check_value would keep it: no call */
				c->ok[i] = 1;
				continue;
			}
			ev_fixcheck_value_rules(c, i, ev_fixdict_field(d, m->f[i].tag));
		}
	}
	if (same_structure) {
		c->groups = c->prev_groups;
		memcpy(c->group_pos, c->prev_group_pos, c->prev_groups * sizeof *c->group_pos);
		c->struct_ok = 1;
		return;
	}
	uint64_t before = structural_findings(c);
	int body_began = 0;
	if (++c->top_serial == 0) { /* wrapped: start the stamps again */
		memset(c->top_seen, 0, c->tracked * sizeof *c->top_seen);
		c->top_serial = 1;
	}
	const uint32_t *top = top_of(c, def);
	if (!top) {
		ev_fixcheck_report(c, EV_RULE_UNKNOWN_MSGTYPE, 35, NO_OFFSET,
		       "out of memory: the dictionary's rules were not applied", NULL, NULL);
		return;
	}
	for (uint32_t i = 0; i < m->n;) {
		const struct ev_fix_field *f = &m->f[i];
		const struct ev_fixdict_field *fdef = ev_fixdict_field(d, f->tag);
		const struct ev_fixdict_entry *e = NULL;
		if (!fdef) {
			ev_fixcheck_report_field(c, EV_RULE_UNKNOWN_TAG, i, "a tag of the dictionary");
			i++;
			continue;
		}
		uint32_t where = top[f->tag];
		if (where)
			e = &d->entries[(where & ENTRY_MASK) - 1];
		if (where >> REGION_SHIFT == HEADER) {
			if (body_began)
				ev_fixcheck_report_field(c, EV_RULE_HEADER_ORDER, i, "header fields before the body");
		} else if (where) {
			body_began = 1;
		} else {
			char want[96];
			snprintf(want, sizeof want, "a field of %s (%s)", def->name, def->msgtype);
			ev_fixcheck_report_field(c, EV_RULE_TAG_NOT_IN_MESSAGE, i, want);
		}
		/* Outside groups a tag may appear once; group members repeat per
		 * instance and are judged by check_group. */
		if (f->tag < c->tracked) {
			if (c->top_seen[f->tag] == c->top_serial)
				ev_fixcheck_report_field(c, EV_RULE_REPEATED_TAG, i, "once");
			c->top_seen[f->tag] = c->top_serial;
		}
		ev_fixcheck_value_rules(c, i, fdef);
		if (e && e->group >= 0)
			i = check_group(c, i, &d->groups[e->group], 0);
		else
			i++;
	}
	check_required(c, &d->layouts[d->header], c->seen, c->serial, "");
	check_required(c, &d->layouts[def->body], c->seen, c->serial, "");
	check_required(c, &d->layouts[d->trailer], c->seen, c->serial, "");
	c->struct_ok = structural_findings(c) == before;
}

/* Spec field k, unless its value is the one found right last time. */
static void check_spec_field(struct ev_fixcheck *c, size_t k)
{
	const struct ev_fixspec_field *sf = &c->o.spec->fields[k];
	const struct ev_fix_field *f = field_of(c, sf->tag);
	char want[EV_FIX_VALUE_MAX];
	c->spec_ok[k] = 1;
	if (f && c->prev_spec_ok[k] && c->same[f - c->msg.f])
		return;
	if (f && ev_fixspec_field_ok(sf, c->msg.data + f->off, f->len))
		return;
	int n = snprintf(want, sizeof want, "%u=", sf->tag);
	ev_fixspec_field_describe(sf, want + n, sizeof want - (size_t)n);
	if (f)
		ev_fixcheck_report_field(c, EV_RULE_SPEC_VALUE, (uint32_t)(f - c->msg.f), want);
	else
		ev_fixcheck_report(c, EV_RULE_SPEC_VALUE, sf->tag, NO_OFFSET, NULL, want, "nothing");
	c->spec_ok[k] = 0;
}

/* Spec group k, unless its count and members are those found right last
 * time. */
static void check_spec_group(struct ev_fixcheck *c, size_t k)
{
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fixspec_group *g = &s->groups[k];
	const struct ev_fix_field *f = field_of(c, g->tag);
	uint8_t *ok = &c->spec_ok[s->nfields + k];
	char want[EV_FIX_VALUE_MAX];
	if (f && c->prev_spec_ok[s->nfields + k]) {
		uint32_t at = (uint32_t)(f - c->msg.f);
		int same_group = at + g->nmembers < c->msg.n;
		for (uint32_t m = 0; same_group && m <= g->nmembers; m++)
			same_group = c->same[at + m];
		if (same_group) {
			*ok = 1;
			return;
		}
	}
	*ok = 0;
	uint64_t count;
	if (!f || ev_fix_parse_u64(c->msg.data + f->off, f->len, &count) != 0 || count != g->count) {
		snprintf(want, sizeof want, "%u=%u", g->tag, g->count);
		if (f)
			ev_fixcheck_report_field(c, EV_RULE_SPEC_GROUP, (uint32_t)(f - c->msg.f), want);
		else
			ev_fixcheck_report(c, EV_RULE_SPEC_GROUP, g->tag, NO_OFFSET, NULL, want, "nothing");
		return;
	}
	uint32_t at = (uint32_t)(f - c->msg.f);
	*ok = 1;
	for (size_t m = 0; m < g->nmembers; m++) {
		const struct ev_fixspec_field *sm = &g->members[m];
		uint32_t i = at + 1 + (uint32_t)m;
		const struct ev_fix_field *mf = i < c->msg.n ? &c->msg.f[i] : NULL;
		if (mf && mf->tag == sm->tag && ev_fixspec_field_ok(sm, c->msg.data + mf->off, mf->len))
			continue;
		*ok = 0;
		int n = snprintf(want, sizeof want, "instance %zu: %u=", m * g->count / g->nmembers + 1, sm->tag);
		ev_fixspec_field_describe(sm, want + n, sizeof want - (size_t)n);
		if (mf)
			ev_fixcheck_report_field(c, EV_RULE_SPEC_GROUP, i, want);
		else
			ev_fixcheck_report(c, EV_RULE_SPEC_GROUP, sm->tag, NO_OFFSET, NULL, want, "nothing");
		break; /* the first difference says it; the rest would follow from it */
	}
}

/* Which spec item stands at each field position of this message's
 * layout, while the layout holds (c->serial); none when two share one. */
static void ev_fixcheck_map_spec_items(struct ev_fixcheck *c)
{
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fix_msg *m = &c->msg;
	memset(c->spec_item_at, 0, m->n * sizeof *c->spec_item_at);
	c->spec_map_serial = 0;
	for (size_t k = 0; k < s->nfields + s->ngroups; k++) {
		uint32_t tag = k < s->nfields ? s->fields[k].tag : s->groups[k - s->nfields].tag;
		uint32_t span = k < s->nfields ? 0 : s->groups[k - s->nfields].nmembers;
		const struct ev_fix_field *f = field_of(c, tag);
		if (!f)
			continue;
		for (uint32_t at = (uint32_t)(f - m->f); at <= (uint32_t)(f - m->f) + span && at < m->n; at++) {
			if (c->spec_item_at[at])
				return;
			c->spec_item_at[at] = (uint16_t)(k + 1);
		}
	}
	c->spec_map_serial = c->serial;
}

/* The spec's fields and groups, for an order. */
static void ev_fixcheck_spec_rules(struct ev_fixcheck *c)
{
	const struct ev_fixspec *s = c->o.spec;
	size_t items = s->nfields + s->ngroups;
	if (c->shape && c->prev_spec_all_ok && c->spec_map_serial == c->serial) {
		/* all right last time, in the same places: only the items at
		 * the changed positions can be otherwise (in spec order, as the
		 * full pass reports them) */
		memset(c->spec_ok, 1, items);
		int any = 0;
		for (uint32_t k = 0; k < c->nchanged; k++) {
			uint16_t item = c->spec_item_at[c->changed_fields[k]];
			if (item)
				any = c->redo[item - 1] = 1;
		}
		for (size_t k = 0; any && k < items; k++)
			if (c->redo[k]) {
				c->redo[k] = 0;
				if (k < s->nfields)
					check_spec_field(c, k);
				else
					check_spec_group(c, k - s->nfields);
			}
		return;
	}
	for (size_t k = 0; k < s->nfields; k++)
		check_spec_field(c, k);
	for (size_t k = 0; k < s->ngroups; k++)
		check_spec_group(c, k);
	ev_fixcheck_map_spec_items(c);
}
