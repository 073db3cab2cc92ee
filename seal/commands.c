/* SPDX-License-Identifier: Apache-2.0 */
/* seal's commands, the one table: each command's synopsis, summary,
 * description, options and notes, from which its --help, its usage errors
 * and its getopt tables come (lib/cli/command.h). The man page's SYNOPSIS
 * agrees with these synopses (tests/cli/t-help-synopses-agree-with-the-man-pages.sh). */
#include "config.h"

#include "lib/cli/configfile.h"

#include "lib/cli/continue_cli.h"
#include "seal/outputs.h"
#include "seal/seal.h"

static const struct ev_cli_option create_options[] = {
	SEAL_OPTION_GZIP,
	SEAL_OPTION_JOBS,
	EV_CLI_OPTION_JSON(SEAL_CREATE_OPT_JSON),
	SEAL_OPTION_LEVEL,
	{"name", 0, "ROOT", SEAL_CREATE_OPT_NAME,
	 "the tree's name in the seal and archive (default: DIR's name)", EV_CLI_TEXT, NULL},
	{"output", 'o', "OUTDIR", SEAL_CREATE_OPT_OUTPUT,
	 "where the outputs go (created; never overwritten)", EV_CLI_TEXT, NULL},
	{"refuse-writable", 0, NULL, SEAL_CREATE_OPT_REFUSE_WRITABLE,
	 "refuse group- or world-writable members", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(SEAL_CREATE_OPT_SIGN_KEY),
	SEAL_OPTION_THREADS,
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command seal_create_command = {
	.name = "create",
	.run = seal_create_main,
	.synopsis = "seal create [--gzip] [--jobs N] [--level N] [--name ROOT] [--refuse-writable] [--sign-key KEY] [--json] "
		"DIR -o OUTDIR",
	.summary = "seal DIR into OUTDIR: SEAL.json, the archive, receipt.json",
	.description = "Seal DIR: read every file once, record its SHA-256, size and mode, and write\n"
		"a deterministic archive of the exact bytes and modes. OUTDIR must not exist;\n"
		"it appears complete (SEAL.json, archive.tar.zst, receipt.json) or not at all.\n",
	.options = create_options,
	.notes = "Refused, with every offending member named and nothing written: symbolic\n"
		"links, FIFOs, sockets, devices, unreadable files, names that are not valid\n"
		"UTF-8 or hold control characters, two names that differ only in case or\n"
		"Unicode normalization, setuid/setgid/sticky bits, a file that changes while\n"
		"it is read, an OUTDIR inside DIR. Hard links are sealed as ordinary files.\n"
		"\n"
		"Exit status: 0 sealed (OUTDIR complete), 2 refused, usage or I/O error, or a\n"
		"signal (nothing written).\n",
};

static const struct ev_cli_option verify_options[] = {
	EV_CLI_OPTION_JSON(SEAL_VERIFY_OPT_JSON),
	EV_CLI_OPTION_MAX_FINDINGS(SEAL_VERIFY_OPT_MAX_FINDINGS),
	{"receipt", 0, "FILE", SEAL_VERIFY_OPT_RECEIPT,
	 "the verification receipt (default: verify-TIME.json in\n"
	 "the current directory)", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", SEAL_VERIFY_OPT_SEAL,
	 "the seal to check against", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(SEAL_VERIFY_OPT_SEAL_SHA256),
	{"selection", 0, "FILE", SEAL_VERIFY_OPT_SELECTION,
	 "check DIR against a selection manifest", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(SEAL_VERIFY_OPT_SIGN_KEY),
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation verify_relations[] = {
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command seal_verify_command = {
	.name = "verify",
	.run = seal_verify_main,
	.synopsis = "seal verify --seal SEAL.json [--seal-sha256 HEX] [--receipt FILE] [--max-findings N] "
		"[--sign-key KEY] [--json] (DIR | ARCHIVE)\n"
		"seal verify --selection selection.json [--seal SEAL.json] [--sign-key KEY] [--json] DIR",
	.summary = "check a tree or an archive against a seal",
	.description = "Check every member of a tree or of an archive against a seal: present, type,\n"
		"size, mode, SHA-256; members missing from the target and members the seal does\n"
		"not list. Every finding is reported, not only the first. With --selection,\n"
		"check a copied subset of files against a selection manifest (seal select).\n",
	.options = verify_options,
	.notes = "Findings go to stderr as 'seal: MEMBER: what (expected X, found Y)', the verdict\n"
		"to stdout.\n"
		"\n"
		"Exit status: 0 all members held, 1 a finding, 2 the check could not be made.\n",
	.relations = verify_relations,
};

static const struct ev_cli_option diff_options[] = {
	{"json", 0, NULL, SEAL_DIFF_OPT_JSON,
	 "print {\"added\":[..],\"removed\":[..],\"changed\":[..]} instead", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_option timestamp_options[] = {
	{"reply", 0, "REPLY", SEAL_TIMESTAMP_OPT_REPLY,
	 "verify a TSA's reply obtained by other means against\n"
	 "FILE.tsq and FILE, and store it as FILE.tsr", EV_CLI_TEXT, NULL},
	{"request", 0, NULL, SEAL_TIMESTAMP_OPT_REQUEST,
	 "only write FILE.tsq, for a TSA reached by other means", EV_CLI_TEXT, NULL},
	{"timeout", 0, "S", SEAL_TIMESTAMP_OPT_TIMEOUT,
	 "seconds to wait for the TSA (default 30)", EV_CLI_COUNT, "1..3600 seconds"},
	{"tsa", 0, "URL", SEAL_TIMESTAMP_OPT_TSA,
	 "the time-stamp authority (RFC 3161 over HTTP)", EV_CLI_TEXT, NULL},
	{"tsa-ca", 0, "FILE", SEAL_TIMESTAMP_OPT_TSA_CA,
	 "the CA (PEM) the TSA's certificate must chain to, at\n"
	 "the token's time", EV_CLI_TEXT, NULL},
	{"verify", 0, NULL, SEAL_TIMESTAMP_OPT_VERIFY,
	 "verify FILE.tsr against FILE.tsq, FILE and the CA", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation timestamp_relations[] = {
	{EV_CLI_EXCLUDES, "request", "reply"},
	{EV_CLI_EXCLUDES, "request", "verify"},
	{EV_CLI_EXCLUDES, "reply", "verify"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command seal_timestamp_command = {
	.name = "timestamp",
	.run = seal_timestamp_main,
	.synopsis = "seal timestamp --tsa URL --tsa-ca FILE [--timeout S] FILE...\n"
		"seal timestamp --request FILE...\n"
		"seal timestamp --reply REPLY --tsa-ca FILE FILE\n"
		"seal timestamp --verify --tsa-ca FILE FILE...",
	.summary = "a trusted time for a seal or a receipt (RFC 3161)",
	.description = "Ask a time-stamp authority to vouch for FILE (a SEAL.json or a receipt): a\n"
		"request over the SHA-256 of its bytes with a random nonce (FILE.tsq), sent to\n"
		"--tsa, and the reply stored as FILE.tsr only once verified: granted, its imprint\n"
		"exactly FILE's digest, its nonce the request's, its signing certificate marked\n"
		"for timeStamping and chained to --tsa-ca at the token's own time (so a token\n"
		"outlives its certificate), its signature sound. Each refusal names the fact.\n"
		"--request and --reply split this for a host that cannot reach a TSA; --verify\n"
		"checks a stored timestamp again. Neither file is ever replaced.\n",
	.options = timestamp_options,
	.notes = "Exit status: 0 every FILE holds a verified timestamp, 1 a reply did not verify\n"
		"(the fact named; nothing stored), 2 usage, a TSA that cannot be reached, a\n"
		"timestamp that exists.\n",
	.relations = timestamp_relations,
};

static const struct ev_cli_command seal_diff_command = {
	.name = "diff",
	.run = seal_diff_main,
	.synopsis = "seal diff [--json] A.json B.json",
	.summary = "members added, removed and changed between two seals",
	.description = "List the members added (only in B), removed (only in A) and changed (type,\n"
		"mode, size or SHA-256) between two seals, one per line:\n"
		"  added: PATH (TYPE)\n"
		"  removed: PATH (TYPE)\n"
		"  changed: PATH: FIELD (A: VALUE, B: VALUE)\n"
		"Exit status: 0 the seals list the same members, 1 they differ, 2 error.\n",
	.options = diff_options,
};

static const struct ev_cli_option select_options[] = {
	{"include", 0, "GLOB", SEAL_SELECT_OPT_INCLUDE,
	 "a pattern (repeatable)", EV_CLI_TEXT, NULL},
	{"output", 'o', "FILE", SEAL_SELECT_OPT_OUTPUT,
	 "the manifest to write (never overwritten)", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", SEAL_SELECT_OPT_SEAL,
	 "the seal to select from", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command seal_select_command = {
	.name = "select",
	.run = seal_select_main,
	.synopsis = "seal select --seal SEAL.json --include GLOB [--include GLOB ...] -o selection.json",
	.summary = "write a selection manifest naming a subset of a seal",
	.description = "Write a selection manifest: the members of the seal that match, with their\n"
		"types, modes, sizes and SHA-256, and the seal's own SHA-256. A copy of just\n"
		"those files is later checked with 'seal verify --selection FILE DIR'.\n"
		"\n"
		"A GLOB is matched against member paths with fnmatch(3) and FNM_PATHNAME: '*'\n"
		"and '?' do not cross '/'. A member is selected when it matches, or when one of\n"
		"its parent directories matches (so 'summary' selects the whole directory).\n"
		"Every GLOB must select at least one member.\n",
	.options = select_options,
	.notes = "Exit status: 0 the manifest was written, 2 usage or I/O error, a GLOB that\n"
		"selects nothing, or a seal that cannot be read (nothing written).\n",
};

static const struct ev_cli_option capsule_options[] = {
	{"commit", 0, "REV", SEAL_CAPSULE_OPT_COMMIT,
	 "the commit: an id, a branch, a tag (default HEAD; for\n"
	 "--verify, the commit the capsule names)", EV_CLI_TEXT, NULL},
	SEAL_OPTION_GZIP,
	SEAL_OPTION_JOBS,
	EV_CLI_OPTION_JSON(SEAL_CAPSULE_OPT_JSON),
	SEAL_OPTION_LEVEL,
	{"name", 0, "ROOT", SEAL_CAPSULE_OPT_NAME,
	 "the tree's name (default: the repository's name and the\n"
	 "commit's first 12 hex digits)", EV_CLI_TEXT, NULL},
	{"output", 'o', "OUTDIR", SEAL_CAPSULE_OPT_OUTPUT,
	 "where the capsule goes (created; never overwritten)", EV_CLI_TEXT, NULL},
	{"receipt", 0, "FILE", SEAL_CAPSULE_OPT_RECEIPT,
	 "with --verify: the verification receipt (default:\n"
	 "verify-TIME.json in the current directory)", EV_CLI_TEXT, NULL},
	{"repo", 0, "DIR", SEAL_CAPSULE_OPT_REPO,
	 "the repository (or a directory inside it)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(SEAL_CAPSULE_OPT_SIGN_KEY),
	{"submodules", 0, "MODE", SEAL_CAPSULE_OPT_SUBMODULES,
	 "refuse (default) or record: a submodule is listed with\n"
	 "its commit in the seal's source, not archived", EV_CLI_WORDS, "refuse record"},
	{"symlinks", 0, "MODE", SEAL_CAPSULE_OPT_SYMLINKS,
	 "refuse (default) or record: a link is listed with its\n"
	 "target in the seal's source, not archived", EV_CLI_WORDS, "refuse record"},
	SEAL_OPTION_THREADS,
	{"verify", 0, NULL, SEAL_CAPSULE_OPT_VERIFY,
	 "check CAPSULE against the commit instead of sealing", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command seal_capsule_command = {
	.name = "capsule",
	.run = seal_capsule_main,
	.synopsis = "seal capsule --repo DIR [--commit REV] -o OUTDIR [--name ROOT] [--symlinks "
		"refuse|record] [--submodules refuse|record] [--gzip] [--level N] [--jobs N] [--sign-key KEY] [--json]\n"
		"seal capsule --verify --repo DIR [--commit REV] [--receipt FILE] [--sign-key KEY] [--json] CAPSULE",
	.summary = "seal a git commit's tree (or --verify a capsule against one)",
	.description = "Seal a commit's tree as git records it, read through libgit2 (never the working\n"
		"tree): every blob's bytes, modes as git stores them (100644 -> 0644, 100755 ->\n"
		"0755), directories 0755, the commit and tree ids in SEAL.json's \"source\". The\n"
		"outputs are those of seal create (SEAL.json, the archive, receipt.json).\n"
		"\n"
		"With --verify, check a capsule against a commit (by default the one it names),\n"
		"member for member. CAPSULE is a capsule's OUTDIR (its seal and its archive are\n"
		"checked), a SEAL.json, an extracted archive (SEAL.json beside ROOT/) or a tree\n"
		"itself; a tree on disk is hashed and compared with the commit, directories and\n"
		"their ancestors included. Like every verifier it writes a receipt (kind verify;\n"
		"--receipt FILE, else verify-TIME.json here), and --json prints it too.\n",
	.options = capsule_options,
	.notes = "Exit status: 0 sealed, or the capsule matches the commit; 1 a member differs\n"
		"(each named); 2 usage, I/O or a refused tree (nothing written).\n",
};

static const struct ev_cli_option integrate_options[] = {
	EV_CLI_OPTION_JSON(SEAL_INTEGRATE_OPT_JSON),
	{"prefix", 0, "PATH", SEAL_INTEGRATE_OPT_PREFIX,
	 "where the sealed tree's members live in the repository\n"
	 "(default: at its top)", EV_CLI_TEXT, NULL},
	{"receipt", 0, "FILE", SEAL_INTEGRATE_OPT_RECEIPT,
	 "the receipt (default: integration-TIME.json here)", EV_CLI_TEXT, NULL},
	{"repo", 0, "DIR", SEAL_INTEGRATE_OPT_REPO,
	 "the repository", EV_CLI_TEXT, NULL},
	{"rev", 0, "REV", SEAL_INTEGRATE_OPT_REV,
	 "the commit to check (default HEAD)", EV_CLI_TEXT, NULL},
	{"selection", 0, "FILE", SEAL_INTEGRATE_OPT_SELECTION,
	 "the selection manifest", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(SEAL_INTEGRATE_OPT_SIGN_KEY),
	{"worktree", 0, NULL, SEAL_INTEGRATE_OPT_WORKTREE,
	 "check the working tree's files instead, each tracked and\n"
	 "staged as it is (the index agrees with the file)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation integrate_relations[] = {
	{EV_CLI_EXCLUDES, "rev", "worktree"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command seal_integrate_command = {
	.name = "integrate",
	.run = seal_integrate_main,
	.synopsis = "seal integrate --selection selection.json --repo DIR [--rev REV | --worktree] [--prefix "
		"PATH] [--receipt FILE] [--sign-key KEY] [--json]",
	.summary = "the selected files committed to git, against their seal",
	.description = "Check that every file of a selection manifest (seal select), committed to a git\n"
		"repository, still equals its sealed original: its content (SHA-256; the git\n"
		"blob id is recorded), its size, and its mode under one representation rule.\n"
		"Git keeps only the executable bit: a sealed mode with no executable bit is\n"
		"stored as 100644, with any as 100755. That mapping is accepted and recorded\n"
		"(a 0600 log committed as 100644 passes); a change of content, size or of the\n"
		"executable bit is refused, the member named. Writes an integration receipt.\n",
	.options = integrate_options,
	.notes = "Exit status: 0 every selected file holds, 1 one differs (named), 2 usage or I/O.\n",
	.relations = integrate_relations,
};

static const struct ev_cli_command seal_continue_command = {
	.name = "continue",
	.run = seal_continue_main,
	.synopsis = "seal " EV_CONTINUE_SYNOPSIS,
	.summary = "a failed verify or integrate receipt continued: its understood\n"
		"differences accepted, rerun",
	.description = "Continues failed receipts of 'seal verify', 'seal integrate'.\n\n" EV_CONTINUE_DESCRIPTION,
	.options = ev_continue_options,
	.notes = EV_CONTINUE_NOTES,
};

static const struct ev_cli_command seal_config_command = EV_CLI_CONFIG_COMMAND("seal");

static const struct ev_cli_command *const commands[] = {
	&seal_create_command,
	&seal_verify_command,
	&seal_diff_command,
	&seal_select_command,
	&seal_capsule_command,
	&seal_integrate_command,
	&seal_timestamp_command,
	&seal_continue_command,
	&seal_config_command,
	NULL,
};

const struct ev_cli_tool seal_tool = {
	.name = "seal",
	.description = "Freeze an evidence tree: hash every member (SHA-256, size, mode, type) in one\n"
		"read pass while writing a deterministic compressed archive, then check copies.\n",
	.epilogue = "Exit status: 0 everything held, 1 a check failed, 2 usage, I/O or environment\n"
		"error (nothing is claimed).\n",
	.commands = commands,
	.shared_pool = 1,
};
