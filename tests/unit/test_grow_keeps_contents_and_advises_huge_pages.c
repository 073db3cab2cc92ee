/* SPDX-License-Identifier: Apache-2.0 */
/* grow: an array grown from 1 KiB to 64 MiB keeps every byte (and one
 * grown element by element doubles, refusing a size that would wrap); from 4 MiB
 * on, the whole mapping that holds it is advised for huge pages (its
 * VmFlags in /proc/self/smaps say "hg"), and advice never splits it (the
 * next realloc can still move it whole). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/core/grow.h"

/* The VmFlags of the mapping holding p contain flag; -1 when no mapping holds p. */
static int mapping_has(const void *p, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int inside = 0, found = -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			found = strstr(line, flag) != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

int main(void)
{
	uint32_t *v = NULL;
	size_t n = 0;
	for (size_t cap = 256; cap <= ((size_t)64 << 20) / sizeof *v; cap *= 2) {
		uint32_t *bigger = ev_grow(v, cap * sizeof *v);
		CHECK(bigger != NULL);
		if (!bigger)
			break;
		v = bigger;
		for (; n < cap; n++)
			v[n] = (uint32_t)(n * 2654435761u);
	}
	size_t wrong = 0;
	for (size_t i = 0; i < n; i++)
		wrong += v[i] != (uint32_t)(i * 2654435761u);
	CHECK_INT_EQ(wrong, 0);
	CHECK_INT_EQ(n, ((size_t)64 << 20) / sizeof *v);
	FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (thp && ev_grow_advises()) { /* a kernel without THP takes no advice, an ASan build gives none */
		CHECK_INT_EQ(mapping_has(v, " hg"), 1);
	}
	if (thp)
		fclose(thp);
	free(v);
	/* ev_grow_array: doubled from 16 until need fits, contents kept, and a
	 * product that would wrap refused with nothing changed */
	int *list = NULL;
	size_t cap = 0;
	CHECK_INT_EQ(ev_grow_array(&list, &cap, 1, sizeof *list), 0);
	CHECK_INT_EQ(cap, 16);
	for (int i = 0; i < 16; i++)
		list[i] = i;
	CHECK_INT_EQ(ev_grow_array(&list, &cap, 17, sizeof *list), 0);
	CHECK_INT_EQ(cap, 32);
	CHECK_INT_EQ(list[15], 15);
	CHECK_INT_EQ(ev_grow_array(&list, &cap, 20, sizeof *list), 0); /* room enough: nothing moves */
	CHECK_INT_EQ(cap, 32);
	int *was = list;
	CHECK_INT_EQ(ev_grow_array(&list, &cap, SIZE_MAX / 2, sizeof *list), -1);
	CHECK(list == was);
	CHECK_INT_EQ(cap, 32);
	CHECK_INT_EQ(ev_grow_array(&list, &cap, SIZE_MAX, 1), -1);
	CHECK_INT_EQ(cap, 32);
	free(list);
	return check_exit("test_grow_keeps_contents_and_advises_huge_pages");
}
