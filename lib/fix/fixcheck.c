#include "config.h"
#include "lib/fix/fixcheck.h"
#include "lib/fix/fixprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fix/fixformat.h"
#include "lib/fix/fixmsg.h"
#include "lib/fix/fixsession.h"
#include "lib/core/path.h"

#define TRACKED_TAGS_MIN 10000 /* tags tracked per message without a dictionary */
#define COMPID_MAX 64
#define NO_OFFSET UINT32_MAX    /* a finding about the record, not a field */
#define GROUP_DEPTH_MAX 16
#define MEMO_GROUPS_MAX 64
/* Orders held above an open gap. A gap open for this many orders is not
 * being filled (an engine resends at once): the oldest are judged then,
 * so that a journal with one lost record costs no more memory than this. */
#define HELD_ORDERS_MAX 32768

struct ev_fixcheck {
	struct ev_fixcheck_opts o;
	uint32_t sender_compid_len, begin_len, order_len; /* of those in o, measured once */
	ev_fix_finding_fn fn;
	void *ctx;
	struct ev_fixcheck_stats st;
	const struct ev_fix_record *rec; /* the record being checked */
	/* per message: tag -> the message's serial when seen, its first position */
	uint32_t tracked, serial, *seen, *first_pos;
	/* per group instance: the same; top-level fields of the dictionary pass */
	uint32_t instance, *inst_seen, top_serial, *top_seen;
	int stamps_are_prev; /* seen and first_pos describe the previous message */
	struct ev_fix_msg msg;
	/* tag -> entry index + 1 for each layout used so far (0: not in it),
	 * built when first needed: most messages touch the same few */
	uint32_t **dense;
	/* per message type: tag -> (region << 30 | entry index + 1) over the
	 * header, its body and the trailer, in one lookup */
	uint32_t **top;
	const struct ev_fixdict_message *last_def;
	/* The previous message, to reuse verdicts. A rule's verdict on a
	 * value is the same for the same bytes, and the dictionary's rules on
	 * structure (tags known and defined, required, repeated, header
	 * order, groups) depend only on the tags in order and the NumInGroup
	 * values; in a benchmark's orders only a few fields change from one
	 * to the next. So each message is compared once with the previous
	 * (same[i]: field i's value is unchanged) and a clean verdict on
	 * unchanged bytes is kept. Stateful rules always run. */
	int shape;                       /* this message's tags are the previous one's */
	int rescanned;                   /* split as the template: tpl was updated */
	int prev_struct_ok, struct_ok;
	const struct ev_fixdict_message *struct_def, *prev_def; /* what struct_ok was judged against */
	struct ev_fix_template tpl;      /* the previous message (fixmsg.h) */
	uint64_t changed[EV_FIX_TEMPLATE_MAX / 64]; /* bytes that differ from the template */
	uint32_t prev_groups, groups;
	uint8_t same[EV_FIX_MAX_FIELDS];
	uint32_t changed_fields[EV_FIX_MAX_FIELDS], nchanged; /* shape: the fields not same, ascending */
	unsigned changed_session;        /* shape: CHANGED_* of the tags the session rules read */
	uint8_t ok[EV_FIX_MAX_FIELDS], prev_ok[EV_FIX_MAX_FIELDS]; /* value verdicts */
	int prev_all_ok;                 /* every prev_ok is 1 */
	uint32_t group_pos[MEMO_GROUPS_MAX], prev_group_pos[MEMO_GROUPS_MAX];
	uint8_t *spec_ok, *prev_spec_ok;  /* per spec field, then per spec group */
	int prev_spec_all_ok;             /* every prev_spec_ok is 1 */
	uint16_t *spec_item_at;           /* per field position: spec item + 1, or 0 */
	uint32_t spec_map_serial;         /* the layout (serial) spec_item_at is of; 0: none */
	uint8_t *redo;                    /* per spec item: to judge again */
	/* session */
	int have_compids;
	char compid[2][COMPID_MAX];
	uint32_t compid_len[2];
	int have_time;
	struct ev_fix_time_memo times[EV_FIX_MAX_FIELDS]; /* per field position */
	uint64_t last_secs;
	uint32_t last_ns;
	uint64_t next_owner;
	struct ev_fixcross cross;         /* COMPARE: against the other side (fixcross.h) */
	struct ev_fixsession *session;    /* the session layer (fixsession.h) */
	struct ev_fixorders *orders;      /* the spec's "orders", in a copy holding both directions */
	struct ev_fixsession_msg view;    /* this message as the session layer reads it */
	uint64_t viewed_at;               /* record_no view was read from */
	uint32_t viewed_serial;           /* and the layout (serial) it had */
	uint64_t compids_checked_at;      /* record_no whose 49 and 56 were found the first ones */
	uint32_t compids_serial;          /* and its layout */
	uint64_t day, day_ns;             /* the last SendingTime's date, as ns since 1970 */
	uint64_t record_no;               /* messages given, both directions */
	uint64_t sending_read_at;         /* record_no whose SendingTime check_session read */
	uint64_t sending_secs;
	uint32_t sending_nanos;
	struct ev_fixprint print;         /* the last message's fingerprint parts (fixprint.h) */
	uint64_t printed_at;              /* record_no of that message */
	/* Owner checks of orders that arrived above a gap: the application
	 * sees them when the gap is filled, in MsgSeqNum order (at most
	 * HELD_ORDERS_MAX held, in an array of at most twice that). */
	struct owner_check *pending;
	size_t npending, pending_head, pending_cap;
};

/* Up to 2 x HELD_ORDERS_MAX of these are held: where the order was, not
 * a whole ev_fix_record. */
