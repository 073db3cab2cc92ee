#!/bin/sh
# audit --help and audit journal --help print on stdout and exit 0; misuse
# names what is missing or malformed on stderr with the usage, exit 2.
. "$EV_SRCDIR/tests/lib/lib.sh"
SQ="'"

test_expect_success 'audit --help lists the commands; audit journal --help the options' '
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

test_expect_success 'misuse names what is missing or malformed, exit 2' '
	misuse "$AUDIT" "audit: no command given" &&
	misuse "$AUDIT" "audit: unknown command '\''verify'\''" verify &&
	misuse "$AUDIT" "audit: no journal given (--sender PATH, --receiver PATH)" journal &&
	misuse "$AUDIT" "audit: option --jobs: expected 1-256, found '\''0'\''" journal --jobs 0 --sender s &&
	misuse "$AUDIT" "audit: option --format: expected llfix, raw, qf-store or qf-log, found '\''xml'\''" journal --format xml --sender s &&
	misuse "$AUDIT" "audit: 2 --sender and 1 --receiver: pairs need one of each, in order" journal --sender a --sender b --receiver c &&
	misuse "$AUDIT" "audit: --archive and --seal go together" journal --seal S --sender s &&
	misuse "$AUDIT" "audit: option --measured: expected a count, found '\''-1'\''" journal --measured -1 --sender s &&
	misuse "$AUDIT" "audit: unexpected argument '\''extra'\'' (journals are named by --sender and --receiver)" journal --sender s extra
'

test_done
