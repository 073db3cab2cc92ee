/* SPDX-License-Identifier: Apache-2.0 */
/* capture_pin: a plan with every program, launcher and other pinned file
 * (configs, profiles, the sides' inputs, the files named) pinned by its
 * SHA-256 as it is now, so that capture run can refuse any other file.
 * What `capture pin` does.
 *
 * Each file is held to every check capture run makes before a run
 * (lib/process/pin_check) but the pin itself, which is what is made here:
 * a file capture run would refuse is refused here. The pinned plan is
 * published at out, never replacing a file. No global state; nothing
 * printed.
 */
#ifndef EV_CAPTURE_PIN_H
#define EV_CAPTURE_PIN_H

#include <stddef.h>

#include "lib/core/status.h"

struct ev_capture_pin {
	/* inputs */
	const char *plan_path;
	const char *out;                /* the pinned plan */
	const char *const *files;       /* more files to pin (absolute paths) */
	size_t nfiles;

	/* outputs */
	size_t programs;                /* programs and launchers pinned */
	size_t other_files;             /* every other file pinned */
};

/* @return EV_OK; EV_REFUSED (a plan, or a file capture run would refuse:
 * err names the cell, observer or file) or EV_ERROR. */
ev_status ev_capture_pin(struct ev_capture_pin *o, struct ev_error *err);

#endif
