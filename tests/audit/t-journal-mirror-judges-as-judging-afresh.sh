#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A receiver's copy that holds the sender's messages, the same and in
# order, is judged as the sender's (audit/journal_mirror.c): the audit
# gives the same exit status, findings, lines and receipt as judging it
# afresh (--judge-each-copy), but for the receipt's "judged_as" and the line
# that says so. Where the copies differ in one message, one record, one
# byte of framing, or where the sender's copy has a finding or a resend,
# nothing is mirrored and both copies are judged in full.
. "$EV_SRCDIR/tests/lib/lib.sh"

COUNTS="--warmups 3 --measured 20"
Q="'"

mutated () {
	rm -rf m && mkdir m && cp -R base/sender base/receiver m/
}

surgery () {
	python3 "$JOURNAL_SURGERY" "$@"
}

# both_ways yes|no EXIT [audit options]: audit m both ways; the same exit
# status (EXIT), stderr, stdout and receipt, and the receiver judged as
# the sender's copy exactly when asked (yes).
both_ways () {
	want_mirror=$1 want_exit=$2
	shift 2
	rm -f r1.json r2.json &&
	test_expect_code $want_exit "$AUDIT" journal $COUNTS "$@" --sender m/sender --receiver m/receiver \
		--receipt r1.json >o1 2>e1 &&
	test_expect_code $want_exit "$AUDIT" journal $COUNTS "$@" --judge-each-copy --sender m/sender \
		--receiver m/receiver --receipt r2.json >o2 2>e2 &&
	test_cmp e2 e1 &&
	grep -v "^pair 1 receiver judged as the sender.s copy: the same [0-9]* messages in the same order (--judge-each-copy judges it afresh)$" o1 |
		sed "s/r1.json/R/" >o1n && sed "s/r2.json/R/" o2 >o2n && test_cmp o2n o1n &&
	/usr/bin/python3 - r1.json r2.json <<-\PY &&
	import json, sys
	def plain(path):
	    d = json.load(open(path))
	    for k in ("started", "finished", "invocation", "comparable"):
	        d.pop(k, None)
	    for p in d["facts"]["pairs"]:
	        p["receiver"].pop("judged_as", None)
	    return d
	a, b = plain(sys.argv[1]), plain(sys.argv[2])
	if a != b:
	    sys.exit("the receipts differ:\n%s\n%s" % (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True)))
	PY
	test "$(json_get r1.json '"yes" if d["facts"]["pairs"][0]["receiver"].get("judged_as") == "sender" else "no"')" = "$want_mirror" &&
	if [ "$want_mirror" = yes ]; then grep -q "^pair 1 receiver judged as the sender.s copy: the same 25 messages in the same order" o1; else ! grep -q "judged as" o1; fi &&
	test "$(json_get r2.json '"judged_as" in d["facts"]["pairs"][0]["receiver"]')" = False
}

test_expect_success 'setup: a generated pair in files of 4 KiB, and its receiver in files of 8 KiB' '
	"$GEN_JOURNAL" --file-size 4096 base 3 20 >/dev/null &&
	"$GEN_JOURNAL" --file-size 8192 wide 3 20 >/dev/null &&
	test -e base/sender/2.bin && test ! -e wide/receiver/2.bin
'

test_expect_success 'the untouched pair: the receiver judged as the sender, the same receipt' '
	mutated && both_ways yes 0
'

test_expect_success 'a receiver rotated at other places holds the same messages: judged as the sender' '
	mutated && rm -r m/receiver && cp -R wide/receiver m/ && both_ways yes 0
'

test_expect_success 'the receiver differs in one byte: judged afresh, its CheckSum named' '
	mutated && surgery m/receiver flip 2.bin:2 40 && both_ways no 1 &&
	grep -q "^audit: pair 1 receiver: m/receiver/2.bin: record 2 (byte [0-9]*): checksum" e1
'

test_expect_success 'the receiver lacks a message, or has one more: judged afresh' '
	mutated && surgery m/receiver delete 2.bin:3 && both_ways no 1 &&
	mutated && surgery m/receiver dup 2.bin:8 && both_ways no 1
'

test_expect_success 'the receiver holds another price, with its envelope right: judged afresh, the copies disagree' '
	mutated && surgery m/receiver sub 1.bin:7 "|44=10000|" "|44=10001|" && both_ways no 1 &&
	grep -q "^audit: pair 1 receiver: .*cross-agreement" e1
'

