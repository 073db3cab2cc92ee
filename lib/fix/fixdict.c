/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixdict.h"
#include "lib/core/grow.h"
#include "lib/fix/fixmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define MAX_NESTING 32  /* components within components: more is a cycle */
#define TAG_LIMIT 1000000

struct name_tag {
	const char *name;
	uint32_t tag;
};

struct component {
	const char *name;
	xmlNodePtr node;
	const char *file;
};

/* A growing array of T: push returns the new element's index. */
#define VEC(T)                                                                            \
	struct {                                                                          \
		T *v;                                                                     \
		size_t n, cap;                                                            \
	}

struct builder {
	struct ev_fixdict *d;
	struct ev_error *err;
	const char *file;
	VEC(struct name_tag) names;
	VEC(struct component) comps;
	VEC(struct ev_fixdict_entry) entries;
	VEC(struct ev_fixdict_layout) layouts;
	VEC(struct ev_fixdict_group) groups;
	VEC(struct ev_fixdict_message) messages;
	VEC(char *) strings;
	/* per tag while loading: its enum values, and whether it is LENGTH */
	VEC(const char *) *values;
	uint8_t *is_length;
	int oom;
};

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	return ev_grow_array(v, cap, n + 1, size);
}

#define PUSH(b, vec, item)                                                                \
	(grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof *(vec).v) != 0                \
		 ? ((b)->oom = 1, (size_t)-1)                                              \
		 : ((vec).v[(vec).n] = (item), (vec).n++))

/* A string the dictionary owns. */
static const char *keep(struct builder *b, const char *s)
{
	char *copy = strdup(s ? s : "");
	if (!copy || PUSH(b, b->strings, copy) == (size_t)-1) {
		free(copy);
		b->oom = 1;
		return "";
	}
	return copy;
}

/* An attribute's value as a string the dictionary owns, or NULL. */
static const char *attr(struct builder *b, xmlNodePtr node, const char *name)
{
	xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
	if (!v)
		return NULL;
	const char *s = keep(b, (const char *)v);
	xmlFree(v);
	return s;
}

static int is(xmlNodePtr node, const char *name)
{
	return node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr c = parent->children; c; c = c->next)
		if (is(c, name))
			return c;
	return NULL;
}

static ev_status refuse(struct builder *b, const char *fmt, const char *what)
{
	return ev_error_set(b->err, EV_REFUSED, "%s: %s%s", b->file, fmt, what ? what : "");
}

static uint8_t type_of(const char *t, uint8_t *is_length)
{
	static const struct {
		const char *name;
		uint8_t type;
	} types[] = {
		{"AMT", EV_FIX_T_FLOAT},         {"BOOLEAN", EV_FIX_T_BOOLEAN},
		{"CHAR", EV_FIX_T_CHAR},         {"DATA", EV_FIX_T_DATA},
		{"DAYOFMONTH", EV_FIX_T_INT},    {"FLOAT", EV_FIX_T_FLOAT},
		{"INT", EV_FIX_T_INT},           {"LENGTH", EV_FIX_T_UINT},
		{"LOCALMKTDATE", EV_FIX_T_UTCDATEONLY}, {"MONTHYEAR", EV_FIX_T_MONTHYEAR},
		{"MULTIPLECHARVALUE", EV_FIX_T_MULTIPLECHAR},
		{"MULTIPLESTRINGVALUE", EV_FIX_T_MULTIPLESTRING},
		{"MULTIPLEVALUESTRING", EV_FIX_T_MULTIPLESTRING},
		{"NUMINGROUP", EV_FIX_T_UINT},   {"PERCENTAGE", EV_FIX_T_FLOAT},
		{"PRICE", EV_FIX_T_FLOAT},       {"PRICEOFFSET", EV_FIX_T_FLOAT},
		{"QTY", EV_FIX_T_FLOAT},         {"SEQNUM", EV_FIX_T_UINT},
		{"TAGNUM", EV_FIX_T_INT},        {"TZTIMEONLY", EV_FIX_T_TZTIMEONLY},
		{"TZTIMESTAMP", EV_FIX_T_TZTIMESTAMP}, {"UTCDATE", EV_FIX_T_UTCDATEONLY},
		{"UTCDATEONLY", EV_FIX_T_UTCDATEONLY}, {"UTCTIMEONLY", EV_FIX_T_UTCTIMEONLY},
		{"UTCTIMESTAMP", EV_FIX_T_UTCTIMESTAMP},
	};
	*is_length = t && strcmp(t, "LENGTH") == 0;
	for (size_t i = 0; t && i < sizeof types / sizeof *types; i++)
		if (strcmp(t, types[i].name) == 0)
			return types[i].type;
	return EV_FIX_T_STRING; /* STRING, CURRENCY, COUNTRY, EXCHANGE, LANGUAGE, ... */
}

