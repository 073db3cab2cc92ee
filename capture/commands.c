/* SPDX-License-Identifier: Apache-2.0 */
/* capture's commands, the one table: each command's synopsis, summary,
 * description, options and notes, from which its --help, its usage errors
 * and its getopt tables come (lib/cli/command.h). The man page's SYNOPSIS
 * agrees with these synopses (tests/cli/t-help-synopses-agree-with-the-man-pages.sh). */
#include "config.h"

#include "lib/cli/configfile.h"

#include "capture/capture.h"
#include "lib/campaign/registration.h"

static const struct ev_cli_option run_options[] = {
	{"allow-dirty", 0, NULL, CAPTURE_RUN_OPT_ALLOW_DIRTY,
	 "run even when a source repository has uncommitted changes,\n"
	 "and record the tree as dirty (default: refuse)", EV_CLI_TEXT, NULL},
	{"degrade", 0, NULL, CAPTURE_RUN_OPT_DEGRADE,
	 "without the rights for namespaces or PM QoS, run anyway and\n"
	 "record what could not be done (default: refuse such a plan)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_JSON(CAPTURE_RUN_OPT_JSON),
	{"log", 0, "DIR", CAPTURE_RUN_OPT_LOG,
	 "with --registration: the session's start (before the first\n"
	 "pair) and its end (whatever ends it) go into this receipt log\n"
	 "(its heads signed with --sign-key)", EV_CLI_TEXT, NULL},
	{"output", 'o', "DIR", CAPTURE_RUN_OPT_OUTPUT,
	 "the campaign directory (new, or one to resume)", EV_CLI_TEXT, NULL},
	{"priority", 0, "PRIORITY", CAPTURE_RUN_OPT_PRIORITY,
	 "high or normal (the default): the order the queue of\n"
	 "--wait serves requests in", EV_CLI_WORDS, "high normal"},
	{"registration", 0, "REG.json", CAPTURE_RUN_OPT_REGISTRATION,
	 "the plan's registration (capture register): it must name\n"
	 "this plan's SHA-256; its required grade is required, and\n"
	 "its digest recorded in the receipt", EV_CLI_TEXT, NULL},
	{"require", 0, "GRADE", CAPTURE_RUN_OPT_REQUIRE,
	 "quiet: refuse, before anything runs, a plan or host that\n"
	 "cannot reach the quiet grade, naming each condition\n"
	 "(default: say the best grade it can reach, and run)", EV_CLI_WORDS, "quiet"},
	{"require-registration", 0, NULL, CAPTURE_RUN_OPT_REQUIRE_REGISTRATION,
	 "refuse, before anything runs, a plan run without its\n"
	 "--registration", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(CAPTURE_RUN_OPT_SIGN_KEY),
	{"wait", 0, NULL, CAPTURE_RUN_OPT_WAIT,
	 "queue while another holds one of the plan's CPUs, then run\n"
	 "(default: refuse)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation run_relations[] = {
	{EV_CLI_NEEDS, "log", "registration"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command capture_run_command = {
	.name = "run",
	.run = capture_run_main,
	.synopsis = "capture run PLAN -o CAMPAIGN_DIR [--wait] [--priority PRIORITY] [--degrade] [--allow-dirty] [--require quiet] [--registration REG.json [--log DIR]] [--require-registration] [--sign-key KEY] [--json]",
	.summary = "run (or resume) the campaign of PLAN in a directory",
	.description = "Run every pair of a campaign plan in its order (balanced: A B C C B A ...), each\n"
		"a fresh sender and peer pinned to their CPUs, in network namespaces of their own\n"
		"joined by a veth pair when the plan says so, PM QoS held for the arms that ask.\n"
		"Before each launch every program and launcher is checked against the plan's pins;\n"
		"a binary the plan's \"sources\" tie to a repository gets its commit, tree id and\n"
		"whether the working tree was clean recorded (a dirty tree is refused).\n"
		"Each run's directory (runs/NNN-ARM-CELL-K) gets run.json (argv, environment,\n"
		"binaries with SHA-256, PIDs and start times, CPUs read back, namespace inodes,\n"
		"exit codes, wall times, before/after snapshots), native/ (stdout and stderr) and\n"
		"observe/ (TCP state sampled during the run); the campaign gets plan.json,\n"
		"policy.json (the OS settings) and a capture receipt.\n"
		"\n"
		"Before anything runs, capture leases every CPU the plan uses (the sides' and the\n"
		"controller's) exclusively for the whole campaign, in the host's lease registry\n"
		"(capture leases): it refuses, or with --wait queues, while another holds one;\n"
		"work in the shared pool (seal, audit, replicate with --pool shared) waits for it.\n"
		"\n"
		"Run again on the same directory to resume: completed runs are kept, never\n"
		"repeated; a run cut short is moved to interrupted/ and run again. A run whose\n"
		"process failed is kept and marked, never retried.\n",
	.options = run_options,
	.notes = "Exit status: 0 every run held, 1 a run failed (the receipt says which),\n"
		"2 usage, refused plan, environment error or interrupted (nothing is claimed).\n",
	.relations = run_relations,
};

static const struct ev_cli_option pin_options[] = {
	{"file", 'f', "PATH", CAPTURE_PIN_OPT_FILE,
	 "pin this file too (repeatable)", EV_CLI_TEXT, NULL},
	{"output", 'o', "FILE", CAPTURE_PIN_OPT_OUTPUT,
	 "the pinned plan", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command capture_pin_command = {
	.name = "pin",
	.run = capture_pin_main,
	.synopsis = "capture pin [--file PATH ...] PLAN -o PINNED_PLAN",
	.summary = "pin every program the plan runs by its SHA-256",
	.description = "Write PLAN again with \"pins\": the SHA-256 of every program and launcher its cells\n"
		"name, and of every other file pinned already or named with --file (a config, an\n"
		"Onload profile, a helper's input), as the files are now. Each must be an absolute\n"
		"path to a regular file (not a symbolic link) owned by root or by you and writable\n"
		"by its owner alone: capture run checks every pinned file so before each run, and\n"
		"what it would refuse is refused here and named. PINNED_PLAN must not exist.\n",
	.options = pin_options,
	.notes = "Exit status: 0 PINNED_PLAN was written, 2 a file refused, usage or I/O error\n"
		"(nothing written).\n",
};

static const struct ev_cli_option register_options[] = {
	{"compare-arms", 0, "A,B", CAPTURE_REGISTER_OPT_COMPARE_ARMS,
	 "audit compare will hold arm A against arm B (repeatable)", EV_CLI_TEXT, NULL},
	{"compare-cells", 0, "X,Y", CAPTURE_REGISTER_OPT_COMPARE_CELLS,
	 "audit compare will hold cell X against cell Y (repeatable)", EV_CLI_TEXT, NULL},
	{"gate", 0, "RATIO", CAPTURE_REGISTER_OPT_GATE,
	 "audit history will gate on RATIO (e.g. 1.1)", EV_CLI_TEXT, NULL},
	{"hypothesis", 0, "TEXT", CAPTURE_REGISTER_OPT_HYPOTHESIS,
	 "what the campaign is to show, in words", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, CAPTURE_REGISTER_OPT_JSON,
	 "print what was made as JSON on stdout", EV_CLI_TEXT, NULL},
	{"log", 0, "DIR", CAPTURE_REGISTER_OPT_LOG,
	 "append the registration to this receipt log (replicate log)", EV_CLI_TEXT, NULL},
	{"output", 'o', "REG.json", CAPTURE_REGISTER_OPT_OUTPUT,
	 "the registration (a new file)", EV_CLI_TEXT, NULL},
	{"reference", 0, "FILE", CAPTURE_REGISTER_OPT_REFERENCE,
	 "audit compare --reference will reproduce FILE (its SHA-256,\n"
	 "and so its tolerance, fixed; repeatable)", EV_CLI_TEXT, NULL},
	{"require", 0, "GRADE", CAPTURE_REGISTER_OPT_REQUIRE,
	 "quiet: the campaign requires the quiet grade (default: as\n"
	 "the plan's grading rules say)", EV_CLI_WORDS, "quiet"},
	{"sessions", 0, "N", CAPTURE_REGISTER_OPT_SESSIONS,
	 "the sessions planned (default 1)", EV_CLI_COUNT, "1..1000"},
	{"sign-key", 0, "KEY", CAPTURE_REGISTER_OPT_SIGN_KEY,
	 "with --log: sign the log's new tree head and its checkpoint\n"
	 "with this Ed25519 key (as replicate log append does)", EV_CLI_TEXT, NULL},
	{"statistic", 0, "NAME", CAPTURE_REGISTER_OPT_STATISTIC,
	 "a statistic the campaign will publish: p50, p95, p99,\n"
	 "p99.9, mean or max (repeat; at least one)", EV_CLI_WORDS, EV_REGISTRATION_STATISTICS},
	{"timeout", 0, "S", CAPTURE_REGISTER_OPT_TIMEOUT,
	 "seconds to wait for the TSA (default 30)", EV_CLI_COUNT, "1..3600 seconds"},
	{"tsa", 0, "URL", CAPTURE_REGISTER_OPT_TSA,
	 "give the registration a trusted time from this RFC 3161\n"
	 "time-stamp authority (REG.json.tsr beside it)", EV_CLI_TEXT, NULL},
	{"tsa-ca", 0, "FILE", CAPTURE_REGISTER_OPT_TSA_CA,
	 "the CA (PEM) the TSA's certificate must chain to", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation register_relations[] = {
	{EV_CLI_TOGETHER, "tsa", "tsa-ca"},
	{EV_CLI_NEEDS, "timeout", "tsa"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command capture_register_command = {
	.name = "register",
	.run = capture_register_main,
	.synopsis = "capture register PLAN -o REG.json --statistic NAME ... [--compare-arms A,B ...] [--compare-cells X,Y ...] [--reference FILE ...] [--gate RATIO] [--sessions N] [--require quiet] [--hypothesis TEXT] [--tsa URL --tsa-ca FILE [--timeout S]] [--log DIR [--sign-key KEY]] [--json]",
	.summary = "fix what a campaign claims before its first run",
	.description = "Write a registration (evidence-registration/1) of a pinned plan: its SHA-256 (and\n"
		"so every program, its set-up and its grading rules), the grade it requires, the\n"
		"statistics the campaign will publish, each comparison it will make and how many\n"
		"sessions it plans, with a hypothesis in words. With --tsa it is given a trusted\n"
		"time (RFC 3161, as seal timestamp does: REG.json.tsq and REG.json.tsr beside\n"
		"it); with --log it is appended to the host's receipt log (as replicate log\n"
		"append does). Register before the first run, and run with --registration: then\n"
		"a reviewer can tell what was chosen in advance from what was chosen after the\n"
		"results. REG.json must not exist.\n",
	.options = register_options,
	.notes = "Exit status: 0 registered (and timestamped and logged, as asked), 1 the TSA's\n"
		"reply did not verify (the registration written, not timestamped), 2 a plan or\n"
		"claim refused, usage, I/O error or interrupted (what was written is named).\n",
	.relations = register_relations,
};

static const struct ev_cli_option leases_options[] = {
	{"json", 0, NULL, CAPTURE_LEASES_OPT_JSON, "print the holders and waiters as JSON on stdout", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command capture_leases_command = {
	.name = "leases",
	.run = capture_leases_main,
	.synopsis = "capture leases [--json]",
	.summary = "list who holds or waits for this host's CPUs",
	.description = "List the live holders of the host's CPU lease registry (PID, start time, command,\n"
		"since when, exclusive or shared, the CPUs) and the requests queued for it, in the\n"
		"order they will be served, with the pools (isolated and shared CPUs) and where\n"
		"they come from. A lease is a lock the kernel drops when its holder dies, so\n"
		"what is listed is alive.\n",
	.options = leases_options,
	.notes = "Exit status: 0 listed, 2 the registry cannot be read.\n",
};

static const struct ev_cli_option clocks_options[] = {
	{"json", 0, NULL, CAPTURE_CLOCKS_OPT_JSON, "print the record (evidence-clocks/1) on stdout", EV_CLI_TEXT, NULL},
	{"output", 'o', "FILE", CAPTURE_CLOCKS_OPT_OUTPUT, "write the record to FILE (new)", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", CAPTURE_CLOCKS_OPT_SIGN_KEY,
	 "sign the record with this Ed25519 key (replicate keygen), as\n"
	 "a receipt is signed: audit journal --trust holds it to it", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command capture_clocks_command = {
	.name = "clocks",
	.run = capture_clocks_main,
	.synopsis = "capture clocks [-o FILE] [--sign-key KEY] [--json]",
	.summary = "record this host's clock: synchronised, and within what error",
	.description = "Record what this host's realtime clock is now, as evidence for a latency that\n"
		"subtracts two hosts' stamps: the kernel's view (ntp_adjtime: synchronised or\n"
		"not, offset, maximum and estimated error), chrony's (chronyc -c tracking) and\n"
		"linuxptp's (pmc TIME_STATUS_NP) where they run, the clocksource and the TSC's\n"
		"flags, and says whether the clock is synchronised and within what error.\n"
		"capture run records the same before and after each run; take this on a host\n"
		"whose copies capture does not make, beside its run, signed with the host's\n"
		"key, and give it to audit journal --clock-record.\n",
	.options = clocks_options,
	.notes = "Exit status: 0 recorded (synchronised or not: the record says), 2 usage or FILE\n"
		"could not be written.\n",
};

static const struct ev_cli_command capture_config_command = EV_CLI_CONFIG_COMMAND("capture");

static const struct ev_cli_command *const commands[] = {
	&capture_run_command,
	&capture_pin_command,
	&capture_register_command,
	&capture_leases_command,
	&capture_clocks_command,
	&capture_config_command,
	NULL,
};

const struct ev_cli_tool capture_tool = {
	.name = "capture",
	.description = "Run a latency campaign's native pairs (a sender and its peer, fresh processes on\n"
		"their own CPUs, in network namespaces of their own, in a balanced order) and\n"
		"record everything that could change a result.\n",
	.epilogue = "Exit status: 0 every run held, 1 a run failed (the receipt says which),\n"
		"2 usage, refused plan, environment error or interrupted (nothing is claimed).\n",
	.commands = commands,
};
