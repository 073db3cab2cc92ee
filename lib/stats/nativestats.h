/* SPDX-License-Identifier: Apache-2.0 */
/* nativestats: the statistics a benchmark printed about itself, read as
 * printed, with the rule its tool uses, so that each can be recomputed
 * from the raw series and compared in the tool's own notation.
 *
 *   llfix      the statistics block of the llfix TX benchmark and its
 *              peers (../shared/formats/llfix.md): ANSI colour codes around
 *              the labels, "Minimum : 1803 nanoseconds" printed %g,
 *              Average and the percentiles %f; floor-index; ns. Lines of
 *              other shapes (a shell's complaint on stderr) are passed by.
 *   sockperf   sockperf's summary (stdout, or the head of --full-log):
 *              "percentile 99.000 =   21.601", "<MAX> observation",
 *              "<MIN> observation", "avg-latency=52.615"; each %.3lf in
 *              usec of half round trips unless --full-rtt; round-half-up.
 *   pair       evidence's reference pair's JSON report
 *              ("evidence-pair-report/1"): integer ns, floor-index.
 * Only capture/pair and the formats above are known; anything else is an
 * error naming the file.
 */
#ifndef EV_NATIVESTATS_H
#define EV_NATIVESTATS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/stats/quantile.h"
#include "lib/core/status.h"

#define EV_NATIVE_MAX 32
#define EV_NATIVE_NOTES_MAX 24

enum ev_native_kind { EV_NATIVE_LLFIX, EV_NATIVE_SOCKPERF, EV_NATIVE_PAIR };

/* How a value was printed: %g ns, %f ns, %.3lf usec, an integer ns, a
 * JSON number (compared as the same double), %.3lf seconds, %.2lf. */
enum ev_native_format { EV_NFMT_G, EV_NFMT_F, EV_NFMT_USEC3, EV_NFMT_INT, EV_NFMT_DOUBLE, EV_NFMT_SEC3,
			EV_NFMT_FIX2 };

/* What a printed number states. STDDEV is sockperf's sample standard
 * deviation (its own double arithmetic, rounded to a whole tick); RUNTIME
 * sockperf's valid duration, first tx to last rx; PER_PERCENTILE its
 * "each percentile contains N/100 observations". */
enum ev_native_what { EV_NSTAT_QUANTILE, EV_NSTAT_MIN, EV_NSTAT_MAX, EV_NSTAT_MEAN, EV_NSTAT_COUNT,
		      EV_NSTAT_SUM, EV_NSTAT_STDDEV, EV_NSTAT_RUNTIME, EV_NSTAT_PER_PERCENTILE };

struct ev_native_stat {
	char name[40];               /* "p50", "p99.999", "min", "max", "mean", "count", "sum" */
	enum ev_native_what what;
	struct ev_prob p;            /* for a quantile */
	enum ev_native_format format;
	char text[64];               /* as printed (spaces trimmed) */
	double value;                /* the JSON number, for EV_NFMT_DOUBLE */
};

/* A printed fact that the raw series cannot show (the CPU frequency, a
 * dropped-packet count): read and named, with why, never passed over. */
struct ev_native_note {
	char label[48];
	char text[96];
	const char *why;             /* static text */
};

struct ev_native {
	enum ev_native_kind kind;
	const char *tool;            /* "llfix", "sockperf", "fix-sender" */
	enum ev_qrule rule;
	int half_rtt;                /* sockperf: latency is half the round trip */
	char title[96];
	uint64_t warmups;            /* llfix: antistall mock orders; pair: warmups */
	struct ev_native_stat stats[EV_NATIVE_MAX];
	size_t n;
	struct ev_native_note notes[EV_NATIVE_NOTES_MAX];
	size_t nnotes;
	/* what the tool always prints and this report lacks (names as in
	 * stats[].name), each a finding for the caller: a block with a line
	 * cut out is not a smaller comparison */
	const char *missing[EV_NATIVE_MAX];
	size_t nmissing;
	/* sockperf: packets its summary says it dropped or saw out of order
	 * (they are not in the log), -1 when not printed */
	int64_t dropped, out_of_order;
	/* pair: the rate its sender was paced at (pacing.rate, orders a
	 * second), for the delay series; 0 when unpaced or not a pair */
	uint64_t pacing_rate;
};

/* Read a report. @return EV_OK; EV_REFUSED naming the file when it is
 * none of the shapes above or states nothing; EV_ERROR on I/O. */
ev_status ev_native_load(const char *path, struct ev_native *out, struct ev_error *err);

/* value (in ns; integral unless a mean; long double holds any u64 exactly) as the tool would have printed
 * it for s, into out. */
void ev_native_format_value(const struct ev_native_stat *s, long double value, char *out, size_t cap);

const char *ev_native_kind_name(enum ev_native_kind kind);

/* A printed number in ns (a sockperf usec times 1000), with how far the
 * true value may lie from it for the way it was printed: %g keeps six
 * significant digits (llfix's Maximum of 476819123 ns prints 4.76819e+08,
 * anything within 500 ns of it), %f six decimals, %.3lf usec half a ns.
 * @return 0, or -1 when the text is not a number. */
int ev_native_stat_ns(const struct ev_native_stat *s, double *value, double *slack);

#define EV_NATIVE_BROKEN_MAX 64

/* A promise the block breaks by itself: stat against other (the later
 * percentile against the earlier, a percentile or the mean against min
 * or max), in a sentence. */
struct ev_native_broken {
	const char *stat, *other;   /* names as in ev_native_stat.name */
	char text[384];
};

/* What a block promises of itself, checked without any series, within
 * what each number's printing allows (ev_native_stat_ns): percentiles
 * never decrease as p rises; min <= every percentile <= max; min <= mean
 * <= max; min <= max. The first cap broken promises go to out.
 * @return how many are broken (0: the block is consistent). */
size_t ev_native_check_consistency(const struct ev_native *nat, struct ev_native_broken *out, size_t cap);

#endif
