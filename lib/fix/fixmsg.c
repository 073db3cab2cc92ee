/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixmsg.h"

#include <stdio.h>
#include <string.h>

#include "lib/core/path.h"

int ev_fix_parse_u64(const char *s, uint32_t len, uint64_t *out)
{
	if (len == 0 || len > 19)
		return -1;
	uint64_t v = 0;
	for (uint32_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

long ev_fix_find(const struct ev_fix_msg *m, uint32_t tag, uint32_t from)
{
	for (uint32_t i = from; i < m->n; i++)
		if (m->f[i].tag == tag)
			return (long)i;
	return -1;
}

/* The first SOH at or after `from`, or len. Eight bytes at a time (a
 * byte equal to SOH is a zero byte of word ^ 0x0101...): values are short,
 * and a call per field to memchr costs more than the search. */
static size_t find_soh(const char *data, size_t from, size_t len)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t p = from;
	while (p + 8 <= len) {
		uint64_t w;
		memcpy(&w, data + p, 8);
		w ^= ones;
		uint64_t hit = (w - ones) & ~w & highs;
		if (hit)
			return p + (size_t)(__builtin_ctzll(hit) >> 3); /* little-endian */
		p += 8;
	}
	while (p < len && data[p] != EV_FIX_SOH)
		p++;
	return p;
}

static uint64_t trailer_sum(const char *p, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)p[i];
	return sum;
}

/* Up to 20 bytes of the message from p, SOH shown as '|': what was found
 * where a field was expected. Never past len (the bytes are not a string). */
static void show_from(const char *data, size_t p, size_t len, char *out, size_t cap)
{
	char tmp[20];
	size_t n = len - p < sizeof tmp ? len - p : sizeof tmp;
	for (size_t i = 0; i < n; i++)
		tmp[i] = data[p + i] == EV_FIX_SOH ? '|' : data[p + i];
	ev_path_quote_bytes(tmp, n, out, cap);
}

static void problem(unsigned *count, ev_fix_problem_fn fn, void *ctx, enum ev_fix_rule rule,
		    uint32_t at, const char *expected, const char *found)
{
	(*count)++;
	if (fn)
		fn(ctx, rule, at, expected, found);
}

/* The byte sum, mod 256, of n bytes: the FIX CheckSum. Eight bytes at a
 * time, into four 16-bit lanes that are flushed before they could
 * overflow (each word adds at most 2 * 255 to a lane). */
static unsigned byte_sum(const unsigned char *p, size_t n)
{
	const uint64_t even = 0x00FF00FF00FF00FFull;
	uint64_t total = 0;
	size_t i = 0;
	while (i + 8 <= n) {
		uint64_t lanes = 0;
		for (size_t k = 0; k < 64 && i + 8 <= n; k++, i += 8) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			lanes += (w & even) + ((w >> 8) & even);
		}
		total += (lanes & 0xFFFF) + ((lanes >> 16) & 0xFFFF) + ((lanes >> 32) & 0xFFFF) +
			 (lanes >> 48);
	}
	for (; i < n; i++)
		total += p[i];
	return (unsigned)(total & 0xFF);
}

/* Walks the SOH bitmap forward: fields are split in order, so each SOH
 * bit is looked at once. */
struct soh_cursor {
	const uint64_t *map;
	size_t words, w;
	uint64_t bits; /* of map[w] not yet passed */
};

/* The first SOH at or after `at`, or len. */
static inline size_t soh_next(struct soh_cursor *c, size_t at, size_t len)
{
	for (;;) {
		while (!c->bits) {
			if (++c->w >= c->words)
				return len;
			c->bits = c->map[c->w];
		}
		size_t pos = c->w * 64 + (size_t)__builtin_ctzll(c->bits);
		c->bits &= c->bits - 1;
		if (pos >= at)
			return pos < len ? pos : len;
	}
}

/* Split data into fields. With soh_map (the message's SOH bitmap), a
 * value's end is its next bit; without, a search. bounded: the message may
 * not end with SOH, so the tag loop checks the length; one that does end
 * with SOH cannot be read past by it. The compiler makes one copy of this
 * for each case. @return fields found; *syntax_ok is cleared at the first
 * malformed field, whose offset and bytes are reported. */
