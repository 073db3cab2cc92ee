#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal on a real QuickFIX 1.15 session that recovers, as venue
# sessions do: the initiator (INIT) sends orders; the acceptor (ACPT), a
# process of its own, is frozen until INIT sends a TestRequest and then
# thawed (the TestRequest answered), frozen again until INIT gives up on
# it (that TestRequest unanswered, the orders sent meanwhile lost in the
# dead process's socket), killed, and restarted. INIT sends more orders
# while ACPT is down, logs on again with a MsgSeqNum too high, ACPT asks
# for the gap (ResendRequest), INIT resends the orders (PossDupFlag=Y,
# OrigSendingTime) and gap-fills the session messages, and both go on.
# The audit passes that session with no finding and names each event;
# each break of a session rule, made in the wire's copy, is named with its
# message and rule.
. "$EV_SRCDIR/tests/lib/lib.sh"

QF="$EV_BUILDDIR/tests/audit/qf-session"
[ -x "$QF" ] || test_skip_all "QuickFIX not found at configure time (apt-get install libquickfix-dev)"

SPEC="$EV_SRCDIR/share/audit/quickfix-fix44-new-order.json"
DICT="$EV_SRCDIR/share/fix/FIX44.xml"
SURGERY="$EV_SRCDIR/tests/audit/qflog-surgery.py"
STORE=qs/i/store/FIX.4.4-INIT-ACPT.body
ILOG=qs/i/log/FIX.4.4-INIT-ACPT.messages.current.log
ALOG=qs/a/log/FIX.4.4-ACPT-INIT.messages.current.log
Q="'"

# wait_for FILE [PATTERN]: until FILE exists (and holds PATTERN), 30 s at most
wait_for () {
	i=0
	while [ $i -lt 600 ]; do
		if [ -e "$1" ] && { [ -z "${2:-}" ] || contains "$2" "$1"; }; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	echo "waited 30 s for $1 ${2:-}" >&2
	return 1
}

# audit_qf SENDER RECEIVER ORDERS [options]
audit_qf () {
	s=$1 r=$2 n=$3
	shift 3
	"$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured "$n" --sender "$s" --receiver "$r" "$@"
}

# broken OP...: a copy of the session whose acceptor log has one edit
broken () {
	rm -rf m && cp -R qs m && python3 "$SURGERY" m/a/log/FIX.4.4-ACPT-INIT.messages.current.log "$@"
}

audit_broken () {
	audit_qf m/i/store/FIX.4.4-INIT-ACPT.body m/a/log/FIX.4.4-ACPT-INIT.messages.current.log 18 "$@"
}

# finish PID: wait for it, 60 s at most, then kill it (thawed first)
finish () {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -CONT "$1" 2>/dev/null
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}

# recovering_session DIR PORT: the session described above, under DIR
recovering_session () {
	d=$1 port=$2
	mkdir -p $d/a $d/i &&
	{ "$QF" acceptor $d/a $port "$DICT" & } && acceptor=$! &&
	wait_for $d/a/listening &&
	{ "$QF" initiator $d/i $port "$DICT" logon send:5 touch:freeze1 wait-file:thawed1 send:3 \
		sleep:300 touch:freeze2 wait-down send:4 touch:down wait-file:restarted logon send:6 \
		sleep:300 logout & } && initiator=$! &&
	wait_for $d/i/freeze1 && kill -STOP $acceptor &&
	wait_for $d/i/log/FIX.4.4-INIT-ACPT.event.current.log "Sent test request" &&
	kill -CONT $acceptor && touch $d/i/thawed1 &&
	wait_for $d/i/freeze2 && kill -STOP $acceptor &&
	wait_for $d/i/down && kill -KILL $acceptor && { kill -CONT $acceptor 2>/dev/null || true; } &&
	rm $d/a/listening &&
	{ "$QF" acceptor $d/a $port "$DICT" & } && acceptor=$! &&
	wait_for $d/a/listening && touch $d/i/restarted &&
	finish $initiator && finish $acceptor
	status=$?
	[ $status = 0 ] || { finish $initiator; finish $acceptor; }
	return $status
}

