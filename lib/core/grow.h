/* SPDX-License-Identifier: Apache-2.0 */
/* grow: arrays that grow with a journal (a fingerprint per message, a
 * first copy per number), backed by huge pages where the kernel offers
 * them (transparent huge pages, "madvise" mode, Debian's default).
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

/* 0 in a build with AddressSanitizer, whose allocator copies on every
 * growth: no advice is given there. */
int ev_grow_advises(void);

#endif