static inline __attribute__((always_inline)) uint32_t
split(const char *data, size_t len, const struct ev_fix_data_tags *data_tags,
      struct ev_fix_field *fields, int *syntax_ok, int *has_data, unsigned *count,
      ev_fix_problem_fn fn, void *ctx, const int bounded, const uint64_t *soh_map)
{
	char a[32], b[96];
	struct soh_cursor cur = {soh_map, (len + 63) / 64, 0, soh_map && len ? soh_map[0] : 0};
	uint32_t n = 0;
	size_t p = 0;
	while (p < len) {
		/* The tag: 1-9 digits, no leading zero, then '='. */
		uint32_t tag = 0;
		size_t t = p;
		unsigned d;
		while ((!bounded || t < len) && t - p < 10 && (d = (unsigned char)data[t] - '0') <= 9) {
			tag = tag * 10 + d;
			t++;
		}
		if (t == p || t - p > 9 || (bounded && t >= len) || data[t] != '=' || data[p] == '0') {
			*syntax_ok = 0;
			show_from(data, p, len, b, sizeof b);
			problem(count, fn, ctx, EV_RULE_FIELD_SYNTAX, (uint32_t)p, "tag=value<SOH>", b);
			break;
		}
		size_t v = t + 1;
		size_t end; /* the SOH that ends the value */
		uint32_t len_tag = data_tags && tag <= data_tags->max_tag ? data_tags->length_tag[tag] : 0;
		uint64_t dlen;
		if (len_tag && n > 0 && fields[n - 1].tag == len_tag &&
		    ev_fix_parse_u64(data + fields[n - 1].off, fields[n - 1].len, &dlen) == 0 &&
		    dlen <= len - v) {
			end = v + (size_t)dlen;
			*has_data = 1;
		} else {
			end = soh_map ? soh_next(&cur, v, len) : find_soh(data, v, len);
		}
		if (end >= len || data[end] != EV_FIX_SOH) {
			*syntax_ok = 0;
			snprintf(a, sizeof a, "%u=...<SOH>", tag);
			problem(count, fn, ctx, EV_RULE_FIELD_SYNTAX, (uint32_t)p, a, "a value not ended by SOH");
			break;
		}
		if (n == EV_FIX_MAX_FIELDS) {
			*syntax_ok = 0;
			snprintf(a, sizeof a, "at most %d fields", EV_FIX_MAX_FIELDS);
			problem(count, fn, ctx, EV_RULE_FIELD_SYNTAX, (uint32_t)p, a, "more");
			break;
		}
		fields[n++] = (struct ev_fix_field){tag, (uint32_t)v, (uint32_t)(end - v)};
		p = end + 1;
	}
	return n;
}

#ifdef __SSE2__
#include <emmintrin.h>

#define SIMD_MAX 4096 /* longer messages are split by the scalar loop */

/* The 16 bytes of data from i, as many as there are (zeros after len):
 * nothing past the message is read. */
static inline __m128i load16(const char *data, size_t i, size_t len)
{
	if (i + 16 <= len)
		return _mm_loadu_si128((const __m128i *)(data + i));
	unsigned char tail[16] = {0};
	memcpy(tail, data + i, len - i);
	return _mm_loadu_si128((const __m128i *)tail);
}

/* The bitmap of a message's SOH bytes, a bit per byte, and the sum of
 * its bytes, in one pass of 16 bytes a step. */
static uint64_t soh_map_of(const char *data, size_t len, uint64_t *soh)
{
	const __m128i s = _mm_set1_epi8(EV_FIX_SOH), zero = _mm_setzero_si128();
	__m128i sums = zero;
	size_t words = (len + 63) / 64;
	for (size_t w = 0; w < words; w++)
		soh[w] = 0;
	for (size_t i = 0; i < len; i += 16) {
		__m128i v = load16(data, i, len);
		sums = _mm_add_epi64(sums, _mm_sad_epu8(v, zero));
		soh[i / 64] |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, s)) << (i % 64);
	}
	uint64_t lanes[2];
	_mm_storeu_si128((__m128i *)lanes, sums);
	return lanes[0] + lanes[1];
}

#endif

/* BodyLength and CheckSum of a message split with 8, 9, 35 first and 10
 * last; sum: of the bytes before "10=". @return problems. */
static unsigned judge_trailer(const char *data, const struct ev_fix_msg *msg, unsigned sum,
			      ev_fix_problem_fn fn, void *ctx)
{
	char a[32], b[96];
	unsigned count = 0;
	const struct ev_fix_field *last = &msg->f[msg->n - 1];
	uint32_t trailer = last->off - 3;
	if (msg->n >= 2 && msg->f[1].tag == 9) {
		uint64_t stated;
		uint32_t body_start = msg->f[1].off + msg->f[1].len + 1;
		uint64_t actual = trailer >= body_start ? trailer - body_start : 0;
		if (ev_fix_parse_u64(data + msg->f[1].off, msg->f[1].len, &stated) != 0) {
			snprintf(a, sizeof a, "%llu", (unsigned long long)actual);
			show_from(data, msg->f[1].off, msg->f[1].off + msg->f[1].len, b, sizeof b);
			problem(&count, fn, ctx, EV_RULE_BODY_LENGTH, msg->f[1].off, a, b);
		} else if (stated != actual) {
			snprintf(a, sizeof a, "%llu", (unsigned long long)actual);
			snprintf(b, sizeof b, "%llu", (unsigned long long)stated);
			problem(&count, fn, ctx, EV_RULE_BODY_LENGTH, msg->f[1].off, a, b);
		}
	}
	const char *cv = data + last->off;
	int digits3 = last->len == 3 && cv[0] >= '0' && cv[0] <= '9' && cv[1] >= '0' &&
		      cv[1] <= '9' && cv[2] >= '0' && cv[2] <= '9';
	if (!digits3 || (unsigned)((cv[0] - '0') * 100 + (cv[1] - '0') * 10 + (cv[2] - '0')) != sum) {
		snprintf(a, sizeof a, "%03u", sum);
		show_from(data, last->off, last->off + last->len, b, sizeof b);
		problem(&count, fn, ctx, EV_RULE_CHECKSUM, last->off, a, b);
	}
	return count;
}