test_expect_success 'setup: a QuickFIX session frozen, thawed, frozen, killed and restarted mid-session' '
	recovering_session qs "$(free_port)" &&
	grep -q "Received ResendRequest" qs/i/log/FIX.4.4-INIT-ACPT.event.current.log &&
	grep -q "Timed out waiting for heartbeat" qs/i/log/FIX.4.4-INIT-ACPT.event.current.log &&
	test "$(grep -c "35=D.*43=Y" $ALOG)" -ge 4
'

test_expect_success 'the store against the wire: 0 findings; gap, request, resends, gap fills and duplicates named' '
	audit_qf $STORE $ALOG 18 --receipt ok.json >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^OK: 2 sides, 36 orders, 0 findings" stdout &&
	grep -q "^pair 1 receiver session: gaps (MsgSeqNum above the next expected): 1: [0-9]*\.\.[0-9]*$" stdout &&
	grep -q "^pair 1 receiver session: ResendRequests from the peer (BeginSeqNo..EndSeqNo, 0: to the end): 1: [0-9]*\.\.0$" stdout &&
	grep -q "^pair 1 receiver session: resends (PossDupFlag 43=Y, first copy here): [1-9][0-9]*: " stdout &&
	grep -q "^pair 1 receiver session: SequenceReset-GapFills (the numbers each fills): " stdout &&
	grep -q "^pair 1 receiver session: TestRequests answered (Heartbeat echoing 112): [1-9]$" stdout &&
	grep -q "^pair 1 receiver session: against the sender: [0-9]* resends equal to their originals but for 43, 97, 122, 52, 9 and 10; [0-9]* originals replaced by GapFills, all session-level$" stdout &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"session\"][\"gaps\"][\"count\"]")" = 1 &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"session\"][\"peer_in_copy\"]")" = True &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"session\"][\"peer_in_copy\"]")" = False &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"session\"][\"resends_held_against_originals\"] > 0")" = True &&
	json_get ok.json "\"\\n\".join(d[\"facts\"][\"coverage\"][\"not_checked\"])" >not &&
	grep -q "^1 copy without the peer.s direction (a store, an llfix journal): whether each gap was asked for" not
'

test_expect_success 'log against log: the TestRequest the frozen acceptor never answered is named, not a finding' '
	audit_qf $ILOG $ALOG 18 --receipt logs.json >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^OK: 2 sides, 36 orders, 0 findings" stdout &&
	grep -q "^pair 1 sender   session: TestRequests unanswered before the connection ended: 1: [0-9]*$" stdout
'

test_expect_success 'latency over the recovered session: resends left out and counted, every figure as an independent reading computes it' '
	audit_qf $ILOG $ALOG 18 --latency --clock sender=here --clock receiver=here --receipt lat.json >stdout &&
	python3 "$EV_SRCDIR/tests/audit/latency-oracle.py" qf-log $ILOG $ALOG INIT >want.json &&
	python3 - <<-\PY &&
	import json
	got = [f for f in json.load(open("lat.json"))["facts"]["pairs"][0]["latency"] if f["messages"]]
	want = json.load(open("want.json"))
	assert len(got) == len(want), (len(got), len(want))
	for g, w in zip(got, want):
	    for k, v in w.items():
	        assert g.get(k) == v, (g["copy"], g["from"], k, g.get(k), v)
	PY
	test "$(json_get lat.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"left_out\"][\"resends\"] >= 4")" = True &&
	grep -q "^  left out: [1-9][0-9]* resends (43=Y), 0 without a stamp, 0 without MsgSeqNum, 0 without a SendingTime$" stdout &&
	grep -q "^pair 1 one-way  INIT->ACPT: " stdout
'

