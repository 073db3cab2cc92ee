/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp_file: a file (SEAL.json, a receipt) given a trusted time,
 * RFC 3161 (lib/receipt/timestamp). What `seal timestamp` does.
 *
 * Beside FILE: FILE.tsq, the request (the SHA-256 of FILE's bytes, a
 * random nonce, certReq), and FILE.tsr, the TSA's reply, stored only once
 * it is verified against FILE's digest, the request's nonce and the CA
 * (each fact named when it fails). Neither is ever replaced.
 *   EV_TIMESTAMP_FETCH    request, POST it to the TSA (application/
 *                         timestamp-query), verify the reply, store both;
 *   EV_TIMESTAMP_REQUEST  write FILE.tsq only (an air-gapped host carries
 *                         it to a TSA by any means);
 *   EV_TIMESTAMP_REPLY    verify a reply obtained so against FILE.tsq and
 *                         FILE, and store it as FILE.tsr;
 *   EV_TIMESTAMP_VERIFY   verify FILE.tsr against FILE.tsq, FILE and the CA.
 * No global state.
 */
#ifndef EV_TIMESTAMP_FILE_H
#define EV_TIMESTAMP_FILE_H

#include <limits.h>

#include "lib/core/status.h"
#include "lib/receipt/timestamp.h"

enum ev_timestamp_mode { EV_TIMESTAMP_FETCH, EV_TIMESTAMP_REQUEST, EV_TIMESTAMP_REPLY, EV_TIMESTAMP_VERIFY };

struct ev_timestamp_file {
	/* inputs */
	enum ev_timestamp_mode mode;
	const char *file;
	const char *tsa_url;     /* FETCH */
	const char *tsa_ca;      /* FETCH, REPLY, VERIFY: the CA file (PEM) the TSA must chain to */
	const char *reply;       /* REPLY: the reply obtained elsewhere */
	long timeout_seconds;    /* FETCH; 0: 30 */

	/* outputs */
	struct ev_timestamp_verdict verdict;
	char tsq[PATH_MAX + 8], tsr[PATH_MAX + 8];
	char why[1024];          /* EV_MISMATCH: the fact that failed, and why */
};

/* @return EV_OK; EV_MISMATCH (why names the fact; nothing stored);
 * EV_REFUSED (a FILE.tsq or FILE.tsr that exists, a file that is not a
 * regular file), EV_USAGE or EV_ERROR (the TSA unreachable: nothing
 * stored but FILE.tsq). */
ev_status ev_timestamp_file(struct ev_timestamp_file *t, struct ev_error *err);

#endif
