/* SPDX-License-Identifier: Apache-2.0 */
/* fixdict: a QuickFIX-format XML data dictionary, compiled for the scan.
 *
 * Loaded with libxml2 (no network access, no entity expansion), then
 * compiled into flat arrays: fields by tag (name, type, sorted enum values),
 * layouts (the header, the trailer, each message's body, each group's
 * instance) as runs of entries in dictionary order with components
 * expanded, and one open-addressing table from (layout, tag) to the entry.
 * A required field inside an optional component is not required.
 * Several files merge (FIXT11.xml gives the session layer, FIX50.xml the
 * application messages): fields and messages are united, the header and
 * trailer come from the first file that has them.
 *
 * The dictionary owns everything; it is read-only once loaded and may be
 * shared by threads. ev_fixdict_free accepts NULL.
 */
#ifndef EV_FIXDICT_H
#define EV_FIXDICT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fix/fixmsg.h"
#include "lib/core/status.h"

enum ev_fix_type {
	EV_FIX_T_STRING, /* STRING, CURRENCY, COUNTRY, EXCHANGE, LANGUAGE, ... */
	EV_FIX_T_CHAR,
	EV_FIX_T_BOOLEAN,
	EV_FIX_T_INT,    /* INT, TAGNUM, DAYOFMONTH: an optional '-', digits */
	EV_FIX_T_UINT,   /* LENGTH, NUMINGROUP, SEQNUM: digits */
	EV_FIX_T_FLOAT,  /* FLOAT, PRICE, QTY, AMT, PRICEOFFSET, PERCENTAGE */
	EV_FIX_T_UTCTIMESTAMP,
	EV_FIX_T_UTCTIMEONLY,
	EV_FIX_T_UTCDATEONLY, /* and LOCALMKTDATE */
	EV_FIX_T_MONTHYEAR,
	EV_FIX_T_TZTIMEONLY,
	EV_FIX_T_TZTIMESTAMP,
	EV_FIX_T_DATA,
	EV_FIX_T_MULTIPLECHAR,   /* space-separated single characters */
	EV_FIX_T_MULTIPLESTRING, /* space-separated strings */
};

struct ev_fixdict_field {
	const char *name;     /* NULL: not defined */
	uint8_t type;         /* enum ev_fix_type */
	uint32_t enum_first;  /* into enums, sorted by strcmp */
	uint32_t enum_count;  /* 0: any value of the type */
	int32_t charmap;      /* when every value is one character: charmaps[charmap], else -1 */
};

struct ev_fixdict_entry {
	uint32_t tag;
	uint8_t required;
	int32_t group;        /* index into groups when tag is a NumInGroup, else -1 */
};

struct ev_fixdict_layout {
	uint32_t first, count; /* entries[first .. first+count) in dictionary order */
	uint32_t req_first, req_count; /* its required tags: required[req_first ..] */
};

struct ev_fixdict_group {
	uint32_t count_tag;
	uint32_t delimiter;    /* the first member's tag */
	uint32_t layout;       /* one instance */
};

struct ev_fixdict_message {
	char msgtype[16];
	const char *name;
	uint32_t body;         /* layout */
};

#define EV_FIXDICT_MAX_VERSIONS 8

struct ev_fixdict {
	/* the version of each file loaded, from its <fix type major minor
	 * servicepack> root, as a BeginString names it: "FIX.4.4", "FIXT.1.1",
	 * "FIX.5.0SP2" */
	char versions[EV_FIXDICT_MAX_VERSIONS][24]; /* at most 6 + 1 + 3 + 1 + 3 + 4 bytes */
	size_t nversions;
	uint32_t max_tag;
	struct ev_fixdict_field *fields; /* [max_tag + 1] */
	const char **enums;
	struct ev_fixdict_entry *entries;
	struct ev_fixdict_layout *layouts;
	struct ev_fixdict_group *groups;
	struct ev_fixdict_message *messages; /* sorted by msgtype */
	size_t nentries, nlayouts, ngroups, nmessages, nenums;
	uint32_t header, trailer;            /* layouts */
	uint64_t *slot_keys;                 /* (layout + 1) << 32 | tag; 0 empty */
	uint32_t *slot_entries;
	size_t nslots;                       /* a power of two */
	uint32_t *required;                  /* every layout's required tags */
	uint64_t (*charmaps)[4];             /* 256-bit sets of one-character values */
	size_t ncharmaps;
	uint32_t *data_length_tag;           /* [max_tag + 1] */
	struct ev_fix_data_tags data_tags;
	char **strings;                      /* every string above, owned */
	size_t nstrings;
};

/* Load and compile the dictionaries at paths (n >= 1), in order.
 * @return EV_OK; EV_ERROR when a file cannot be read; EV_REFUSED when one
 * is not a QuickFIX dictionary or refers to what it does not define (the
 * error names the file and the name). */
ev_status ev_fixdict_load(struct ev_fixdict **out, char *const *paths, size_t n,
			  struct ev_error *err);
void ev_fixdict_free(struct ev_fixdict *d);

/* The application version an ApplVerID (tag 1128, or DefaultApplVerID
 * 1137) names: "FIX.4.0" .. "FIX.5.0SP2", or NULL. */
const char *ev_fix_appl_version(const char *id);

/* The file of the dictionary shipped for a version (share/fix:
 * "FIX44.xml", "FIX50.xml", "FIX50SP2.xml", "FIXT11.xml"), as --dict
 * would name it, or NULL when none is shipped. */
const char *ev_fixdict_shipped_file(const char *version);

/* The versions a message's dictionaries must hold, from its first len
 * bytes (ev_fix_tag_text): its BeginString into begin, and under FIXT.1.1
 * the application version its ApplVerID (1128, else 1137) names into
 * appl ("" when none). */
void ev_fix_versions_of(const char *msg, size_t len, char begin[24], char appl[24]);

/* Was a dictionary of this version ("FIX.4.4", "FIX.5.0SP2") loaded? */
int ev_fixdict_has_version(const struct ev_fixdict *d, const char *version);

/* The entry for tag in layout, or NULL. */
const struct ev_fixdict_entry *ev_fixdict_entry(const struct ev_fixdict *d, uint32_t layout,
						uint32_t tag);

/* The message of this MsgType (len bytes), or NULL. */
const struct ev_fixdict_message *ev_fixdict_message(const struct ev_fixdict *d, const char *type,
						    uint32_t len);

/* The field definition of tag, or NULL when the dictionary has none. */
static inline const struct ev_fixdict_field *ev_fixdict_field(const struct ev_fixdict *d,
							      uint32_t tag)
{
	return tag <= d->max_tag && d->fields[tag].name ? &d->fields[tag] : NULL;
}

/* Is value (len bytes) one of the field's enumerated values? (Always 1
 * when the field has none.) Multiple-value types check each word. */
int ev_fixdict_enum_ok(const struct ev_fixdict *d, const struct ev_fixdict_field *f,
		       const char *value, uint32_t len);

#endif