test_expect_success 'each copy alone passes too' '
	"$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured 18 --sender $ALOG --receipt one.json >stdout &&
	grep -q "^OK: 1 side, 18 orders, 0 findings" stdout
'

# the first resend of the session: the lowest MsgSeqNum with 43=Y on an order
first_resend () {
	python3 - "$ALOG" <<-\EOF
	import re, sys
	for line in open(sys.argv[1], "rb"):
	    if b"\x0135=D\x01" in line and b"\x0143=Y\x01" in line:
	        print(re.search(rb"\x0134=([0-9]+)\x01", line).group(1).decode()); break
	EOF
}

test_expect_success 'a resend with its PossDupFlag removed: named, exit 1' '
	seq=$(first_resend) && broken INIT $seq drop-tag 43 &&
	test_expect_code 1 audit_broken --receipt f1.json 2>stderr &&
	grep -q "poss-dup: a message filling a gap without PossDupFlag (43=Y): a resend must carry it (expected 43=Y on MsgSeqNum $seq, found no PossDupFlag)" stderr
'

test_expect_success 'an order received twice without PossDupFlag: the fatal case, not a second order, exit 1' '
	broken INIT 3 dup &&
	test_expect_code 1 audit_broken --receipt f2.json 2>stderr &&
	grep -q "seqnum: MsgSeqNum lower than expected and not a possible duplicate (the session.s fatal case) (expected 4, or PossDupFlag 43=Y on a resend, found 3 without 43=Y)" stderr &&
	test "$(json_get f2.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"orders\"]")" = 18
'

test_expect_success 'a resend whose OrigSendingTime is later than its SendingTime: named, exit 1' '
	seq=$(first_resend) && broken INIT $seq sub "|122=20" "|122=21" &&
	test_expect_code 1 audit_broken --receipt f3.json 2>stderr &&
	grep -q "record [0-9]* (byte [0-9]*): poss-dup: OrigSendingTime (122) later than SendingTime (52)" stderr
'

test_expect_success 'a resend stamped before the GapFill sent ahead of it, as QuickFIX may stamp its batch: no finding' '
	seq=$(first_resend) &&
	orig=$(python3 - "$ALOG" "$seq" <<-\EOF
	import re, sys
	for line in open(sys.argv[1], "rb"):
	    if b"\x0135=D\x01" in line and b"\x0143=Y\x01" in line and b"\x0134=%s\x01" % sys.argv[2].encode() in line:
	        print(re.search(rb"\x01122=([^\x01]+)\x01", line).group(1).decode()); break
	EOF
	) && test -n "$orig" &&
	broken INIT $seq set 52 "$orig" &&
	audit_broken --receipt early.json >stdout &&
	grep -q "^OK: 2 sides, 36 orders, 0 findings" stdout
'

test_expect_success 'a field of a resend changed: held against the stored original, exit 1' '
	seq=$(first_resend) && broken INIT $seq sub "|60=20" "|60=19" &&
	test_expect_code 1 audit_broken --receipt f4.json 2>stderr &&
	grep -q "resend-content: resend MsgSeqNum $seq differs from the sender.s original (.*FIX.4.4-INIT-ACPT.body, byte [0-9]*) in a field other than 43, 97, 122, 52, 9 and 10" stderr
'

test_expect_success 'a GapFill moving backwards: named, and the numbers it should have filled never arrive' '
	seq=$(python3 -c "import re,sys; d=open(sys.argv[1],\"rb\").read(); print(re.search(rb\"\x0135=4\x0134=([0-9]+)\x01\", d).group(1).decode())" $ALOG) &&
	broken INIT $seq set 36 $((seq - 1)) &&
	test_expect_code 1 audit_broken --receipt f5.json 2>stderr &&
	grep -q "gap-fill: a SequenceReset-GapFill must move forward (NewSeqNo after its MsgSeqNum) (expected 36= more than 34=$seq, found 36=$((seq - 1)))" stderr &&
	grep -q "seq-gap: a gap" stderr
