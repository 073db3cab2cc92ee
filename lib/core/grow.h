/* SPDX-License-Identifier: Apache-2.0 */
/* grow: arrays that grow (ev_grow_array, every list the library keeps),
 * and those that grow with a journal (a fingerprint per message, a first
 * copy per number) backed by huge pages where the kernel offers them
 * (transparent huge pages, "madvise" mode, Debian's default).
 *
 * A million orders touch about 64 MiB: 16,000 page faults in 4 KiB pages,
 * about 12% of a journal audit's time on a virtual machine; 32 in 2 MiB
 * ones. Only arrays of 4 MiB and more are advised; an advice the kernel
 * refuses changes nothing but speed. No state.
 */
#ifndef EV_GROW_H
#define EV_GROW_H

#include <stddef.h>

/* realloc(p, bytes), and for bytes >= 4 MiB madvise(MADV_HUGEPAGE) on the
 * whole pages of the result. NULL (p untouched) when out of memory. */
void *ev_grow(void *p, size_t bytes);

/* The array *(T **)items of *cap elements of size bytes each, grown to
 * hold at least need of them: the capacity doubled (from 16) until it
 * does, its bytes counted with the multiplication checked, as
 * reallocarray(3) does, and given to ev_grow. The one way an array grows
 * in evidence: no hand-rolled doubling whose product can wrap.
 * @return 0; -1 when out of memory or when need * size would not fit in a
 * size_t (*items and *cap are then as they were). */
int ev_grow_array(void *items, size_t *cap, size_t need, size_t size);

/* 0 in a build with AddressSanitizer, whose allocator copies on every
 * growth: no advice is given there. */
int ev_grow_advises(void);

#endif
