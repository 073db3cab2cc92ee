/* SPDX-License-Identifier: Apache-2.0 */
/* What replicate push and replicate audit share as tools: the options
 * that reach other hosts (--ssh, --ssh-config, --ssh-option, --timeout,
 * --trust) and the receipts' findings, printed or, with --json, kept. */
#ifndef REPLICATE_REMOTE_CLI_H
#define REPLICATE_REMOTE_CLI_H

#include <jansson.h>

#include "lib/cli/command.h"
#include "lib/core/finding.h"
#include "lib/remote/transport.h"

#define REPLICATE_MAX_TRUST 64

struct replicate_remote_cli {
	const char *ssh_options[EV_TRANSPORT_MAX_SSH_OPTIONS];
	char *trust[REPLICATE_MAX_TRUST];
	size_t n_trust;
	int json;
	json_t *findings;   /* with --json: every finding, its receipt named */
	unsigned count;     /* findings shown or kept */
};

/* The options that reach other hosts, by name: their keys in both tables. */
enum replicate_remote_option {
	REPLICATE_REMOTE_OPT_SSH = 'S',
	REPLICATE_REMOTE_OPT_SSH_CONFIG = 'F',
	REPLICATE_REMOTE_OPT_SSH_OPTION = 'O',
	REPLICATE_REMOTE_OPT_TIMEOUT = 't',
	REPLICATE_REMOTE_OPT_TRUST = 'u',
};

/* Option c (one of replicate_remote_option, as both tables give them) with its
 * argument, into t and r; a count read from g, which checked it. @return 1
 * when it was one of them, 0 when not; -1 when its argument was refused
 * (said, with command's usage: exit 2). */
int replicate_remote_option(struct replicate_remote_cli *r, struct ev_transport *t, const struct ev_cli_getopt *g,
			    int c, const char *arg, const char *command);

/* A receipt's problem or difference: "replicate: PATH: ..." on stderr, or
 * kept for --json. */
void replicate_remote_finding(struct replicate_remote_cli *r, const char *receipt_path, const struct ev_finding *f);

#endif
