/* SPDX-License-Identifier: Apache-2.0 */
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
	need += 8; /* a word read at the end of the changeable part stays inside */
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

/* The kept message with the changed values put in, each value's change
 * to its part's fingerprint applied from the bytes it replaces (gather is
 * written after all are applied, so each reads the bytes as they were). */
static void patch(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m,
		  const uint32_t *changed, size_t nchanged)
{
	uint64_t h[2] = {p->invariant, p->changeable};
	const uint32_t base[2] = {0, p->back};
	/* the invariant part is within the multilinear hash's reach (kept says
	 * so); the six may not be, and are then hashed again whole */
	int six_linear = p->need - p->back <= EV_FINGERPRINT_LINEAR_BYTES, six_changed = 0;
	for (size_t c = 0; c < nchanged; c++) {
		const struct ev_fix_field *f = &m->f[changed[c]];
		int six = resend_may_change(f->tag);
		uint32_t at = p->at[changed[c]];
		six_changed |= six;
		if (!six || six_linear)
			h[six] = ev_fingerprint_rewrite(k, h[six], p->gather + at, m->data + f->off, m->len - f->off,
						        at - base[six], f->len);
	}
	for (size_t c = 0; c < nchanged; c++) {
		const struct ev_fix_field *f = &m->f[changed[c]];
		memcpy(p->gather + p->at[changed[c]], m->data + f->off, f->len);
	}
	p->invariant = h[0];
	if (six_changed)
		p->changeable = six_linear ? h[1] : ev_fingerprint_hash(k, p->gather + p->back, p->need - p->back);
}

void ev_fixprint_parts(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m,
		       const uint32_t *changed, size_t nchanged, uint64_t *invariant, uint64_t *changeable)
{
	if (changed && p->kept && m->len == p->len && m->n == p->n)
		patch(p, k, m, changed, nchanged);
	else
		full(p, k, m);
	*invariant = p->invariant ? p->invariant : 1;
	*changeable = p->changeable;
}

void ev_fixprint_free(struct ev_fixprint *p)
{
	free(p->gather);
	free(p->at);
	memset(p, 0, sizeof *p);
}
