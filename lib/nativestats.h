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

#include "quantile.h"
#include "status.h"

#define EV_NATIVE_MAX 32

enum ev_native_kind { EV_NATIVE_LLFIX, EV_NATIVE_SOCKPERF, EV_NATIVE_PAIR };

/* How a value was printed: %g ns, %f ns, %.3lf usec, an integer ns, or a
 * JSON number (compared as the same double). */
enum ev_native_format { EV_NFMT_G, EV_NFMT_F, EV_NFMT_USEC3, EV_NFMT_INT, EV_NFMT_DOUBLE };

enum ev_native_what { EV_NSTAT_QUANTILE, EV_NSTAT_MIN, EV_NSTAT_MAX, EV_NSTAT_MEAN, EV_NSTAT_COUNT,
		      EV_NSTAT_SUM };

struct ev_native_stat {
	char name[24];               /* "p50", "p99.999", "min", "max", "mean", "count", "sum" */
	enum ev_native_what what;
	struct ev_prob p;            /* for a quantile */
	enum ev_native_format format;
	char text[64];               /* as printed (spaces trimmed) */
	double value;                /* the JSON number, for EV_NFMT_DOUBLE */
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
};

/* Read a report. @return EV_OK; EV_REFUSED naming the file when it is
 * none of the shapes above or states nothing; EV_ERROR on I/O. */
ev_status ev_native_load(const char *path, struct ev_native *out, struct ev_error *err);

/* value (in ns; integral unless a mean; long double holds any u64 exactly) as the tool would have printed
 * it for s, into out. */
void ev_native_format_value(const struct ev_native_stat *s, long double value, char *out, size_t cap);

const char *ev_native_kind_name(enum ev_native_kind kind);

#endif