unsigned ev_fix_scan(const char *data, size_t len, const struct ev_fix_data_tags *data_tags,
		     struct ev_fix_msg *msg, ev_fix_problem_fn fn, void *ctx)
{
	unsigned count = 0;
	char a[32], b[96];
	int syntax_ok = 1, has_data = 0;
	msg->data = data;
	msg->n = 0;
	msg->syntax_ok = 1;
	if (len > UINT32_MAX) {
		msg->syntax_ok = 0;
		problem(&count, fn, ctx, EV_RULE_FIELD_SYNTAX, 0, NULL, "a message over 4 GiB");
		return count;
	}
	msg->len = (uint32_t)len;
	uint64_t total = 0;
	int summed = 0;
#ifdef __SSE2__
	if (len <= SIMD_MAX) {
		uint64_t soh[SIMD_MAX / 64];
		total = soh_map_of(data, len, soh);
		summed = 1;
		msg->n = split(data, len, data_tags, msg->f, &syntax_ok, &has_data, &count, fn, ctx, 1, soh);
	} else
#endif
	if (len && data[len - 1] == EV_FIX_SOH)
		msg->n = split(data, len, data_tags, msg->f, &syntax_ok, &has_data, &count, fn, ctx, 0, NULL);
	else
		msg->n = split(data, len, data_tags, msg->f, &syntax_ok, &has_data, &count, fn, ctx, 1, NULL);
	msg->syntax_ok = syntax_ok;
	msg->has_data = has_data;

	/* The envelope: 8, 9, 35 first, 10 last. */
	static const uint32_t first[3] = {8, 9, 35};
	for (uint32_t i = 0; i < 3; i++) {
		if (i < msg->n && msg->f[i].tag == first[i])
			continue;
		snprintf(a, sizeof a, "tag %u as field %u", first[i], i + 1);
		if (i < msg->n)
			snprintf(b, sizeof b, "tag %u", msg->f[i].tag);
		problem(&count, fn, ctx, EV_RULE_ENVELOPE_ORDER, i < msg->n ? msg->f[i].off : 0, a,
			i < msg->n ? b : "no field");
		break;
	}
	const struct ev_fix_field *last = msg->n ? &msg->f[msg->n - 1] : NULL;
	if (!last || last->tag != 10 || !msg->syntax_ok) {
		if (msg->syntax_ok) {
			if (last)
				snprintf(b, sizeof b, "tag %u", last->tag);
			problem(&count, fn, ctx, EV_RULE_ENVELOPE_ORDER, last ? last->off : 0,
				"tag 10 last", last ? b : "no field");
		}
		return count;
	}
	/* With the bitmap came the sum of every byte: take the trailer's off. */
	uint32_t trailer = last->off - 3; /* "10=" starts three bytes before its value */
	unsigned sum = summed ? (unsigned)((total - trailer_sum(data + trailer, len - trailer)) & 0xFF)
			      : byte_sum((const unsigned char *)data, trailer);
	return count + judge_trailer(data, msg, sum, fn, ctx);
}

long ev_fix_frame(const char *data, size_t n)
{
	/* "8=" value SOH "9=" digits SOH: the body follows, then "10=ddd" SOH. */
	if (n < 2)
		return 0;
	if (data[0] != '8' || data[1] != '=')
		return -1;
	const char *soh = memchr(data, EV_FIX_SOH, n);
	if (!soh)
		return n > 64 ? -1 : 0;
	size_t p = (size_t)(soh - data) + 1;
	if (n < p + 2)
		return 0;
	if (data[p] != '9' || data[p + 1] != '=')
		return -1;
	p += 2;
	uint64_t body = 0;
	size_t digits = 0;
	while (p < n && data[p] >= '0' && data[p] <= '9' && digits < 10) {
		body = body * 10 + (uint64_t)(data[p++] - '0');
		digits++;
	}
	if (p >= n)
		return digits < 10 ? 0 : -1;
	if (digits == 0 || data[p] != EV_FIX_SOH)
		return -1;
	size_t total = p + 1 + body + 7; /* the body, then "10=ddd<SOH>" */
	if (body > ((size_t)1 << 30))
		return -1;
	if (n < total)
		return 0;
	const char *t = data + p + 1 + body;
	if (memcmp(t, "10=", 3) != 0 || t[6] != EV_FIX_SOH)
		return -1;
	return (long)total;
}