struct owner_check {
	uint64_t seq, value;
	const char *file;
	uint64_t record, offset;
	uint32_t file_index, tag, off;
	uint8_t owner_ok, present, readable;
	char found[48]; /* the owner field as shown, when it will be */
};

static const char *sentence(enum ev_fix_rule rule)
{
	switch (rule) {
	case EV_RULE_ENVELOPE_ORDER: return "fields 8, 9 and 35 must come first and 10 last";
	case EV_RULE_BODY_LENGTH: return "BodyLength (9) is not the length of the body";
	case EV_RULE_CHECKSUM: return "CheckSum (10) is not the byte sum mod 256 in three digits";
	case EV_RULE_FIELD_SYNTAX: return "not a field of the form tag=value<SOH>";
	case EV_RULE_UNKNOWN_MSGTYPE: return "MsgType not in the dictionary";
	case EV_RULE_UNKNOWN_TAG: return "tag not in the dictionary";
	case EV_RULE_TAG_NOT_IN_MESSAGE: return "tag not defined for this message type";
	case EV_RULE_REQUIRED_FIELD: return "required field missing";
	case EV_RULE_EMPTY_VALUE: return "field without a value";
	case EV_RULE_REPEATED_TAG: return "tag appears more than once";
	case EV_RULE_HEADER_ORDER: return "header field after the body began";
	case EV_RULE_ENUM_VALUE: return "value not one of the field's enumerated values";
	case EV_RULE_DATA_FORMAT: return "value not in the field's data format";
	case EV_RULE_GROUP_COUNT: return "NumInGroup is not the number of instances";
	case EV_RULE_GROUP_DELIMITER: return "group instance does not start with its first field";
	case EV_RULE_GROUP_ORDER: return "group member out of dictionary order";
	case EV_RULE_COMPID: return "SenderCompID/TargetCompID changed within one direction";
	case EV_RULE_SENDING_TIME: return "SendingTime (52) went back";
	case EV_RULE_SEQNUM: return "MsgSeqNum is not the next number";
	case EV_RULE_SEQ_GAP: return "a gap in MsgSeqNum never filled";
	case EV_RULE_SPEC_MSGTYPE: return "a message type the spec does not allow";
	case EV_RULE_SPEC_VALUE: return "order field differs from the spec";
	case EV_RULE_SPEC_GROUP: return "repeating group differs from the spec";
	case EV_RULE_OWNER_SEQUENCE: return "owner value (ClOrdID) is not the next number";
	case EV_RULE_ORDER_COUNT: return "orders found differ from warmups + measured";
	case EV_RULE_ORDER_STATE: return "an answer the order state matrices do not allow";
	case EV_RULE_ORDER_QUANTITY: return "order quantities do not add up";
	case EV_RULE_ORDER_AVGPX: return "AvgPx is not the fills' average price";
	case EV_RULE_ORDER_UNANSWERED: return "an order never answered";
	default: return "finding";
	}
}

/* A value as it may be shown: every byte outside printable ASCII as \xHH. */
static void show(const char *v, uint32_t len, char *out, size_t cap)
{
	ev_path_quote_bytes(v, len, out, cap);
}

/* Count a finding; format and hand over the first max_per_rule. */
static void report(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t tag, uint32_t at,
		   const char *message, const char *expected, const char *found)
{
	uint64_t n = ++c->st.by_rule[rule];
	if (c->o.max_per_rule && n > c->o.max_per_rule)
		return;
	struct ev_fix_finding f = {.rule = rule, .side = c->o.side, .tag = tag};
	snprintf(f.message, sizeof f.message, "%s", message ? message : sentence(rule));
	if (c->rec) {
		f.file = c->rec->file;
		f.record = c->rec->record;
		f.offset = c->rec->offset + (at == NO_OFFSET ? 0 : at);
	}
	snprintf(f.expected, sizeof f.expected, "%s", expected ? expected : "");
	snprintf(f.found, sizeof f.found, "%s", found ? found : "");
	c->fn(c->ctx, &f);
}

/* The same, with the field's value as what was found. */
static void report_field(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t i,
			 const char *expected)
{
	const struct ev_fix_field *f = &c->msg.f[i];
	char found[EV_FIX_VALUE_MAX];
	int n = snprintf(found, sizeof found, "%u=", f->tag);
	show(ev_fix_value(&c->msg, i), f->len, found + n, sizeof found - (size_t)n);
	report(c, rule, f->tag, f->off, NULL, expected, found);
}

static void on_envelope(void *ctx, enum ev_fix_rule rule, uint32_t at, const char *expected,
			const char *found)
{
	report(ctx, rule, 0, at, NULL, expected, found);
}

/* A finding of the session layer, at its record. */
static void on_session(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, uint32_t tag,
		       const char *message, const char *expected, const char *found)
{
	struct ev_fixcheck *c = ctx;
	const struct ev_fix_record *saved = c->rec;
	c->rec = where;
	report(c, rule, tag, NO_OFFSET, message, expected, found);
	c->rec = saved;
}