static ev_status read_fields(struct builder *b, xmlNodePtr fields)
{
	struct ev_fixdict *d = b->d;
	for (xmlNodePtr f = fields->children; f; f = f->next) {
		if (!is(f, "field"))
			continue;
		const char *number = attr(b, f, "number"), *name = attr(b, f, "name");
		const char *type = attr(b, f, "type");
		char *end;
		unsigned long tag = number ? strtoul(number, &end, 10) : 0;
		if (!number || !name || *end || tag == 0 || tag >= TAG_LIMIT)
			return refuse(b, "a <field> without a usable number and name: ", name);
		if (tag > d->max_tag)
			continue; /* sized in a first pass; cannot happen */
		struct ev_fixdict_field *def = &d->fields[tag];
		if (!def->name) {
			def->name = name;
			def->type = type_of(type, &b->is_length[tag]);
			PUSH(b, b->names, ((struct name_tag){name, (uint32_t)tag}));
		}
		for (xmlNodePtr v = f->children; v; v = v->next)
			if (is(v, "value")) {
				const char *e = attr(b, v, "enum");
				if (e)
					PUSH(b, b->values[tag], e);
			}
	}
	return b->oom ? ev_error_set(b->err, EV_ERROR, "out of memory") : EV_OK;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct name_tag *)x)->name, ((const struct name_tag *)y)->name);
}

static long tag_of(struct builder *b, const char *name)
{
	struct name_tag key = {name, 0};
	struct name_tag *hit = name ? bsearch(&key, b->names.v, b->names.n, sizeof key, by_name) : NULL;
	return hit ? (long)hit->tag : -1;
}

static const struct component *component_of(struct builder *b, const char *name)
{
	for (size_t i = 0; name && i < b->comps.n; i++)
		if (strcmp(b->comps.v[i].name, name) == 0)
			return &b->comps.v[i];
	return NULL;
}

typedef VEC(struct ev_fixdict_entry) entry_list;

static ev_status build_layout(struct builder *b, xmlNodePtr parent, uint32_t *layout);

/* Append parent's members to list: fields, groups (each a layout of its
 * own), components expanded. required: the members' required flags count. */
static ev_status add_members(struct builder *b, xmlNodePtr parent, int required, int depth,
			     entry_list *list)
{
	if (!parent) /* no <trailer>: an empty layout */
		return EV_OK;
	if (depth > MAX_NESTING)
		return refuse(b, "components nest too deep (a cycle?) at ",
			      (const char *)parent->name);
	for (xmlNodePtr c = parent->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		const char *name = attr(b, c, "name"), *req = attr(b, c, "required");
		int r = required && req && (req[0] == 'Y' || req[0] == 'y');
		if (is(c, "component")) {
			const struct component *comp = component_of(b, name);
			if (!comp)
				return refuse(b, "uses a component it does not define: ", name);
			ev_status st = add_members(b, comp->node, r, depth + 1, list);
			if (st != EV_OK)
				return st;
			continue;
		}
		if (!is(c, "field") && !is(c, "group"))
			continue;
		long tag = tag_of(b, name);
		if (tag < 0)
			return refuse(b, "uses a field it does not define: ", name);
		struct ev_fixdict_entry e = {(uint32_t)tag, (uint8_t)r, -1};
		if (is(c, "group")) {
			uint32_t layout;
			ev_status st = build_layout(b, c, &layout);
			if (st != EV_OK)
				return st;
			const struct ev_fixdict_layout *l = &b->layouts.v[layout];
			if (l->count == 0)
				return refuse(b, "a group without members: ", name);
			struct ev_fixdict_group g = {(uint32_t)tag, b->entries.v[l->first].tag, layout};
			e.group = (int32_t)PUSH(b, b->groups, g);
		}
		PUSH(b, (*list), e);
	}
	return b->oom ? ev_error_set(b->err, EV_ERROR, "out of memory") : EV_OK;
}

