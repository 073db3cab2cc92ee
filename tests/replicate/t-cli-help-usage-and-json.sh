#!/bin/sh
# Every replicate command has --help (stdout, exit 0); misuse says why on
# stderr with the command's usage and exits 2; the man page covers every
# command; progress lines appear only when asked for, and are erased.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'replicate --help lists the commands and exits 0' '
	"$REPLICATE" --help >help.txt &&
	grep -q "^usage: replicate <command>" help.txt &&
	for c in verify push compare keygen prune receive continue; do
		grep -q "^  $c " help.txt || return 1
	done
'

test_expect_success 'every subcommand has --help on stdout, nothing on stderr' '
	for c in verify push compare keygen prune receive continue; do
		"$REPLICATE" $c --help >help.txt 2>err &&
		grep -q "^usage: replicate $c" help.txt &&
		test ! -s err || return 1
	done
'

test_expect_success 'no command, an unknown command: exit 2 with the reason and a hint' '
	test_expect_code 2 "$REPLICATE" 2>err &&
	head -n 1 err >actual && echo "replicate: no command given" >expect && test_cmp expect actual &&
	test_expect_code 2 "$REPLICATE" mirror 2>err &&
	head -n 1 err >actual && echo "replicate: unknown command '\''mirror'\''" >expect && test_cmp expect actual &&
	tail -n 1 err >actual && echo "Try '\''replicate --help'\'' for more." >expect && test_cmp expect actual
'

# misuse 'expected first line' ARGS...: exit 2, that reason, then a usage line.
misuse () {
	echo "$1" >expect
	shift
	test_expect_code 2 "$REPLICATE" "$@" 2>err &&
	head -n 1 err >actual && test_cmp expect actual &&
	sed -n 2p err | grep -q "^usage: replicate $1"
}

test_expect_success 'each command names what is missing or malformed' '
	misuse "replicate: no seal given (--seal SEAL.json)" verify a.tar.zst &&
	misuse "replicate: no ARCHIVE given" verify --seal S &&
	misuse "replicate: option --seal-sha256: expected 64 lower-case hex digits" verify --seal S --seal-sha256 12 a &&
	misuse "replicate: option --archive-sha256: expected 64 lower-case hex digits" verify --seal S --archive-sha256 XY a &&
	misuse "replicate: --receipt and --receipt-dir both given; choose one" verify --seal S --receipt r --receipt-dir d a &&
	misuse "replicate: no destination given (--to [HOST:]DIR)" push a --seal S &&
	misuse "replicate: option --timeout: expected 1-86400 seconds, found '\''0'\''" push a --seal S --to d --timeout 0 &&
	misuse "replicate: no RECEIPT given" compare &&
	misuse "replicate: no key name given (-o NAME)" keygen &&
	misuse "replicate: no receipts given (--receipts R1 R2 ...)" prune --seal S dir &&
	misuse "replicate: option --min-hosts: expected 1-256, found '\''0'\''" prune --seal S --min-hosts 0 --receipts r dir &&
	misuse "replicate: expected DIR NAME SIZE SHA256" receive d n &&
	misuse "replicate: NAME: expected a plain file name, found '\''../x'\''" receive d ../x 1 "$(printf "%064d" 0)"
'

test_expect_success 'the man page documents every command and renders without complaint' '
	page="$EV_SRCDIR/share/man/replicate.1" &&
	for c in verify push compare keygen prune continue; do
		grep -q "^\\.SS .*replicate $c" "$page" || return 1
	done &&
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$page" 2>err >out && test ! -s err && grep -q "replicate push" out
	fi
'

test_expect_success 'verify and push show a progress line only when asked, and erase it' '
	mkdir -p big && truncate -s 1G big/sparse && "$SEAL" create big -o bout >/dev/null &&
	EVIDENCE_PROGRESS=always "$REPLICATE" verify --seal bout/SEAL.json --receipt p1.json bout/archive.tar.zst >/dev/null 2>err &&
	grep -q "replicate: verifying: .* of .*" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	mkdir -p noise && head -c 256M /dev/urandom >noise/random.bin && "$SEAL" create noise -o nout >/dev/null &&
	EVIDENCE_PROGRESS=always "$REPLICATE" push nout/archive.tar.zst --seal nout/SEAL.json --to copy >/dev/null 2>err &&
	grep -q "replicate: pushing: .* of 256.* MiB" err &&
	EVIDENCE_PROGRESS=never "$REPLICATE" verify --seal bout/SEAL.json --receipt p2.json bout/archive.tar.zst >/dev/null 2>err &&
	test ! -s err
'

test_done
