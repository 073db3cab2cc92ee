/* SPDX-License-Identifier: Apache-2.0 */
/* replicate receive and keep-head: the far ends of push, run by it over
 * ssh (or directly, for a local directory); lib/remote/receive and
 * lib/usecase/receipt_log do the work. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/remote/receive.h"
#include "lib/usecase/receipt_log.h"
#include "replicate/replicate.h"

int replicate_receive_main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return ev_cli_help(&replicate_tool, "receive");
	if (argc != 5)
		return ev_cli_usage(&replicate_tool, "receive", "expected DIR NAME SIZE SHA256");
	char *end;
	errno = 0;
	unsigned long long size = strtoull(argv[3], &end, 10);
	if (errno || end == argv[3] || *end || argv[3][0] == '-')
		return ev_cli_usage(&replicate_tool, "receive", "SIZE: expected a byte count, found '%s'", argv[3]);
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receive_file(STDIN_FILENO, STDOUT_FILENO, argv[1], argv[2], size, argv[4], &err);
	if (st == EV_USAGE)
		return ev_cli_usage(&replicate_tool, "receive", "%s", err.text);
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	return ev_status_exit_code(st);
}

int replicate_keep_head_main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return ev_cli_help(&replicate_tool, "keep-head");
	if (argc != 3)
		return ev_cli_usage(&replicate_tool, "keep-head", "expected DIR LABEL");
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receipt_log_keep_head(STDIN_FILENO, STDOUT_FILENO, argv[1], argv[2], &err);
	if (st == EV_USAGE)
		return ev_cli_usage(&replicate_tool, "keep-head", "%s", err.text);
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	return ev_status_exit_code(st);
}
