/* SPDX-License-Identifier: Apache-2.0 */
/* replicate's commands, the one table: each command's synopsis, summary,
 * description, options and notes, from which its --help, its usage errors
 * and its getopt tables come (lib/cli/command.h). The man page's SYNOPSIS
 * agrees with these synopses (tests/cli/t-help-synopses-agree-with-the-man-pages.sh). */
#include "config.h"

#include "lib/cli/configfile.h"

#include "lib/cli/continue_cli.h"
#include "replicate/remote_cli.h"
#include "replicate/replicate.h"

/* How push and audit reach other hosts (replicate/remote_cli.c reads them). */
#define REPLICATE_SSH_OPTIONS \
	{"ssh", 0, "PROGRAM", REPLICATE_REMOTE_OPT_SSH, "the ssh client (default: ssh)", EV_CLI_TEXT, NULL}, \
	{"ssh-config", 0, "FILE", REPLICATE_REMOTE_OPT_SSH_CONFIG, "passed to ssh as -F FILE", EV_CLI_TEXT, NULL}, \
	{"ssh-option", 0, "OPT", REPLICATE_REMOTE_OPT_SSH_OPTION, "passed to ssh as -o OPT (repeatable)", EV_CLI_TEXT, NULL}

static const struct ev_cli_option verify_options[] = {
	{"archive-sha256", 0, "HEX", REPLICATE_VERIFY_OPT_ARCHIVE_SHA256,
	 "the archive's own SHA-256 must be HEX (a check)", EV_CLI_DIGEST, NULL},
	EV_CLI_OPTION_JSON(REPLICATE_VERIFY_OPT_JSON),
	EV_CLI_OPTION_MAX_FINDINGS(REPLICATE_VERIFY_OPT_MAX_FINDINGS),
	{"receipt", 0, "FILE", REPLICATE_VERIFY_OPT_RECEIPT,
	 "write the receipt to FILE (never replaced)", EV_CLI_TEXT, NULL},
	{"receipt-dir", 0, "DIR", REPLICATE_VERIFY_OPT_RECEIPT_DIR,
	 "write it into DIR as replica-HOST-TIME.json\n"
	 "(default: the current directory)", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", REPLICATE_VERIFY_OPT_SEAL,
	 "the seal to check against", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(REPLICATE_VERIFY_OPT_SEAL_SHA256),
	{"sign-key", 0, "KEY", REPLICATE_VERIFY_OPT_SIGN_KEY,
	 "sign the receipt with this Ed25519 key (replicate keygen)", EV_CLI_TEXT, NULL},
	{"stop-when-stdin-closes", 0, NULL, REPLICATE_VERIFY_OPT_STOP_WHEN_STDIN_CLOSES,
	 "stop as on SIGHUP (exit 2, no receipt) once stdin\n"
	 "ends: replicate push runs its verifiers so, to end\n"
	 "them when it ends", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation verify_relations[] = {
	{EV_CLI_EXCLUDES, "receipt", "receipt-dir"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command replicate_verify_command = {
	.name = "verify",
	.run = replicate_verify_main,
	.synopsis = "replicate verify --seal SEAL.json [--seal-sha256 HEX] [--archive-sha256 HEX] [--receipt "
		"FILE | --receipt-dir DIR] [--sign-key KEY] [--max-findings N] [--json] ARCHIVE",
	.summary = "check every member of an archive; write a receipt",
	.description = "Stream ARCHIVE once, never extracting it, and check every member against the\n"
		"seal: present once, in seal order, type, size, mode, SHA-256; the embedded\n"
		"SEAL.json equal to the seal; nothing outside the seal, nothing behind the end.\n"
		"Absolute names, '..', backslashes, links, devices, FIFOs and names that collide\n"
		"where case or Unicode normalization is ignored are refused. Every finding is\n"
		"reported, and a replica receipt records every check.\n",
	.options = verify_options,
	.notes = "Findings go to stderr as 'replicate: MEMBER: what (expected X, found Y)'.\n"
		"Exit status: 0 every member held, 1 a finding (the receipt says which),\n"
		"2 the check could not be made (no receipt).\n",
	.relations = verify_relations,
};

static const struct ev_cli_option push_options[] = {
	{"json", 0, NULL, REPLICATE_PUSH_OPT_JSON,
	 "print a summary as JSON on stdout", EV_CLI_TEXT, NULL},
	{"log", 0, "DIR", REPLICATE_PUSH_OPT_LOG,
	 "this host's receipt log: each destination keeps its latest\n"
	 "tree head, only when it extends the one kept before", EV_CLI_TEXT, NULL},
	{"receipt-dir", 0, "DIR", REPLICATE_PUSH_OPT_RECEIPT_DIR,
	 "where the receipts are kept here (default: the current\n"
	 "directory)", EV_CLI_TEXT, NULL},
	{"receipts", 0, "DIR", REPLICATE_PUSH_OPT_RECEIPTS,
	 NULL, EV_CLI_TEXT, NULL}, /* refused with the option to give: --receipts is prune's list */
	{"remote-replicate", 0, "PATH", REPLICATE_PUSH_OPT_REMOTE_REPLICATE,
	 "replicate on the far hosts (default: replicate)", EV_CLI_TEXT, NULL},
	{"remote-sign-key", 0, "PATH", REPLICATE_PUSH_OPT_REMOTE_SIGN_KEY,
	 "a key on the far hosts to sign their receipts with", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", REPLICATE_PUSH_OPT_SEAL,
	 "the seal the archive was made with", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(REPLICATE_PUSH_OPT_SEAL_SHA256),
	{"sign-key", 0, "KEY", REPLICATE_PUSH_OPT_SIGN_KEY,
	 "sign the receipt made here", EV_CLI_TEXT, NULL},
	REPLICATE_SSH_OPTIONS,
	{"timeout", 0, "S", REPLICATE_PUSH_OPT_TIMEOUT,
	 "seconds without progress before a destination is\n"
	 "given up (default 60)", EV_CLI_COUNT, "1..86400 seconds"},
	{"to", 0, "[HOST:]DIR", REPLICATE_PUSH_OPT_TO,
	 "a destination (repeatable, at least one)", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_PUSH_OPT_TRUST,
	 "check every receipt's signature against these keys", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_push_command = {
	.name = "push",
	.run = replicate_push_main,
	.synopsis = "replicate push ARCHIVE --seal SEAL.json [--seal-sha256 HEX] --to [HOST:]DIR [--to ...] "
		"[--receipt-dir DIR] [--timeout S] [--ssh PROGRAM] [--ssh-config FILE] [--ssh-option OPT "
		"...] [--remote-replicate PATH] [--sign-key KEY] [--remote-sign-key PATH] [--trust FILE "
		"...] [--log DIR] [--json]",
	.summary = "copy archive and seal to hosts (ssh) or directories, verify\n"
		"there, fetch and compare the receipts",
	.description = "Copy ARCHIVE and SEAL.json to every destination at once, verify the copy there\n"
		"(replicate verify), fetch each receipt, verify ARCHIVE here too, and compare all\n"
		"the receipts. HOST:DIR goes through ssh with your own configuration (ports,\n"
		"keys, jump hosts); a plain DIR (or one starting with / or ./) is a local copy.\n"
		"Transfers resume where an interrupted one stopped and never leave a partial\n"
		"file at the final name; a destination that makes no progress for --timeout\n"
		"seconds is stopped and reported, and the others go on.\n",
	.options = push_options,
	.notes = "Exit status: 0 every destination holds a verified copy and every receipt\n"
		"agrees; 1 a receipt failed or they disagree; 2 a destination could not be\n"
		"reached or written (the others are still reported).\n",
};

static const struct ev_cli_option audit_options[] = {
	{"archive-name", 0, "NAME", REPLICATE_AUDIT_OPT_ARCHIVE_NAME,
	 "the archive's name in each DIR (default archive.tar.zst,\n"
	 "as push names it)", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, REPLICATE_AUDIT_OPT_JSON,
	 "print a summary as JSON on stdout", EV_CLI_TEXT, NULL},
	{"receipt-dir", 0, "DIR", REPLICATE_AUDIT_OPT_RECEIPT_DIR,
	 "where the audits' receipts and summaries are kept here\n"
	 "(default: the current directory)", EV_CLI_TEXT, NULL},
	{"remote-audit", 0, "PATH", REPLICATE_AUDIT_OPT_REMOTE_AUDIT,
	 "audit on the far hosts (default: audit)", EV_CLI_TEXT, NULL},
	{"remote-sign-key", 0, "PATH", REPLICATE_AUDIT_OPT_REMOTE_SIGN_KEY,
	 "a key on the far hosts to sign their audits with", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", REPLICATE_AUDIT_OPT_SEAL,
	 "the campaign's seal here: its SHA-256 pins every copy's", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(REPLICATE_AUDIT_OPT_SEAL_SHA256),
	REPLICATE_SSH_OPTIONS,
	{"timeout", 0, "S", REPLICATE_AUDIT_OPT_TIMEOUT,
	 "seconds without a byte from an audit before its host is\n"
	 "given up (default 60; its progress line counts)", EV_CLI_COUNT, "1..86400 seconds"},
	{"trust", 0, "FILE", REPLICATE_AUDIT_OPT_TRUST,
	 "check every receipt's signature against these keys", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_audit_command = {
	.name = "audit",
	.run = replicate_audit_main,
	.synopsis = "replicate audit --seal SEAL.json [--seal-sha256 HEX] [--archive-name NAME] [--receipt-dir DIR] "
		"[--timeout S] [--ssh PROGRAM] [--ssh-config FILE] [--ssh-option OPT ...] [--remote-audit PATH] "
		"[--remote-sign-key PATH] [--trust FILE ...] [--json] [HOST:]DIR...",
	.summary = "audit the campaign on every host that holds a copy, against\n"
		"that copy; fetch and compare the audits",
	.description = "Run audit campaign on every destination replicate push filled (SEAL.json and the\n"
		"archive in DIR), against the copy there: the far audit reads the archive in one\n"
		"pass, checks every member against the seal, recomputes every statistic, and\n"
		"writes its OUTDIR (audit-TIME) beside the copy; nothing is extracted there and\n"
		"the far host needs only the audit program. Each receipt and summary.json comes\n"
		"back over the same ssh and is kept here (audit-HOST-TIME.json, .summary.json\n"
		"beside it); then the receipts are compared: every host that recomputed the same\n"
		"comparable digest agrees, and a host that did not is named with the first value\n"
		"where its summary differs. HOST:DIR goes through ssh as for push; a plain DIR is\n"
		"audited here with the audit program beside this one.\n",
	.options = audit_options,
	.notes = "Exit status: 0 every host's audit passed and every receipt agrees; 1 an audit\n"
		"failed (a copy that does not match its seal, a statistic) or they disagree; 2 a\n"
		"host could not be reached or its audit could not run (the others are still\n"
		"reported).\n",
};

static const struct ev_cli_option compare_options[] = {
	{"json", 0, NULL, REPLICATE_COMPARE_OPT_JSON,
	 "print the comparison as JSON on stdout", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_COMPARE_OPT_TRUST,
	 "trust the Ed25519 public keys in FILE (PEM; repeatable); then\n"
	 "every receipt must carry a signature by one of them that\n"
	 "verifies: unsigned, unknown-key and altered receipts fail", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_compare_command = {
	.name = "compare",
	.run = replicate_compare_main,
	.synopsis = "replicate compare [--trust FILE ...] [--json] RECEIPT...",
	.summary = "do receipts agree, and where do they differ",
	.description = "Say whether receipts agree on their comparable part (everything but paths,\n"
		"hosts, times and signatures) and, where one differs from the first, exactly\n"
		"which input, fact, member check or result differs. A receipt edited after it\n"
		"was written is named as such.\n",
	.options = compare_options,
	.notes = "Exit status: 0 the receipts agree (and, with --trust, are all signed by trusted\n"
		"keys), 1 they do not, 2 a receipt could not be read.\n",
};

static const struct ev_cli_option check_options[] = {
	{"json", 0, NULL, REPLICATE_CHECK_OPT_JSON,
	 "print the verdicts as JSON (evidence-trust-check/1)", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_CHECK_OPT_TRUST,
	 "public keys (PEM, replicate keygen's NAME.pub) to trust\n"
	 "(repeatable; at least one)", EV_CLI_TEXT, NULL},
	{"tsa-ca", 0, "FILE", REPLICATE_CHECK_OPT_TSA_CA,
	 "verify each receipt's RFC 3161 timestamp (RECEIPT.tsr,\n"
	 "seal timestamp) against this CA and show its trusted time", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_check_command = {
	.name = "check",
	.run = replicate_check_main,
	.synopsis = "replicate check --trust FILE [--trust FILE ...] [--tsa-ca FILE] [--json] (RECEIPT | ENVELOPE)...",
	.summary = "any receipt held against a trust list: intact and signed\n"
		"by a trusted key",
	.description = "Check each RECEIPT, of any kind (seal, verify, replica, audit, capture, cleanup,\n"
		"integration, continuation), against the trusted public keys: read strictly (canonical\n"
		"JSON), its comparable digest recomputed (an edit after it was written is named),\n"
		"and its signature verified under one of the keys (an unsigned receipt, one\n"
		"signed by another key, or one changed after it was signed is named). Every\n"
		"command that writes a receipt signs it with --sign-key KEY.\n"
		"\n"
		"An in-toto attestation (replicate attest: a DSSE envelope) is checked as well: its\n"
		"payloadType, every signature by a trusted key over the envelope's pre-\n"
		"authentication encoding, the statement's type and predicateType, the receipt\n"
		"inside intact, and the subjects exactly its inputs and outputs.\n",
	.options = check_options,
	.notes = "Exit status: 0 every receipt is intact and signed by a trusted key, 1 one is\n"
		"not (each named on stderr), 2 usage, a key or a receipt that cannot be read.\n",
};

static const struct ev_cli_option attest_options[] = {
	{"output", 'o', "FILE", REPLICATE_ATTEST_OPT_OUTPUT,
	 "the envelope (one RECEIPT; default: RECEIPT.intoto.json\n"
	 "beside each receipt)", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", REPLICATE_ATTEST_OPT_SIGN_KEY,
	 "sign the envelope with this Ed25519 key (repeatable:\n"
	 "one signature each)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_attest_command = {
	.name = "attest",
	.run = replicate_attest_main,
	.synopsis = "replicate attest --sign-key KEY [--sign-key KEY ...] [-o FILE] RECEIPT...",
	.summary = "a receipt as an in-toto attestation in a DSSE envelope",
	.description = "Export each RECEIPT (any kind, read strictly, its comparable digest holding) as an\n"
		"in-toto Statement v1 whose subjects are the receipt's inputs and outputs by\n"
		"SHA-256 and whose predicate (urn:evidence:receipt:v1) is the receipt, wrapped in\n"
		"a DSSE envelope (payloadType application/vnd.in-toto+json) signed with each\n"
		"--sign-key (replicate keygen's Ed25519 keys; keyid is the key's id as receipts\n"
		"name it). Tools outside this project verify it with the public key; replicate\n"
		"check --trust does too.\n",
	.options = attest_options,
	.notes = "Exit status: 0 every envelope written, 1 a receipt edited after it was written\n"
		"(not attested), 2 usage, a key or a receipt that cannot be read, an envelope\n"
		"that exists.\n",
};

static const struct ev_cli_option accept_options[] = {
	{"bundle", 0, "BUNDLE", REPLICATE_ACCEPT_OPT_BUNDLE,
	 "write the verdict and what it read as an in-toto\n"
	 "bundle (CAMPAIGN.intoto.jsonl; a new file), each line\n"
	 "signed with --sign-key", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, REPLICATE_ACCEPT_OPT_JSON,
	 "print the verdict as JSON (evidence-acceptance-verdict/1)", EV_CLI_TEXT, NULL},
	{"policy", 0, "POLICY", REPLICATE_ACCEPT_OPT_POLICY,
	 "the acceptance policy (evidence-acceptance/1, signed:\n"
	 "replicate sign-policy)", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", REPLICATE_ACCEPT_OPT_SEAL,
	 "the seal to judge (default: the one seal beneath DIR)", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", REPLICATE_ACCEPT_OPT_SIGN_KEY,
	 "sign the bundle's lines with this key (repeatable)", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_ACCEPT_OPT_TRUST,
	 "public keys (PEM) the policy may be signed by\n"
	 "(repeatable; at least one)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_accept_command = {
	.name = "accept",
	.run = replicate_accept_main,
	.synopsis = "replicate accept --policy POLICY --trust FILE [--trust FILE ...] [--seal SEAL.json] [--bundle BUNDLE "
		"--sign-key KEY] [--json] (DIR | BUNDLE)",
	.summary = "one verdict on a campaign against a lab's signed\n"
		"acceptance policy, offline",
	.description = "Judge the evidence beneath DIR (the seal, its timestamp, receipts of any kind,\n"
		"receipt logs with the checkpoints replicas cosigned) against POLICY, which a\n"
		"key given with --trust must sign and which must not have expired. Each\n"
		"condition is judged in the policy's order: policy, seal (a seal receipt by a\n"
		"seal signer), timestamp (SEAL.json.tsr chained to the policy's CA), replicas\n"
		"(replica receipts on K distinct hosts), audits (audit campaign receipts on K\n"
		"distinct hosts, all with one summary.json), checkpoints (a quorum of the\n"
		"policy's witnesses cosigned checkpoints of its log that include the seal and\n"
		"every receipt counted; a split view fails it, naming both), grade (quiet, when\n"
		"required) and reference (audit compare --reference said \"reproduced within\").\n"
		"Every receipt is held to the keys the policy lets sign its kind; one that\n"
		"does not hold is not counted, and is named. The verdict names the first unmet\n"
		"condition and everything that held.\n"
		"\n"
		"With --bundle, the verdict is also written as a SLSA verification summary\n"
		"(https://slsa.dev/verification_summary/v1), each audit relied on as an in-toto\n"
		"test result, and every document the verdict read (receipts, the seal, its\n"
		"timestamp, the log's entries, the cosigned checkpoints), each an in-toto\n"
		"statement in a DSSE envelope, one per line of BUNDLE (CAMPAIGN.intoto.jsonl).\n"
		"accept judges a BUNDLE as it judges a DIR: from what the bundle carries alone.\n",
	.options = accept_options,
	.notes = "Exit status: 0 accepted (PASSED), 1 not (FAILED: the first unmet condition\n"
		"named), 2 usage, a policy or seal that cannot be read, no seal or several.\n",
};

static const struct ev_cli_option sign_policy_options[] = {
	{"key", 0, "NAME=PUB", REPLICATE_SIGN_POLICY_OPT_KEY,
	 "put the public key in PUB (PEM) in the policy's keys\n"
	 "as NAME (repeatable)", EV_CLI_TEXT, NULL},
	{"output", 'o', "POLICY", REPLICATE_SIGN_POLICY_OPT_OUTPUT,
	 "the signed policy (a new file)", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", REPLICATE_SIGN_POLICY_OPT_SIGN_KEY,
	 "sign the policy with this Ed25519 key", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_sign_policy_command = {
	.name = "sign-policy",
	.run = replicate_sign_policy_main,
	.synopsis = "replicate sign-policy --sign-key KEY [--key NAME=PUB ...] -o POLICY DRAFT",
	.summary = "an acceptance policy checked and signed",
	.description = "Read DRAFT (evidence-acceptance/1, any JSON layout), put each --key in its keys,\n"
		"check it as replicate accept reads a policy (every key stated, none unknown,\n"
		"each named key known), and write it canonical and signed to POLICY. Give\n"
		"reviewers the signing key's public half: accept --trust takes it.\n",
	.options = sign_policy_options,
	.notes = "Exit status: 0 written, 2 usage, a draft that is not a policy (the key named),\n"
		"a key that cannot be read, a POLICY that exists.\n",
};

static const struct ev_cli_option log_options[] = {
	{"json", 0, NULL, REPLICATE_LOG_OPT_JSON,
	 "consistency: print the proof (evidence-consistency/1)", EV_CLI_TEXT, NULL},
	{"log", 0, "DIR", REPLICATE_LOG_OPT_LOG,
	 "the log (append makes it)", EV_CLI_TEXT, NULL},
	{"origin", 0, "NAME", REPLICATE_LOG_OPT_ORIGIN,
	 "the log's name in its checkpoints, recorded by the\n"
	 "first append (default: HOST and the log's absolute\n"
	 "path); vkey: the name to make the key for", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", REPLICATE_LOG_OPT_SIGN_KEY,
	 "append: sign the new tree head, and write it as a\n"
	 "C2SP checkpoint, with this Ed25519 key", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_LOG_OPT_TRUST,
	 "verify: every tree head signed by one of these keys\n"
	 "(repeatable)", EV_CLI_TEXT, NULL},
	{"witness", 0, "NAME", REPLICATE_LOG_OPT_WITNESS,
	 "vkey: the key as the replica NAME cosigns with it\n"
	 "(keep-head --sign-key; no --log needed)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_log_command = {
	.name = "log",
	.run = replicate_log_main,
	.synopsis = "replicate log --log DIR [--origin NAME] [--sign-key KEY] append FILE...\n"
		"replicate log --log DIR [--trust FILE ...] verify\n"
		"replicate log --log DIR [--json] consistency OLD_HEAD NEW_HEAD\n"
		"replicate log --log DIR [--origin NAME] vkey PUBLIC_KEY\n"
		"replicate log --witness NAME vkey PUBLIC_KEY",
	.summary = "an append-only log of receipts and seals (RFC 9162 tree),\n"
		"its signed tree heads and proofs",
	.description = "append adds each receipt or SEAL.json (by its SHA-256, once) to the log in DIR as\n"
		"a leaf of an RFC 9162 Merkle tree, writes a tree head (size, root; signed with\n"
		"--sign-key) and, beside each file, FILE.inclusion.json, its inclusion proof;\n"
		"nothing is added to a log that no longer matches its last head. verify\n"
		"recomputes the whole tree: every head's root (and, with --trust, its signature),\n"
		"every inclusion proof beside a logged file; an entry removed, reordered or\n"
		"edited is named with the tree size it breaks. consistency proves, from this\n"
		"log's entries, that the tree an older head describes (this host's, or one\n"
		"another host kept) is a prefix of the tree a newer one describes, or names\n"
		"the root that does not hold: a rewritten history is caught.\n"
		"\n"
		"With --sign-key, append also writes each head as a C2SP checkpoint\n"
		"(heads/checkpoint-SIZE, a signed note under the log's origin) and, beside each\n"
		"file, FILE.tlog-proof (c2sp.org/tlog-proof): Go's sumdb/note and sumdb/tlog\n"
		"verify both. vkey prints the public key in the form note.NewVerifier reads\n"
		"(ORIGIN+KEYID+KEY), to hand to whoever verifies without our tools.\n",
	.options = log_options,
	.notes = "Exit status: 0 the log holds (appended, verified, consistent), 1 it does not\n"
		"(each finding named), 2 usage, a file that cannot be read or logged, a log\n"
		"rewritten before an append.\n",
};

static const struct ev_cli_option keygen_options[] = {
	{"output", 'o', "NAME", REPLICATE_KEYGEN_OPT_OUTPUT,
	 "where the pair goes", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_option status_options[] = {
	{"catalog", 0, "WHERE", REPLICATE_STATUS_OPT_CATALOG,
	 "read the catalog (a SQLite file or postgresql://...)\n"
	 "instead of the files; DIR... then narrows it to what\n"
	 "was indexed under them on this host", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, REPLICATE_STATUS_OPT_JSON,
	 "print the inventory as JSON (evidence-status/1)", EV_CLI_TEXT, NULL},
	{"max-age", 0, "DURATION", REPLICATE_STATUS_OPT_MAX_AGE,
	 "count a copy, and an audit as passing, only when\n"
	 "verified whole within DURATION (7d, 36h); older ones\n"
	 "are shown stale, with their age", EV_CLI_DURATION, NULL},
	{"min-hosts", 0, "N", REPLICATE_STATUS_OPT_MIN_HOSTS,
	 "the hosts prune would need (default 2, as prune)", EV_CLI_COUNT, "1..256"},
	{"recheck", 0, NULL, REPLICATE_STATUS_OPT_RECHECK,
	 "with --catalog: hold every row used against its file's\n"
	 "bytes now, and name each that changed or is gone", EV_CLI_TEXT, NULL},
	{"seal", 0, "SHA256", REPLICATE_STATUS_OPT_SEAL,
	 "only the campaign of this SEAL.json digest", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_STATUS_OPT_TRUST,
	 "count a host by its key, as prune --trust does: only\n"
	 "replica receipts signed by a key in FILE are copies", EV_CLI_TEXT, NULL},
	{"tsa-ca", 0, "FILE", REPLICATE_STATUS_OPT_TSA_CA,
	 "verify each seal's RFC 3161 timestamp (SEAL.json.tsr)\n"
	 "against this CA and show its trusted time", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_status_command = {
	.name = "status",
	.run = replicate_status_main,
	.synopsis = "replicate status [--catalog WHERE [--recheck]] [--seal SHA256] [--min-hosts N] [--max-age DURATION] "
		"[--trust FILE ...] [--tsa-ca FILE] [--json] [DIR...]",
	.summary = "what is where: per sealed campaign its verified copies,\n"
		"audits, and whether prune's guards would hold",
	.description = "Read every receipt and SEAL.json under each DIR (*.json files, links never\n"
		"followed, anything but a regular file passed by and named) and print one entry\n"
		"per sealed campaign, by its SEAL.json's SHA-256: where it was sealed; each host\n"
		"holding a verified copy (an intact, passing replica receipt) and when it last\n"
		"verified it; copies that failed or whose receipts were edited; the audits that\n"
		"name its seal or read a file it holds, and their verdicts; prune's runs;\n"
		"whether prune's receipt guards would hold now (enough distinct hosts, receipts\n"
		"that agree); and what is missing. Nothing is run or written. With --max-age,\n"
		"a copy whose last whole verification is older, or an audit, is stale: shown\n"
		"with its age, and not counted.\n"
		"\n"
		"With --catalog, the same from what replicate index kept: no file is read\n"
		"(but a seal's timestamp, with --tsa-ca), so it stays fast with hundreds of\n"
		"thousands of receipts. Without DIR it is every host's inventory, a path\n"
		"indexed on another host shown as HOST:PATH. --recheck holds each row used\n"
		"against its file's SHA-256 now, on this host.\n",
	.options = status_options,
	.notes = "Exit status: 0 listed (whatever it found), 1 with --recheck a row's file\n"
		"changed or is gone, 2 usage, a DIR that cannot be read, a --trust file that\n"
		"cannot be read, a catalog that cannot be opened or is newer than this\n"
		"evidence, or a --seal nothing names.\n",
};

static const struct ev_cli_option index_options[] = {
	{"catalog", 0, "WHERE", REPLICATE_INDEX_OPT_CATALOG,
	 "the catalog: a SQLite file (made when missing) or\n"
	 "postgresql://... (default: $EVIDENCE_CATALOG, else\n"
	 "~/.local/share/evidence/catalog.sqlite)", EV_CLI_TEXT, NULL},
	{"check", 0, NULL, REPLICATE_INDEX_OPT_CHECK,
	 "index nothing: check the whole catalog (the engine's\n"
	 "integrity check, every document against its digest,\n"
	 "every row against its document) and name each fault", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, REPLICATE_INDEX_OPT_JSON,
	 "print the counts (--check: the findings) as JSON", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_index_command = {
	.name = "index",
	.run = replicate_index_main,
	.synopsis = "replicate index [--catalog WHERE] [--json] (PATH... | --check)",
	.summary = "keep every seal, receipt and campaign summary under PATH\n"
		"in the catalog",
	.description = "Read every *.json under each directory PATH (as replicate status does: links\n"
		"never followed, anything but a regular file named and never opened), or the\n"
		"file PATH, and keep each seal, receipt and campaign summary in the catalog\n"
		"with this host's name, its absolute path and its SHA-256: a receipt's kind,\n"
		"verdict, host, time, comparable digest, the seal it names and the digests it\n"
		"read; a seal's members; a summary's plan, the plan digest its audit receipt\n"
		"names and its cells' statistics. A file indexed before with the same bytes\n"
		"is passed by; a file under a PATH that is gone is forgotten. Every command\n"
		"that writes a receipt also adds it, and the directory it made, when\n"
		"EVIDENCE_CATALOG names a catalog.\n"
		"\n"
		"One transaction: a signal, a crash or a server lost half way leaves the\n"
		"catalog as it was. Many hosts may index into one PostgreSQL catalog at once.\n"
		"\n"
		"A shared catalog is every host's word, so status and history believe a row\n"
		"only as its document says it. --check holds the whole catalog so: SQLite's\n"
		"own integrity check, each document against its SHA-256 (document-corrupt),\n"
		"and each receipt, seal and summary row, with its inputs and statistics,\n"
		"against its document (row-edited), each finding named with its table and\n"
		"key.\n",
	.options = index_options,
	.notes = "Exit status: 0 indexed (--check: no fault), 1 --check found a fault, 2\n"
		"usage, a PATH that is neither a directory nor a regular file, a catalog that\n"
		"cannot be opened or written, a catalog whose schema is newer than this\n"
		"evidence, or a signal (nothing kept).\n",
};

static const struct ev_cli_command replicate_keygen_command = {
	.name = "keygen",
	.run = replicate_keygen_main,
	.synopsis = "replicate keygen -o NAME",
	.summary = "make an Ed25519 key pair for signing receipts",
	.description = "Make an Ed25519 key pair for signing receipts: NAME.key (PKCS#8 PEM, mode\n"
		"0600 from the moment it exists) and NAME.pub (PEM, 0644). Neither file may\n"
		"exist already; keys are never overwritten. Give NAME.pub to whoever compares\n"
		"receipts (replicate compare --trust NAME.pub); keep NAME.key on the host\n"
		"that signs (replicate verify --sign-key NAME.key).\n",
	.options = keygen_options,
	.notes = "Exit status: 0 both files were written, 2 usage or I/O error, or a file that\n"
		"exists already (nothing written).\n",
};

static const struct ev_cli_option prune_options[] = {
	{"json", 0, NULL, REPLICATE_PRUNE_OPT_JSON,
	 "print the cleanup receipt on stdout", EV_CLI_TEXT, NULL},
	{"max-age", 0, "DURATION", REPLICATE_PRUNE_OPT_MAX_AGE,
	 "count a replica receipt, and an audit, only when it\n"
	 "finished within DURATION (7d, 36h) of now", EV_CLI_DURATION, NULL},
	{"min-hosts", 0, "N", REPLICATE_PRUNE_OPT_MIN_HOSTS,
	 "distinct hosts required (default 2)", EV_CLI_COUNT, "1..256"},
	{"receipt", 0, "FILE", REPLICATE_PRUNE_OPT_RECEIPT,
	 "the cleanup receipt (default: cleanup-NAME-TIME.json\n"
	 "in the current directory)", EV_CLI_TEXT, NULL},
	{"receipts", 0, "R ...", REPLICATE_PRUNE_OPT_RECEIPTS,
	 "replica receipts (the words after it up to the next\n"
	 "option, and any before DIR, are receipts)", EV_CLI_TEXT, NULL},
	{"require-audit", 0, "RECEIPT", REPLICATE_PRUNE_OPT_REQUIRE_AUDIT,
	 "an audit receipt (repeatable): one must be an audit\n"
	 "campaign of an archive copy of this seal that passed on\n"
	 "another host (replicate audit), and they must agree", EV_CLI_TEXT, NULL},
	{"require-timestamp", 0, "CA", REPLICATE_PRUNE_OPT_REQUIRE_TIMESTAMP,
	 "the seal's RFC 3161 timestamp (SEAL.json.tsr, seal\n"
	 "timestamp) must verify against this CA", EV_CLI_TEXT, NULL},
	{"seal", 0, "SEAL.json", REPLICATE_PRUNE_OPT_SEAL,
	 "the seal DIR was sealed with", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SEAL_SHA256(REPLICATE_PRUNE_OPT_SEAL_SHA256),
	{"selection", 0, "FILE", REPLICATE_PRUNE_OPT_SELECTION,
	 "DIR is a copy of this selection of the seal", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(REPLICATE_PRUNE_OPT_SIGN_KEY),
	{"trust", 0, "FILE", REPLICATE_PRUNE_OPT_TRUST,
	 "require receipts signed by these keys (repeatable); hosts\n"
	 "are then counted by signing key", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_prune_command = {
	.name = "prune",
	.run = replicate_prune_main,
	.synopsis = "replicate prune --seal SEAL.json [--seal-sha256 HEX] --receipts R1 R2 ... [--min-hosts "
		"N] [--max-age DURATION] [--require-audit RECEIPT ...] [--require-timestamp CA] [--trust FILE ...] [--selection FILE] [--receipt FILE] [--sign-key KEY] "
		"[--json] DIR",
	.summary = "remove a directory once enough hosts hold verified copies",
	.description = "Remove DIR (a completed runtime or staging directory) only when all of these\n"
		"hold, and otherwise remove nothing and say every reason:\n"
		"  - at least --min-hosts distinct hosts' receipts (replicate verify) for this\n"
		"    exact seal pass, are intact and agree with each other (with --max-age,\n"
		"    only receipts of whole verifications that finished within it count);\n"
		"  - DIR still matches the seal member for member (or, with --selection, holds\n"
		"    exactly the selected members), with nothing else in it;\n"
		"  - no process recorded in DIR's run.json files is still running (same PID and\n"
		"    start time);\n"
		"  - nothing in DIR is a link or another mounted file system;\n"
		"  - with --require-audit, an audit campaign of an archive copy of this seal\n"
		"    passed on another host (replicate audit; within --max-age, when given),\n"
		"    and the audits given agree.\n"
		"Nothing outside DIR is touched and no link is followed. DIR is moved aside,\n"
		"then each file is removed only if it is still what was checked (same inode,\n"
		"size and times; content hashed again if it changed near the check) and no\n"
		"other process holds it open; what changed is kept and named, and is left in\n"
		"DIR. A cleanup receipt lists what was removed, or why nothing was.\n",
	.options = prune_options,
	.notes = "Exit status: 0 DIR was removed; 1 it was not, or not whole, for the reasons\n"
		"given (a cleanup receipt says so); 2 usage or I/O error, or a signal.\n",
};

static const struct ev_cli_option keep_head_options[] = {
	{"name", 0, "NAME", REPLICATE_KEEP_HEAD_OPT_NAME,
	 "the name this replica cosigns under (default: its\n"
	 "host name)", EV_CLI_TEXT, NULL},
	{"sign-key", 0, "KEY", REPLICATE_KEEP_HEAD_OPT_SIGN_KEY,
	 "cosign each checkpoint kept with this Ed25519 key\n"
	 "(c2sp.org/tlog-cosignature): a witness", EV_CLI_TEXT, NULL},
	{"trust", 0, "FILE", REPLICATE_KEEP_HEAD_OPT_TRUST,
	 "the log keys this replica cosigns for (repeatable;\n"
	 "none: heads are kept, nothing is cosigned)", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_command replicate_keep_head_command = {
	.name = "keep-head",
	.run = replicate_keep_head_main,
	.synopsis = "replicate keep-head [--sign-key KEY --trust FILE ...] [--name NAME] DIR LABEL",
	.summary = "the far end of push --log: a host's tree head kept when it\n"
		"extends the one kept before",
	.description = "Run by replicate push --log on each destination (over ssh, or directly for a\n"
		"local directory), never by hand: say the tree head last kept from LABEL (the\n"
		"pushing host) in DIR/log-heads/LABEL, read the new head and RFC 9162's\n"
		"consistency proof from it, and keep the new head only when the proof shows the\n"
		"old head's tree a prefix of the new one; otherwise refuse, naming both sizes.\n"
		"\n"
		"With --sign-key (as this host's configuration gives it: sign-key and trust are\n"
		"read there, never from the pushing host), the replica is a witness: it also\n"
		"cosigns the head's C2SP checkpoint (cosignature/v1, timestamped), and only a\n"
		"checkpoint signed by a key --trust names, of the origin it first cosigned for\n"
		"LABEL (DIR/log-heads/LABEL/origin), saying what the head says; anything else is\n"
		"refused and named. The cosigned checkpoint is kept beside the head and sent back\n"
		"to the pusher, which keeps it in its log (cosignatures/NAME/). With no --trust,\n"
		"or a head without a checkpoint (an unsigned log), the head is kept and nothing\n"
		"is cosigned: \"not cosigned: WHY\".\n",
	.options = keep_head_options,
	.notes = "Exit status: 0 kept, 1 refused (a history rewritten, or a checkpoint a witness\n"
		"does not cosign), 2 usage or I/O error.\n",
};

static const struct ev_cli_command replicate_receive_command = {
	.name = "receive",
	.run = replicate_receive_main,
	.synopsis = "replicate receive DIR NAME SIZE SHA256",
	.summary = "the far end of push (run by push, not by hand)",
	.description = "The far end of 'replicate push', run by it over ssh (or locally for a --to DIR):\n"
		"store SIZE bytes from stdin as DIR/NAME, resuming an interrupted transfer from\n"
		"DIR/.NAME.partial when its bytes agree with the sender's, and publish DIR/NAME\n"
		"only when it is complete and hashes to SHA256. DIR is created if needed. An\n"
		"existing DIR/NAME is never replaced: the same file again is accepted at once,\n"
		"a different one refused. Not meant to be run by hand.\n",
	.notes = "Exit status: 0 DIR/NAME is complete and hashes to SHA256, 2 it is not (a short\n"
		"or different transfer, a different existing file, usage or I/O error, a\n"
		"signal); the partial file is kept for a resume.\n",
};

static const struct ev_cli_command replicate_continue_command = {
	.name = "continue",
	.run = replicate_continue_main,
	.synopsis = "replicate " EV_CONTINUE_SYNOPSIS,
	.summary = "a failed verify receipt continued: its understood\n"
		"differences accepted, the checks rerun",
	.description = "Continues failed receipts of 'replicate verify'.\n\n" EV_CONTINUE_DESCRIPTION,
	.options = ev_continue_options,
	.notes = EV_CONTINUE_NOTES,
};

static const struct ev_cli_command replicate_config_command = EV_CLI_CONFIG_COMMAND("replicate");

static const struct ev_cli_command *const commands[] = {
	&replicate_verify_command,
	&replicate_push_command,
	&replicate_audit_command,
	&replicate_compare_command,
	&replicate_check_command,
	&replicate_attest_command,
	&replicate_accept_command,
	&replicate_sign_policy_command,
	&replicate_log_command,
	&replicate_keygen_command,
	&replicate_prune_command,
	&replicate_status_command,
	&replicate_index_command,
	&replicate_receive_command,
	&replicate_keep_head_command,
	&replicate_continue_command,
	&replicate_config_command,
	NULL,
};

const struct ev_cli_tool replicate_tool = {
	.name = "replicate",
	.description = "Keep a sealed campaign, verified, on more than one host: stream each copy of\n"
		"the archive against its seal, write a receipt on every host, compare the\n"
		"receipts, and only then clean up.\n",
	.epilogue = "Exit status: 0 everything held, 1 a check failed, 2 usage, I/O or environment\n"
		"error (nothing is claimed).\n",
	.commands = commands,
	.shared_pool = 1,
};
