#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every tool's --help and every command's --help print on stdout and exit
# 0, with nothing on stderr; no command and an unknown one print the reason,
# the usage and a hint on stderr and exit 2; then each tool's own misuse,
# each named on stderr with the usage, exit 2, nothing written.
. "$EV_SRCDIR/tests/lib/lib.sh"
SQ="'"
mkdir seal replicate audit capture || exit 99

test_expect_success 'every tool: --help lists its commands, each command --help its usage, on stdout' '
	for tool in seal replicate audit capture; do
		"$EV_BUILDDIR/$tool/$tool" --help >help.txt 2>err && test ! -s err &&
		grep -q "^usage: $tool <command>" help.txt &&
		commands=$(tool_commands "$EV_BUILDDIR/$tool/$tool") &&
		test -n "$commands" || { echo "$tool --help lists no command"; return 1; }
		for c in $commands; do
			"$EV_BUILDDIR/$tool/$tool" $c --help >help.txt 2>err && test ! -s err &&
			grep -q "^usage: $tool $c" help.txt || { echo "$tool $c --help"; return 1; }
		done
	done
'

test_expect_success 'every tool: no command, an unknown command: exit 2, the reason, the usage, a hint' '
	for tool in seal replicate audit capture; do
		test_expect_code 2 "$EV_BUILDDIR/$tool/$tool" 2>err &&
		sed -n 1p err >actual && echo "$tool: no command given" >expect && test_cmp expect actual &&
		sed -n 2p err | contains "^usage: $tool" &&
		test_expect_code 2 "$EV_BUILDDIR/$tool/$tool" mirror 2>err &&
		sed -n 1p err >actual && echo "$tool: unknown command ${SQ}mirror${SQ}" >expect && test_cmp expect actual &&
		tail -n 1 err >actual && echo "Try ${SQ}$tool --help${SQ} for more." >expect && test_cmp expect actual || return 1
	done
'

# seal: seal --help and every command's --help print on stdout and exit 0; a
# missing or unknown command, a missing argument and an out-of-range option
# each print the reason and the usage on stderr and exit 2, with nothing
# written; create and capsule refuse the same archive option values.
test_expect_success 'seal: seal --help lists the commands and exits 0' '
	cd seal &&
	"$SEAL" --help >help.txt &&
	grep -q "^usage: seal <command>" help.txt &&
	grep -q "^  create  *seal DIR into OUTDIR" help.txt &&
	for c in create verify diff select capsule integrate continue; do
		grep -q "^  $c " help.txt || return 1
	done
'

test_expect_success 'seal: create without DIR or -o, or with a bad --threads: usage, exit 2' '
	cd seal &&
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

test_expect_success 'seal: create and capsule share the archive options (--jobs, or its old name --threads), and refuse the same values' '
	cd seal &&
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
		test_expect_code 2 "$SEAL" $sub --level -8 -o out 2>err &&
		head -n 1 err >actual && echo "seal: option --level: expected -7 to 19, found '\''-8'\''" >expect &&
		test_cmp expect actual &&
		test_must_be_absent out || return 1
	done &&
	for o in symlinks submodules; do
		misuse "$SEAL" "seal: option --$o: expected refuse or record, found '\''follow'\''" capsule --repo r --$o follow -o out ||
			return 1
	done &&
	test_must_be_absent out
'

test_expect_success 'seal: verify without a seal, or with a malformed pin: usage, exit 2' '
	cd seal &&
	mkdir -p t &&
	test_expect_code 2 "$SEAL" verify t 2>err &&
	head -n 1 err >actual &&
	echo "seal: nothing to check against (--seal or --selection)" >expect && test_cmp expect actual &&
	test_expect_code 2 "$SEAL" verify --seal x --seal-sha256 abc t 2>err &&
	head -n 1 err >actual &&
	echo "seal: option --seal-sha256: expected 64 lower-case hex digits" >expect && test_cmp expect actual
'

# replicate: replicate --help and every command's --help print on stdout and
# exit 0; no command, an unknown one, and each command's misuse print the
# reason and the usage on stderr, exit 2.
test_expect_success 'replicate: replicate --help lists the commands and exits 0' '
	cd replicate &&
	"$REPLICATE" --help >help.txt &&
	grep -q "^usage: replicate <command>" help.txt &&
	for c in verify push compare keygen prune receive continue; do
		grep -q "^  $c " help.txt || return 1
	done
'

