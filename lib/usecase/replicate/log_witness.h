/* SPDX-License-Identifier: Apache-2.0 */
/* log_witness: a replica keeping another host's receipt-log heads, and
 * cosigning their checkpoints as a witness (c2sp.org/tlog-witness): what
 * `replicate keep-head` does at the far end of a push. The log's files
 * are lib/receipt/log_files; the pushing side is receipt_log's offer.
 * No global state; nothing printed (the answers go to the fd given).
 */
#ifndef EV_LOG_WITNESS_H
#define EV_LOG_WITNESS_H

#include "lib/core/status.h"
#include "lib/receipt/signature.h"

/* A replica as a witness (c2sp.org/tlog-cosignature): with a key,
 * keep-head cosigns the checkpoint of every head it keeps, for the logs
 * whose keys it trusts. */
struct ev_witness {
	const struct ev_signing_key *key; /* NULL: heads are kept, nothing is cosigned */
	const struct ev_trust *trust;     /* the log keys it cosigns for; required with a key */
	const char *name;                 /* the cosigner's name in its signature lines */
};

/* The far end (`replicate keep-head DIR LABEL`): says on out "have SIZE
 * ROOT" (the last head kept in DIR/log-heads/LABEL, or "have 0 -"), reads
 * one line from in, {"head": HEAD, "proof": [hex...], "checkpoint": NOTE
 * (a signed log's)}, and keeps HEAD as DIR/log-heads/LABEL/head-SIZE.json
 * only when the proof shows the kept head's tree a prefix of it (RFC 9162
 * §2.1.4.2), answering "kept head-SIZE" or "refused: WHY". With w's key,
 * it cosigns too, as a witness does: only a checkpoint signed by a trusted
 * key, whose origin is the one first cosigned under LABEL (recorded in
 * DIR/log-heads/LABEL/origin), saying what the head says; the cosigned
 * checkpoint is kept beside the head (checkpoint-SIZE) and the answer is
 * "kept head-SIZE cosigned LINE", LINE the cosignature's. @return EV_OK
 * kept; EV_MISMATCH refused; EV_USAGE or EV_ERROR. */
ev_status ev_receipt_log_keep_head(int in, int out, const char *dir, const char *label, const struct ev_witness *w,
				   struct ev_error *err);

#endif
