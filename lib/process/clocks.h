/* SPDX-License-Identifier: Apache-2.0 */
/* clocks: what a host's realtime clock was at a moment, as evidence for a
 * figure that subtracts two hosts' stamps: the kernel's view (ntp_adjtime:
 * synchronised or not, offset, maximum and estimated error), chrony's
 * (chronyc -c tracking) and linuxptp's (pmc's TIME_STATUS_NP) where they
 * run, the clocksource and the TSC's flags. Each part a host lacks is
 * "unavailable: WHY". doc/formats.md "Clocks" has the fields; the judge
 * of a record (synchronised, and within what error) is
 * lib/campaign/clocks_read. Only lib/process and capture's use cases
 * include this.
 */
#ifndef EV_CLOCKS_H
#define EV_CLOCKS_H

#include <jansson.h>

/* One record (the body of evidence-clocks/1 without "format", "host",
 * "boot_id" and "at", which the caller adds): {"kernel", "chrony", "ptp",
 * "clocksource", "tsc"}. Runs chronyc and pmc when installed (each
 * given 2 s; a daemon that does not answer is "unavailable"). A new
 * reference. */
json_t *ev_clocks_snapshot(void);

/* Seconds as chronyc prints them ("-0.000002154") in whole nanoseconds,
 * truncated past the ninth digit: 0 with *ns set, -1 when text is not
 * such a number. */
int ev_clocks_seconds_ns(const char *text, long long *ns);

#endif
