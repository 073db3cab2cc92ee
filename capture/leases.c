/* SPDX-License-Identifier: Apache-2.0 */
/* capture leases: who holds or waits for this host's CPUs. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "capture/capture.h"
#include "lib/core/json.h"
#include "lib/core/lease.h"

int capture_leases_main(int argc, char **argv)
{
	int json = 0, opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "leases");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case EV_CLI_HELP: return ev_cli_help(&capture_tool, "leases");
		case CAPTURE_LEASES_OPT_JSON: json = 1; break;
		default: return ev_cli_usage(&capture_tool, "leases", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(&capture_tool, "leases", "unexpected argument '%s'", argv[optind]);
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_pools pools;
	const char *dir = ev_lease_dir();
	json_t *list = NULL;
	ev_status st = ev_pools_load(&pools, &err);
	if (st == EV_OK && !(list = ev_lease_list(dir, &err)))
		st = err.status;
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		return ev_status_exit_code(st);
	}
	char isolated[1024], shared[1024];
	ev_cpulist_format(&pools.isolated, isolated, sizeof isolated);
	ev_cpulist_format(&pools.shared, shared, sizeof shared);
	json_object_set_new(list, "registry", json_string(dir));
	json_object_set_new(list, "pools", json_pack("{s:s, s:s, s:s}", "isolated", isolated, "shared", shared, "source",
						      pools.source));
	if (json) {
		ev_json_print(list, stdout, &err);
	} else {
		printf("registry %s; pools: isolated %s, shared %s (%s)\n", dir, isolated[0] ? isolated : "none", shared,
		       pools.source);
		size_t i;
		json_t *h;
		json_array_foreach(json_object_get(list, "holders"), i, h)
			printf("held     cpus %-8s %-9s pid %-7lld since %s  %s\n", json_string_value(json_object_get(h, "cpus")),
			       json_string_value(json_object_get(h, "mode")), (long long)json_integer_value(json_object_get(h, "pid")),
			       json_string_value(json_object_get(h, "since")), json_string_value(json_object_get(h, "command")));
		json_array_foreach(json_object_get(list, "waiting"), i, h)
			printf("waiting  cpus %-8s %-9s pid %-7lld since %s  %s (priority %s)\n",
			       json_string_value(json_object_get(h, "cpus")), json_string_value(json_object_get(h, "mode")),
			       (long long)json_integer_value(json_object_get(h, "pid")),
			       json_string_value(json_object_get(h, "since")), json_string_value(json_object_get(h, "command")),
			       json_string_value(json_object_get(h, "priority")));
		if (!json_array_size(json_object_get(list, "holders")) && !json_array_size(json_object_get(list, "waiting")))
			printf("no lease is held or waited for\n");
	}
	json_decref(list);
	return 0;
}