test_expect_success 'replicate: each command names what is missing or malformed' '
	cd replicate &&
	misuse "$REPLICATE" "replicate: no seal given (--seal SEAL.json)" verify a.tar.zst &&
	misuse "$REPLICATE" "replicate: no ARCHIVE given" verify --seal S &&
	misuse "$REPLICATE" "replicate: option --seal-sha256: expected 64 lower-case hex digits" verify --seal S --seal-sha256 12 a &&
	misuse "$REPLICATE" "replicate: option --archive-sha256: expected 64 lower-case hex digits" verify --seal S --archive-sha256 XY a &&
	misuse "$REPLICATE" "replicate: --receipt and --receipt-dir both given; choose one" verify --seal S --receipt r --receipt-dir d a &&
	misuse "$REPLICATE" "replicate: no destination given (--to [HOST:]DIR)" push a --seal S &&
	misuse "$REPLICATE" "replicate: option --timeout: expected 1-86400 seconds, found '\''0'\''" push a --seal S --to d --timeout 0 &&
	misuse "$REPLICATE" "replicate: no RECEIPT given" compare &&
	misuse "$REPLICATE" "replicate: no key name given (-o NAME)" keygen &&
	misuse "$REPLICATE" "replicate: no receipts given (--receipts R1 R2 ...)" prune --seal S dir &&
	misuse "$REPLICATE" "replicate: option --min-hosts: expected 1-256, found '\''0'\''" prune --seal S --min-hosts 0 --receipts r dir &&
	misuse "$REPLICATE" "replicate: expected DIR NAME SIZE SHA256" receive d n &&
	misuse "$REPLICATE" "replicate: NAME: expected a plain file name, found '\''../x'\''" receive d ../x 1 "$(printf "%064d" 0)"
'

# audit: audit --help and audit journal --help print on stdout and exit 0;
# misuse names what is missing or malformed on stderr with the usage, exit 2.
test_expect_success 'audit: audit --help lists the commands; audit journal --help the options' '
	cd audit &&
	"$AUDIT" --help >help.txt && grep -q "^usage: audit <command>" help.txt &&
	grep -q "^  journal " help.txt && grep -q "^  continue " help.txt &&
	"$AUDIT" continue --help >help.txt 2>err && test ! -s err &&
	grep -q "^usage: audit continue --original RECEIPT" help.txt &&
	grep -q "^Continues failed receipts of ${SQ}audit journal${SQ}, ${SQ}audit series${SQ}." help.txt &&
	"$AUDIT" journal --help >help.txt 2>err && test ! -s err &&
	grep -q "^usage: audit journal" help.txt &&
	for o in --sender --receiver --format --spec --dict --warmups --measured --sender-compid \
		--archive --seal --jobs --max-findings --receipt --json; do
		grep -q -- "^  $o " help.txt || { echo "help lacks $o"; return 1; }
	done
'

test_expect_success 'audit: misuse names what is missing or malformed, exit 2' '
	cd audit &&
	misuse "$AUDIT" "audit: no command given" &&
	misuse "$AUDIT" "audit: unknown command '\''verify'\''" verify &&
	misuse "$AUDIT" "audit: no journal given (--sender PATH, --receiver PATH)" journal &&
	misuse "$AUDIT" "audit: option --jobs: expected 1-256, found '\''0'\''" journal --jobs 0 --sender s &&
	misuse "$AUDIT" "audit: option --format: expected llfix, raw, qf-store or qf-log, found '\''xml'\''" journal --format xml --sender s &&
	misuse "$AUDIT" "audit: 2 --sender and 1 --receiver: pairs need one of each, in order" journal --sender a --sender b --receiver c &&
	misuse "$AUDIT" "audit: --archive and --seal go together" journal --seal S --sender s &&
	misuse "$AUDIT" "audit: option --measured: expected a whole number, found '\''-1'\''" journal --measured -1 --sender s &&
	misuse "$AUDIT" "audit: unexpected argument '\''extra'\'' (journals are named by --sender and --receiver)" journal --sender s extra
'

# capture: capture --help and each command's --help (and the pair's programs')
# print on stdout and exit 0; misuse names what is wrong with the synopsis,
# exit 2; a file that is not a plan is refused, naming it.
test_expect_success 'capture: capture --help lists the commands; each command has its own --help' '
	cd capture &&
	"$CAPTURE" --help >out && grep -q "^  run  *run (or resume) the campaign of PLAN" out && grep -q "^  pin  *pin every program" out &&
	grep -q "^  leases  *list who holds or waits for this host" out &&
	"$CAPTURE" run --help >out && grep -q "^usage: capture run PLAN -o CAMPAIGN_DIR \[--wait\] \[--priority PRIORITY\] \[--degrade\] \[--allow-dirty\] \[--require quiet\] \[--registration REG.json \[--log DIR\]\] \[--require-registration\] \[--sign-key KEY\] \[--json\]" out &&
	grep -q -- "--degrade" out &&
	"$CAPTURE" leases --help >out && grep -q "^usage: capture leases \[--json\]" out &&
	"$CAPTURE" pin --help >out && grep -q "^usage: capture pin \[--file PATH ...\] PLAN -o PINNED_PLAN" out &&
	"$FIX_SENDER" --help >out && grep -q "^usage: fix-sender --connect ADDR:PORT" out &&
	"$FIX_RECEIVER" --help >out && grep -q "^usage: fix-receiver --listen ADDR:PORT" out