'

test_expect_success 'a resend missing from the wire: the number never arrived, exit 1' '
	seq=$(first_resend) && broken INIT $seq delete &&
	test_expect_code 1 audit_broken --receipt f6.json 2>stderr &&
	grep -q "seq-gap: a gap only partly filled: these numbers never arrived (no resend, no GapFill) (expected every MsgSeqNum, or a GapFill over it, found MsgSeqNum $seq)" stderr &&
	grep -q "cross-agreement: 1 message of the sender is missing here" stderr
'

test_expect_success 'the ResendRequest taken out of the log: resends nobody asked for, exit 1' '
	seq=$(python3 -c "import re,sys; d=open(sys.argv[1],\"rb\").read(); print(re.search(rb\"\x0135=2\x0134=([0-9]+)\x0149=ACPT\x01\", d).group(1).decode())" $ALOG) &&
	broken ACPT $seq delete &&
	test_expect_code 1 audit_broken --receipt f7.json 2>stderr &&
	grep -q "resend-request: a gap filled that the peer never asked for (ResendRequest) (expected a ResendRequest from the peer for [0-9]*\.\.[0-9]*, found none in this copy)" stderr
'

test_expect_success 'a Heartbeat that echoes a TestReqID nobody sent: named, exit 1' '
	seq=$(python3 -c "import re,sys; d=open(sys.argv[1],\"rb\").read(); print(re.search(rb\"\x0135=0\x0134=([0-9]+)\x0149=ACPT\x01[^\n]*\x01112=\", d).group(1).decode())" $ALOG) &&
	broken ACPT $seq sub "|112=TEST|" "|112=OTHER|" &&
	test_expect_code 1 audit_broken --receipt f8.json 2>stderr &&
	grep -q "test-request: the peer.s Heartbeat echoes a TestReqID this side never sent in a TestRequest (expected the TestReqID of an open TestRequest, found 112=OTHER)" stderr
'

test_expect_success 'a session-level Reject from a real QuickFIX acceptor is named with the MsgSeqNum it rejects' '
	mkdir -p rj/a rj/i && port=$(free_port) &&
	{ "$QF" acceptor rj/a $port "$DICT" & } && acceptor=$! &&
	wait_for rj/a/listening &&
	{ "$QF" initiator rj/i $port "$DICT" logon send:2 send-bad send:2 sleep:200 logout || { finish $acceptor; false; }; } &&
	finish $acceptor &&
	test_expect_code 1 audit_qf rj/i/store/FIX.4.4-INIT-ACPT.body rj/a/log/FIX.4.4-ACPT-INIT.messages.current.log 5 \
		--receipt rj.json >stdout 2>stderr &&
	grep -q "^pair 1 receiver session: session-level Rejects: 1: the peer rejected MsgSeqNum 4$" stdout &&
	test "$(json_get rj.json "sorted(d[\"facts\"][\"pairs\"][0][\"receiver\"][\"findings_by_rule\"])")" = "[${Q}enum-value${Q}, ${Q}spec-value${Q}]"
'

test_expect_success 'a Logon with ResetSeqNumFlag from a real QuickFIX: the numbers start again, named, no finding' '
	mkdir -p rs/a rs/i && port=$(free_port) &&
	{ "$QF" acceptor rs/a $port "$DICT" & } && acceptor=$! && wait_for rs/a/listening &&
	{ "$QF" initiator rs/i $port "$DICT" logon send:3 logout || { finish $acceptor; false; }; } &&
	finish $acceptor && rm rs/a/listening &&
	{ "$QF" acceptor rs/a $port "$DICT" & } && acceptor=$! && wait_for rs/a/listening &&
	{ QF_RESET_ON_LOGON=Y "$QF" initiator rs/i $port "$DICT" first-order:4 logon send:2 logout || { finish $acceptor; false; }; } &&
	finish $acceptor &&
	grep -q "141=Y" rs/a/log/FIX.4.4-ACPT-INIT.messages.current.log &&
	audit_qf rs/i/log/FIX.4.4-INIT-ACPT.messages.current.log rs/a/log/FIX.4.4-ACPT-INIT.messages.current.log 5 \
		--receipt rs.json >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^pair 1 receiver session: resets (the number expected..the number after): 1: 6\.\.1$" stdout &&
	test "$(json_get rs.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"session\"][\"resets\"][\"first\"][0][\"by\"]")" = "Logon 141=Y"
