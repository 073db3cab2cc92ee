/* SPDX-License-Identifier: Apache-2.0 */
/* seal diff: what changed between two seals, member by member. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/archive/seal.h"
#include "seal/seal.h"

struct diff {
	int json;
	unsigned differences;
	json_t *added, *removed, *changed;
};

static void on_change(void *ctx, const struct ev_finding *f)
{
	struct diff *d = ctx;
	d->differences++;
	if (d->json)
		json_array_append_new(d->changed, json_pack("{s:s, s:s, s:s, s:s}", "path", f->subject,
							     "field", f->check, "a", f->expected,
							     "b", f->found));
	else
		printf("changed: %s: %s (A: %s, B: %s)\n", f->subject, f->check, f->expected,
		       f->found);
}

static void one_side(struct diff *d, json_t *list, const char *label, const struct ev_member *m)
{
	d->differences++;
	if (d->json)
		json_array_append_new(list, json_pack("{s:s, s:s}", "path", m->path, "type",
						      ev_member_type_name(m->type)));
	else
		printf("%s: %s (%s)\n", label, m->path, ev_member_type_name(m->type));
}

int seal_diff_main(int argc, char **argv)
{
	struct diff d = {0};
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "diff");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&seal_tool, "diff");
		case SEAL_DIFF_OPT_JSON: d.json = 1; break;
		default:
			return ev_cli_usage(&seal_tool, "diff", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 2 != argc)
		return ev_cli_usage(&seal_tool, "diff", "expected two seals, found %d", argc - optind);
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_seal a, b;
	ev_seal_init(&b);
	ev_status st = ev_seal_load(argv[optind], &a, NULL, NULL, NULL, &err);
	if (st == EV_OK)
		st = ev_seal_load(argv[optind + 1], &b, NULL, NULL, NULL, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		ev_seal_free(&a);
		return 2;
	}
	d.added = json_array();
	d.removed = json_array();
	d.changed = json_array();
	if (strcmp(a.root, b.root) != 0) {
		struct ev_finding f;
		ev_finding_make(&f, "(root)", "root", "root name differs", a.root, b.root);
		on_change(&d, &f);
	}
	size_t i = 0, j = 0;
	while (i < a.count || j < b.count) {
		int cmp = i == a.count ? 1 : j == b.count ? -1
							  : strcmp(a.members[i].path, b.members[j].path);
		if (cmp < 0)
			one_side(&d, d.removed, "removed", &a.members[i++]);
		else if (cmp > 0)
			one_side(&d, d.added, "added", &b.members[j++]);
		else
			ev_member_compare(&a.members[i++], &b.members[j++], 1, on_change, &d);
	}
	if (d.json) {
		json_t *doc = json_pack("{s:o, s:o, s:o}", "added", d.added, "removed", d.removed,
					"changed", d.changed);
		ev_json_print(doc, stdout, &err);
		json_decref(doc);
	} else {
		json_decref(d.added);
		json_decref(d.removed);
		json_decref(d.changed);
	}
	ev_seal_free(&a);
	ev_seal_free(&b);
	return d.differences ? 1 : 0;
}
