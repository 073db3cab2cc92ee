/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/namefold.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <unicase.h>
#include <uninorm.h>

#include "lib/core/grow.h"
#include "lib/core/path.h"

struct folded {
	char *name;
	uint8_t *key; /* NULL when the key is the name itself */
	size_t key_len;
};

struct ev_namefold {
	struct folded *items;
	size_t count, cap;
};

struct ev_namefold *ev_namefold_new(void)
{
	return calloc(1, sizeof(struct ev_namefold));
}

void ev_namefold_free(struct ev_namefold *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->count; i++) {
		free(set->items[i].name);
		free(set->items[i].key);
	}
	free(set->items);
	free(set);
}

/* Lower-case ASCII folds to itself under every normalization form: most
 * campaign names never reach libunistring. */
static int folds_to_itself(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || (*s >= 'A' && *s <= 'Z'))
			return 0;
	return 1;
}

ev_status ev_namefold_add(struct ev_namefold *set, const char *path, struct ev_error *err)
{
	if (ev_grow_array(&set->items, &set->cap, set->count + 1, sizeof *set->items) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory while folding names");
	struct folded *f = &set->items[set->count];
	memset(f, 0, sizeof *f);
	size_t len = strlen(path);
	if (!(f->name = strdup(path)))
		return ev_error_set(err, EV_ERROR, "out of memory while folding names");
	f->key_len = len;
	if (!folds_to_itself(path)) {
		f->key = u8_casefold((const uint8_t *)path, len, NULL, UNINORM_NFD, NULL, &f->key_len);
		if (!f->key) {
			free(f->name);
			return ev_error_set(err, EV_ERROR, "%s: cannot fold the name (not UTF-8?)",
					    path);
		}
	}
	set->count++;
	return EV_OK;
}

static const uint8_t *key_of(const struct folded *f)
{
	return f->key ? f->key : (const uint8_t *)f->name;
}

static int by_key_then_name(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(key_of(x), key_of(y), n);
	if (c)
		return c;
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return strcmp(x->name, y->name);
}

unsigned ev_namefold_report(struct ev_namefold *set, ev_finding_fn on_finding, void *ctx)
{
	if (set->count < 2)
		return 0; /* and qsort must not be handed a NULL array */
	if (set->count > 1)
		qsort(set->items, set->count, sizeof *set->items, by_key_then_name);
	unsigned reported = 0;
	size_t first = 0; /* the first name of the current group of equal keys */
	for (size_t i = 1; i < set->count; i++) {
		const struct folded *a = &set->items[first], *b = &set->items[i];
		if (a->key_len != b->key_len || memcmp(key_of(a), key_of(b), a->key_len) != 0) {
			first = i;
			continue;
		}
		if (strcmp(set->items[i - 1].name, b->name) == 0)
			continue; /* the same bytes again: a duplicate, not a collision */
		/* Both names byte by byte: NFC and NFD forms print alike. */
		char mine[EV_FINDING_VALUE_MAX / 2], theirs[EV_FINDING_VALUE_MAX / 2];
		char both[sizeof mine + sizeof theirs + 8]; /* the finding cuts it */
		ev_path_quote_bytes(b->name, strlen(b->name), mine, sizeof mine);
		ev_path_quote_bytes(a->name, strlen(a->name), theirs, sizeof theirs);
		snprintf(both, sizeof both, "%s and %s", mine, theirs);
		ev_finding_emit(on_finding, ctx, b->name, "collision",
				"two members name the same file where case or Unicode "
				"normalization is ignored (macOS, Windows)",
				NULL, both);
		reported++;
	}
	return reported;
}
