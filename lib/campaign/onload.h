/* SPDX-License-Identifier: Apache-2.0 */
/* onload: what an accelerated stack really used, read from the text
 * Onload's tools print (onload_stackdump lots, or a stand-in printing the
 * same lines), and what a side asked for.
 *
 * Option lines, whitespace around them ignored:
 *     EF_TCP_RCVBUF: 262144 (default: 0)     an option changed from its default
 *     EF_POLL_USEC: 100000                   an option, bare
 * A line that starts with "EF_" and is neither is a finding, never
 * skipped. Stack counters are lines "name: INTEGER" with a lowercase name
 * (rx_evs, tx_pkts, ...); the same counter on several lines (several
 * stacks) is summed. Every other line (headers, tables) is not read.
 * Requested options come from a profile (either syntax Onload accepts,
 * below) or environment entries.
 * No global state. */
#ifndef EV_ONLOAD_H
#define EV_ONLOAD_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"

/* Parse text (len bytes; subject names it in findings). *options gets
 * {"EF_NAME": {"value": "262144", "default": "0" or null}} and *counters
 * {"name": integer}, new references. An option given twice with two
 * values, and a malformed EF_ line, go to fn(ctx, ...) with their line
 * number; the first value is kept. @return how many findings. */
unsigned ev_onload_parse(const char *text, size_t len, const char *subject, json_t **options, json_t **counters,
			 ev_finding_fn fn, void *ctx);

/* A profile's requested options into requested ({"EF_NAME": "value"}),
 * later lines replacing earlier ones, as Onload reads them. Lines of
 * either syntax Onload accepts: "EF_NAME=value" (a profile given as a
 * file, as llfix's onload_profile.cfg) and "export EF_NAME=value"; and
 * its own profiles' (.opf, shell sourced by the onload script)
 * "onload_set EF_NAME value" or "onload_set EF_NAME=value", values
 * quoted or not. "onload_import NAME" appends NAME to imports (the
 * caller reads that profile first: what this one sets after the import
 * replaces it). '#' comments and blank lines are skipped; every other
 * line goes to not_understood as "line N: TEXT", never dropped silently
 * (imports and not_understood may be NULL). @return how many options
 * were taken. */
size_t ev_onload_requested_profile(const char *text, size_t len, json_t *requested, json_t *imports,
				   json_t *not_understood);

/* An environment entry "EF_NAME=value" into requested; others ignored.
 * @return 1 when taken. */
int ev_onload_requested_env(const char *entry, json_t *requested);

#endif
