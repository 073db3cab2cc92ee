/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_log_parts: what the files of replicate log share, and no one
 * else (receipt_log.c appends and answers a push, receipt_log_verify.c
 * judges the log whole). */
#ifndef EV_RECEIPT_LOG_PARTS_H
#define EV_RECEIPT_LOG_PARTS_H

#include <stdio.h>

#include "lib/usecase/replicate/receipt_log.h"

/* A finding of verify, its message formatted, counted in l->findings. */
void ev_receipt_log_found(struct ev_receipt_log *l, const char *subject, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Where an entry's inclusion proof lies: beside its file. */
static inline void proof_path_of(const char *file, char *out, size_t cap)
{
	snprintf(out, cap, "%s.inclusion.json", file);
}

#endif
