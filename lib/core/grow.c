/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define ADVISED_FROM ((size_t)4 << 20)
#define PAGE ((uintptr_t)4096)

int ev_grow_advises(void)
{
	/* ASan's realloc copies and quarantines the old block: huge pages
	 * would only make what its quarantine holds resident in 2 MiB steps */
	return !UNDER_ASAN;
}

void *ev_grow(void *p, size_t bytes)
{
	void *q = realloc(p, bytes);
	if (q && bytes >= ADVISED_FROM && ev_grow_advises()) {
		/* every page the block touches: advising a part of the mapping
		 * would split it, and the next realloc could not move it whole */
		uintptr_t start = (uintptr_t)q & ~(PAGE - 1), end = ((uintptr_t)q + bytes + PAGE - 1) & ~(PAGE - 1);
		if (end > start)
			(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
	}
	return q;
}

int ev_grow_array(void *items, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t want = *cap ? *cap : 16;
	while (want < need) {
		if (want > SIZE_MAX / 2)
			return -1;
		want *= 2;
	}
	if (size && want > SIZE_MAX / size)
		return -1;
	void *p;
	memcpy(&p, items, sizeof p); /* items is a T **: its pointer read as a void * */
	void *q = ev_grow(p, want * size);
	if (!q)
		return -1;
	memcpy(items, &q, sizeof q);
	*cap = want;
	return 0;
}