'

test_expect_success 'capture: misuse: the reason, the synopsis, a hint, exit 2' '
	cd capture &&
	test_expect_code 2 "$CAPTURE" 2>err && grep -q "^capture: no command given" err &&
	test_expect_code 2 "$CAPTURE" launch 2>err && grep -q "^capture: unknown command .launch." err &&
	test_expect_code 2 "$CAPTURE" run plan.json 2>err &&
	printf "%s\n" "capture: no campaign directory given (-o DIR)" "usage: capture run PLAN -o CAMPAIGN_DIR [--wait] [--priority PRIORITY] [--degrade] [--allow-dirty] [--require quiet] [--registration REG.json [--log DIR]] [--require-registration] [--sign-key KEY] [--json]" \
		"Try '"'"'capture run --help'"'"' for more." >expect && test_cmp expect err &&
	test_expect_code 2 "$CAPTURE" run a.json b.json -o c 2>err && grep -q "^capture: one plan at a time" err &&
	test_expect_code 2 "$CAPTURE" pin a.json 2>err && grep -q "^capture: no output given (-o PINNED_PLAN)" err &&
	test_expect_code 2 "$FIX_SENDER" --connect 127.0.0.1:1 --clock tsc 2>err &&
	grep -q "^fix-sender: option --clock: expected monotonic-raw or rdtscp, found '"'"'tsc'"'"'" err &&
	test_expect_code 2 "$FIX_RECEIVER" --mode poll --listen 127.0.0.1:1 2>err &&
	grep -q "^fix-receiver: option --mode: expected spin or epoll, found '"'"'poll'"'"'" err
'

test_expect_success 'capture: a file that is not a plan is refused, naming it' '
	cd capture &&
	echo "{\"format\": \"evidence-seal/1\"}" >seal.json &&
	test_expect_code 2 "$CAPTURE" run seal.json -o c 2>err &&
	echo "capture: seal.json: wrong format (expected \"evidence-plan/1\", found \"evidence-seal/1\")" >expect &&
	test_cmp expect err &&
	echo "{" >broken.json &&
	test_expect_code 2 "$CAPTURE" pin broken.json -o p.json 2>err &&
	grep -q "^capture: broken.json: not valid JSON (line 2" err &&
	test_must_be_absent c p.json
'

# option_arg NAME: --NAME as a command line gives it, with a value of the
# kind its --help's label names (a digest, a count, else a word).
option_arg () {
	value=$(sed -n -e "s/^ *\(-., \)\{0,1\}--$1 \([^ ]*\).*/\2/" -e "t found" -e d -e ":found" -e "p;q" help.txt)
	case $value in
	"") echo "--$1" ;;
	HEX) echo "--$1 $(printf "%064d" 0)" ;;
	N|NS|S|R|T|BYTES) echo "--$1 600" ;;
	SIDE=NAME|SIDE=FILE) echo "--$1 sender=x" ;;
	*) echo "--$1 x" ;;
	esac
}

test_expect_success 'every relation a command'"'"'s --help states: a command line that breaks it is refused in its words, exit 2' '
	n=0 &&
	for tool in seal replicate audit capture; do
		for c in $(tool_commands "$EV_BUILDDIR/$tool/$tool"); do
			"$EV_BUILDDIR/$tool/$tool" $c --help >help.txt &&
			sed -n -e "s/^  --\([a-z0-9-]*\) needs --\([a-z0-9-]*\)\$/needs \1 \2/p" \
				-e "s/^  --\([a-z0-9-]*\) and --\([a-z0-9-]*\) go together\$/together \1 \2/p" \
				-e "s/^  --\([a-z0-9-]*\) and --\([a-z0-9-]*\) exclude each other\$/excludes \1 \2/p" help.txt >relations &&
			while read -r kind a b; do
				case $kind in
				needs) set -- "$(option_arg "$a")" "--$a needs --$b; none given" ;;
				together) set -- "$(option_arg "$a")" "--$a and --$b go together" \
					"$(option_arg "$b")" "--$a and --$b go together" ;;
				excludes) set -- "$(option_arg "$a") $(option_arg "$b")" "--$a and --$b both given; choose one" ;;
				esac
				while [ $# -gt 0 ]; do
					misuse "$EV_BUILDDIR/$tool/$tool" "$tool: $2" $c $1 ||
						{ echo "$tool $c $1: not refused as: $2"; return 1; }
					n=$((n + 1)) && shift 2
				done
			done <relations || return 1
		done
	done &&
	echo "$n command lines, each breaking one relation" && test "$n" -ge 19
'

test_done