'

test_expect_success 'a reset Logon that does not carry MsgSeqNum 1: seq-reset, exit 1' '
	rm -rf m && cp -R rs m &&
	python3 "$SURGERY" m/a/log/FIX.4.4-ACPT-INIT.messages.current.log INIT "1#2" set 34 2 &&
	test_expect_code 1 "$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured 5 \
		--sender m/a/log/FIX.4.4-ACPT-INIT.messages.current.log --receipt rs2.json 2>stderr &&
	grep -q "seq-reset: a Logon with ResetSeqNumFlag (141=Y) must carry MsgSeqNum 1 (expected 1, found 2)" stderr
'

# QuickFIX sends SequenceReset-Reset only when an operator asks for it
# (there is no setting that makes it send one), so this case is recorded
# bytes: the real session's Logon and orders, a SequenceReset-Reset
# built as FIX 4.4 Vol. 2 describes it, and the orders after it renumbered.
reset_stream () {
	python3 - "$ALOG" "$1" <<-\EOF
	import re, sys
	SOH = b"\x01"
	def frame(fields):
	    body = SOH.join(fields[1:]) + SOH
	    m = fields[0] + SOH + b"9=%d" % len(body) + SOH + body
	    return m + b"10=%03d" % (sum(m) % 256) + SOH
	def fields_of(line):
	    m = line.split(b" : ", 1)[1].rstrip(b"\n").rstrip(SOH).split(SOH)
	    return [f for f in m if not f.startswith((b"9=", b"10="))]
	def setf(fields, tag, value):
	    return [tag + b"=" + value if f.startswith(tag + b"=") else f for f in fields]
	lines = [l for l in open(sys.argv[1], "rb") if b"\x0149=INIT\x01" in l]
	by_seq = {}
	for l in lines:
	    f = fields_of(l)
	    by_seq.setdefault(int(dict(x.split(b"=", 1) for x in f)[b"34"]), f)
	new = int(sys.argv[2])
	out = [frame(by_seq[n]) for n in (1, 2, 3, 4)]
	stamp = dict(x.split(b"=", 1) for x in by_seq[4])[b"52"]
	out.append(frame([b"8=FIX.4.4", b"35=4", b"34=5", b"49=INIT", b"52=" + stamp, b"56=ACPT", b"36=%d" % new]))
	for k, n in enumerate((new, new + 1)):
	    out.append(frame(setf(setf(by_seq[4], b"34", b"%d" % n), b"11", b"%d" % (4 + k))))
	sys.stdout.buffer.write(b"".join(out))
	EOF
}

test_expect_success 'a SequenceReset-Reset (recorded bytes) moves the numbers forward: named, no finding' '
	reset_stream 40 >reset.raw &&
	"$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured 5 --sender reset.raw --sender-format raw \
		--receipt sr.json >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^pair 1 sender   session: resets (the number expected..the number after): 1: 5\.\.40$" stdout
'

test_expect_success 'a SequenceReset-Reset that lowers the number: seq-reset, exit 1' '
	reset_stream 3 >lower.raw &&
	test_expect_code 1 "$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured 5 --sender lower.raw \
		--sender-format raw --receipt sr2.json 2>stderr &&
	grep -q "seq-reset: a SequenceReset-Reset lowers the sequence number (expected at least 5, found 36=3)" stderr
'

test_done
