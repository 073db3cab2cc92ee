/* SPDX-License-Identifier: Apache-2.0 */
/* audit's commands, the one table: each command's synopsis, summary,
 * description, options and notes, from which its --help, its usage errors
 * and its getopt tables come (lib/cli/command.h). The man page's SYNOPSIS
 * agrees with these synopses (tests/cli/t-help-synopses-agree-with-the-man-pages.sh). */
#include "config.h"

#include "lib/cli/configfile.h"

#include "lib/cli/continue_cli.h"
#include "audit/audit.h"

static const struct ev_cli_option journal_options[] = {
	{"archive", 0, "ARCHIVE", AUDIT_JOURNAL_OPT_ARCHIVE,
	 "read the journals from a sealed archive, streamed; PATHs\n"
	 "are then member paths of the sealed tree", EV_CLI_TEXT, NULL},
	{"clock", 0, "SIDE=NAME", AUDIT_JOURNAL_OPT_CLOCK,
	 "with --latency: the clock that stamped SIDE's copy (sender\n"
	 "or receiver), e.g. lab1:CLOCK_REALTIME; two copies share a\n"
	 "clock only when they name the same (default: each its own)", EV_CLI_TEXT, NULL},
	{"clock-bound", 0, "NS", AUDIT_JOURNAL_OPT_CLOCK_BOUND,
	 "with --clock-record: the largest error, in ns, of a figure\n"
	 "across two clocks called a one-way latency", EV_CLI_COUNT, "1.."},
	{"clock-record", 0, "SIDE=FILE", AUDIT_JOURNAL_OPT_CLOCK_RECORD,
	 "with --latency: the clock record of the host that stamped\n"
	 "SIDE's copy (capture clocks, or a run.json), one per side:\n"
	 "both synchronised within --clock-bound, a figure across the\n"
	 "two clocks is a one-way latency with that error", EV_CLI_TEXT, NULL},
	{"dict", 0, "DICT", AUDIT_JOURNAL_OPT_DICT,
	 "a QuickFIX data dictionary (repeatable; default: FIXT11.xml\n"
	 "and FIX50.xml, share/evidence/fix)", EV_CLI_TEXT, NULL},
	{"format", 0, "KIND", AUDIT_JOURNAL_OPT_FORMAT,
	 "llfix (a directory of N.bin), raw, qf-store, qf-log\n"
	 "(default: told from each PATH)", EV_CLI_WORDS, "llfix raw qf-store qf-log"},
	{"hgrm", 0, "DIR", AUDIT_JOURNAL_OPT_HGRM,
	 "with --latency: each distribution at or above zero as\n"
	 "HdrHistogram text in DIR (an existing directory), in ns", EV_CLI_TEXT, NULL},
	{"jobs", 0, "N", AUDIT_JOURNAL_OPT_JOBS,
	 "pairs audited at once (default: the cores)", EV_CLI_COUNT, "1..256"},
	EV_CLI_OPTION_JSON(AUDIT_JOURNAL_OPT_JSON),
	{"judge-each-copy", 0, NULL, AUDIT_JOURNAL_OPT_JUDGE_EACH_COPY,
	 "judge the receiver's copy afresh even where it holds the\n"
	 "sender's messages, the same and in order (by default then\n"
	 "judged as the sender's, each message held against it)", EV_CLI_TEXT, NULL},
	{"latency", 0, NULL, AUDIT_JOURNAL_OPT_LATENCY,
	 "per direction, each copy's own stamp - SendingTime(52), and\n"
	 "with both copies the figure per message between them", EV_CLI_TEXT, NULL},
	{"max-findings", 0, "N", AUDIT_JOURNAL_OPT_MAX_FINDINGS,
	 "findings shown per rule and side (default 10; 0: all);\n"
	 "all are counted", EV_CLI_COUNT, "0..1000000"},
	{"measured", 0, "N", AUDIT_JOURNAL_OPT_MEASURED,
	 "measured orders (default: the spec's)", EV_CLI_COUNT, "0.."},
	{"quantile-rule", 0, "RULE", AUDIT_JOURNAL_OPT_QUANTILE_RULE,
	 "with --latency: nearest-rank (default), floor-index,\n"
	 "round-half-up or linear", EV_CLI_WORDS, "nearest-rank floor-index round-half-up linear"},
	{"receipt", 0, "FILE", AUDIT_JOURNAL_OPT_RECEIPT,
	 "the audit receipt (default: audit-journal-TIME.json here)", EV_CLI_TEXT, NULL},
	{"receiver", 0, "PATH", AUDIT_JOURNAL_OPT_RECEIVER,
	 "the receiver's incoming journal (the pair's other side)", EV_CLI_TEXT, NULL},
	{"receiver-format", 0, "KIND", AUDIT_JOURNAL_OPT_RECEIVER_FORMAT,
	 "the format of the receivers' journals alone", EV_CLI_WORDS, "llfix raw qf-store qf-log"},
	{"seal", 0, "SEAL.json", AUDIT_JOURNAL_OPT_SEAL,
	 "the archive's seal (required with --archive)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(AUDIT_JOURNAL_OPT_SEAL_SHA256),
	{"sender", 0, "PATH", AUDIT_JOURNAL_OPT_SENDER,
	 "the sender's outgoing journal (repeatable: one per pair)", EV_CLI_TEXT, NULL},
	{"sender-compid", 0, "ID", AUDIT_JOURNAL_OPT_SENDER_COMPID,
	 "keep only messages with SenderCompID ID in a log holding\n"
	 "both directions (default for qf-log: the spec's 49)", EV_CLI_TEXT, NULL},
	{"sender-format", 0, "KIND", AUDIT_JOURNAL_OPT_SENDER_FORMAT,
	 "the format of the senders' journals alone (a QuickFIX\n"
	 "store against an llfix journal, say)", EV_CLI_WORDS, "llfix raw qf-store qf-log"},
	EV_CLI_OPTION_SIGN_KEY(AUDIT_JOURNAL_OPT_SIGN_KEY),
	{"spec", 0, "SPEC", AUDIT_JOURNAL_OPT_SPEC,
	 "the expectation spec (default: the llfix TX NewOrderSingle\n"
	 "spec, share/evidence/audit/llfix-tx-new-order.json)", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", AUDIT_JOURNAL_OPT_TRUST,
	 "with --clock-record: public keys (PEM) each clock record\n"
	 "must be signed by (capture clocks --sign-key); repeatable", EV_CLI_TEXT, NULL},
	{"warmups", 0, "N", AUDIT_JOURNAL_OPT_WARMUPS,
	 "warmup orders (default: the spec's)", EV_CLI_COUNT, "0.."},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation journal_relations[] = {
	{EV_CLI_TOGETHER, "archive", "seal"},
	{EV_CLI_NEEDS, "hgrm", "latency"},
	{EV_CLI_NEEDS, "clock", "latency"},
	{EV_CLI_NEEDS, "clock-record", "latency"},
	{EV_CLI_NEEDS, "clock-bound", "clock-record"},
	{EV_CLI_NEEDS, "trust", "clock-record"},
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command audit_journal_command = {
	.name = "journal",
	.run = audit_journal_main,
	.synopsis = "audit journal [--spec SPEC] [--dict DICT ...] [--format KIND] [--sender-format KIND] "
		"[--receiver-format KIND] --sender PATH --receiver PATH [--sender PATH --receiver PATH "
		"...] [--archive ARCHIVE --seal SEAL.json [--seal-sha256 HEX]] [--warmups N] [--measured "
		"N] [--sender-compid ID] [--latency [--clock SIDE=NAME ...] [--clock-record SIDE=FILE ... --clock-bound NS [--trust FILE ...]] [--hgrm DIR] [--quantile-rule RULE]] "
		"[--jobs N] [--judge-each-copy] [--max-findings N] [--receipt FILE] [--sign-key KEY] [--json]\n"
		"audit journal [options] (--sender PATH | --receiver PATH)",
	.summary = "every FIX message both endpoints persisted: envelope,\n"
		"dictionary, session and spec rules, counts, and the two\n"
		"copies against each other",
	.description = "Re-read every record of the journals both endpoints of a benchmark pair persisted\n"
		"and prove, without trusting the benchmark: each message is well-formed FIX\n"
		"(BodyLength, CheckSum, field syntax), obeys the data dictionary (required fields,\n"
		"tags of its type, no empty or repeated tag, enumerations, data formats, repeating\n"
		"groups) and the session (CompIDs, SendingTime, MsgSeqNum without gap or\n"
		"duplicate); each order carries what the spec says, ClOrdIDs count up without a\n"
		"gap; the orders are exactly warmups + measured; and the sender's and receiver's\n"
		"orders agree byte for byte, record for record. Pairs are audited in parallel.\n",
	.options = journal_options,
	.notes = "Findings go to stderr as 'audit: pair N SIDE: FILE: record R (byte B): RULE: what\n"
		"(expected X, found Y)'.\n"
		"\n"
		"Exit status: 0 every rule held, 1 a finding (the receipt says which), 2 the\n"
		"audit could not be made.\n",
	.relations = journal_relations,
};

static const struct ev_cli_option series_options[] = {
	{"archive", 0, "ARCHIVE", AUDIT_SERIES_OPT_ARCHIVE,
	 "read from a sealed archive, checked against --seal in the\n"
	 "one pass that copies the named members out; SERIES,\n"
	 "REPORT, DIR are then member paths of the sealed tree", EV_CLI_TEXT, NULL},
	{"delay", 0, "SERIES", AUDIT_SERIES_OPT_DELAY,
	 "a paced run's scheduler-delay series, with --rate", EV_CLI_TEXT, NULL},
	{"journal", 0, "DIR", AUDIT_SERIES_OPT_JOURNAL,
	 "the sender's llfix journal: label each measured call whose\n"
	 "record first wrote a new page, and compare the cohorts", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_JSON(AUDIT_SERIES_OPT_JSON),
	{"native", 0, "REPORT", AUDIT_SERIES_OPT_NATIVE,
	 "the benchmark's own statistics: an llfix statistics block,\n"
	 "sockperf's summary, or the reference pair's JSON report", EV_CLI_TEXT, NULL},
	{"page-size", 0, "BYTES", AUDIT_SERIES_OPT_PAGE_SIZE,
	 "the page of the cohorts (default 4096)", EV_CLI_COUNT, "512..1073741824 bytes"},
	{"quantile", 0, "P", AUDIT_SERIES_OPT_QUANTILE,
	 "a percentile to compute besides (repeatable; default without\n"
	 "--native: 50, 95, 99, 99.9)", EV_CLI_TEXT, NULL},
	{"rate", 0, "R", AUDIT_SERIES_OPT_RATE,
	 "the rate the run was paced at (orders a second)", EV_CLI_COUNT, "1..1000000000 orders a second"},
	{"receipt", 0, "FILE", AUDIT_SERIES_OPT_RECEIPT,
	 "the audit receipt (default: audit-series-TIME.json here)", EV_CLI_TEXT, NULL},
	{"rule", 0, "RULE", AUDIT_SERIES_OPT_RULE,
	 "nearest-rank, floor-index, round-half-up or linear, for the\n"
	 "quantiles of --quantile (default: the report's, else nearest-rank)", EV_CLI_WORDS, "nearest-rank floor-index round-half-up linear"},
	{"seal", 0, "SEAL.json", AUDIT_SERIES_OPT_SEAL,
	 "the archive's seal (required with --archive)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(AUDIT_SERIES_OPT_SEAL_SHA256),
	EV_CLI_OPTION_SIGN_KEY(AUDIT_SERIES_OPT_SIGN_KEY),
	{"sockperf-clock", 0, "CLOCK", AUDIT_SERIES_OPT_SOCKPERF_CLOCK,
	 "the clock sockperf ran on: tsc (its default) or monotonic\n"
	 "(--no-rdtsc); only on tsc may a value rebuilt from its log\n"
	 "be 1 ns off its own, and only in that conversion's direction", EV_CLI_WORDS, "tsc monotonic"},
	{"threshold", 0, "T", AUDIT_SERIES_OPT_THRESHOLD,
	 "calls above T ticks are slow (default: the recomputed p99)", EV_CLI_COUNT, "0.. ticks"},
	{"warmups", 0, "N", AUDIT_SERIES_OPT_WARMUPS,
	 "warmup orders before the measured ones (with --journal)", EV_CLI_COUNT, "0.."},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation series_relations[] = {
	{EV_CLI_TOGETHER, "delay", "rate"},
	{EV_CLI_TOGETHER, "archive", "seal"},
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command audit_series_command = {
	.name = "series",
	.run = audit_series_main,
	.synopsis = "audit series [--native REPORT] [--sockperf-clock tsc|monotonic] [--rule RULE] "
		"[--quantile P ...] [--delay SERIES --rate R] [--journal DIR --warmups N] [--threshold T] "
		"[--receipt FILE] [--sign-key KEY] [--json] SERIES\n"
		"audit series --archive ARCHIVE --seal SEAL.json [--seal-sha256 HEX] [options] SERIES",
	.summary = "every statistic a benchmark printed, recomputed from its\n"
		"raw series with its own rule",
	.description = "Recompute, from a raw per-call latency series, every statistic a benchmark\n"
		"printed about it, with the rule its tool uses, and set each beside the printed\n"
		"one: exact for integers, in the tool's own notation for the rest (%g, %f,\n"
		"usec with three decimals). Quantiles are exact (integer ranks, selection in\n"
		"place); the mean is the exact sum over the count. Nothing is rescaled.\n"
		"\n"
		"SERIES is evidence's raw series (binary or its CSV twin) or sockperf's --full-log.\n"
		"\n"
		"With --archive, SERIES, the report, the delay series and the journal are members\n"
		"of a sealed archive: the archive is read once, every member checked against the\n"
		"seal, and the named ones copied into a private directory in $TMPDIR (removed\n"
		"however the audit ends) to be read as files, each shown as the archive names it.\n"
		"A named member that does not match its seal is named and nothing is computed.\n",
	.options = series_options,
	.notes = "Exit status: 0 every statistic agreed and the series held together, 1 a\n"
		"statistic differs or the series is damaged (the receipt says which), 2 usage\n"
		"or I/O error.\n",
	.relations = series_relations,
};

static const struct ev_cli_option profile_options[] = {
	EV_CLI_OPTION_JSON(AUDIT_PROFILE_OPT_JSON),
	{"perf", 0, "PATH", AUDIT_PROFILE_OPT_PERF,
	 "the perf that reads perf.data (default /usr/bin/perf)", EV_CLI_TEXT, NULL},
	{"receipt", 0, "FILE", AUDIT_PROFILE_OPT_RECEIPT,
	 "write the receipt to FILE (default: audit-profile-TIME.json\n"
	 "here)", EV_CLI_TEXT, NULL},
	{"run", 0, "RUN", AUDIT_PROFILE_OPT_RUN,
	 "with --seal: the run's directory in the sealed tree\n"
	 "(runs/NNN-ARM-CELL-K)", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", AUDIT_PROFILE_OPT_SEAL,
	 "ARCHIVE is this seal's archive: checked against it as it\n"
	 "streams, the run's members copied out to be read", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(AUDIT_PROFILE_OPT_SEAL_SHA256),
	EV_CLI_OPTION_SIGN_KEY(AUDIT_PROFILE_OPT_SIGN_KEY),
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation profile_relations[] = {
	{EV_CLI_TOGETHER, "seal", "run"},
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command audit_profile_command = {
	.name = "profile",
	.run = audit_profile_main,
	.synopsis = "audit profile [--perf PATH] [--receipt FILE] [--sign-key KEY] [--json] RUN_DIR\n"
		"audit profile --seal SEAL.json [--seal-sha256 HEX] --run RUN [--perf PATH] [--receipt FILE] [--sign-key KEY] "
		"[--json] ARCHIVE",
	.summary = "where a profiled run's cycles went, read cold from its\n"
		"perf.data",
	.description = "Read, cold, what capture's perf recorded of a profiled run (RUN_DIR/run.json and\n"
		"each profiled side's perf.data): perf.data is held against the SHA-256 run.json\n"
		"gives it, read with perf report (the binaries on this host resolve symbols), and\n"
		"every row parsed strictly. Per side: samples, lost samples (zero required),\n"
		"every sample the run's native PID, the share of samples by object and by symbol\n"
		"(self, and children when perf recorded call graphs), and the split campaigns\n"
		"quote: application, network stack library, libc, kernel, other.\n"
		"\n"
		"With --seal, the run is read from a sealed ARCHIVE: the archive is checked against\n"
		"its seal in one pass and the run's run.json and profile/ members are copied out as\n"
		"they stream by; a finding about them leaves the profile unread.\n",
	.options = profile_options,
	.notes = "Exit status: 0 every profile held, 1 a check failed (the receipt says which),\n"
		"2 usage, I/O error, a run without a profile, or interrupted.\n",
	.relations = profile_relations,
};

static const struct ev_cli_option campaign_options[] = {
	{"json", 0, NULL, AUDIT_CAMPAIGN_OPT_JSON,
	 "print the summary on stdout", EV_CLI_TEXT, NULL},
	{"log", 0, "DIR", AUDIT_CAMPAIGN_OPT_LOG,
	 "the receipt log the registration and its sessions were\n"
	 "appended to (or a copy): verified, and every session of\n"
	 "the registration in it counted", EV_CLI_TEXT, NULL},
	{"log-head", 0, "FILE", AUDIT_CAMPAIGN_OPT_LOG_HEAD,
	 "a tree head of that log a replica kept (replicate\n"
	 "keep-head): the log must extend it", EV_CLI_TEXT, NULL},
	{"onload-profiles", 0, "DIR", AUDIT_CAMPAIGN_OPT_ONLOAD_PROFILES,
	 "where Onload's named profiles are (NAME.opf; default\n"
	 "/usr/libexec/onload/profiles): --profile=NAME and\n"
	 "onload_import NAME are read there", EV_CLI_TEXT, NULL},
	{"output", 'o', "OUTDIR", AUDIT_CAMPAIGN_OPT_OUTPUT,
	 "the summary directory (must not exist)", EV_CLI_TEXT, NULL},
	{"perf", 0, "PATH", AUDIT_CAMPAIGN_OPT_PERF,
	 "the perf that reads profiled runs' perf.data (default\n"
	 "/usr/bin/perf; never a program the campaign names)", EV_CLI_TEXT, NULL},
	{"print-receipt", 0, NULL, AUDIT_CAMPAIGN_OPT_PRINT_RECEIPT,
	 "print receipt.json, then summary.json, on stdout, each\n"
	 "one line of canonical JSON (what replicate audit fetches)", EV_CLI_TEXT, NULL},
	{"publish", 0, "STATS", AUDIT_CAMPAIGN_OPT_PUBLISH,
	 "the statistics the campaign publishes, comma-separated\n"
	 "(p50,p99; default: those registered): each must be\n"
	 "registered, and each registered one published", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", AUDIT_CAMPAIGN_OPT_SEAL,
	 "the campaign's seal: every file read is held against it,\n"
	 "and the report names it", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(AUDIT_CAMPAIGN_OPT_SEAL_SHA256),
	EV_CLI_OPTION_SIGN_KEY(AUDIT_CAMPAIGN_OPT_SIGN_KEY),
	{"stop-when-stdin-closes", 0, NULL, AUDIT_CAMPAIGN_OPT_STOP_WHEN_STDIN_CLOSES,
	 "stop as on SIGHUP (exit 2, no OUTDIR) once stdin ends:\n"
	 "replicate audit runs the audits on other hosts so, to end\n"
	 "them when it ends", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", AUDIT_CAMPAIGN_OPT_TRUST,
	 "public keys (PEM) the capture receipts must be signed by;\n"
	 "repeatable. Without it a capture receipt is held only to\n"
	 "its own comparable digest", EV_CLI_TEXT, NULL},
	{"tsa-ca", 0, "FILE", AUDIT_CAMPAIGN_OPT_TSA_CA,
	 "the CA (PEM) the registration's RFC 3161 timestamp\n"
	 "(registration.json.tsr) is held to", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation campaign_relations[] = {
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, "log-head", "log"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command audit_campaign_command = {
	.name = "campaign",
	.run = audit_campaign_main,
	.synopsis = "audit campaign CAMPAIGN_DIR -o OUTDIR [--seal SEAL.json [--seal-sha256 HEX]] [--trust FILE]... [--log DIR [--log-head FILE]] [--tsa-ca FILE] [--publish STATS] [--perf PATH] [--onload-profiles DIR] [--sign-key KEY] [--json]\n"
		"audit campaign ARCHIVE --seal SEAL.json [--seal-sha256 HEX] -o OUTDIR [options]",
	.summary = "every run of a captured campaign audited, and summed up\n"
		"per cell as the median of its runs, with tables and an\n"
		"HTML report",
	.description = "Audit every run of a campaign that capture recorded (CAMPAIGN_DIR/runs/*/run.json):\n"
		"recompute each run's statistics from its raw series with the rule its benchmark\n"
		"used and check what the benchmark printed, audit both endpoints' FIX journals,\n"
		"and sum the campaign up per arm and cell as the median of the runs' statistics\n"
		"(every run still shown, the largest maximum across runs; samples are never\n"
		"pooled). A run's files are found by the names of its sender's outputs: series,\n"
		"report, delay_series, journal, and log (sockperf's --full-log); the peer's\n"
		"journal. OUTDIR (new) gets summary.json, summary.md (a table per arm),\n"
		"report.html (SVG plots, nothing fetched), run-RUN.hgrm and cell-ARM-CELL.hgrm\n"
		"(HdrHistogram's percentile distribution text), runs.csv (a row of statistics\n"
		"per run), audit-journal.json and receipt.json.\n"
		"\n"
		"A run whose program keeps no raw series (the llfix benchmark) has only its\n"
		"printed block: it is read whole, checked against itself (percentiles never\n"
		"decrease, each between the minimum and the maximum, the mean too) and its\n"
		"count against the plan, shown as printed and never called recomputed. Every\n"
		"file read of a run is held against the capture receipts in CAMPAIGN_DIR, which\n"
		"record each file's SHA-256 when it was written, so that an edit after capture\n"
		"is caught without a seal; each run says what pinned its bytes (seal, capture\n"
		"receipt, or nothing).\n"
		"\n"
		"ARCHIVE, the campaign's sealed archive (seal create), is audited without\n"
		"extracting it where anyone sees it: one pass checks every member against the\n"
		"seal (as replicate verify does) and copies them into a private directory in\n"
		"$TMPDIR, removed however the audit ends; the audit then reads the copies, and\n"
		"names each file as the archive does (ROOT/runs/...). Its outputs are the tree\n"
		"audit's, byte for byte, when the tree is audited from its parent as ROOT; its\n"
		"receipt adds the archive to the inputs. A member that does not match its seal\n"
		"is named and fails the check \"inputs against the seal\".\n"
		"\n"
		"A campaign run under a registration (capture register; capture run keeps it as\n"
		"registration.json) is judged against it: \"registered\" (its digest is the one\n"
		"the capture receipts, the sessions and the log name; its timestamp holds, with\n"
		"--tsa-ca), \"registered before the first run\" (its trusted time, and its place\n"
		"in the log, before the first run), \"published as registered\" (--publish names\n"
		"the registered statistics, none more), \"receipt log holds\" and \"sessions\n"
		"accounted for\" (every session of the registration in --log named, the\n"
		"campaign's own each in it, no more than planned). What --log or --tsa-ca was\n"
		"not given to judge is named in the coverage, and the registration is then\n"
		"unproven, never registered. A campaign without one is graded unregistered.\n",
	.options = campaign_options,
	.notes = "Exit status: 0 everything held, 1 a statistic, a series or a journal did not\n"
		"(the receipt says which), 2 usage or I/O error.\n",
	.relations = campaign_relations,
};

static const struct ev_cli_option compare_options[] = {
	{"archive", 0, "ARCHIVE", AUDIT_COMPARE_OPT_ARCHIVE,
	 "the summaries are members of this sealed archive (an audit\n"
	 "campaign OUTDIR sealed with its campaign), checked against\n"
	 "--seal in the one pass that copies them out", EV_CLI_TEXT, NULL},
	{"arm", 0, "ARM", AUDIT_COMPARE_OPT_ARM,
	 "A's arm, then B's (give it twice): compare two arms, cell\n"
	 "by cell", EV_CLI_TEXT, NULL},
	{"cell", 0, "CELL", AUDIT_COMPARE_OPT_CELL,
	 "A's cell, then B's (give it twice): compare two cells, arm\n"
	 "by arm", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, AUDIT_COMPARE_OPT_JSON,
	 "print comparison.json on stdout instead of the tables", EV_CLI_TEXT, NULL},
	{"mixed-grades", 0, NULL, AUDIT_COMPARE_OPT_MIXED_GRADES,
	 "compare a quiet side with a diagnostic one (refused\n"
	 "without it), and say so in every output", EV_CLI_TEXT, NULL},
	{"output", 'o', "OUTDIR", AUDIT_COMPARE_OPT_OUTPUT,
	 "the comparison directory (must not exist)", EV_CLI_TEXT, NULL},
	{"reference", 0, "REF", AUDIT_COMPARE_OPT_REFERENCE,
	 "hold one summary's arm and cell to a vendor's published\n"
	 "statistics (an evidence-reference/1 descriptor)", EV_CLI_TEXT, NULL},
	{"reference-sha256", 0, "HEX", AUDIT_COMPARE_OPT_REFERENCE_SHA256,
	 "the SHA-256 the descriptor must have", EV_CLI_DIGEST, NULL},
	{"resamples", 0, "N", AUDIT_COMPARE_OPT_RESAMPLES,
	 "bootstrap resamples of the runs (default 10000, at most\n"
	 "1000000)", EV_CLI_COUNT, "1..1000000"},
	{"seal", 0, "SEAL.json", AUDIT_COMPARE_OPT_SEAL,
	 "the archive's seal (required with --archive)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(AUDIT_COMPARE_OPT_SEAL_SHA256),
	{"seed", 0, "S", AUDIT_COMPARE_OPT_SEED,
	 "the seed of the resampling (default 1); the same seed,\n"
	 "the same interval", EV_CLI_COUNT, "0.."},
	EV_CLI_OPTION_SIGN_KEY(AUDIT_COMPARE_OPT_SIGN_KEY),
	{"unregistered", 0, NULL, AUDIT_COMPARE_OPT_UNREGISTERED,
	 "compare what no registration planned (refused without\n"
	 "it), and say so in every output", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation compare_relations[] = {
	{EV_CLI_NEEDS, "reference-sha256", "reference"},
	{EV_CLI_TOGETHER, "archive", "seal"},
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command audit_compare_command = {
	.name = "compare",
	.run = audit_compare_main,
	.synopsis = "audit compare [--resamples N] [--seed S] [--mixed-grades] [--unregistered] [--sign-key KEY] [--json] SUMMARY_A SUMMARY_B -o OUTDIR\n"
		"audit compare (--arm A --arm B | --cell X --cell Y) [options] SUMMARY [SUMMARY_B] -o OUTDIR\n"
		"audit compare --reference REF [--reference-sha256 HEX] [--arm A --cell X] SUMMARY -o OUTDIR\n"
		"audit compare --archive ARCHIVE --seal SEAL.json [--seal-sha256 HEX] [options] SUMMARY [SUMMARY_B] -o OUTDIR",
	.summary = "two arms, cells or campaigns compared run for run: medians,\n"
		"ratio, difference, every run, a bootstrap interval",
	.description = "Compare what audit campaign recomputed (SUMMARY: its OUTDIR or its summary.json): two\n"
		"campaigns arm by arm and cell by cell, or, inside one (or across two), two arms\n"
		"(--arm) or two cells (--cell). Per statistic (p50, p95, p99, p99.9, mean, max):\n"
		"both sides' medians of runs, the ratio B/A and the difference B-A, every run's\n"
		"value and each side's range, and a 95% bootstrap interval of the ratio and the\n"
		"difference over runs resampled with replacement (never pooled samples; seeded,\n"
		"deterministic). The verdict says \"A lower in every run\" only when every run of\n"
		"A is below every run of B, and \"inconclusive: runs overlap\" when they overlap.\n"
		"Only the runs a summary counts in its cell's median are compared.\n"
		"\n"
		"Each summary's audit campaign receipt.json, when it lies beside it, must have\n"
		"passed and name the summary's bytes; each cell's medians are held against its\n"
		"runs. OUTDIR (new) gets comparison.json, comparison.md, comparison.html (the\n"
		"tables, and every run of both sides on one scale) and receipt.json, which names\n"
		"both summaries by SHA-256. A quiet side against a diagnostic one is refused\n"
		"unless --mixed-grades, which every output then states.\n"		"\n"
		"A comparison is registered when both summaries are of campaigns that hold one\n"
		"registration (audit campaign graded them registered) and it registers the two\n"
		"arms or two cells selected, or the reference (by its SHA-256); two sessions of\n"
		"one registration compared whole are its own. Any other comparison is refused\n"
		"unless --unregistered, which every output then states with why.\n"
		"\n"
		"With --reference REF (a descriptor pinning a vendor's published statistics by\n"
		"SHA-256, with where and when they were published and the hardware and stack they\n"
		"name), one summary's arm and cell is held to them: per statistic the ratio of\n"
		"the median of runs to the published value, beside the runs' range. The verdict\n"
		"is \"reproduced within X%\" only when the runs are quiet and the campaign\n"
		"recorded the hardware and stack the reference names, else \"not comparable:\"\n"
		"naming each difference (or \"not reproduced:\" beyond the tolerance). OUTDIR\n"
		"gets reproduction.json, reproduction.md and receipt.json.\n",
	.options = compare_options,
	.notes = "Exit status: 0 compared, every input held; 1 an input did not hold (an audit that\n"
		"failed, a summary edited after its audit; the receipt says which), 2 usage, I/O\n"
		"error, nothing to compare, or interrupted.\n",
	.relations = compare_relations,
};

static const struct ev_cli_command audit_continue_command = {
	.name = "continue",
	.run = audit_continue_main,
	.synopsis = "audit " EV_CONTINUE_SYNOPSIS,
	.summary = "a failed journal or series receipt continued: its\n"
		"understood differences accepted, rerun",
	.description = "Continues failed receipts of 'audit journal', 'audit series'.\n\n" EV_CONTINUE_DESCRIPTION,
	.options = ev_continue_options,
	.notes = EV_CONTINUE_NOTES,
};

static const struct ev_cli_option history_options[] = {
	{"alpha", 0, "A", AUDIT_HISTORY_OPT_ALPHA,
	 "the largest p-value a change may have (default 0.05)", EV_CLI_TEXT, NULL},
	{"catalog", 0, "WHERE", AUDIT_HISTORY_OPT_CATALOG,
	 "the catalog (default: $EVIDENCE_CATALOG, else\n"
	 "~/.local/share/evidence/catalog.sqlite)", EV_CLI_TEXT, NULL},
	{"gate", 0, "RATIO", AUDIT_HISTORY_OPT_GATE,
	 "exit 1 when the newest campaigns start a change whose\n"
	 "ratio is RATIO or more, or 1/RATIO or less (1.1: 10%)", EV_CLI_TEXT, NULL},
	{"html", 0, "FILE", AUDIT_HISTORY_OPT_HTML,
	 "also write the page: a trend per statistic, each change\n"
	 "marked (FILE must not exist)", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, AUDIT_HISTORY_OPT_JSON,
	 "print evidence-history/1 instead of the text", EV_CLI_TEXT, NULL},
	{"match", 0, "FIELD", AUDIT_HISTORY_OPT_MATCH,
	 "compare only campaigns whose provenance FIELD (dotted:\n"
	 "policy.nohz_full, pm_qos.dma0) is the newest one's too", EV_CLI_TEXT, NULL},
	{"min-segment", 0, "N", AUDIT_HISTORY_OPT_MIN_SEGMENT,
	 "the fewest campaigns on each side of a change\n"
	 "(default 3)", EV_CLI_COUNT, "1..1000"},
	{"permutations", 0, "N", AUDIT_HISTORY_OPT_PERMUTATIONS,
	 "permutations of each test (default 199)", EV_CLI_COUNT, "1..100000"},
	{"plan", 0, "NAME", AUDIT_HISTORY_OPT_PLAN,
	 "the plan's name (required)", EV_CLI_TEXT, NULL},
	{"plan-sha256", 0, "HEX", AUDIT_HISTORY_OPT_PLAN_SHA256,
	 "the plan's digest (default: the newest campaign's)", EV_CLI_DIGEST, NULL},
	{"seed", 0, "S", AUDIT_HISTORY_OPT_SEED,
	 "the seed of the permutations and resamples (default 1);\n"
	 "the same seed, the same bytes", EV_CLI_COUNT, "0.."},
	{"statistic", 0, "NAME", AUDIT_HISTORY_OPT_STATISTIC,
	 "p50, p95, p99, p99.9, mean or max (repeat; default\n"
	 "p50, p99 and p99.9)", EV_CLI_WORDS, "p50 p95 p99 p99.9 mean max"},
	{"trust", 0, "FILE", AUDIT_HISTORY_OPT_TRUST,
	 "compare only summaries an audit receipt signed by a\n"
	 "key of FILE names (repeat); say how many were left out", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command audit_history_command = {
	.name = "history",
	.run = audit_history_main,
	.synopsis = "audit history --plan NAME [--plan-sha256 HEX] [--catalog WHERE] [--statistic NAME ...] [--match FIELD ...] "
		"[--seed S] [--permutations N] [--alpha A] [--min-segment N] [--gate RATIO] [--trust FILE ...] [--html FILE] "
		"[--json]",
	.summary = "a plan's campaigns over time from the catalog: which\n"
		"changed, when, and by how much",
	.description = "From the catalog (replicate index the audit campaign OUTDIRs), every summary of\n"
		"the plan NAME, oldest capture first. Only campaigns whose environment is the\n"
		"reference campaign's (the newest of --plan-sha256, else the newest) are\n"
		"compared: the plan digest the audit receipt beside each summary names, the\n"
		"pinned programs' digests, the kernel release, the CPU model and every --match\n"
		"FIELD; each other campaign is listed apart with the first field that differs.\n"
		"\n"
		"Per arm, cell and statistic, the series of campaign medians and its change\n"
		"points by E-divisive means: each split tested by permuting the values within\n"
		"their segments (seeded), kept when its p-value is at most --alpha, at least\n"
		"--min-segment campaigns on each side. Each change's effect is the ratio of the\n"
		"median of the runs after it to that of the runs before it (each campaign's\n"
		"runs counted in its cell), with a 95% bootstrap interval over those runs.\n"
		"The same catalog and seed give the same bytes. Nothing is written but --html.\n"
		"\n"
		"Every value is read from the summary's own bytes in the catalog, the plan digest\n"
		"from the audit receipt's beside it, never from a column: a row that says\n"
		"otherwise is named (row not believed) and the document's word used. With\n"
		"--trust, only summaries an audit receipt signed by a trusted key names are\n"
		"compared; the others are listed as left out.\n",
	.options = history_options,
	.notes = "Exit status: 0 shown, 1 --gate passed by a change the newest campaigns start\n"
		"(a change found where the last --min-segment campaigns begin), or a catalog\n"
		"row not believed, 2 usage, no campaign of the plan (or of --plan-sha256, or\n"
		"believed, or trusted), a catalog that cannot be read or is newer than this\n"
		"evidence, an --html FILE that exists, or a signal.\n",
};

static const struct ev_cli_command audit_config_command = EV_CLI_CONFIG_COMMAND("audit");

static const struct ev_cli_command *const commands[] = {
	&audit_journal_command,
	&audit_series_command,
	&audit_campaign_command,
	&audit_compare_command,
	&audit_profile_command,
	&audit_history_command,
	&audit_continue_command,
	&audit_config_command,
	NULL,
};

const struct ev_cli_tool audit_tool = {
	.name = "audit",
	.description = "Recompute, from the raw data a benchmark left, every count, checksum, sequence\n"
		"and order it claims, without trusting the benchmark or the host that ran it.\n",
	.epilogue = "Exit status: 0 everything held, 1 a check failed (the receipt says which),\n"
		"2 usage, I/O or environment error (nothing is claimed).\n",
	.commands = commands,
	.shared_pool = 1,
};
