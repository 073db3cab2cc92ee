#!/bin/sh
# seal --help and every command's --help print on stdout and exit 0; a missing
# or unknown command, a missing argument and an out-of-range option each
# print the reason and the usage on stderr and exit 2, with nothing written;
# create and capsule refuse the same archive option values.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup

test_expect_success 'seal --help lists the commands and exits 0' '
	"$SEAL" --help >help.txt &&
	grep -q "^usage: seal <command>" help.txt &&
	grep -q "^  create  *seal DIR into OUTDIR" help.txt
'

test_expect_success 'every subcommand has --help on stdout' '
	for c in create verify diff select capsule integrate continue; do
		"$SEAL" $c --help >help.txt 2>err &&
		grep -q "^usage: seal $c" help.txt &&
		test ! -s err || return 1
	done
'

test_expect_success 'no command, an unknown command: exit 2 with the reason' '
	test_expect_code 2 "$SEAL" 2>err &&
	head -n 1 err >actual && echo "seal: no command given" >expect && test_cmp expect actual &&
	test_expect_code 2 "$SEAL" frobnicate 2>err &&
	head -n 1 err >actual && echo "seal: unknown command '\''frobnicate'\''" >expect &&
	test_cmp expect actual
'

test_expect_success 'create without DIR or -o, or with a bad --threads: usage, exit 2' '
	test_expect_code 2 "$SEAL" create -o out 2>err &&
	sed -n 1,2p err >actual &&
	printf "%s\n" "seal: no DIR given" \
		"usage: seal create [--gzip] [--jobs N] [--level N] [--name ROOT] [--refuse-writable] [--sign-key KEY] [--json] DIR -o OUTDIR" >expect &&
	test_cmp expect actual &&
	mkdir t &&
	test_expect_code 2 "$SEAL" create t 2>err &&
	head -n 1 err >actual && echo "seal: no output directory given (-o OUTDIR)" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 "$SEAL" create --threads 0 t -o out 2>err &&
	head -n 1 err >actual && echo "seal: option --threads: expected 1-256, found '\''0'\''" >expect &&
	test_cmp expect actual &&
	test_must_be_absent out
'

test_expect_success 'create and capsule share the archive options (--jobs, or its old name --threads), and refuse the same values' '
	mkdir -p t && git_init r && echo a >r/a && git -C r add a && git -C r commit -q -m a &&
	for sub in "create t" "capsule --repo r"; do
		test_expect_code 2 "$SEAL" $sub --gzip --level 15 -o out 2>err &&
		head -n 1 err >actual && echo "seal: option --level: gzip takes 1-9, found 15" >expect &&
		test_cmp expect actual &&
		test_expect_code 2 "$SEAL" $sub --level 0 -o out 2>err &&
		head -n 1 err >actual && echo "seal: option --level: expected -7 to -1 or 1 to 19, found '\''0'\''" >expect &&
		test_cmp expect actual &&
		test_expect_code 2 "$SEAL" $sub --threads 300 -o out 2>err &&
		head -n 1 err >actual && echo "seal: option --threads: expected 1-256, found '\''300'\''" >expect &&
		test_cmp expect actual &&
		test_expect_code 2 "$SEAL" $sub --jobs 300 -o out 2>err &&
		head -n 1 err >actual && echo "seal: option --jobs: expected 1-256, found '\''300'\''" >expect &&
		test_cmp expect actual &&
		test_must_be_absent out || return 1
	done
'

test_expect_success 'verify without a seal, or with a malformed pin: usage, exit 2' '
	mkdir -p t &&
	test_expect_code 2 "$SEAL" verify t 2>err &&
	head -n 1 err >actual &&
	echo "seal: nothing to check against (--seal or --selection)" >expect && test_cmp expect actual &&
	test_expect_code 2 "$SEAL" verify --seal x --seal-sha256 abc t 2>err &&
	head -n 1 err >actual &&
	echo "seal: option --seal-sha256: expected 64 lower-case hex digits" >expect && test_cmp expect actual
'

test_done
