/* SPDX-License-Identifier: Apache-2.0 */
/* workdir: a side's working directory inside the run directory
 * (EV_PLAN_WORK_SENDER or EV_PLAN_WORK_PEER), the plan's input files copied into
 * it, and the directories of its declared outputs; given to the user the
 * side runs as when it drops to one.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_WORKDIR_H
#define EV_WORKDIR_H

#include <jansson.h>

#include "lib/process/credentials.h"
#include "lib/campaign/plan_check.h"
#include "lib/core/status.h"

/* Make run_dir/side->work and the parents of side's outputs, and copy each
 * input from its pinned file, which the run has just checked as capture
 * checks a program: the bytes written are hashed as they are copied and
 * must have the SHA-256 pins gives the source, so the copy is the file
 * that was pinned. *inputs (a new array, or NULL when the side has none)
 * records each: name, path, sha256.
 * @return EV_OK; EV_REFUSED (an input not pinned, or changed since it was
 * checked) or EV_ERROR naming the file. */
ev_status ev_workdir_prepare(const char *run_dir, const struct ev_plan_side *side, const struct ev_side_cred *cred,
				  const json_t *pins, json_t **inputs, struct ev_error *err);

#endif
