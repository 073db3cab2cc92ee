/* SPDX-License-Identifier: Apache-2.0 */
/* credentials: whom each side runs as.
 *
 * A side runs as the user the plan names for it (or for every side), with
 * that user's group (or the one named) and supplementary groups. Capture,
 * run as root, makes the namespaces, pins and links, then the side's
 * child drops to that user before exec (launch.h). Sides never run as root
 * unless the plan says "user": "root"; without root, capture can run a
 * side only as the user who runs capture.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_CREDENTIALS_H
#define EV_CREDENTIALS_H

#include <sys/types.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/status.h"

#define EV_CRED_MAX_GROUPS 64
#define EV_CRED_NAME_MAX 33

struct ev_side_cred {
	int drop;                       /* change to uid, gid, groups before exec */
	uid_t uid;
	gid_t gid;
	gid_t groups[EV_CRED_MAX_GROUPS];
	int ngroups;
	char user[EV_CRED_NAME_MAX];       /* as declared ("" when not) */
	char group[EV_CRED_NAME_MAX];
	char home[256];                 /* the user's home: HOME for the side */
};

/* Resolve every side's user and group through the system's databases,
 * before anything runs. @return EV_OK; EV_REFUSED naming the cell and side
 * when a side would run as root without saying so, names an unknown user
 * or group, needs root that capture does not have, or writes an output
 * where its user could not (the run directory itself, or a directory
 * shared with a side that runs as another user). */
ev_status ev_credentials_resolve(const struct ev_campaign_plan *p, struct ev_side_cred cred[][2], struct ev_error *err);

/* What run.json records of it: the declared names and the ids used. */
json_t *ev_credentials_json(const struct ev_side_cred *c);

#endif
