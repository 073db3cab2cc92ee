/* SPDX-License-Identifier: Apache-2.0 */
/* proc: naming a process so that it can be recognised later, and telling
 * whether it is still running.
 *
 * A PID alone is reused; a process is named by its PID, its start time
 * (field 22 of /proc/PID/stat: clock ticks after boot) and the boot it
 * belongs to (/proc/sys/kernel/random/boot_id). capture records these for
 * every process it starts; replicate prune refuses to remove a run whose
 * recorded processes are still running. Linux only. No global state.
 */
#ifndef EV_PROC_H
#define EV_PROC_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/core/status.h"

#define EV_BOOT_ID_LEN 36 /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */

/* The start time of a running process, in clock ticks after boot.
 * @return EV_OK; EV_MISMATCH when no such process exists; EV_ERROR when
 * /proc cannot be read or parsed. */
ev_status ev_proc_start_ticks(pid_t pid, uint64_t *ticks, struct ev_error *err);

/* This boot's id into out (EV_BOOT_ID_LEN + 1 bytes). */
ev_status ev_proc_boot_id(char out[EV_BOOT_ID_LEN + 1], struct ev_error *err);

/* Is the recorded process still running? boot_id may be NULL (then only
 * PID and start time are compared). @return 1 running, 0 gone, -1 cannot
 * tell (err set). */
/* Is s a well-formed boot id, as the kernel writes one: 36 characters,
 * lower-case hex in groups of 8-4-4-4-12 joined by '-'? 1 yes, 0 no (an
 * "unavailable: ..." record, upper case, junk: whoever reads it cannot
 * tell which boot it names). */
int ev_proc_boot_id_valid(const char *s);

int ev_proc_is_running(pid_t pid, uint64_t start_ticks, const char *boot_id,
		       struct ev_error *err);

#endif
