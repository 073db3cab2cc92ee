/* SPDX-License-Identifier: Apache-2.0 */
/* The Onload reader takes what onload_stackdump prints: option lines with
 * and without their "(default: ...)" annotation, padded with spaces and
 * tabs; lowercase counters, summed over stacks; and it names, with its
 * line, an EF_ line it cannot read and an option given twice with two
 * values, never skipping them. Requested options come from a profile's
 * EF_NAME=value lines and from environment entries. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "lib/campaign/onload.h"

struct seen {
	int n;
	char subject[8][128], check[8][64], found[8][EV_FINDING_VALUE_MAX];
};

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		snprintf(s->subject[s->n], sizeof s->subject[0], "%s", f->subject);
		snprintf(s->check[s->n], sizeof s->check[0], "%s", f->check);
		snprintf(s->found[s->n], sizeof s->found[0], "%s", f->found);
	}
	s->n++;
}

static const char *value(json_t *options, const char *name, const char *key)
{
	json_t *v = json_object_get(json_object_get(options, name), key);
	return json_is_null(v) ? "null" : json_string_value(v);
}

int main(void)
{
	static const char dump[] =
		"============================================================\n"
		"ci_netif_dump_to_logger: stack=3 name=BM\n"
		"  EF_TCP_RCVBUF: 262144 (default: 0)\n"
		"\tEF_POLL_USEC:\t100000   \r\n"
		"EF_NAME: BM\n"
		"EF_TCP_SNDBUF: 131072 (default: 0)\n"
		"  rx_evs: 12\n"
		"  tx_pkts: 30\n"
		"  rx_evs: 5\n"
		"  Rx_Evs: 7\n"
		"  some table | with: columns\n"
		"EF_SPIN_USEC 1000\n"
		"EF_POLL_USEC: 0\n"
		"EF_TCP_RCVBUF: 262144 (default: 0)\n"
		"EF_INT_DRIVEN: 1 (default 0)\n";
	json_t *options, *counters;
	struct seen seen = {0};
	unsigned n = ev_onload_parse(dump, strlen(dump), "stackdump", &options, &counters, on_finding, &seen);
	CHECK_INT_EQ(n, 3);
	CHECK_INT_EQ(seen.n, 3);
	CHECK_STR_EQ(value(options, "EF_TCP_RCVBUF", "value"), "262144");
	CHECK_STR_EQ(value(options, "EF_TCP_RCVBUF", "default"), "0");
	CHECK_STR_EQ(value(options, "EF_POLL_USEC", "value"), "100000");
	CHECK_STR_EQ(value(options, "EF_POLL_USEC", "default"), "null");
	CHECK_STR_EQ(value(options, "EF_NAME", "value"), "BM");
	CHECK_STR_EQ(value(options, "EF_TCP_SNDBUF", "value"), "131072");
	CHECK_INT_EQ(json_object_size(options), 4);
	CHECK_INT_EQ(json_integer_value(json_object_get(counters, "rx_evs")), 17);
	CHECK_INT_EQ(json_integer_value(json_object_get(counters, "tx_pkts")), 30);
	CHECK(json_object_get(counters, "Rx_Evs") == NULL);
	CHECK_INT_EQ(json_object_size(counters), 2);
	/* each finding names its line */
	CHECK_STR_EQ(seen.subject[0], "stackdump line 12");
	CHECK_STR_EQ(seen.check[0], "onload-option");
	CHECK_STR_EQ(seen.found[0], "EF_SPIN_USEC 1000");
	CHECK_STR_EQ(seen.subject[1], "stackdump line 13");
	CHECK_STR_EQ(seen.found[1], "0");
	CHECK_STR_EQ(seen.subject[2], "stackdump line 15");
	CHECK_STR_EQ(seen.found[2], "EF_INT_DRIVEN: 1 (default 0)");
	json_decref(options);
	json_decref(counters);

	/* a value of two words, and an empty annotation, are not options */
	static const char odd[] = "EF_NAME: two words\nEF_X: 1 (default: )\n";
	struct seen odd_seen = {0};
	CHECK_INT_EQ(ev_onload_parse(odd, strlen(odd), "odd", &options, &counters, on_finding, &odd_seen), 2);
	CHECK_INT_EQ(json_object_size(options), 0);
	json_decref(options);
	json_decref(counters);

	static const char profile[] = "# the benchmark's profile\nEF_POLL_USEC=-1\n\n  EF_MAX_PACKETS=100000\nEF_POLL_USEC=5\nnot an option\n";
	json_t *requested = json_object();
	json_t *unread = json_array();
	CHECK_INT_EQ(ev_onload_requested_profile(profile, strlen(profile), requested, NULL, unread), 3);
	CHECK_INT_EQ(json_array_size(unread), 1);
	CHECK_STR_EQ(json_string_value(json_array_get(unread, 0)), "line 6: not an option");
	json_decref(unread);
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_POLL_USEC")), "5");
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_MAX_PACKETS")), "100000");
	CHECK_INT_EQ(ev_onload_requested_env("EF_TCP_RCVBUF=262144", requested), 1);
	CHECK_INT_EQ(ev_onload_requested_env("PATH=/usr/bin", requested), 0);
	CHECK_INT_EQ(ev_onload_requested_env("EF_bad=1", requested), 0);
	CHECK_INT_EQ(json_object_size(requested), 3);
	json_decref(requested);

	/* Onload's own profile syntax (.opf, sourced by the onload script):
	 * onload_set in both forms, quotes, an import, export, and a shell
	 * line this reader does not understand, named, not dropped */
	static const char opf[] = "# OpenOnload latency profile\n"
				  "onload_import throughput\n"
				  "onload_set EF_POLL_USEC 100000\n"
				  "onload_set EF_TCP_FASTSTART_INIT=0\n"
				  "onload_set EF_NAME \"BM stack\"\n"
				  "export EF_SPIN_USEC=-1\n"
				  "if [ -n \"$X\" ]; then onload_set EF_INT_DRIVEN 1; fi\n"
				  "onload_set EF_UNTERMINATED \"1\n"
				  "onload_set EF_TOO many words\n";
	json_t *imports = json_array();
	unread = json_array();
	requested = json_object();
	CHECK_INT_EQ(ev_onload_requested_profile(opf, strlen(opf), requested, imports, unread), 4);
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_POLL_USEC")), "100000");
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_TCP_FASTSTART_INIT")), "0");
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_NAME")), "BM stack");
	CHECK_STR_EQ(json_string_value(json_object_get(requested, "EF_SPIN_USEC")), "-1");
	CHECK_INT_EQ(json_array_size(imports), 1);
	CHECK_STR_EQ(json_string_value(json_array_get(imports, 0)), "throughput");
	CHECK_INT_EQ(json_array_size(unread), 3);
	CHECK_STR_EQ(json_string_value(json_array_get(unread, 0)), "line 7: if [ -n \"$X\" ]; then onload_set EF_INT_DRIVEN 1; fi");
	CHECK_STR_EQ(json_string_value(json_array_get(unread, 2)), "line 9: onload_set EF_TOO many words");
	json_decref(imports);
	json_decref(unread);
	json_decref(requested);
	return check_exit("onload");
}