/* A layout of parent's members (none for NULL), its entries contiguous. */
static ev_status build_layout(struct builder *b, xmlNodePtr parent, uint32_t *layout)
{
	entry_list list = {0};
	ev_status st = add_members(b, parent, 1, 0, &list);
	if (st == EV_OK) {
		struct ev_fixdict_layout l = {(uint32_t)b->entries.n, (uint32_t)list.n, 0, 0};
		for (size_t i = 0; i < list.n; i++)
			PUSH(b, b->entries, list.v[i]);
		*layout = (uint32_t)PUSH(b, b->layouts, l);
		if (b->oom)
			st = ev_error_set(b->err, EV_ERROR, "out of memory");
	}
	free(list.v);
	return st;
}

static int by_msgtype(const void *x, const void *y)
{
	return strcmp(((const struct ev_fixdict_message *)x)->msgtype,
		      ((const struct ev_fixdict_message *)y)->msgtype);
}

static int by_string(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static uint64_t slot_key(uint32_t layout, uint32_t tag)
{
	return ((uint64_t)layout + 1) << 32 | tag;
}

static size_t slot_hash(uint64_t key, size_t mask)
{
	key *= 0x9E3779B97F4A7C15ull;
	return (size_t)(key >> 32) & mask;
}

static ev_status index_entries(struct builder *b)
{
	struct ev_fixdict *d = b->d;
	size_t n = 16;
	while (n < d->nentries * 2)
		n *= 2;
	d->nslots = n;
	d->slot_keys = calloc(n, sizeof *d->slot_keys);
	d->slot_entries = calloc(n, sizeof *d->slot_entries);
	if (!d->slot_keys || !d->slot_entries)
		return ev_error_set(b->err, EV_ERROR, "out of memory");
	for (size_t l = 0; l < d->nlayouts; l++) {
		const struct ev_fixdict_layout *lay = &d->layouts[l];
		for (uint32_t i = lay->first; i < lay->first + lay->count; i++) {
			uint64_t key = slot_key((uint32_t)l, d->entries[i].tag);
			size_t s = slot_hash(key, n - 1);
			while (d->slot_keys[s] && d->slot_keys[s] != key)
				s = (s + 1) & (n - 1);
			if (!d->slot_keys[s]) { /* a repeated tag in one layout: the first counts */
				d->slot_keys[s] = key;
				d->slot_entries[s] = i;
			}
		}
	}
	return EV_OK;
}

const struct ev_fixdict_entry *ev_fixdict_entry(const struct ev_fixdict *d, uint32_t layout,
						uint32_t tag)
{
	uint64_t key = slot_key(layout, tag);
	size_t mask = d->nslots - 1;
	for (size_t s = slot_hash(key, mask); d->slot_keys[s]; s = (s + 1) & mask)
		if (d->slot_keys[s] == key)
			return &d->entries[d->slot_entries[s]];
	return NULL;
}

const struct ev_fixdict_message *ev_fixdict_message(const struct ev_fixdict *d, const char *type,
						    uint32_t len)
{
	size_t lo = 0, hi = d->nmessages;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = ev_fix_cmp_str(d->messages[mid].msgtype, type, len);
		if (c == 0)
			return &d->messages[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int one_enum(const struct ev_fixdict *d, const struct ev_fixdict_field *f, const char *v,
		    uint32_t len)
{
	size_t lo = f->enum_first, hi = f->enum_first + f->enum_count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = ev_fix_cmp_str(d->enums[mid], v, len);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int ev_fixdict_enum_ok(const struct ev_fixdict *d, const struct ev_fixdict_field *f,
		       const char *value, uint32_t len)
{
	if (f->enum_count == 0)
		return 1;
	if (f->charmap >= 0) {
		unsigned char ch = (unsigned char)value[0];
		return len == 1 && (d->charmaps[f->charmap][ch >> 6] >> (ch & 63) & 1);
	}
	if (f->type != EV_FIX_T_MULTIPLECHAR && f->type != EV_FIX_T_MULTIPLESTRING)
		return one_enum(d, f, value, len);
	for (uint32_t i = 0; i < len;) {
		uint32_t j = i;
		while (j < len && value[j] != ' ')
			j++;
		if (j == i || !one_enum(d, f, value + i, j - i))
			return 0;
		i = j + 1;
	}
	return 1;
}

/* The highest field number in a document, to size the tables. */
static unsigned long highest_tag(xmlNodePtr root)
{
	unsigned long max = 0;
	xmlNodePtr fields = child(root, "fields");
	for (xmlNodePtr f = fields ? fields->children : NULL; f; f = f->next) {
		if (!is(f, "field"))
			continue;
		xmlChar *n = xmlGetProp(f, (const xmlChar *)"number");
		unsigned long v = n ? strtoul((const char *)n, NULL, 10) : 0;
		xmlFree(n);
		if (v > max && v < TAG_LIMIT)
			max = v;
	}
	return max;
}

/* Kept whole: the dictionaries compiled into one arena in the order the
 * tables depend on each other (fields, components, messages, enums,
 * one-character sets); each step is a loop the next one reads. */
static ev_status compile(struct builder *b, xmlDocPtr *docs, char *const *paths, size_t n)
{
	struct ev_fixdict *d = b->d;
	ev_status st;
	unsigned long max = 10;
	for (size_t i = 0; i < n; i++) {
		unsigned long m = highest_tag(xmlDocGetRootElement(docs[i]));
		if (m > max)
			max = m;
	}
	d->max_tag = (uint32_t)max;
	d->fields = calloc(max + 1, sizeof *d->fields);
	d->data_length_tag = calloc(max + 1, sizeof *d->data_length_tag);
	b->values = calloc(max + 1, sizeof *b->values);
	b->is_length = calloc(max + 1, 1);
	if (!d->fields || !d->data_length_tag || !b->values || !b->is_length)
		return ev_error_set(b->err, EV_ERROR, "out of memory");

	for (size_t i = 0; i < n; i++) {
		b->file = paths[i];
		xmlNodePtr root = xmlDocGetRootElement(docs[i]), fields = child(root, "fields");
		if (!fields)
			return refuse(b, "has no <fields>", NULL);
		if ((st = read_fields(b, fields)) != EV_OK)
			return st;
		xmlNodePtr comps = child(root, "components");
		for (xmlNodePtr c = comps ? comps->children : NULL; c; c = c->next)
			if (is(c, "component"))
				PUSH(b, b->comps, ((struct component){attr(b, c, "name"), c, paths[i]}));
	}
	if (b->names.n > 1)
		qsort(b->names.v, b->names.n, sizeof *b->names.v, by_name);

	int have_header = 0;
	for (size_t i = 0; i < n; i++) {
		b->file = paths[i];
		xmlNodePtr root = xmlDocGetRootElement(docs[i]);
		xmlNodePtr header = child(root, "header"), trailer = child(root, "trailer");
		if (!have_header && header && header->children && child(header, "field")) {
			if ((st = build_layout(b, header, &d->header)) != EV_OK ||
			    (st = build_layout(b, trailer, &d->trailer)) != EV_OK)
				return st;
			have_header = 1;
		}
		xmlNodePtr msgs = child(root, "messages");
		for (xmlNodePtr m = msgs ? msgs->children : NULL; m; m = m->next) {
			if (!is(m, "message"))
				continue;
			struct ev_fixdict_message msg = {{0}, attr(b, m, "name"), 0};
			const char *type = attr(b, m, "msgtype");
			if (!type || !*type || strlen(type) >= sizeof msg.msgtype)
				return refuse(b, "a <message> without a usable msgtype: ", msg.name);
			strcpy(msg.msgtype, type);
			if ((st = build_layout(b, m, &msg.body)) != EV_OK)
				return st;
			PUSH(b, b->messages, msg);
		}
	}
	if (!have_header)
		return ev_error_set(b->err, EV_REFUSED, "%s: no dictionary given has a <header>",
				    paths[0]);
	if (b->oom)
		return ev_error_set(b->err, EV_ERROR, "out of memory");

	/* Enums: one sorted, de-duplicated run per field. */
	size_t total = 0;
	for (size_t t = 0; t <= max; t++)
		total += b->values[t].n;
	d->enums = malloc((total ? total : 1) * sizeof *d->enums);
	if (!d->enums)
		return ev_error_set(b->err, EV_ERROR, "out of memory");
	for (size_t t = 0; t <= max; t++) {
		if (!b->values[t].n)
			continue;
		qsort(b->values[t].v, b->values[t].n, sizeof *b->values[t].v, by_string);
		d->fields[t].enum_first = (uint32_t)d->nenums;
		for (size_t k = 0; k < b->values[t].n; k++)
			if (k == 0 || strcmp(b->values[t].v[k], b->values[t].v[k - 1]) != 0)
				d->enums[d->nenums++] = b->values[t].v[k];
		d->fields[t].enum_count = (uint32_t)(d->nenums - d->fields[t].enum_first);
	}

	/* Fields whose values are all one character get a 256-bit set. */
	d->charmaps = calloc(max + 1, sizeof *d->charmaps);
	if (!d->charmaps)
		return ev_error_set(b->err, EV_ERROR, "out of memory");
	for (size_t t = 0; t <= max; t++) {
		struct ev_fixdict_field *f = &d->fields[t];
		f->charmap = -1;
		int single = f->enum_count > 0 && f->type != EV_FIX_T_MULTIPLESTRING &&
			     f->type != EV_FIX_T_MULTIPLECHAR;
		for (uint32_t k = 0; single && k < f->enum_count; k++)
			single = d->enums[f->enum_first + k][0] && !d->enums[f->enum_first + k][1];
		if (!single)
			continue;
		f->charmap = (int32_t)d->ncharmaps;
		for (uint32_t k = 0; k < f->enum_count; k++) {
			unsigned char ch = (unsigned char)d->enums[f->enum_first + k][0];
			d->charmaps[d->ncharmaps][ch >> 6] |= (uint64_t)1 << (ch & 63);
		}
		d->ncharmaps++;
	}

	/* Messages sorted, later duplicates dropped (the first file wins). */
	if (b->messages.n > 1)
		qsort(b->messages.v, b->messages.n, sizeof *b->messages.v, by_msgtype);
	size_t kept = 0;
	for (size_t i = 0; i < b->messages.n; i++)
		if (kept == 0 || strcmp(b->messages.v[i].msgtype, b->messages.v[kept - 1].msgtype) != 0)
			b->messages.v[kept++] = b->messages.v[i];
	b->messages.n = kept;

	d->entries = b->entries.v;
	d->nentries = b->entries.n;
	d->layouts = b->layouts.v;
	d->nlayouts = b->layouts.n;
	d->groups = b->groups.v;
	d->ngroups = b->groups.n;
	d->messages = b->messages.v;
	d->nmessages = b->messages.n;
	b->entries.v = NULL;
	b->layouts.v = NULL;
	b->groups.v = NULL;
	b->messages.v = NULL;

	/* A DATA field is sized by the LENGTH field right before it. */
	for (size_t l = 0; l < d->nlayouts; l++)
		for (uint32_t i = d->layouts[l].first + 1; i < d->layouts[l].first + d->layouts[l].count; i++) {
			uint32_t t = d->entries[i].tag, prev = d->entries[i - 1].tag;
			if (d->fields[t].type == EV_FIX_T_DATA && b->is_length[prev])
				d->data_length_tag[t] = prev;
		}
	d->data_tags = (struct ev_fix_data_tags){d->data_length_tag, d->max_tag};

	/* Each layout's required tags in one run, so a check walks only them. */
	size_t nreq = 0;
	for (size_t i = 0; i < d->nentries; i++)
		nreq += d->entries[i].required;
	d->required = malloc((nreq ? nreq : 1) * sizeof *d->required);
	if (!d->required)
		return ev_error_set(b->err, EV_ERROR, "out of memory");
	nreq = 0;
	for (size_t l = 0; l < d->nlayouts; l++) {
		struct ev_fixdict_layout *lay = &d->layouts[l];
		lay->req_first = (uint32_t)nreq;
		for (uint32_t i = lay->first; i < lay->first + lay->count; i++)
			if (d->entries[i].required)
				d->required[nreq++] = d->entries[i].tag;
		lay->req_count = (uint32_t)nreq - lay->req_first;
	}
	return index_entries(b);
}

ev_status ev_fixdict_load(struct ev_fixdict **out, char *const *paths, size_t n,
			  struct ev_error *err)
{
	struct builder b = {.err = err};
	xmlDocPtr *docs = calloc(n ? n : 1, sizeof *docs);
	ev_status st = EV_OK;
	b.d = calloc(1, sizeof *b.d);
	if (!b.d || !docs) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	if (n == 0) {
		st = ev_error_set(err, EV_USAGE, "no dictionary given");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		/* No network, no entities expanded, no DTD loaded: a dictionary
		 * is data, and may come from anyone. */
		docs[i] = xmlReadFile(paths[i], NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
							     XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS);
		xmlNodePtr root = docs[i] ? xmlDocGetRootElement(docs[i]) : NULL;
		if (!root || !is(root, "fix")) {
			const xmlError *x = xmlGetLastError();
			st = ev_error_set(err, docs[i] ? EV_REFUSED : EV_ERROR,
					  "%s: not a QuickFIX data dictionary (%s)", paths[i],
					  !docs[i] && x && x->message ? x->message : "no <fix> root element");
			/* libxml2 ends its messages with a newline */
			size_t len = strlen(err->text);
			if (len && err->text[len - 1] == '\n')
				err->text[len - 1] = '\0';
			goto out;
		}
		xmlChar *type = xmlGetProp(root, (const xmlChar *)"type"), *major = xmlGetProp(root, (const xmlChar *)"major"),
			*minor = xmlGetProp(root, (const xmlChar *)"minor"),
			*sp = xmlGetProp(root, (const xmlChar *)"servicepack");
		if (type && major && minor && b.d->nversions < EV_FIXDICT_MAX_VERSIONS) {
			int pack = sp ? atoi((const char *)sp) : 0;
			char packs[8] = "";
			if (pack > 0 && pack < 100)
				snprintf(packs, sizeof packs, "SP%d", pack);
			snprintf(b.d->versions[b.d->nversions++], sizeof b.d->versions[0], "%.6s.%.3s.%.3s%.4s",
				 (const char *)type, (const char *)major, (const char *)minor, packs);
		}
		xmlFree(type), xmlFree(major), xmlFree(minor), xmlFree(sp);
	}
	st = compile(&b, docs, paths, n);
out:
	for (size_t i = 0; docs && i < n; i++)
		xmlFreeDoc(docs[i]);
	free(docs);
	if (b.values)
		for (size_t t = 0; t <= b.d->max_tag; t++)
			free(b.values[t].v);
	free(b.values);
	free(b.is_length);
	free(b.names.v);
	free(b.comps.v);
	free(b.entries.v);
	free(b.layouts.v);
	free(b.groups.v);
	free(b.messages.v);
	if (b.d) {
		b.d->strings = b.strings.v;
		b.d->nstrings = b.strings.n;
	}
	if (st != EV_OK) {
		ev_fixdict_free(b.d);
		return st;
	}
	*out = b.d;
	return EV_OK;
}

int ev_fixdict_has_version(const struct ev_fixdict *d, const char *version)
{
	for (size_t i = 0; i < d->nversions; i++)
		if (strcmp(d->versions[i], version) == 0)
			return 1;
	return 0;
}

void ev_fixdict_free(struct ev_fixdict *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	free(d->strings);
	free(d->fields);
	free(d->enums);
	free(d->entries);
	free(d->layouts);
	free(d->groups);
	free(d->messages);
	free(d->slot_keys);
	free(d->slot_entries);
	free(d->data_length_tag);
	free(d->required);
	free(d->charmaps);
	free(d);
}

const char *ev_fix_appl_version(const char *id)
{
	static const char *const names[] = {"", "", "FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4",
					    "FIX.5.0", "FIX.5.0SP1", "FIX.5.0SP2"};
	int n = id[0] && !id[1] ? id[0] - '0' : -1;
	return n >= 2 && n <= 9 ? names[n] : NULL;
}

const char *ev_fixdict_shipped_file(const char *version)
{
	static const struct {
		const char *version, *file;
	} shipped[] = {
		{"FIX.4.4", "FIX44.xml"}, {"FIX.5.0", "FIX50.xml"}, {"FIX.5.0SP2", "FIX50SP2.xml"}, {"FIXT.1.1", "FIXT11.xml"},
	};
	for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
		if (strcmp(shipped[i].version, version) == 0)
			return shipped[i].file;
	return NULL;
}

void ev_fix_versions_of(const char *msg, size_t len, char begin[24], char appl[24])
{
	char id[8];
	ev_fix_tag_text(msg, len, "8", begin, 24);
	appl[0] = 0;
	if (strcmp(begin, "FIXT.1.1") != 0)
		return;
	ev_fix_tag_text(msg, len, "1128", id, sizeof id);
	if (!id[0])
		ev_fix_tag_text(msg, len, "1137", id, sizeof id);
	const char *v = ev_fix_appl_version(id);
	if (v)
		snprintf(appl, 24, "%s", v);
}
