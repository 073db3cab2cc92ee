/* SPDX-License-Identifier: Apache-2.0 */
/* The llfix journal layout (../shared/formats/llfix.md): per file a u64
 * count of committed records, the records packed (u64 timestamp, u8
 * success, u64 length, the message), then zeros to the end of the file.
 * Files are numbered 1.bin, 2.bin, ...; a file is rotated when the next
 * record (length + 17 bytes) no longer fits. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fix/fixread.h"

#define COUNT_BYTES 8
#define RECORD_HEADER 17 /* u64 timestamp, u8 success, u64 length */

enum phase { COUNT, RECORDS, TAIL, DAMAGED };

struct llfix {
	enum phase phase;
	uint64_t count, seen;
	unsigned long number, expected_number; /* of N.bin */
	/* rotation: the free room the previous file ended with */
	int have_prev;
	uint64_t prev_room;
	char prev_name[256];
	int first_record_checked;
	uint64_t end_of_records;
	int tail_probed;          /* the bytes after the last counted record looked at */
	uint64_t fixed_size;      /* 1.bin's size: every rotated file is created at it */
	char first_name[256];
};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8); /* journals are little-endian, as is every host we build for */
	return v;
}

static unsigned long number_of(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	return strtoul(base, NULL, 10);
}

static void begin(void *st, struct ev_fixread *r, const char *name)
{
	struct llfix *s = st;
	unsigned long n = number_of(name);
	if (!s->expected_number)
		s->expected_number = 1;
	if (n != s->expected_number) {
		char want[32], got[32];
		snprintf(want, sizeof want, "%lu.bin", s->expected_number);
		snprintf(got, sizeof got, "%lu.bin", n);
		ev_fixread_damage(r, EV_RULE_JOURNAL_ROTATION, 0, "journal files are not numbered without a gap",
				  want, got);
	}
	s->number = n;
	s->expected_number = n + 1;
	s->phase = COUNT;
	s->seen = 0;
	s->first_record_checked = 0;
	s->tail_probed = 0;
	s->end_of_records = COUNT_BYTES;
}

/* Does a record start at h (n bytes seen)? A timestamp, success 0 or 1, a
 * length a record may have, and a message that starts "8=". */
static int looks_like_record(const unsigned char *h, size_t n)
{
	if (n < RECORD_HEADER + 2)
		return 0;
	uint64_t length = le64(h + 9);
	return le64(h) != 0 && h[8] <= 1 && length >= 2 && length <= EV_FIXREAD_RECORD_MAX &&
	       h[RECORD_HEADER] == '8' && h[RECORD_HEADER + 1] == '=';
}

/* After the last counted record: a whole record there means the count
 * header says fewer records than the file holds (llfix rewrites it after
 * each record), which the count rule names; anything else nonzero is the
 * tail's. @return 1 when the count was named (nothing more is read). */
static int probe_tail(struct llfix *s, struct ev_fixread *r, const unsigned char *d, size_t len, uint64_t at)
{
	s->tail_probed = 1;
	if (!looks_like_record(d, len))
		return 0;
	uint64_t more = 0;
	size_t p = 0;
	while (looks_like_record(d + p, len - p) && len - p >= RECORD_HEADER + le64(d + p + 9)) {
		more++;
		p += RECORD_HEADER + (size_t)le64(d + p + 9);
	}
	char want[64], got[96];
	snprintf(want, sizeof want, "%" PRIu64 " records", s->count);
	snprintf(got, sizeof got, "%" PRIu64 " and %s%" PRIu64 " more after them", s->count,
		 p < len && looks_like_record(d + p, len - p) ? "at least " : "", more ? more : 1);
	ev_fixread_damage(r, EV_RULE_JOURNAL_COUNT, at,
			  "the count header says fewer records than the file holds (a record follows the last "
			  "counted one)", want, got);
	s->phase = DAMAGED;
	return 1;
}

/* The first record of a file, against the room the previous file left. */
static void check_rotation(struct llfix *s, struct ev_fixread *r, uint64_t length)
{
	if (s->first_record_checked)
		return;
	s->first_record_checked = 1;
	if (s->have_prev && s->prev_room >= length + RECORD_HEADER) {
		char want[64], got[sizeof s->prev_name + 64];
		snprintf(want, sizeof want, "under %" PRIu64 " bytes left", length + RECORD_HEADER);
		snprintf(got, sizeof got, "%" PRIu64 " bytes left at the end of %s", s->prev_room,
			 s->prev_name);
		ev_fixread_damage(r, EV_RULE_JOURNAL_ROTATION, COUNT_BYTES,
				  "rotated to this file while the previous one had room for this record",
				  want, got);
	}
}

/* Bytes past the last committed record must be zero. */
static size_t scan_tail(struct llfix *s, struct ev_fixread *r, const unsigned char *d,
			size_t len, uint64_t at)
{
	size_t i = 0;
	for (; i + 8 <= len; i += 8)
		if (le64(d + i))
			break;
	for (; i < len; i++)
		if (d[i])
			break;
	if (i < len) {
		char found[32];
		snprintf(found, sizeof found, "0x%02x", d[i]);
		ev_fixread_damage(r, EV_RULE_JOURNAL_TAIL, at + i,
				  "nonzero byte after the last committed record (the count does not cover it)",
				  "0x00", found);
		s->phase = DAMAGED;
	}
	return len;
}