ev_status ev_fixcheck_new(struct ev_fixcheck **out, const struct ev_fixcheck_opts *opts,
			  ev_fix_finding_fn on_finding, void *ctx, struct ev_error *err)
{
	struct ev_fixcheck *c = calloc(1, sizeof *c);
	if (!c)
		return ev_error_set(err, EV_ERROR, "out of memory");
	c->o = *opts;
	c->fn = on_finding;
	c->ctx = ctx;
	c->sender_compid_len = opts->sender_compid ? (uint32_t)strlen(opts->sender_compid) : 0;
	c->begin_len = opts->spec ? (uint32_t)strlen(opts->spec->begin_string) : 0;
	c->order_len = opts->spec ? (uint32_t)strlen(opts->spec->order_msgtype) : 0;
	c->tracked = TRACKED_TAGS_MIN;
	if (opts->dict && opts->dict->max_tag >= c->tracked)
		c->tracked = opts->dict->max_tag + 1;
	c->seen = calloc(c->tracked, sizeof *c->seen);
	c->first_pos = calloc(c->tracked, sizeof *c->first_pos);
	c->inst_seen = calloc(c->tracked, sizeof *c->inst_seen);
	c->top_seen = calloc(c->tracked, sizeof *c->top_seen);
	if (opts->prints == EV_FINGERPRINT_COMPARE && ev_fixcross_init(&c->cross, opts->set, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	size_t nspec = opts->spec ? opts->spec->nfields + opts->spec->ngroups : 0;
	c->spec_ok = calloc(nspec + 1, 1);
	c->prev_spec_ok = calloc(nspec + 1, 1);
	c->redo = calloc(nspec + 1, 1);
	c->spec_item_at = calloc(EV_FIX_MAX_FIELDS, sizeof *c->spec_item_at);
	if (!c->spec_ok || !c->prev_spec_ok || !c->redo || !c->spec_item_at) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (opts->dict && (!(c->dense = calloc(opts->dict->nlayouts, sizeof *c->dense)) ||
			   !(c->top = calloc(opts->dict->nmessages, sizeof *c->top)))) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (!c->seen || !c->first_pos || !c->inst_seen || !c->top_seen) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (opts->spec)
		c->next_owner = opts->spec->owner_first;
	/* ExecutionReports are the peer's: only a copy holding both directions has them */
	if (opts->spec && opts->spec->execution_reports && opts->sender_compid &&
	    ev_fixorders_new(&c->orders, on_session, c, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	if (ev_fixsession_new(&c->session, opts->spec ? opts->spec->sequence_first : 0, opts->sender_compid != NULL,
			      on_session, c, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	/* the second copy's duplicates are held against the first copy's originals */
	ev_fixsession_keep_originals(c->session, opts->prints != EV_FINGERPRINT_COMPARE && !opts->without_originals);
	*out = c;
	return EV_OK;
}

void ev_fixcheck_free(struct ev_fixcheck *c)
{
	if (!c)
		return;
	free(c->seen);
	free(c->first_pos);
	free(c->inst_seen);
	free(c->top_seen);
	ev_fixcross_free(&c->cross);
	ev_fixsession_free(c->session);
	ev_fixorders_free(c->orders);
	ev_fixprint_free(&c->print);
	free(c->pending);
	free(c->spec_ok);
	free(c->prev_spec_ok);
	free(c->redo);
	free(c->spec_item_at);
	for (size_t i = 0; c->dense && i < c->o.dict->nlayouts; i++)
		free(c->dense[i]);
	free(c->dense);
	for (size_t i = 0; c->top && i < c->o.dict->nmessages; i++)
		free(c->top[i]);
	free(c->top);
	free(c);
}

const struct ev_fixcheck_stats *ev_fixcheck_stats(const struct ev_fixcheck *c)
{
	return &c->st;
}

const struct ev_fixsession_facts *ev_fixcheck_session(const struct ev_fixcheck *c)
{
	return ev_fixsession_facts(c->session);
}

const struct ev_fixorders_facts *ev_fixcheck_orders(const struct ev_fixcheck *c)
{
	return c->orders ? ev_fixorders_facts(c->orders) : NULL;
}

void ev_fixcheck_damage(struct ev_fixcheck *c, enum ev_fix_rule rule, const char *file,
			uint64_t record, uint64_t offset, const char *message,
			const char *expected, const char *found)
{
	struct ev_fix_record r = {.file = file, .record = record, .offset = offset};
	const struct ev_fix_record *saved = c->rec;
	c->rec = &r;
	report(c, rule, 0, NO_OFFSET, message, expected, found);
	c->rec = saved;
}

/* The value of the first field with this tag in the message, or NULL. */
static const struct ev_fix_field *field_of(const struct ev_fixcheck *c, uint32_t tag)
{
	if (tag < c->tracked)
		return c->seen[tag] == c->serial ? &c->msg.f[c->first_pos[tag]] : NULL;
	long i = ev_fix_find(&c->msg, tag, 0);
	return i < 0 ? NULL : &c->msg.f[i];
}

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

/* The session rules read these tags; a message laid out as the one
 * before, with none of them changed, keeps what was read of them. */
#define CHANGED_MSGTYPE 1u
#define CHANGED_POSSDUP 2u
#define CHANGED_COMPID 4u

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
static void same_from_diff(struct ev_fixcheck *c)
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
static void same_by_fields(struct ev_fixcheck *c)
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
static void check_value(struct ev_fixcheck *c, uint32_t i, const struct ev_fixdict_field *def)
{
	const struct ev_fix_field *f = &c->msg.f[i];
	const char *v = ev_fix_value(&c->msg, i);
	c->ok[i] = 1;
	if (c->prev_ok[i] && c->same[i])
		return; /* the same bytes were found clean a message ago */
	c->ok[i] = 0;
	if (f->len == 0) {
		report(c, EV_RULE_EMPTY_VALUE, f->tag, f->off, NULL, "a value", "nothing");
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
		report_field(c, EV_RULE_DATA_FORMAT, i, ev_fix_type_name((enum ev_fix_type)def->type));
	} else if (!ev_fixdict_enum_ok(c->o.dict, def, v, f->len)) {
		report_field(c, EV_RULE_ENUM_VALUE, i, "one of the dictionary's values");
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
		report(c, EV_RULE_REQUIRED_FIELD, tag, NO_OFFSET, NULL, want, "nothing");
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
				report_field(c, EV_RULE_GROUP_DELIMITER, i, want);
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
			report_field(c, EV_RULE_GROUP_ORDER, i, want);
		}
		last = pos;
		if (f->tag < c->tracked)
			c->inst_seen[f->tag] = inst;
		check_value(c, i, ev_fixdict_field(d, f->tag));
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
		report_field(c, EV_RULE_GROUP_COUNT, count_at, want);
	}
	return i;
}

/* The dictionary's rules for the whole message. */
static void check_dictionary(struct ev_fixcheck *c)
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
			report_field(c, EV_RULE_UNKNOWN_MSGTYPE, (uint32_t)(t - m->f),
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
			check_value(c, c->changed_fields[k], ev_fixdict_field(d, m->f[c->changed_fields[k]].tag));
	} else if (same_structure) {
		for (uint32_t i = 0; i < m->n; i++) {
			if (c->prev_ok[i] && c->same[i]) { /* check_value would keep it: no call */
				c->ok[i] = 1;
				continue;
			}
			check_value(c, i, ev_fixdict_field(d, m->f[i].tag));
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
		report(c, EV_RULE_UNKNOWN_MSGTYPE, 35, NO_OFFSET,
		       "out of memory: the dictionary's rules were not applied", NULL, NULL);
		return;
	}
	for (uint32_t i = 0; i < m->n;) {
		const struct ev_fix_field *f = &m->f[i];
		const struct ev_fixdict_field *fdef = ev_fixdict_field(d, f->tag);
		const struct ev_fixdict_entry *e = NULL;
		if (!fdef) {
			report_field(c, EV_RULE_UNKNOWN_TAG, i, "a tag of the dictionary");
			i++;
			continue;
		}
		uint32_t where = top[f->tag];
		if (where)
			e = &d->entries[(where & ENTRY_MASK) - 1];
		if (where >> REGION_SHIFT == HEADER) {
			if (body_began)
				report_field(c, EV_RULE_HEADER_ORDER, i, "header fields before the body");
		} else if (where) {
			body_began = 1;
		} else {
			char want[96];
			snprintf(want, sizeof want, "a field of %s (%s)", def->name, def->msgtype);
			report_field(c, EV_RULE_TAG_NOT_IN_MESSAGE, i, want);
		}
		/* Outside groups a tag may appear once; group members repeat per
		 * instance and are judged by check_group. */
		if (f->tag < c->tracked) {
			if (c->top_seen[f->tag] == c->top_serial)
				report_field(c, EV_RULE_REPEATED_TAG, i, "once");
			c->top_seen[f->tag] = c->top_serial;
		}
		check_value(c, i, fdef);
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

static int same(const struct ev_fix_field *f, const struct ev_fix_msg *m, const char *v, uint32_t len)
{
	if (f->len != len)
		return 0;
	const char *a = m->data + f->off;
	for (uint32_t i = 0; i < len; i++) /* values are short: no call */
		if (a[i] != v[i])
			return 0;
	return 1;
}

static void check_session(struct ev_fixcheck *c)
{
	const struct ev_fix_field *s = field_of(c, 49), *t = field_of(c, 56), *time = field_of(c, 52);
	/* 49 and 56 where they were, unchanged, and the first ones a message ago */
	int compids_hold = c->shape && c->compids_checked_at == c->record_no - 1 &&
			   c->compids_serial == c->serial && !(c->changed_session & CHANGED_COMPID);
	if (compids_hold) {
		c->compids_checked_at = c->record_no;
	} else if (s && t && s->len < COMPID_MAX && t->len < COMPID_MAX) {
		if (!c->have_compids) {
			memcpy(c->compid[0], c->msg.data + s->off, s->len);
			memcpy(c->compid[1], c->msg.data + t->off, t->len);
			c->compid_len[0] = s->len;
			c->compid_len[1] = t->len;
			c->have_compids = 1;
			c->compids_checked_at = c->record_no;
			c->compids_serial = c->serial;
		} else if (same(s, &c->msg, c->compid[0], c->compid_len[0]) &&
			   same(t, &c->msg, c->compid[1], c->compid_len[1])) {
			c->compids_checked_at = c->record_no;
			c->compids_serial = c->serial;
		} else {
			char want[2 * COMPID_MAX + 16], got[2 * EV_FIX_VALUE_MAX + 16], a[EV_FIX_VALUE_MAX],
				b[EV_FIX_VALUE_MAX];
			snprintf(want, sizeof want, "49=%.*s 56=%.*s", (int)c->compid_len[0], c->compid[0],
				 (int)c->compid_len[1], c->compid[1]);
			show(c->msg.data + s->off, s->len, a, sizeof a);
			show(c->msg.data + t->off, t->len, b, sizeof b);
			snprintf(got, sizeof got, "49=%s 56=%s", a, b);
			report(c, EV_RULE_COMPID, 49, s->off, NULL, want, got);
		}
	}
	uint64_t secs;
	uint32_t ns;
	if (time && ev_fix_utc_timestamp_memo(&c->times[time - c->msg.f], c->msg.data + time->off,
					      time->len, &secs, &ns) == 0) {
		if (c->have_time && (secs < c->last_secs || (secs == c->last_secs && ns < c->last_ns))) {
			char want[64];
			snprintf(want, sizeof want, "at or after %014llu.%09u", (unsigned long long)c->last_secs,
				 c->last_ns);
			report_field(c, EV_RULE_SENDING_TIME, (uint32_t)(time - c->msg.f), want);
		}
		c->have_time = 1;
		c->last_secs = secs;
		c->last_ns = ns;
		c->sending_read_at = c->record_no; /* the session layer reads it from here */
		c->sending_secs = secs;
		c->sending_nanos = ns;
	}
}

static int flag_y(const struct ev_fixcheck *c, uint32_t tag)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && f->len == 1 && c->msg.data[f->off] == 'Y';
}

static int number_of(const struct ev_fixcheck *c, uint32_t tag, uint64_t *v)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && ev_fix_parse_u64(c->msg.data + f->off, f->len, v) == 0;
}

static int time_of(struct ev_fixcheck *c, uint32_t tag, uint64_t *ns)
{
	uint64_t secs;
	uint32_t nanos;
	if (tag == 52 && c->sending_read_at == c->record_no) {
		secs = c->sending_secs;
		nanos = c->sending_nanos;
	} else {
		const struct ev_fix_field *f = field_of(c, tag);
		if (!f || ev_fix_utc_timestamp_memo(&c->times[f - c->msg.f], c->msg.data + f->off, f->len, &secs,
						    &nanos) != 0)
			return 0;
	}
	/* the date changes rarely: its nanoseconds since 1970 once a day */
	uint64_t day = secs / 1000000, in_day = secs % 1000000;
	if (day != c->day) {
		c->day = day;
		c->day_ns = ev_fix_timestamp_ns(day * 1000000, 0);
	}
	*ns = c->day_ns + ((in_day / 10000) * 3600 + (in_day / 100 % 100) * 60 + in_day % 100) * 1000000000ull + nanos;
	return 1;
}

/* What the session layer reads of this message, into c->view. */
static void session_view(struct ev_fixcheck *c)
{
	struct ev_fixsession_msg *v = &c->view;
	/* An application message laid out as the one viewed just before, its
	 * MsgType and PossDupFlag unchanged: only the number and the times
	 * are read again (what a full read gives, the rest kept). */
	if (c->shape && !v->admin && c->viewed_at == c->record_no - 1 && c->viewed_serial == c->serial &&
	    !(c->changed_session & (CHANGED_MSGTYPE | CHANGED_POSSDUP))) {
		v->rec = c->rec;
		v->invariant = 0;
		v->seq = v->sending_ns = v->orig_ns = 0;
		v->has_seq = number_of(c, c->o.spec ? c->o.spec->sequence_tag : 34, &v->seq);
		v->has_sending = time_of(c, 52, &v->sending_ns);
		v->has_orig = v->poss_dup && time_of(c, 122, &v->orig_ns);
		c->viewed_at = c->record_no;
		return;
	}
	c->viewed_at = c->record_no;
	c->viewed_serial = c->serial;
	memset(v, 0, sizeof *v);
	v->rec = c->rec;
	v->has_seq = number_of(c, c->o.spec ? c->o.spec->sequence_tag : 34, &v->seq);
	const struct ev_fix_field *t = field_of(c, 35);
	if (t && t->len == 1 && strchr("012345A", c->msg.data[t->off]) && c->msg.data[t->off])
		v->admin = c->msg.data[t->off];
	v->poss_dup = flag_y(c, 43);
	if (v->admin) { /* the session-level fields only a session-level message carries */
		if (v->admin == '4')
			v->gap_fill = flag_y(c, 123);
		if (v->admin == 'A')
			v->reset_flag = flag_y(c, 141);
		v->has_new_seq = number_of(c, 36, &v->new_seq);
		v->has_begin = number_of(c, 7, &v->begin);
		v->has_end = number_of(c, 16, &v->end);
		v->has_ref_seq = number_of(c, 45, &v->ref_seq);
		const struct ev_fix_field *id = field_of(c, 112);
		if (id) {
			v->test_req_id = c->msg.data + id->off;
			v->test_req_len = id->len;
		}
	}
	v->has_sending = time_of(c, 52, &v->sending_ns);
	if (v->poss_dup)
		v->has_orig = time_of(c, 122, &v->orig_ns);
}

static void note_latency(struct ev_fixcheck *c, struct ev_fixlatency_stream *l, const struct ev_fix_record *r)
{
	const struct ev_fixsession_msg *v = &c->view;
	const struct ev_fix_field *from = field_of(c, 49), *to = field_of(c, 56);
	ev_fixlatency_add(l, v->has_seq, v->seq, r->stamp_ns, v->has_sending, v->sending_ns, v->poss_dup,
			  from ? c->msg.data + from->off : NULL, from ? from->len : 0,
			  to ? c->msg.data + to->off : NULL, to ? to->len : 0);
}

static void text_of(const struct ev_fixcheck *c, uint32_t tag, struct ev_fixorders_text *t)
{
	const struct ev_fix_field *f = field_of(c, tag);
	t->v = f ? c->msg.data + f->off : NULL;
	t->len = f ? f->len : 0;
}

static void decimal_of(const struct ev_fixcheck *c, uint32_t tag, struct ev_fixorders_number *n)
{
	const struct ev_fix_field *f = field_of(c, tag);
	memset(n, 0, sizeof *n);
	if (!f)
		return;
	n->present = 1;
	const char *v = c->msg.data + f->off;
	if (f->len == 0 || f->len > 40 || !ev_fix_format_ok(EV_FIX_T_FLOAT, v, f->len))
		return;
	/* a price may carry more places than a quantity needs (AvgPx as a
	 * double prints them): read, not exact */
	n->exact = ev_fixorders_quantity(v, f->len, &n->units) == 0;
	char text[48];
	memcpy(text, v, f->len);
	text[f->len] = 0;
	n->value = strtod(text, NULL);
	const char *dot = memchr(v, '.', f->len);
	n->decimals = dot ? (int)(f->len - (uint32_t)(dot - v) - 1) : 0;
	n->ok = 1;
}

static char char_of(const struct ev_fixcheck *c, uint32_t tag)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && f->len == 1 ? c->msg.data[f->off] : 0;
}

/* A request of this copy (D, F, G) or an answer of the peer (8, 9), for
 * the application layer. */
static void follow_order(struct ev_fixcheck *c, const struct ev_fix_record *r, int peer)
{
	char type = char_of(c, 35);
	if (peer ? type != '8' && type != '9' : type != 'D' && type != 'F' && type != 'G')
		return;
	struct ev_fixorders_msg m = {.type = type, .poss_dup = c->view.poss_dup,
				     .exec_type = char_of(c, 150), .ord_status = char_of(c, 39)};
	text_of(c, 11, &m.clordid);
	text_of(c, 41, &m.orig_clordid);
	text_of(c, 17, &m.exec_id);
	decimal_of(c, 38, &m.order_qty);
	decimal_of(c, 14, &m.cum_qty);
	decimal_of(c, 151, &m.leaves_qty);
	decimal_of(c, 32, &m.last_qty);
	decimal_of(c, 31, &m.last_px);
	decimal_of(c, 6, &m.avg_px);
	if (peer)
		ev_fixorders_answer(c->orders, &m, r);
	else
		ev_fixorders_request(c->orders, &m, r);
}

/* The owner value (ClOrdID) of this order, judged when the application
 * would see it. Its text (found) is made only when it will be needed:
 * a held order, a finding. */
static void owner_of(struct ev_fixcheck *c, int readable, uint64_t seq, struct owner_check *o)
{
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fix_field *owner = field_of(c, s->owner_tag);
	o->seq = seq;
	o->value = 0;
	o->tag = s->owner_tag;
	o->readable = readable;
	o->present = owner != NULL;
	o->owner_ok = owner && ev_fix_parse_u64(c->msg.data + owner->off, owner->len, &o->value) == 0;
	o->off = owner ? owner->off : NO_OFFSET;
	o->file = c->rec->file;
	o->record = c->rec->record;
	o->offset = c->rec->offset;
	o->file_index = c->rec->file_index;
	o->found[0] = 0;
}

static void owner_text(struct ev_fixcheck *c, struct owner_check *o)
{
	const struct ev_fix_field *owner = field_of(c, o->tag);
	if (owner) {
		int n = snprintf(o->found, sizeof o->found, "%u=", owner->tag);
		show(c->msg.data + owner->off, owner->len, o->found + n, sizeof o->found - (size_t)n);
	}
}

/* The owner tag counts up by one across the orders; readable as for
 * the sequence: an unreadable message's missing owner is taken to be the
 * next. */
static void check_owner(struct ev_fixcheck *c, const struct owner_check *o)
{
	char want[64];
	if (o->owner_ok && o->value == c->next_owner) {
		c->next_owner = o->value + 1;
		return;
	}
	if (!o->owner_ok && !o->readable) {
		c->next_owner++;
		return;
	}
	const struct ev_fix_record *saved = c->rec;
	struct ev_fix_record at = {.file = o->file, .record = o->record, .offset = o->offset, .file_index = o->file_index};
	c->rec = &at;
	snprintf(want, sizeof want, "%u=%llu", o->tag, (unsigned long long)c->next_owner);
	report(c, EV_RULE_OWNER_SEQUENCE, o->tag, o->off, NULL, want, o->present ? o->found : "nothing");
	c->rec = saved;
	c->next_owner = o->owner_ok ? o->value + 1 : c->next_owner + 1;
}

static void hold_owner(struct ev_fixcheck *c, const struct owner_check *o)
{
	if (c->npending - c->pending_head >= HELD_ORDERS_MAX)
		check_owner(c, &c->pending[c->pending_head++]);
	if (c->pending_head && c->pending_head == c->npending)
		c->pending_head = c->npending = 0;
	/* the space of judged ones is reused once it is half the array:
	 * at most twice the held orders, each moved once per half */
	if (c->npending == c->pending_cap && c->pending_head && c->pending_head >= c->pending_cap / 2) {
		memmove(c->pending, c->pending + c->pending_head, (c->npending - c->pending_head) * sizeof *c->pending);
		c->npending -= c->pending_head;
		c->pending_head = 0;
	}
	if (c->npending == c->pending_cap) {
		size_t cap = c->pending_cap ? 2 * c->pending_cap : 64;
		struct owner_check *p = realloc(c->pending, cap * sizeof *p);
		if (!p) {
			check_owner(c, o); /* out of memory: judged now, in arrival order */
			return;
		}
		c->pending = p;
		c->pending_cap = cap;
	}
	size_t i = c->npending++;
	while (i > c->pending_head && c->pending[i - 1].seq > o->seq) {
		c->pending[i] = c->pending[i - 1];
		i--;
	}
	c->pending[i] = *o;
}

/* The orders held above a gap that is now filled. */
static void release_owners(struct ev_fixcheck *c, uint64_t frontier)
{
	while (c->pending_head < c->npending && c->pending[c->pending_head].seq < frontier)
		check_owner(c, &c->pending[c->pending_head++]);
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
		report_field(c, EV_RULE_SPEC_VALUE, (uint32_t)(f - c->msg.f), want);
	else
		report(c, EV_RULE_SPEC_VALUE, sf->tag, NO_OFFSET, NULL, want, "nothing");
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
			report_field(c, EV_RULE_SPEC_GROUP, (uint32_t)(f - c->msg.f), want);
		else
			report(c, EV_RULE_SPEC_GROUP, g->tag, NO_OFFSET, NULL, want, "nothing");
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
			report_field(c, EV_RULE_SPEC_GROUP, i, want);
		else
			report(c, EV_RULE_SPEC_GROUP, sm->tag, NO_OFFSET, NULL, want, "nothing");
		break; /* the first difference says it; the rest would follow from it */
	}
}

/* Which spec item stands at each field position of this message's
 * layout, while the layout holds (c->serial); none when two share one. */
static void map_spec_items(struct ev_fixcheck *c)
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
static void check_order(struct ev_fixcheck *c)
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
	map_spec_items(c);
}

static void fingerprint(struct ev_fixcheck *c, uint64_t seq, uint64_t invariant, uint64_t changeable)
{
	const struct ev_fixsession_msg *v = &c->view;
	struct ev_fingerprint p = {.seq = seq, .hash = changeable, .invariant = invariant,
				   .orig_ns = v->poss_dup && v->has_orig ? v->orig_ns : v->has_sending ? v->sending_ns : 0,
				   .offset = c->rec->offset, .len = c->msg.len,
				   .file = c->rec->file_index | (v->admin ? EV_FINGERPRINT_ADMIN : 0)};
	if (c->o.prints == EV_FINGERPRINT_RECORD) {
		struct ev_error ignored;
		ev_error_clear(&ignored);
		if (ev_fingerprint_add(c->o.set, &p, &ignored) != EV_OK)
			report(c, EV_RULE_CROSS_AGREEMENT, 0, NO_OFFSET,
			       "out of memory for fingerprints: the endpoints cannot be compared", NULL, NULL);
		return;
	}
	struct ev_fixcross_kind k = {v->poss_dup, v->gap_fill, v->has_new_seq ? v->new_seq : 0};
	ev_fixcross_message(&c->cross, &p, &k, c->msg.data, c->msg.len, c->rec);
	c->st.compared = c->cross.compared;
	c->st.matched = c->cross.matched_count;
	c->st.resends_matched = c->cross.resends_matched;
	c->st.gap_filled = c->cross.gap_filled;
}

/* Keep this message and its verdicts for the next one. */
static void remember(struct ev_fixcheck *c)
{
	const struct ev_fix_msg *m = &c->msg;
	if (!c->rescanned)
		ev_fix_template_set(&c->tpl, m);
	if (!c->tpl.len)
		return;
	c->stamps_are_prev = 1;
	memcpy(c->prev_ok, c->ok, m->n);
	c->prev_all_ok = memchr(c->ok, 0, m->n) == NULL;
	if (c->o.spec) {
		size_t items = c->o.spec->nfields + c->o.spec->ngroups;
		memcpy(c->prev_spec_ok, c->spec_ok, items);
		c->prev_spec_all_ok = memchr(c->spec_ok, 0, items) == NULL;
	}
	c->prev_struct_ok = c->struct_ok && c->o.dict;
	c->prev_def = c->struct_def;
	c->prev_groups = c->groups;
	/* only the positions kept are read back (g < prev_groups) */
	memcpy(c->prev_group_pos, c->group_pos,
	       (c->groups < MEMO_GROUPS_MAX ? c->groups : MEMO_GROUPS_MAX) * sizeof *c->group_pos);
}

void ev_fixcheck_record(struct ev_fixcheck *c, const struct ev_fix_record *r)
{
	if (c->o.judge_afresh) { /* no template: no shape, so nothing is reused */
		c->tpl.len = 0;
		c->stamps_are_prev = 0;
		c->prev_struct_ok = 0;
	}
	c->rec = r;
	c->record_no++;
	c->st.bytes += r->len;
	struct ev_fix_msg *m = &c->msg;
	unsigned ignored;
	c->rescanned = ev_fix_rescan(r->msg, r->len, &c->tpl, m, c->changed, &ignored, on_envelope, c);
	if (c->rescanned) {
		c->shape = 1;
		same_from_diff(c);
	} else {
		ev_fix_scan(r->msg, r->len, c->o.dict ? &c->o.dict->data_tags : NULL, m, on_envelope, c);
		c->shape = c->tpl.len && m->n == c->tpl.n;
		for (uint32_t i = 0; c->shape && i < m->n; i++)
			c->shape = m->f[i].tag == c->tpl.f[i].tag;
		if (c->shape) {
			same_by_fields(c);
		} else {
			memset(c->same, 0, m->n);
			c->prev_struct_ok = 0;
		}
	}
	c->struct_ok = 0;
	c->groups = 0;

	/* Stamp the tags of this message, each at its first position, unless
	 * the stamps of the previous message, of the same tags, still hold. */
	if (!c->shape || !c->stamps_are_prev) {
		if (++c->serial == 0) { /* wrapped: start the stamps again */
			memset(c->seen, 0, c->tracked * sizeof *c->seen);
			c->serial = 1;
			c->spec_map_serial = 0;
		}
		for (uint32_t i = 0; i < m->n; i++) {
			uint32_t tag = m->f[i].tag;
			if (tag < c->tracked && c->seen[tag] != c->serial) {
				c->seen[tag] = c->serial;
				c->first_pos[tag] = i;
			}
		}
		c->stamps_are_prev = 0;
	}
	if (c->o.sender_compid) {
		const struct ev_fix_field *s = field_of(c, 49);
		if (!s || !same(s, m, c->o.sender_compid, c->sender_compid_len)) {
			session_view(c);
			ev_fixsession_peer(c->session, &c->view);
			if (c->orders)
				follow_order(c, r, 1);
			if (c->o.latency)
				note_latency(c, &c->o.latency[1], r);
			c->st.skipped++;
			c->st.bytes -= r->len;
			c->rec = NULL;
			/* The template may be this message now: the verdicts kept
			 * are not about it, so nothing is kept. */
			c->tpl.len = 0;
			c->prev_struct_ok = 0;
			c->stamps_are_prev = 0;
			return;
		}
	}
	c->st.messages++;
	/* A message whose fields could not all be read (field-syntax) is
	 * judged only for what continues across messages, from the fields
	 * read before the damage: a rule on its values or structure would
	 * only repeat the one finding. */
	int readable = m->syntax_ok;
	if (readable) {
		if (c->o.dict) {
			check_dictionary(c);
		} else {
			for (uint32_t i = 0; i < m->n; i++)
				check_value(c, i, NULL);
		}
		check_session(c);
	}
	session_view(c);
	struct ev_fixsession_msg *v = &c->view;
	if (c->o.latency)
		note_latency(c, &c->o.latency[0], r);
	uint64_t invariant = 0, changeable = 0;
	if (c->o.key) {
		/* only a message split as the one printed just before may be
		 * patched from it */
		int next = c->rescanned && c->printed_at == c->record_no - 1;
		ev_fixprint_parts(&c->print, c->o.key, m, next ? c->changed_fields : NULL, c->nchanged, &invariant,
				  &changeable);
		c->printed_at = c->record_no;
		v->invariant = invariant;
	}
	if (!v->has_seq) {
		uint32_t tag = c->o.spec ? c->o.spec->sequence_tag : 34;
		const struct ev_fix_field *f = field_of(c, tag);
		if (readable)
			report(c, EV_RULE_SEQNUM, tag, f ? f->off : NO_OFFSET, "no MsgSeqNum to follow", "a number",
			       f ? "another value" : "none");
	}
	uint64_t frontier = ev_fixsession_frontier(c->session);
	if (!v->has_seq && !readable) { /* damage reported once: taken to be the next number */
		v->has_seq = 1;
		v->seq = ev_fixsession_next_new(c->session);
	}
	enum ev_fixsession_arrival arrival = ev_fixsession_mine(c->session, v);
	uint64_t seq = v->has_seq ? v->seq : UINT64_MAX;
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fix_field *begin = field_of(c, 8);
	if (s && readable && begin && !same(begin, m, s->begin_string, c->begin_len))
		report_field(c, EV_RULE_SPEC_VALUE, (uint32_t)(begin - m->f), s->begin_string);
	/* MsgType wherever it stands: envelope-order judged its place. */
	const struct ev_fix_field *t = field_of(c, 35);
	int order = 0;
	if (s && t) {
		if (same(t, m, s->order_msgtype, c->order_len)) {
			order = 1;
		} else {
			/* the session layer's own messages are always allowed: a spec
			 * lists application types */
			int allowed = t->len == 1 && m->data[t->off] && strchr("012345A", m->data[t->off]);
			for (size_t k = 0; k < s->nother && !allowed; k++)
				allowed = same(t, m, s->other_msgtypes[k], (uint32_t)strlen(s->other_msgtypes[k]));
			if (!allowed)
				report_field(c, EV_RULE_SPEC_MSGTYPE, (uint32_t)(t - m->f), s->order_msgtype);
		}
	}
	if (order) {
		if (readable)
			check_order(c);
		if (arrival != EV_FIXSESSION_DUPLICATE) { /* a duplicate is no new order */
			struct owner_check o;
			c->st.orders++;
			owner_of(c, readable, seq, &o);
			int now = seq == frontier || arrival == EV_FIXSESSION_UNNUMBERED;
			if (!now || !o.owner_ok || o.value != c->next_owner)
				owner_text(c, &o);
			if (now)
				check_owner(c, &o);
			else
				hold_owner(c, &o);
		}
	} else {
		c->st.others++;
		if (s) /* an order's verdicts are not an other message's */
			memset(c->spec_ok, 0, s->nfields + s->ngroups);
	}
	if (c->orders && arrival != EV_FIXSESSION_DUPLICATE)
		follow_order(c, r, 0);
	/* every message, session ones too: a Logon changed in one copy is a
	 * difference between the endpoints as much as an order is */
	if (c->o.prints != EV_FINGERPRINT_NONE)
		fingerprint(c, seq, invariant, changeable);
	release_owners(c, ev_fixsession_frontier(c->session));
	remember(c);
	c->rec = NULL;
}

void ev_fixcheck_finish(struct ev_fixcheck *c)
{
	const struct ev_fixspec *s = c->o.spec;
	ev_fixsession_finish(c->session);
	release_owners(c, UINT64_MAX);
	if (c->orders)
		ev_fixorders_finish(c->orders, s && s->unanswered_is_finding);
	if (!s)
		return;
	uint64_t want = s->warmups + s->measured;
	if (c->st.orders != want) {
		char a[96], b[32];
		snprintf(a, sizeof a, "%llu (%llu warmups + %llu measured)", (unsigned long long)want,
			 (unsigned long long)s->warmups, (unsigned long long)s->measured);
		snprintf(b, sizeof b, "%llu", (unsigned long long)c->st.orders);
		report(c, EV_RULE_ORDER_COUNT, 0, NO_OFFSET, NULL, a, b);
	}
}

/* A cross-agreement finding, at where (NULL: no record). */
static void report_cross(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, const char *message,
			 const char *expected, const char *found)
{
	struct ev_fixcheck *c = ctx;
	c->rec = where;
	report(c, rule, 0, NO_OFFSET, message, expected, found);
	c->rec = NULL;
}

void ev_fixcheck_cross(struct ev_fixcheck *c, const char *first_name,
		       const char *const *first_files, ev_fix_reread_fn reread, void *reread_ctx)
{
	ev_fixcross_report(&c->cross, first_name, first_files, reread, reread_ctx, report_cross, c);
}
