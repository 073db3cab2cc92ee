#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal, on a generated llfix pair (23 orders in two rotated files
# per side): the untouched pair passes with every rule on; each mutation,
# made to break exactly one rule, fails (exit 1) with exactly that rule
# named, on the right side, in the right file and record, and a failing
# receipt. Mutations go to both sides unless the rule is about their
# disagreement, so that cross-agreement holds.
. "$EV_SRCDIR/tests/lib/lib.sh"

# 3 warmups + 20 measured: 1.bin holds the Logon and orders 1-16 (MsgSeqNum
# 2-17), 2.bin orders 17-23 (MsgSeqNum 18-24) and the Logout (25).
COUNTS="--warmups 3 --measured 20"

# mutated: a fresh copy of the pair as m/sender, m/receiver.
mutated () {
	rm -rf m && mkdir m && cp -R base/sender base/receiver m/
}

# both OP ARGS...: the same surgery on both sides.
both () {
	python3 "$JOURNAL_SURGERY" m/sender "$@" && python3 "$JOURNAL_SURGERY" m/receiver "$@"
}

# findings_are [audit options] -- 'side rule file:record' ...: audit m exits
# 1, its receipt fails and lists exactly these findings, in order, and no
# rule counts a finding it does not show.
findings_are () {
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	printf '%s\n' "$@" >expect &&
	rm -f receipt.json &&
	test_expect_code 1 "$AUDIT" journal $COUNTS $opts --sender m/sender --receiver m/receiver \
		--receipt receipt.json >stdout 2>stderr &&
	test "$(json_get receipt.json 'd["result"]')" = fail &&
	json_get receipt.json '"\n".join("%s %s %s" % (f["side"], f["rule"],
		"%s:%d" % (f["file"], f["record"]) if f.get("record") else f.get("file", "-"))
		for f in d["facts"]["first_findings"])' >actual &&
	test_cmp expect actual &&
	json_get receipt.json 'sum(sum(s["findings_by_rule"].values()) for p in d["facts"]["pairs"]
		for s in (p["sender"], p["receiver"]))' >count &&
	echo $# >want_count && test_cmp want_count count &&
	test "$(grep -vc "if the run was of another size, say --warmups and --measured$" stderr)" -eq $#
}

