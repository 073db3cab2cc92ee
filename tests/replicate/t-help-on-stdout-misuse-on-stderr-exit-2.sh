#!/bin/sh
# replicate --help and every command's --help print on stdout and exit 0;
# no command, an unknown one, and each command's misuse print the reason
# and the usage on stderr, exit 2.
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

test_expect_success 'each command names what is missing or malformed' '
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

test_done
