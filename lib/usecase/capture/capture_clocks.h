/* SPDX-License-Identifier: Apache-2.0 */
/* capture_clocks: this host's clock as a record another host's audit can
 * hold a figure to (evidence-clocks/1: host, boot, when, and
 * lib/process/clocks' snapshot). What `capture clocks` does: for a host
 * whose copies are stamped by a program capture does not run (the far
 * end of a two-host pair), taken beside its run. Published at out when
 * given, never replacing a file; nothing printed.
 */
#ifndef EV_CAPTURE_CLOCKS_H
#define EV_CAPTURE_CLOCKS_H

#include <jansson.h>

#include "lib/core/status.h"

struct ev_signing_key;

/* The record, a new reference in *doc, signed with key when it is not
 * NULL (as a receipt is: lib/receipt/signature); with out, also
 * published there (EV_REFUSED when out exists). */
ev_status ev_capture_clocks(const char *out, const struct ev_signing_key *key, json_t **doc, struct ev_error *err);

#endif