test_expect_success 'the sender has a finding: nothing is mirrored, both judged in full' '
	mutated && surgery m/sender flip 1.bin:5 40 && both_ways no 1 &&
	mutated && surgery m/sender flip 1.bin:5 40 && surgery m/receiver flip 1.bin:5 40 && both_ways no 1 &&
	test "$(grep -c "field-syntax" e1)" = 2 &&
	mutated && both_ways no 1 --measured 21
'

test_expect_success 'the receiver damaged outside its messages (a failed send, the zero tail, the count): judged afresh' '
	mutated && surgery m/receiver send-failed 1.bin:4 && both_ways no 1 &&
	mutated && surgery m/receiver poke 2.bin -1 7 && both_ways no 1 &&
	mutated && surgery m/receiver set-count 2.bin 7 && both_ways no 1
'

# resend RECORD: the message before RECORD again after it, as a resend of
# MsgSeqNum 20 (43=Y, 122 its SendingTime), in both copies.
resend_in_both () {
	sent=$(/usr/bin/python3 -c "
import re
b = open(\"m/sender/2.bin\", \"rb\").read()
print(re.findall(rb\"\\x0152=([0-9.:-]+)\\x01\", b)[2].decode())") &&
	for d in m/sender m/receiver; do
		surgery $d dup 2.bin:3 && surgery $d sub 2.bin:4 "|34=20|" "|34=20|43=Y|122=$sent|" || return 1
	done
}

test_expect_success 'a resend in both copies: a session with a duplicate is never mirrored' '
	mutated && resend_in_both && both_ways no 0 &&
	grep -q "^pair 1 sender   session: possible duplicates (43=Y, already here): 1: 20" o1
'

test_expect_success 'a resend that changed a field, in both copies: found either way (the original is held only when judged in full)' '
	mutated && resend_in_both &&
	surgery m/sender sub 2.bin:4 "|44=10000|" "|44=10002|" && surgery m/receiver sub 2.bin:4 "|44=10000|" "|44=10002|" &&
	both_ways no 1 &&
	grep -q "^audit: pair 1 sender: m/sender/2.bin: record 4 (byte 772): resend-content: a resend differs from the first copy of its MsgSeqNum" e1
'

test_expect_success 'two pairs, one mirrored and one not, on one worker and on two' '
	mutated && rm -rf n && mkdir n && cp -R base/sender base/receiver n/ && surgery n/receiver flip 1.bin:3 40 &&
	for jobs in 1 2; do
		rm -f r.json &&
		test_expect_code 1 "$AUDIT" journal $COUNTS --jobs $jobs --sender m/sender --receiver m/receiver \
			--sender n/sender --receiver n/receiver --receipt r.json >out 2>err &&
		test "$(json_get r.json "[p[\"receiver\"].get(\"judged_as\", \"-\") for p in d[\"facts\"][\"pairs\"]]")" = "[${Q}sender${Q}, ${Q}-${Q}]" &&
		grep -q "^audit: pair 2 receiver: n/receiver/1.bin: record 3 (byte 427): field-syntax" err || return 1
	done
'

test_expect_success 'with --latency (each copy has stamps of its own): never mirrored' '
	mutated && both_ways no 0 --latency
'

# strace slowing each read of the file named by -P to 0.1 s (64 of them in
# a file of 64 MiB)
SLOWED="env ASAN_OPTIONS=detect_leaks=0 strace -f --seccomp-bpf -qq -o /dev/null -e trace=read -e inject=read:delay_enter=100000"
BIG="journal --warmups 1000 --measured 1000 --sender big/sender --receiver big/receiver"

test_expect_success 'a signal while the sender is judged for a mirror, or while the receiver is held against it: exit 2, no receipt' '
	"$GEN_JOURNAL" big 1000 1000 >/dev/null &&
	stopped SIGTERM sig1.json $SLOWED -P big/sender/1.bin "$AUDIT" $BIG --receipt sig1.json &&
	grep -q "^audit: pair 1: big/sender/1.bin: interrupted by a signal; nothing is claimed" stopped.err &&
	stopped SIGINT sig2.json $SLOWED -P big/receiver/1.bin "$AUDIT" $BIG --receipt sig2.json &&
	grep -q "^audit: pair 1: big/receiver/1.bin: interrupted by a signal; nothing is claimed" stopped.err &&
	"$AUDIT" $BIG --receipt ok.json >out &&
	grep -q "^pair 1 receiver judged as the sender.s copy: the same 2002 messages in the same order" out
'

test_done
