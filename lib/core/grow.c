#include "config.h"
#include "lib/core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ADVISED_FROM ((size_t)4 << 20)
#define PAGE ((uintptr_t)4096)

void *ev_grow(void *p, size_t bytes)
{
	void *q = realloc(p, bytes);
	if (q && bytes >= ADVISED_FROM) {
		/* every page the block touches: advising a part of the mapping
		 * would split it, and the next realloc could not move it whole */
		uintptr_t start = (uintptr_t)q & ~(PAGE - 1), end = ((uintptr_t)q + bytes + PAGE - 1) & ~(PAGE - 1);
		if (end > start)
			(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
	}
	return q;
}
