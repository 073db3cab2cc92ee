#!/bin/sh
# Every command has --help (stdout, exit 0); misuse says why on stderr with a
# usage line and exits 2; --json prints a receipt a program can read.
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
		"usage: seal create [--gzip] [--jobs N] [--level N] [--name ROOT] [--refuse-writable] [--json] DIR -o OUTDIR" >expect &&
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

test_expect_success 'create --json and verify --json print canonical receipts' '
	make_campaign c &&
	"$SEAL" create --json c -o out >receipt.json &&
	cmp receipt.json out/receipt.json &&
	python3 -c "import json,sys; r=json.load(open(\"receipt.json\")); assert r[\"kind\"]==\"seal\" and r[\"result\"]==\"pass\" and r[\"format\"]==\"evidence-receipt/1\", r" &&
	"$SEAL" verify --json --seal out/SEAL.json c >v.json &&
	python3 -c "import json; r=json.load(open(\"v.json\")); assert r[\"kind\"]==\"verify\" and r[\"result\"]==\"pass\", r"
'

test_expect_success 'the man page documents every command' '
	man_page="$EV_SRCDIR/share/man/seal.1" &&
	for c in create verify diff select capsule integrate continue; do
		grep -q "^\.SS .*seal $c" "$man_page" || return 1
	done &&
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$man_page" 2>err >page && test ! -s err && grep -q "seal create" page
	fi
'

test_expect_success 'a progress line appears only when asked for (terminal), and is erased' '
	mkdir -p p && truncate -s 1G p/sparse &&
	EVIDENCE_PROGRESS=always "$SEAL" create p -o pout >/dev/null 2>err &&
	grep -q "seal: sealing: .* of 1.0 GiB, [01]/1 members, .*/s" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=never "$SEAL" create p -o pout2 >/dev/null 2>err &&
	test ! -s err
'

test_done
