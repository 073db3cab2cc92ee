/* SPDX-License-Identifier: Apache-2.0 */
/* stop: the process's stop flag, as the library sees it.
 *
 * lib/cli's signal handlers set a flag (ev_cli_interrupted) and register
 * it here once (ev_stop_on). Two kinds of library code look at it:
 * publication (lib/core/publish), so that once a signal came no file
 * reaches its final name and a late signal can never leave a "pass"
 * behind; and loops over inputs of any size (lib/stats's order
 * statistics and distributions), so that a command stops within half a
 * second whatever it reads (doc/design.md, principle 5).
 *
 * The one piece of global state in lib/core: a pointer, set before any
 * thread starts and only read afterwards.
 */
#ifndef EV_STOP_H
#define EV_STOP_H

#include <signal.h>

/* Register flag (NULL: none). A command that must still record what it
 * already did after a signal (replicate prune's removal record, a
 * capture session's end) clears it first, and says why. */
void ev_stop_on(const volatile sig_atomic_t *flag);

/* The flag registered (NULL: none), to register again once such a
 * record is written. */
const volatile sig_atomic_t *ev_stop_flag(void);

/* Hold SIGINT, SIGTERM and SIGHUP in the calling thread while such a
 * record is written (the mask before into *before), so that a signal is
 * taken before it or after it, never half-way; release gives the mask
 * back, and a signal held meanwhile is taken then. */
void ev_stop_hold_signals(sigset_t *before);
void ev_stop_release_signals(const sigset_t *before);

/* Whether the registered flag is set (0 without one). */
int ev_stop_requested(void);

#endif
