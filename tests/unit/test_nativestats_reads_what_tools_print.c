/* SPDX-License-Identifier: Apache-2.0 */
/* nativestats: the llfix block (ANSI colour codes, %g with an exponent,
 * %f, a shell's complaint mixed in), sockperf's summary (its colours, the
 * padded %8.3lf values, "99.000" named p99) and the reference pair's JSON
 * are read as printed, each with its tool's rule; a file that states no
 * statistic is refused, naming it. A value is formatted back as the tool
 * printed it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib/stats/nativestats.h"

static const char *write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	fputs(text, f);
	fclose(f);
	return name;
}

static const struct ev_native_stat *find(const struct ev_native *n, const char *name)
{
	for (size_t i = 0; i < n->n; i++)
		if (strcmp(n->stats[i].name, name) == 0)
			return &n->stats[i];
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/evidence-nativestats-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(chdir(dir) == 0);
	struct ev_native n;
	struct ev_error err;
	ev_error_clear(&err);

	const char *llfix = write_file("llfix.txt",
		"sh: 1: sudo: not found\n"
		"\033[0;34mCPU frequency\033[0m 2096000000 hertz\n"
		"\033[0;34mCPU isolation config\033[0m : \n"
		"\033[0;34mPinned to CPU core\033[0m 1\n"
		"\033[0;34mAntistall mock order count\033[0m : 1000\n\n"
		"\033[0;34mTitle\033[0m : New order\n"
		"\033[0;34mSample count\033[0m : 1000000\n"
		"\033[0;34mMinimum\033[0m : 1803 nanoseconds\n"
		"\033[0;34mMaximum\033[0m : 4.76819e+08 nanoseconds\n"
		"\033[0;34mAverage\033[0m : 7446.491114 nanoseconds\n"
		"\033[0;34mP50\033[0m : 1943.000000 nanoseconds\n"
		"\033[0;34mP99\033[0m : 15619.000000 nanoseconds\n");
	CHECK_INT_EQ(ev_native_load(llfix, &n, &err), EV_OK);
	CHECK_INT_EQ(n.kind, EV_NATIVE_LLFIX);
	CHECK_INT_EQ(n.rule, EV_QRULE_FLOOR_INDEX);
	CHECK_STR_EQ(n.title, "New order");
	CHECK_INT_EQ(n.warmups, 1000);
	CHECK_INT_EQ(n.n, 6);
	CHECK(find(&n, "max") && strcmp(find(&n, "max")->text, "4.76819e+08") == 0);
	CHECK(find(&n, "p99") && find(&n, "p99")->p.num * 100 == find(&n, "p99")->p.den * 99);
	CHECK(find(&n, "count") && strcmp(find(&n, "count")->text, "1000000") == 0);
	char text[64];
	/* a line the tool always prints and the block lacks is named, not skipped */
	CHECK_INT_EQ(n.nmissing, 3);
	CHECK_STR_EQ(n.missing[0], "p75");
	CHECK_STR_EQ(n.missing[2], "p95");
	/* every other line of the block is named as read, not recomputable */
	CHECK_INT_EQ(n.nnotes, 4);
	CHECK_STR_EQ(n.notes[0].label, "CPU frequency");
	CHECK_STR_EQ(n.notes[0].text, "2096000000 hertz");
	CHECK_STR_EQ(n.notes[1].label, "CPU isolation config");
	CHECK_STR_EQ(n.notes[2].label, "Pinned to CPU core");
	CHECK_STR_EQ(n.notes[3].label, "Antistall mock order count");
	ev_native_format_value(find(&n, "max"), 476819123.0L, text, sizeof text);
	CHECK_STR_EQ(text, "4.76819e+08"); /* %g keeps six digits: the same after rounding */
	ev_native_format_value(find(&n, "mean"), 7446.4911144L, text, sizeof text);
	CHECK_STR_EQ(text, "7446.491114");

	const char *sockperf = write_file("sockperf.txt",
		"sockperf: [Valid Duration] RunTime=0.551 sec; SentMessages=5228; ReceivedMessages=5228\n"
		"sockperf: \033[2;35m====> avg-latency=52.615 (std-dev=231.326)\033[0m\n"
		"sockperf: Summary: Latency is 52.615 usec\n"
		"sockperf: \033[2;35mTotal 5228 observations\033[0m; each percentile contains 52.28 observations\n"
		"sockperf: ---> <MAX> observation = 3965.312\n"
		"sockperf: ---> percentile 99.999 = 3965.312\n"
		"sockperf: ---> percentile 99.000 = 1219.225\n"
		"sockperf: ---> percentile 50.000 =   12.720\n"
		"sockperf: ---> <MIN> observation =    9.389\n");
	CHECK_INT_EQ(ev_native_load(sockperf, &n, &err), EV_OK);
	CHECK_INT_EQ(n.kind, EV_NATIVE_SOCKPERF);
	CHECK_INT_EQ(n.rule, EV_QRULE_ROUND_HALF_UP);
	CHECK(n.half_rtt);
	CHECK(find(&n, "p99") && strcmp(find(&n, "p99")->text, "1219.225") == 0);
	CHECK(find(&n, "p50") && strcmp(find(&n, "p50")->text, "12.720") == 0);
	CHECK(find(&n, "p99.999") != NULL);
	CHECK(find(&n, "mean") && strcmp(find(&n, "mean")->text, "52.615") == 0);
	CHECK(find(&n, "count") && strcmp(find(&n, "count")->text, "5228") == 0);
	ev_native_format_value(find(&n, "p50"), 12720.0L, text, sizeof text);
	CHECK_STR_EQ(text, "12.720");
	CHECK(find(&n, "std-dev") && strcmp(find(&n, "std-dev")->text, "231.326") == 0);
	CHECK(find(&n, "valid run time") && strcmp(find(&n, "valid run time")->text, "0.551") == 0);
	ev_native_format_value(find(&n, "valid run time"), 551000000.0L, text, sizeof text);
	CHECK_STR_EQ(text, "0.551");
	CHECK(find(&n, "summary mean") != NULL);
	CHECK(find(&n, "observations per percentile") && strcmp(find(&n, "observations per percentile")->text, "52.28") == 0);
	CHECK_INT_EQ(n.nnotes, 1); /* SentMessages: the log cannot show it */
	CHECK_STR_EQ(n.notes[0].label, "valid sent messages");

	const char *pair = write_file("pair.json",
		"{\"format\":\"evidence-pair-report/1\",\"title\":\"New order\",\"warmups\":10,"
		"\"stats\":{\"count\":5,\"max\":90,\"mean\":30.2,\"min\":1,\"p50\":7,\"p99\":90,\"sum\":151}}\n");
	CHECK_INT_EQ(ev_native_load(pair, &n, &err), EV_OK);
	CHECK_INT_EQ(n.kind, EV_NATIVE_PAIR);
	CHECK_INT_EQ(n.rule, EV_QRULE_FLOOR_INDEX);
	CHECK(find(&n, "mean") && find(&n, "mean")->value == 30.2);
	CHECK(find(&n, "sum") && strcmp(find(&n, "sum")->text, "151") == 0);

	const char *nothing = write_file("nothing.txt", "hello\nworld\n");
	CHECK_INT_EQ(ev_native_load(nothing, &n, &err), EV_REFUSED);
	CHECK(strstr(err.text, "nothing.txt: states no statistic this audit knows") != NULL);

	unlink("llfix.txt"), unlink("sockperf.txt"), unlink("pair.json"), unlink("nothing.txt");
	CHECK(chdir("/") == 0);
	rmdir(dir);
	/* A block's promises of itself, within what its printing allows: a
	 * P99 equal to a maximum that %g rounded down is consistent; a P99
	 * below the P95 and the minimum, a mean above the maximum are not. */
	const char *rounded = write_file("rounded.txt",
		"\033[0;34mSample count\033[0m : 100\n"
		"\033[0;34mMinimum\033[0m : 1803 nanoseconds\n"
		"\033[0;34mMaximum\033[0m : 4.76819e+08 nanoseconds\n"
		"\033[0;34mAverage\033[0m : 7446.491114 nanoseconds\n"
		"\033[0;34mP50\033[0m : 1943.000000 nanoseconds\n"
		"\033[0;34mP99\033[0m : 476819123.000000 nanoseconds\n");
	struct ev_native_broken broken[4];
	CHECK_INT_EQ(ev_native_load(rounded, &n, &err), EV_OK);
	CHECK_INT_EQ(ev_native_check_consistency(&n, broken, 4), 0);
	double v, slack;
	CHECK_INT_EQ(ev_native_stat_ns(find(&n, "max"), &v, &slack), 0);
	CHECK(v == 476819000.0 && slack == 500.0);
	const char *contradicts = write_file("contradicts.txt",
		"\033[0;34mSample count\033[0m : 100\n"
		"\033[0;34mMinimum\033[0m : 1803 nanoseconds\n"
		"\033[0;34mMaximum\033[0m : 9000 nanoseconds\n"
		"\033[0;34mAverage\033[0m : 9001.000000 nanoseconds\n"
		"\033[0;34mP50\033[0m : 1943.000000 nanoseconds\n"
		"\033[0;34mP95\033[0m : 2943.000000 nanoseconds\n"
		"\033[0;34mP99\033[0m : 1000.000000 nanoseconds\n");
	CHECK_INT_EQ(ev_native_load(contradicts, &n, &err), EV_OK);
	CHECK_INT_EQ(ev_native_check_consistency(&n, broken, 4), 3);
	CHECK_STR_EQ(broken[0].text, "p99 1000.000000 is below p95 2943.000000 (a percentile never decreases as p rises)");
	CHECK_STR_EQ(broken[1].text, "p99 1000.000000 is below min 1803 (no percentile lies below the smallest value)");
	CHECK_STR_EQ(broken[2].stat, "mean");
	CHECK_STR_EQ(broken[2].other, "max");
	/* only cap are described; all are counted */
	CHECK_INT_EQ(ev_native_check_consistency(&n, broken, 1), 3);

	return check_exit("nativestats");
}