test_expect_success 'setup: the generated pair passes every rule' '
	"$GEN_JOURNAL" --file-size 4096 base 3 20 &&
	"$AUDIT" journal $COUNTS --sender base/sender --receiver base/receiver \
		--receipt ok.json >stdout &&
	grep -q "^OK: 2 sides, 46 orders, 0 findings" stdout &&
	test "$(json_get ok.json "d[\"result\"]")" = pass &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"messages_compared\"]")" = 25 &&
	test "$(json_get ok.json "[f[\"records\"] for f in d[\"facts\"][\"pairs\"][0][\"sender\"][\"files\"]]")" = "[17, 8]"
'

test_expect_success 'the surgery tool is neutral: a copy edited to itself still passes' '
	mutated && both sub 2.bin:2 "|54=1|" "|54=1|" &&
	"$AUDIT" journal $COUNTS --sender m/sender --receiver m/receiver --receipt n.json >/dev/null
'

# envelope
test_expect_success 'checksum: one flipped byte inside a message' '
	mutated && both flip 2.bin:2 -9 &&
	findings_are -- "sender checksum 2.bin:2" "receiver checksum 2.bin:2"
'
test_expect_success 'body-length: BodyLength one more than the body' '
	mutated && both sub 2.bin:2 "|9=208|" "|9=209|" --keep-body-length &&
	findings_are -- "sender body-length 2.bin:2" "receiver body-length 2.bin:2"
'
test_expect_success 'envelope-order: MsgType after MsgSeqNum' '
	mutated && both sub 1.bin:5 "|35=D|34=5|" "|34=5|35=D|" &&
	findings_are -- "sender envelope-order 1.bin:5" "receiver envelope-order 1.bin:5"
'
test_expect_success 'field-syntax: a field without "=", judged once (no gap follows)' '
	mutated && both sub 1.bin:5 "|54=1|" "|54=1|541|" &&
	findings_are -- "sender field-syntax 1.bin:5" "receiver field-syntax 1.bin:5"
'

# dictionary (FIXT11.xml + FIX50.xml)
test_expect_success 'required-field: a Logon without EncryptMethod (98)' '
	mutated && both sub 1.bin:1 "|98=0|" "|" &&
	findings_are -- "sender required-field 1.bin:1" "receiver required-field 1.bin:1"
'
test_expect_success 'unknown-tag: a tag the dictionary does not define' '
	mutated && both sub 2.bin:3 "|59=0|" "|59=0|9999=x|" &&
	findings_are -- "sender unknown-tag 2.bin:3" "receiver unknown-tag 2.bin:3"
'
test_expect_success 'tag-not-in-message: OrderID (37) in a NewOrderSingle' '
	mutated && both sub 2.bin:3 "|59=0|" "|59=0|37=X1|" &&
	findings_are -- "sender tag-not-in-message 2.bin:3" "receiver tag-not-in-message 2.bin:3"
'
test_expect_success 'empty-value: DefaultApplVerID (1137) without a value' '
	mutated && both sub 1.bin:1 "|1137=7|" "|1137=|" &&
	findings_are -- "sender empty-value 1.bin:1" "receiver empty-value 1.bin:1"
'
test_expect_success 'repeated-tag: TimeInForce (59) twice' '
	mutated && both sub 2.bin:3 "|59=0|" "|59=0|59=0|" &&
	findings_are -- "sender repeated-tag 2.bin:3" "receiver repeated-tag 2.bin:3"
'
test_expect_success 'header-order: SenderSubID (50) after the body began' '
	mutated && both sub 2.bin:3 "|50=SNDR_SUB|" "|" && both sub 2.bin:3 "|54=1|" "|54=1|50=SNDR_SUB|" &&
	findings_are -- "sender header-order 2.bin:3" "receiver header-order 2.bin:3"
'
test_expect_success 'enum-value: EncryptMethod 9' '
	mutated && both sub 1.bin:1 "|98=0|" "|98=9|" &&
	findings_are -- "sender enum-value 1.bin:1" "receiver enum-value 1.bin:1"
'
test_expect_success 'data-format: HeartBtInt that is not an INT' '
	mutated && both sub 1.bin:1 "|108=30|" "|108=3x|" &&
	findings_are -- "sender data-format 1.bin:1" "receiver data-format 1.bin:1"
'
test_expect_success 'data-format: a TransactTime dated 31 November, and a leap second on a day without one' '
	mutated && both sub 1.bin:2 "|60=20261202-08:00:00.000|" "|60=20261131-08:00:00.000|" &&
	findings_are -- "sender data-format 1.bin:2" "receiver data-format 1.bin:2" &&
	mutated && both sub 1.bin:3 "|60=20261202-08:00:00.000|" "|60=20261202-23:59:60.000|" &&
	findings_are -- "sender data-format 1.bin:3" "receiver data-format 1.bin:3"
'
test_expect_success 'unknown-msgtype: a MsgType the dictionary lacks (the spec allowing it)' '
	json_get "$EV_SRCDIR/share/audit/llfix-tx-new-order.json" "json.dumps(dict(d, other_msgtypes=d[\"other_msgtypes\"] + [\"ZZ\"]))" >zz.json &&
	mutated && both sub 2.bin:8 "|35=5|" "|35=ZZ|" &&
	findings_are --spec zz.json -- "sender unknown-msgtype 2.bin:8" "receiver unknown-msgtype 2.bin:8"
'

# repeating groups: the spec without its group, so only the dictionary judges
test_expect_success 'setup: a spec without the Parties group' '
	json_get "$EV_SRCDIR/share/audit/llfix-tx-new-order.json" "json.dumps(dict(d, groups=[]))" >nogroups.json
'
test_expect_success 'group-count: NoPartyIDs 3 for two instances' '
	mutated && both sub 1.bin:4 "|453=2|" "|453=3|" &&
	findings_are --spec nogroups.json -- "sender group-count 1.bin:4" "receiver group-count 1.bin:4"
'
test_expect_success 'group-delimiter: an instance that starts without PartyID (448)' '
	mutated && both sub 1.bin:4 "|453=2|448=PARTY1|" "|453=2|" &&
	findings_are --spec nogroups.json -- "sender group-delimiter 1.bin:4" "receiver group-delimiter 1.bin:4"
'
test_expect_success 'group-order: PartyRole (452) before PartyIDSource (447)' '
	mutated && both sub 1.bin:4 "|447=D|452=1|" "|452=1|447=D|" &&
	findings_are --spec nogroups.json -- "sender group-order 1.bin:4" "receiver group-order 1.bin:4"
'

# session
test_expect_success 'compid: the Logout to another TargetCompID' '
	mutated && both sub 2.bin:8 "|56=EXECUTOR|" "|56=EXECUTOX|" &&
	findings_are -- "sender compid 2.bin:8" "receiver compid 2.bin:8"
'
test_expect_success 'sending-time: the Logout sent before the last order' '
	mutated && both sub 2.bin:8 "|52=20261202-08:00:00.000|" "|52=20261202-07:59:59.999|" &&
	findings_are -- "sender sending-time 2.bin:8" "receiver sending-time 2.bin:8"
'
test_expect_success 'seq-gap: a skipped MsgSeqNum (19 follows 17), never resent nor gap-filled' '
	mutated && both renumber 34 2.bin:1 1 &&
	findings_are -- "sender seq-gap 2.bin:1" "receiver seq-gap 2.bin:1" &&
	grep -q "seq-gap: a gap never filled: these numbers never arrived (no resend, no GapFill) (expected every MsgSeqNum, or a GapFill over it, found MsgSeqNum 18)" stderr
'

# spec
test_expect_success 'spec-msgtype: a QuoteStatusRequest where the spec allows none' '
	mutated && both sub 2.bin:8 "|35=5|" "|35=a|" &&
	findings_are -- "sender spec-msgtype 2.bin:8" "receiver spec-msgtype 2.bin:8"
'
test_expect_success 'spec-value: an order of 11, not 10' '
	mutated && both sub 1.bin:9 "|38=10|" "|38=11|" &&
	findings_are -- "sender spec-value 1.bin:9" "receiver spec-value 1.bin:9"
'
test_expect_success 'spec-group: the second party another PartyID' '
	mutated && both sub 1.bin:9 "|448=PARTY2|" "|448=PARTY3|" &&
	findings_are -- "sender spec-group 1.bin:9" "receiver spec-group 1.bin:9"
'
test_expect_success 'spec-group: a wrong NoPartyIDs is the spec'"'"'s finding and the dictionary'"'"'s' '
	mutated && both sub 1.bin:4 "|453=2|" "|453=3|" &&
	findings_are -- "sender group-count 1.bin:4" "sender spec-group 1.bin:4" \
		"receiver group-count 1.bin:4" "receiver spec-group 1.bin:4"
'
test_expect_success 'owner-sequence: a skipped ClOrdID (18 follows 16)' '
	mutated && both renumber 11 2.bin:1 1 &&
	findings_are -- "sender owner-sequence 2.bin:1" "receiver owner-sequence 2.bin:1"
'
test_expect_success 'order-count: one measured order more declared than found' '
	mutated &&
	findings_are --measured 21 -- "sender order-count -" "receiver order-count -"
'
test_expect_success 'a duplicated order without PossDupFlag: the session'"'"'s fatal case, not a second order' '
	mutated && both dup 2.bin:3 &&
	findings_are -- "sender seqnum 2.bin:4" "receiver seqnum 2.bin:4" &&
	grep -q "seqnum: MsgSeqNum lower than expected and not a possible duplicate (the session.s fatal case) (expected 21, or PossDupFlag 43=Y on a resend, found 20 without 43=Y)" stderr
'

# the journal files themselves
test_expect_success 'journal-overrun: the last record cut off by a truncated file' '
	mutated && both truncate 2.bin 1800 &&
	findings_are -- "sender journal-overrun 2.bin" "receiver journal-overrun 2.bin"
'
test_expect_success 'journal-count: a count header that overstates by one' '
	mutated && both set-count 2.bin 9 &&
	findings_are -- "sender journal-count 2.bin" "receiver journal-count 2.bin"
'
test_expect_success 'journal-count: a count header that understates by one names the count, not the tail' '
	mutated && both set-count 2.bin 7 &&
	findings_are -- "sender journal-count 2.bin" "receiver journal-count 2.bin" &&
	grep -q "journal-count: the count header says fewer records than the file holds (a record follows the last counted one) (expected 7 records, found 7 and 1 more after them)" stderr
'
test_expect_success 'journal-rotation: a rotated file cut inside its zero tail is not the journal'"'"'s fixed size' '
	mutated && truncate -s 4000 m/sender/2.bin && truncate -s 4000 m/receiver/2.bin &&
	findings_are -- "sender journal-rotation 2.bin" "receiver journal-rotation 2.bin" &&
	grep -q "2.bin: byte 4000: journal-rotation: a rotated file is not the journal.s fixed size (expected 4096 bytes, as m/sender/1.bin, found 4000 bytes)" stderr
'
test_expect_success 'journal-tail: a nonzero byte after the last committed record' '
	mutated && both poke 2.bin -1 0x41 &&
	findings_are -- "sender journal-tail 2.bin" "receiver journal-tail 2.bin"
'
test_expect_success 'journal-send: a record whose send() failed' '
	mutated && both send-failed 1.bin:6 &&
	findings_are -- "sender journal-send 1.bin" "receiver journal-send 1.bin"
'
test_expect_success 'journal-rotation: 2.bin missing between 1.bin and 3.bin' '
	mutated && mv m/sender/2.bin m/sender/3.bin && mv m/receiver/2.bin m/receiver/3.bin &&
	findings_are -- "sender journal-rotation 3.bin" "receiver journal-rotation 3.bin"
'

# two endpoints
test_expect_success 'cross-agreement: the receiver holds another TransactTime for one order' '
	mutated &&
	python3 "$JOURNAL_SURGERY" m/receiver sub 2.bin:2 "|60=20261202-08:00:00.000|" "|60=20261202-08:00:00.001|" &&
	findings_are -- "receiver cross-agreement 2.bin:2" &&
	grep -q "message MsgSeqNum 19 differs from the sender" stderr &&
	grep -q "expected 8=FIXT.1.1|9=208|35=D|34=19|.*|60=20261202-08:00:00.000|10=" stderr &&
	grep -q "found 8=FIXT.1.1|9=208|35=D|34=19|.*|60=20261202-08:00:00.001|10=" stderr
'
test_expect_success 'cross-agreement: an order the receiver lacks is named with its MsgSeqNum' '
	mutated && python3 "$JOURNAL_SURGERY" m/receiver delete 2.bin:5 &&
	findings_are -- "receiver seq-gap 2.bin:5" "receiver owner-sequence 2.bin:5" \
		"receiver order-count -" "receiver cross-agreement -" &&
	grep "cross-agreement" stderr
'
test_expect_success 'cross-agreement: a Logon changed in one copy only (its HeartBtInt) is a difference too' '
	mutated && python3 "$JOURNAL_SURGERY" m/receiver sub 1.bin:1 "|108=30|" "|108=31|" &&
	findings_are -- "receiver cross-agreement 1.bin:1" &&
	grep -q "message MsgSeqNum 1 differs from the sender.*expected 8=FIXT.1.1|.*|35=A|.*|108=30|.*found 8=FIXT.1.1|.*|108=31|" stderr
'
test_expect_success 'cross-agreement: a MsgSeqNum used twice pairs each record with its identical twin, never with its neighbour' '
	mutated && both renumber 34 2.bin:8 -1 && python3 "$JOURNAL_SURGERY" m/receiver delete 2.bin:7 && rm -f receipt.json &&
	test_expect_code 1 "$AUDIT" journal $COUNTS --sender m/sender --receiver m/receiver --receipt receipt.json >stdout 2>stderr &&
	grep -q "receiver: cross-agreement: 1 message of the sender is missing here" stderr &&
	! grep -q "differs from the sender" stderr
'
test_expect_success 'a dictionary of another application version (FIX 5.0 SP2 for a FIX 5.0 session) is refused before any message' '
	rm -f receipt.json &&
	test_expect_code 2 "$AUDIT" journal $COUNTS --dict "$EV_SRCDIR/share/fix/FIXT11.xml" --dict "$EV_SRCDIR/share/fix/FIX50SP2.xml" \
		--sender base/sender --receiver base/receiver --receipt receipt.json 2>err &&
	grep -q "^audit: base/sender/1.bin: its messages are FIXT.1.1 with application version FIX.5.0, and the dictionaries given are FIXT.1.1, FIX.5.0SP2: name the dictionary of that version (--dict FIX50.xml)$" err &&
	test_must_be_absent receipt.json
'

test_done
