/* SPDX-License-Identifier: Apache-2.0 */
/* clocks_read: a host's clock record judged: was its realtime clock
 * synchronised, and within what error of the reference, by the best
 * witness the record holds (doc/formats.md "Clocks"). The record is an
 * evidence-clocks/1 document (capture clocks) or a run.json's "clocks"
 * (capture run, before and after the run). The one reader of both;
 * lib/process/clocks takes them.
 */
#ifndef EV_CLOCKS_READ_H
#define EV_CLOCKS_READ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_CLOCKS_FORMAT "evidence-clocks/1"

struct ev_clock_judgement {
	int synchronised;     /* by the witness named in how */
	long long error_ns;   /* when synchronised: the clock is within this of the reference */
	char how[400];        /* one sentence: the witness and its figures, or why not synchronised */
	char host[256];       /* whose clock ("" when the record does not say) */
	char boot_id[40];     /* the kernel that kept it ("" when not said) */
};

/* One record ({"kernel", "chrony", "ptp", ...}) judged: chrony's tracking
 * when chronyd answered (synchronised unless its leap status says not;
 * error |system clock - NTP time| + root dispersion + root delay / 2), else
 * the kernel's (synchronised unless STA_UNSYNC or TIME_ERROR; error its
 * maximum error). ptp4l's offset is of the PHC, not the system clock, so
 * it is recorded but judges nothing. */
void ev_clocks_judge(const json_t *record, struct ev_clock_judgement *out);

/* ns as a reader takes it in: "850 ns", "146.5 us", "1.0 ms", "2.5 s". */
void ev_clocks_duration_text(long long ns, char *out, size_t cap);

/* path read and judged: an evidence-clocks/1 document, or a run.json (its
 * clocks before and after the run: synchronised only when both were, the
 * larger error). sha256 (may be NULL) receives the file's digest, doc
 * (may be NULL) the document read, a new reference (its signature is
 * the caller's to judge). @return EV_OK, or EV_USAGE naming the file and
 * what it holds instead. */
ev_status ev_clocks_load(const char *path, struct ev_clock_judgement *out, uint8_t sha256[EV_SHA256_LEN],
			 json_t **doc, struct ev_error *err);

#endif