static size_t parse(void *st, struct ev_fixread *r, const unsigned char *d, size_t len,
		    uint64_t at, int eof)
{
	struct llfix *s = st;
	size_t p = 0;
	if (s->phase == COUNT) {
		if (len < COUNT_BYTES) {
			if (eof) {
				ev_fixread_damage(r, EV_RULE_JOURNAL_OVERRUN, at,
						  "file ends before its record count", "8 bytes", "fewer");
				s->phase = DAMAGED;
				return len;
			}
			return 0;
		}
		s->count = le64(d);
		s->phase = RECORDS;
		p = COUNT_BYTES;
	}
	while (s->phase == RECORDS) {
		if (s->seen == s->count) {
			if (!s->tail_probed && len - p < RECORD_HEADER + 2 && !eof)
				return p; /* the next read shows whether a record follows */
			s->phase = TAIL;
			if (!s->tail_probed && probe_tail(s, r, d + p, len - p, at + p))
				return len;
			break;
		}
		if (len - p < RECORD_HEADER) {
			if (!eof)
				return p;
			char want[64], got[64];
			snprintf(want, sizeof want, "%" PRIu64 " records", s->count);
			snprintf(got, sizeof got, "%" PRIu64 " and a cut record header", s->seen);
			ev_fixread_damage(r, EV_RULE_JOURNAL_OVERRUN, at + p,
					  "a record runs past the end of the file", want, got);
			s->phase = DAMAGED;
			return len;
		}
		const unsigned char *h = d + p;
		uint64_t length = le64(h + 9);
		if (length == 0 && le64(h) == 0 && h[8] == 0) {
			/* Zeros where a counted record should be: the count says more
			 * than was committed. */
			char want[64], got[64];
			snprintf(want, sizeof want, "%" PRIu64 " records", s->count);
			snprintf(got, sizeof got, "%" PRIu64 " (zeros from here)", s->seen);
			ev_fixread_damage(r, EV_RULE_JOURNAL_COUNT, 0,
					  "the count header says more records than the file holds", want, got);
			s->phase = TAIL;
			break;
		}
		if (length > EV_FIXREAD_RECORD_MAX) {
			char got[32];
			snprintf(got, sizeof got, "%" PRIu64, length);
			ev_fixread_damage(r, EV_RULE_JOURNAL_OVERRUN, at + p,
					  "a record length no journal writes (over 4 MiB)", "at most 4194304", got);
			s->phase = DAMAGED;
			return len;
		}
		if (len - p < RECORD_HEADER + length) {
			if (!eof)
				return p;
			char want[64], got[64];
			snprintf(want, sizeof want, "%" PRIu64 " bytes of record", RECORD_HEADER + length);
			snprintf(got, sizeof got, "%zu before the end of the file", len - p);
			ev_fixread_damage(r, EV_RULE_JOURNAL_OVERRUN, at + p,
					  "a record runs past the end of the file", want, got);
			s->phase = DAMAGED;
			return len;
		}
		check_rotation(s, r, length);
		if (h[8] != 1) {
			char got[8];
			snprintf(got, sizeof got, "%u", h[8]);
			ev_fixread_damage(r, EV_RULE_JOURNAL_SEND, at + p,
					  "the record says its send() did not succeed", "1", got);
		}
		s->seen++;
		ev_fixread_emit_stamped(r, h + RECORD_HEADER, (uint32_t)length, at + p + RECORD_HEADER, le64(h));
		p += RECORD_HEADER + (size_t)length;
		s->end_of_records = at + p;
	}
	if (s->phase == TAIL)
		return p + scan_tail(s, r, d + p, len - p, at + p);
	return len; /* DAMAGED: nothing more is read from this file */
}

static void end(void *st, struct ev_fixread *r, uint64_t size)
{
	struct llfix *s = st;
	char want[320], got[64];
	/* llfix creates each file at max_serialised_file_size, a multiple of
	 * 4096, zero-filled: a file of another size was cut or grown */
	if (!s->fixed_size) {
		s->fixed_size = size;
		snprintf(s->first_name, sizeof s->first_name, "%s", ev_fixread_name(r));
		if (size % 4096) {
			snprintf(got, sizeof got, "%" PRIu64 " bytes", size);
			ev_fixread_damage(r, EV_RULE_JOURNAL_ROTATION, size,
					  "the journal file is not a whole number of 4096-byte pages, as llfix "
					  "creates it", "a multiple of 4096 bytes", got);
		}
	} else if (size != s->fixed_size && s->phase != DAMAGED) { /* a cut record said it already */
		snprintf(want, sizeof want, "%" PRIu64 " bytes, as %s", s->fixed_size, s->first_name);
		snprintf(got, sizeof got, "%" PRIu64 " bytes", size);
		ev_fixread_damage(r, EV_RULE_JOURNAL_ROTATION, size < s->fixed_size ? size : s->fixed_size,
				  "a rotated file is not the journal's fixed size", want, got);
	}
	s->have_prev = 1;
	s->prev_room = size > s->end_of_records ? size - s->end_of_records : 0;
	snprintf(s->prev_name, sizeof s->prev_name, "%s", ev_fixread_name(r));
}

const struct ev_fixread_ops ev_fixread_llfix_ops = {
	.state_size = sizeof(struct llfix),
	.begin = begin,
	.parse = parse,
	.end = end,
};
