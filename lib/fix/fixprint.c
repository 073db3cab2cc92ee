#include "config.h"
#include "lib/fix/fixprint.h"

#include <stdlib.h>
#include <string.h>

/* The fields a resend may change (FIX 4.4 Vol. 2, "Possible duplicates";
 * 9 and 10 follow from the others). */
static int resend_may_change(uint32_t tag)
{
	static const uint64_t six[2] = {1ull << 9 | 1ull << 10 | 1ull << 43 | 1ull << 52,
					1ull << (97 - 64) | 1ull << (122 - 64)};
	return tag < 128 && (six[tag >> 6] >> (tag & 63) & 1);
}

static int room(struct ev_fixprint *p, size_t need)
{
	if (!p->at && !(p->at = malloc(EV_FIX_MAX_FIELDS * sizeof *p->at)))
		return 0;
	if (need <= p->cap)
		return 1;
	char *g = realloc(p->gather, need);
	if (!g)
		return 0;
	p->gather = g;
	p->cap = (uint32_t)need;
	return 1;
}

/* Gather and hash m whole, noting where each value went. */
static void full(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m)
{
	size_t need = (size_t)m->len + 8 * (size_t)m->n + 8;
	p->kept = 0;
	if (!room(p, need)) {
		p->invariant = p->changeable = ev_fingerprint_hash(k, m->data, m->len);
		return;
	}
	/* invariant bytes from the front, in runs between the six (one copy
	 * a run, not a field); the six, each after its offset, from the back */
	size_t a = 0, b = need;
	uint32_t start = 0, run = 0;
	int regular = m->syntax_ok; /* every field tag=value SOH, back to back */
	for (uint32_t i = 0; i < m->n; i++) {
		const struct ev_fix_field *f = &m->f[i];
		uint32_t end = f->off + f->len + 1 <= m->len ? f->off + f->len + 1 : m->len;
		regular = regular && start <= f->off && end == f->off + f->len + 1;
		if (resend_may_change(f->tag)) {
			uint32_t n = end > start ? end - start : 0;
			memcpy(p->gather + a, m->data + run, start - run);
			a += start - run;
			b -= n;
			memcpy(p->gather + b, m->data + start, n);
			p->at[i] = (uint32_t)b + (f->off - start);
			b -= 4;
			memcpy(p->gather + b, &start, 4);
			run = end > start ? end : start;
		} else {
			p->at[i] = (uint32_t)a + (f->off - run); /* where this run will be copied */
		}
		start = end > start ? end : start;
	}
	/* the last run, and what scanning did not split (kept in both) */
	memcpy(p->gather + a, m->data + run, m->len - run);
	a += m->len - run;
	p->invariant = ev_fingerprint_hash(k, p->gather, a);
	p->changeable = ev_fingerprint_hash(k, p->gather + b, need - b);
	p->front = (uint32_t)a;
	p->back = (uint32_t)b;
	p->need = (uint32_t)need;
	p->len = m->len;
	p->n = m->n;
	p->kept = regular && start == m->len && a <= EV_FINGERPRINT_LINEAR_BYTES;
}

#define PATCH_WORDS 64 /* more changed words than this: hash again */

/* 8 bytes of the message from at, zeros past its end: near the end, the
 * last 8 shifted down (a copy of fewer bytes into a word, read back at
 * once, would wait for its stores). */
static uint64_t message_word(const struct ev_fix_msg *m, uint32_t at)
{
	uint64_t v = 0;
	if (at + 8 <= m->len) {
		memcpy(&v, m->data + at, 8);
	} else if (m->len >= 8) {
		memcpy(&v, m->data + m->len - 8, 8);
		v >>= 8 * (at + 8 - m->len);
	} else {
		for (uint32_t i = at; i < m->len; i++)
			v |= (uint64_t)(unsigned char)m->data[i] << (8 * (i - at));
	}
	return v;
}

/* The words of one part a patch changes: word, its value before and after. */
struct words {
	uint32_t n, w[PATCH_WORDS];
	uint64_t was[PATCH_WORDS], now[PATCH_WORDS];
};

/* The kept message with the changed values put in, and the words they
 * touch rehashed: @return 0 when too many changed. New words are made in
 * registers from the message, and gather is written last: a word read
 * back from bytes just stored would wait for the stores (no forwarding
 * across sizes), which cost more than all the rest. */
static int patch(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m,
		 const uint32_t *changed, size_t nchanged)
{
	struct words part[2];
	part[0].n = part[1].n = 0;
	const uint32_t base[2] = {0, p->back}, end[2] = {p->front, p->need};
	for (size_t c = 0; c < nchanged; c++) {
		const struct ev_fix_field *f = &m->f[changed[c]];
		if (!f->len)
			continue;
		int six = resend_may_change(f->tag);
		struct words *ws = &part[six];
		uint32_t at = p->at[changed[c]], first = (at - base[six]) / 7,
			 last = (at - base[six] + f->len - 1) / 7;
		if (ws->n + (last - first + 1) > PATCH_WORDS)
			return 0;
		for (uint32_t x = first; x <= last; x++) {
			uint32_t start = base[six] + 7 * x;
			/* a word another changed value touched: from what it made it */
			uint64_t was = 0;
			int seen = 0;
			for (uint32_t i = ws->n; i-- > 0 && !seen;)
				if (ws->w[i] == x)
					was = ws->now[i], seen = 1;
			if (!seen) {
				memcpy(&was, p->gather + start, 8);
				was &= start + 7 <= end[six] ? ((uint64_t)1 << 56) - 1
							      : ((uint64_t)1 << (8 * (end[six] - start))) - 1;
			}
			uint32_t lo = at > start ? at : start, hi = at + f->len < start + 7 ? at + f->len : start + 7;
			uint32_t shift = 8 * (lo - start);
			uint64_t mask = (((uint64_t)1 << (8 * (hi - lo))) - 1) << shift;
			uint64_t bytes = message_word(m, f->off + (lo - at));
			ws->w[ws->n] = x;
			ws->was[ws->n] = was;
			ws->now[ws->n++] = (was & ~mask) | ((bytes << shift) & mask);
		}
	}
	for (size_t c = 0; c < nchanged; c++) {
		const struct ev_fix_field *f = &m->f[changed[c]];
		memcpy(p->gather + p->at[changed[c]], m->data + f->off, f->len);
	}
	p->invariant = ev_fingerprint_rehash(k, p->invariant, part[0].w, part[0].was, part[0].now, part[0].n);
	if (part[1].n)
		p->changeable = p->need - p->back <= EV_FINGERPRINT_LINEAR_BYTES
					? ev_fingerprint_rehash(k, p->changeable, part[1].w, part[1].was, part[1].now,
								part[1].n)
					: ev_fingerprint_hash(k, p->gather + p->back, p->need - p->back);
	return 1;
}

void ev_fixprint_parts(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m,
		       const uint32_t *changed, size_t nchanged, uint64_t *invariant, uint64_t *changeable)
{
	if (!(changed && p->kept && m->len == p->len && m->n == p->n && patch(p, k, m, changed, nchanged)))
		full(p, k, m);
	*invariant = p->invariant ? p->invariant : 1;
	*changeable = p->changeable;
}

void ev_fixprint_forget(struct ev_fixprint *p)
{
	p->kept = 0;
}

void ev_fixprint_free(struct ev_fixprint *p)
{
	free(p->gather);
	free(p->at);
	memset(p, 0, sizeof *p);
}
