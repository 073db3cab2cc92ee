/* SPDX-License-Identifier: Apache-2.0 */
/* session: one session of a registered campaign on the record
 * (evidence-session/1, doc/formats.md "Sessions"): its start, written and
 * appended to the host's receipt log before the first pair runs, and its
 * end, written and appended whatever ends it (every run made, a run that
 * failed, a signal, an error), with the runs it made. A session that is
 * never sealed, or is abandoned, is still in the log: what a reviewer
 * counts against the sessions the registration planned.
 *
 * The one code that builds and reads the format; documents are canonical
 * JSON with no key they do not name. No global state. */
#ifndef EV_SESSION_H
#define EV_SESSION_H

#include <stdint.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_SESSION_FORMAT "evidence-session/1"

/* The runs a session accounted for. */
struct ev_session_tally {
	unsigned made;      /* run in this session */
	unsigned ok, failed;/* of those made, and of those kept from earlier sessions */
	unsigned earlier;   /* kept from earlier sessions */
	unsigned not_run;   /* left when the plan stopped on a failure */
};

/* The start of a session of the campaign in dir (absolute) of the plan
 * whose bytes hash to plan_sha256, registered by the registration whose
 * bytes hash to registration_sha256, on host (boot boot_id) now, with a
 * random nonce: two sessions started in one second are two entries of
 * the log, never one. A new reference (NULL: out of memory, or no
 * randomness). */
json_t *ev_session_start(const char *registration_sha256, const char *plan_sha256, const char *dir, const char *host,
			 const char *boot_id);

/* Its end: the start's bytes by start_sha256, result ("ok": every run
 * held; "failed": a run failed; "interrupted": a signal; "error": it
 * could not go on, why saying so), the tally, and the capture receipt's
 * SHA-256 (NULL: none was written). A new reference. */
json_t *ev_session_end(const json_t *start, const char *start_sha256, const char *result,
		       const struct ev_session_tally *t, const char *receipt_sha256, const char *why);

/* Read path as a session document, held to every rule the builders keep;
 * sha256 (may be NULL) gets the digest of its bytes. @return EV_OK (*doc
 * a new reference); EV_REFUSED naming the key; EV_ERROR. */
ev_status ev_session_load(const char *path, json_t **doc, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err);

#endif