/* 8, 9 and 35 first, 10 last: the envelope's order. */
static int envelope_in_order(const struct ev_fix_msg *m)
{
	return m->n >= 4 && m->f[0].tag == 8 && m->f[1].tag == 9 && m->f[2].tag == 35 &&
	       m->f[m->n - 1].tag == 10;
}

void ev_fix_template_set(struct ev_fix_template *t, const struct ev_fix_msg *m)
{
	t->len = 0;
	if (!m->syntax_ok || m->has_data || m->len > EV_FIX_TEMPLATE_MAX || !envelope_in_order(m))
		return;
	size_t words = ((size_t)m->len + 63) / 64;
	for (size_t w = 0; w < words; w++)
		t->structure[w] = ~(uint64_t)0;
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t b = m->f[i].off; b < m->f[i].off + m->f[i].len; b++) {
			t->structure[b / 64] &= ~((uint64_t)1 << (b % 64));
			t->value_of[b] = (uint16_t)i;
		}
	memcpy(t->bytes, m->data, m->len);
	memcpy(t->f, m->f, m->n * sizeof *m->f);
	t->n = m->n;
	t->len = m->len;
}

#ifdef __SSE2__
int ev_fix_rescan(const char *data, size_t len, struct ev_fix_template *t, struct ev_fix_msg *msg,
		  uint64_t *diff, unsigned *problems, ev_fix_problem_fn fn, void *ctx)
{
	if (!t->len || len != t->len)
		return 0;
	const __m128i s = _mm_set1_epi8(EV_FIX_SOH), zero = _mm_setzero_si128();
	__m128i sums = zero;
	size_t words = (len + 63) / 64;
	for (size_t w = 0; w < words; w++)
		diff[w] = 0;
	for (size_t i = 0; i < len; i += 16) {
		__m128i v = load16(data, i, len);
		unsigned lanes = i + 16 <= len ? 0xFFFF : (1u << (len - i)) - 1;
		__m128i was = _mm_loadu_si128((const __m128i *)(t->bytes + i));
		sums = _mm_add_epi64(sums, _mm_sad_epu8(v, zero));
		unsigned changed = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, was)) & lanes;
		if (!changed)
			continue;
		unsigned structure = (unsigned)(t->structure[i / 64] >> (i % 64)) & 0xFFFF;
		unsigned soh = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, s));
		if (changed & (structure | soh)) {
			t->len = 0; /* its bytes are partly this message's now */
			return 0;
		}
		diff[i / 64] |= (uint64_t)changed << (i % 64);
		if (i + 16 <= len)
			_mm_storeu_si128((__m128i *)(t->bytes + i), v);
		else
			memcpy(t->bytes + i, data + i, len - i);
	}
	uint64_t lanes[2];
	_mm_storeu_si128((__m128i *)lanes, sums);
	msg->data = data;
	msg->len = (uint32_t)len;
	msg->n = t->n;
	msg->syntax_ok = 1;
	msg->has_data = 0;
	memcpy(msg->f, t->f, t->n * sizeof *t->f);
	const struct ev_fix_field *last = &msg->f[msg->n - 1];
	uint32_t trailer = last->off - 3;
	unsigned sum = (unsigned)((lanes[0] + lanes[1] - trailer_sum(data + trailer, len - trailer)) & 0xFF);
	*problems = judge_trailer(data, msg, sum, fn, ctx);
	return 1;
}
#else
int ev_fix_rescan(const char *data, size_t len, struct ev_fix_template *t, struct ev_fix_msg *msg,
		  uint64_t *diff, unsigned *problems, ev_fix_problem_fn fn, void *ctx)
{
	(void)data, (void)len, (void)t, (void)msg, (void)diff, (void)problems, (void)fn, (void)ctx;
	return 0; /* always scanned */
}
#endif

void ev_fix_tag_text(const char *msg, size_t len, const char *tag, char *out, size_t cap)
{
	size_t t = strlen(tag);
	out[0] = 0;
	for (size_t i = 0; i + t + 1 < len; i++)
		if ((i == 0 || msg[i - 1] == EV_FIX_SOH) && memcmp(msg + i, tag, t) == 0 && msg[i + t] == '=') {
			const char *v = msg + i + t + 1, *e = memchr(v, EV_FIX_SOH, len - (i + t + 1));
			size_t n = (size_t)((e ? e : msg + len) - v);
			snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), v);
			return;
		}
}
