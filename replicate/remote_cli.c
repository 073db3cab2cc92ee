/* SPDX-License-Identifier: Apache-2.0 */
/* remote_cli: the options and findings replicate push and audit share
 * (remote_cli.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "replicate/remote_cli.h"
#include "replicate/replicate.h"

int replicate_remote_option(struct replicate_remote_cli *r, struct ev_transport *t, const struct ev_cli_getopt *g,
			    int c, const char *arg, const char *command)
{
	switch (c) {
	case REPLICATE_REMOTE_OPT_SSH_CONFIG: t->ssh_config = arg; return 1;
	case REPLICATE_REMOTE_OPT_SSH: t->ssh = arg; return 1;
	case REPLICATE_REMOTE_OPT_SSH_OPTION:
		if (t->n_ssh_options == EV_TRANSPORT_MAX_SSH_OPTIONS) {
			ev_cli_usage(&replicate_tool, command, "at most %d --ssh-option", EV_TRANSPORT_MAX_SSH_OPTIONS);
			return -1;
		}
		r->ssh_options[t->n_ssh_options++] = arg;
		t->ssh_options = r->ssh_options;
		return 1;
	case REPLICATE_REMOTE_OPT_TIMEOUT:
		t->idle_seconds = (int)g->count;
		return 1;
	case REPLICATE_REMOTE_OPT_TRUST:
		if (r->n_trust == REPLICATE_MAX_TRUST) {
			ev_cli_usage(&replicate_tool, command, "at most %d --trust files", REPLICATE_MAX_TRUST);
			return -1;
		}
		r->trust[r->n_trust++] = (char *)arg;
		return 1;
	default:
		return 0;
	}
}

void replicate_remote_finding(struct replicate_remote_cli *r, const char *receipt_path, const struct ev_finding *f)
{
	r->count++;
	if (r->json) {
		json_t *j = ev_finding_to_json(f);
		json_object_set_new(j, "receipt", json_string(receipt_path));
		json_array_append_new(r->findings, j);
		return;
	}
	char prefix[PATH_MAX + 32];
	snprintf(prefix, sizeof prefix, TOOL ": %s: ", receipt_path);
	ev_cli_finding(stderr, strcmp(f->subject, receipt_path) == 0 ? TOOL ": " : prefix, f);
}
