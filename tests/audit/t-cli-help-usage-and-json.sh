#!/bin/sh
# audit and audit journal have --help (stdout, exit 0); misuse says why on
# stderr with the usage and exits 2 without a receipt; inputs that cannot
# be read are named (exit 2); --json prints the receipt, which is also
# written; a receipt is never overwritten; the man page covers the command.
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

# misuse 'expected first line' ARGS...: exit 2, that reason, then the usage.
misuse () {
	echo "$1" >expect
	shift
	test_expect_code 2 "$AUDIT" "$@" 2>err &&
	head -n 1 err >actual && test_cmp expect actual &&
	sed -n 2p err | grep -q "^usage: audit"
}

test_expect_success 'misuse names what is missing or malformed, exit 2' '
	misuse "audit: no command given" &&
	misuse "audit: unknown command '\''verify'\''" verify &&
	misuse "audit: no journal given (--sender PATH, --receiver PATH)" journal &&
	misuse "audit: option --jobs: expected 1-256, found '\''0'\''" journal --jobs 0 --sender s &&
	misuse "audit: option --format: expected llfix, raw, qf-store or qf-log, found '\''xml'\''" journal --format xml --sender s &&
	misuse "audit: 2 --sender and 1 --receiver: pairs need one of each, in order" journal --sender a --sender b --receiver c &&
	misuse "audit: --archive and --seal go together" journal --seal S --sender s &&
	misuse "audit: option --measured: expected a count, found '\''-1'\''" journal --measured -1 --sender s &&
	misuse "audit: unexpected argument '\''extra'\'' (journals are named by --sender and --receiver)" journal --sender s extra
'

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'unreadable inputs are named, exit 2, no receipt' '
	test_expect_code 2 "$AUDIT" journal --sender nowhere --receipt r1.json 2>err &&
	grep -q "^audit: nowhere: cannot read: No such file or directory" err &&
	test_expect_code 2 "$AUDIT" journal --sender p/sender --dict missing.xml --receipt r2.json 2>err &&
	grep -q "^audit: missing.xml: cannot open" err &&
	echo "{\"format\": \"evidence-fix-spec/1\", \"bogus\": 1}" >bad-spec.json &&
	test_expect_code 2 "$AUDIT" journal --sender p/sender --spec bad-spec.json --receipt r3.json 2>err &&
	grep -q "bad-spec.json: the spec: unknown key \"bogus\"" err &&
	mkdir empty && test_expect_code 2 "$AUDIT" journal --sender empty --receipt r4.json 2>err &&
	grep -q "empty: a directory without 1.bin" err &&
	test_must_be_absent r1.json r2.json r3.json r4.json
'

test_expect_success '--json prints the receipt it writes; a receipt is never overwritten' '
	"$AUDIT" journal --warmups 3 --measured 20 --sender p/sender --receiver p/receiver \
		--receipt r.json --json >printed &&
	test_cmp r.json printed &&
	test "$(json_get r.json "d[\"kind\"]")" = audit &&
	test "$(json_get r.json "d[\"result\"]")" = pass &&
	cp r.json before.json &&
	test_expect_code 2 "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender --receipt r.json 2>err &&
	grep -q "r.json: already exists; evidence is never overwritten" err &&
	test_cmp before.json r.json
'

test_expect_success 'without --receipt, a fresh name in the current directory' '
	mkdir here && (cd here && "$AUDIT" journal --warmups 3 --measured 20 --sender ../p/sender >out) &&
	ls here/audit-journal-*.json >/dev/null && grep -q "receipt ./audit-journal-.*Z.json$" here/out
'

test_expect_success 'one side alone is audited without agreement' '
	"$AUDIT" journal --warmups 3 --measured 20 --receiver p/receiver --receipt one.json >out &&
	grep -q "^OK: 1 side, 23 orders, 0 findings" out &&
	test "$(json_get one.json "\"messages_compared\" in d[\"facts\"][\"pairs\"][0][\"receiver\"]")" = False
'

test_expect_success '--max-findings bounds what is shown and kept; every finding is counted' '
	json_get "$EV_SRCDIR/share/audit/llfix-tx-new-order.json" \
		"json.dumps(dict(d, fields=[dict(f, value=\"11\") if f[\"tag\"] == 38 else f for f in d[\"fields\"]]))" >qty11.json &&
	test_expect_code 1 "$AUDIT" journal --warmups 3 --measured 20 --spec qty11.json --sender p/sender \
		--max-findings 2 --receipt many.json >/dev/null 2>err &&
	test "$(grep -c "spec-value: order field differs" err)" = 2 &&
	grep -q "^audit: pair 1 sender: spec-value: 21 more not shown (--max-findings)" err &&
	test "$(json_get many.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"][\"spec-value\"]")" = 23 &&
	test "$(json_get many.json "len(d[\"facts\"][\"first_findings\"])")" = 2
'

test_expect_success 'a progress line only when asked for, and erased at the end' '
	python3 -c "
import struct
d = open(\"p/sender/1.bin\", \"rb\").read()
n, = struct.unpack_from(\"<Q\", d, 0)
p, out = 8, []
for _ in range(n):
    ts, ok, ln = struct.unpack_from(\"<QBQ\", d, p)
    out.append(d[p + 17:p + 17 + ln])
    p += 17 + ln
open(\"slow.fix\", \"wb\").write(b\"\".join(out))
" &&
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; }
	"$AUDIT" journal --warmups 3 --measured 20 --format raw --sender slow.fix --receipt fast.json \
		>/dev/null 2>fast.err; fast=$? &&
	# every read of the journal held 0.6 s (strace -P): the line is drawn
	# while it is read
	{ EVIDENCE_PROGRESS=always env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o /dev/null -P slow.fix -e trace=read -e inject=read:delay_enter=600000 \
		"$AUDIT" journal --warmups 3 --measured 20 --format raw \
		--sender slow.fix --receipt slow.json >/dev/null 2>err; st=$?; } &&
	test $st = $fast && test $st = 1 &&
	grep -q "audit: auditing: [0-9.]* [KMG]*i*B of 3.7 KiB, 0/1 files, .*B/s" err &&
	# erased before the first finding is printed, and not drawn again
	python3 -c "
import sys
e = open(\"err\", \"rb\").read()
line, rest = e.split(b\"audit: pair 1\", 1)
sys.exit(not (line.endswith(b\"\\r\\033[K\") and b\"auditing\" not in rest))
" &&
	EVIDENCE_PROGRESS=never "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender \
		--receipt quiet.json >/dev/null 2>err && test ! -s err
'

test_expect_success 'the man page documents audit journal and its exit status' '
	man -l "$EV_SRCDIR/share/man/audit.1" 2>/dev/null | col -b >page.txt &&
	for w in "audit journal" "--archive" "--max-findings" "audit continue" "--accept-value" "EXIT STATUS" "doc/formats.md"; do
		grep -q -- "$w" page.txt || { echo "man page lacks $w"; return 1; }
	done
'

test_done
