#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal follows each order through the peer's ExecutionReports
# when the spec declares them ("orders"), on real QuickFIX 1.15 sessions:
# an executor that fills every order in two fills (QuickFIX's executor
# example, in steps), and one that rests orders and cancels or replaces
# them on request (and rejects a cancel of an order already replaced).
# Both pass with every order accounted for; an order never answered is
# named; and each edit of one ExecutionReport in the acceptor's log (a
# CumQty, an AvgPx, a report after the order was done, a Pending Cancel
# nobody asked for, a repeated ExecID, a report for an order never sent)
# is named with its rule, side and record, and nothing else is.
. "$EV_SRCDIR/tests/lib/lib.sh"

QF="$EV_BUILDDIR/tests/audit/qf-session"
[ -x "$QF" ] || test_skip_all "QuickFIX not found at configure time (apt-get install libquickfix-dev)"

SPEC="$EV_SRCDIR/share/audit/quickfix-fix44-executor.json"
DICT="$EV_SRCDIR/share/fix/FIX44.xml"
SURGERY="$EV_SRCDIR/tests/audit/qflog-surgery.py"
ILOG=i/log/FIX.4.4-INIT-ACPT.messages.current.log
ALOG=a/log/FIX.4.4-ACPT-INIT.messages.current.log
Q="'"

# session DIR MODE STEP...: a QuickFIX session under DIR whose acceptor executes in MODE
session () {
	d=$1 mode=$2
	shift 2
	mkdir -p $d/a $d/i && port=$(free_port) &&
	{ QF_EXECUTOR=$mode "$QF" acceptor $d/a $port "$DICT" & } && acceptor=$! &&
	i=0 && while [ ! -e $d/a/listening ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done &&
	{ "$QF" initiator $d/i $port "$DICT" "$@" || { kill $acceptor; false; }; } &&
	wait $acceptor
}

# audit_session DIR ORDERS [options]: the initiator's log against the acceptor's
audit_session () {
	d=$1 n=$2
	shift 2
	"$AUDIT" journal --spec "$SPEC" --dict "$DICT" --measured "$n" --format qf-log \
		--sender $d/$ILOG --receiver $d/$ALOG "$@"
}

# er_seq LOG CLORDID EXECTYPE ORDSTATUS: the MsgSeqNum of the ExecutionReport ACPT sent
er_seq () {
	python3 - "$@" <<-\PY
	import sys
	log, clordid, exectype, status = sys.argv[1:5]
	for line in open(log, "rb"):
	    f = dict(x.split(b"=", 1) for x in line.split(b" : ", 1)[1].rstrip(b"\n\x01").split(b"\x01"))
	    if f[b"35"] == b"8" and f[b"11"] == clordid.encode() and f[b"150"] == exectype.encode() and \
	            f[b"39"] == status.encode():
	        print(f[b"34"].decode())
	        break
	else:
	    sys.exit("no ExecutionReport 11=%s 150=%s" % (clordid, exectype))
	PY
}

# edited OP...: the fill session with one edit of ACPT's message in the acceptor log
edited () {
	rm -rf m && cp -R fill m && python3 "$SURGERY" m/$ALOG ACPT "$@"
}

# only_findings RULE...: the audit of m exits 1 and names exactly these
# rules, in order, all on the receiver side
only_findings () {
	printf '%s\n' "$@" >expect && rm -f bad.json &&
	test_expect_code 1 audit_session m 20 --receipt bad.json >out 2>err &&
	json_get bad.json '"\n".join("%s %s" % (f["side"], f["rule"]) for f in d["facts"]["first_findings"])' >got &&
	sed "s/^/receiver /" expect >want && test_cmp want got
}

test_expect_success 'setup: an executor fills 20 orders in two fills each; another rests, cancels and replaces' '
	session fill fill logon send:20 wait-reports:60 logout &&
	test "$(grep -c "35=8" fill/$ALOG)" = 60 &&
	session rest rest logon send:6 wait-reports:6 cancel:2 replace:3 wait-reports:10 cancel:3 wait-reports:11 logout &&
	grep -q "35=9" rest/$ALOG
'

test_expect_success 'the filled session passes: every order answered and filled, in both copies' '
	audit_session fill 20 --receipt fill.json >out &&
	grep -q "^OK: 2 sides, 40 orders, 0 findings" out &&
	grep -q "^pair 1 sender   orders: 20 sent, 60 ExecutionReports, 20 answered (20 filled, 0 canceled, 0 rejected, 0 expired, 0 open), 0 cancel and 0 replace requests, 0 unanswered$" out &&
	grep -q "^pair 1 receiver orders: 20 sent, 60 ExecutionReports, 20 answered (20 filled" out &&
	test "$(json_get fill.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"orders\"][\"final\"][\"filled\"]")" = 20 &&
	json_get fill.json "\"\\n\".join(d[\"facts\"][\"coverage\"][\"recomputed\"])" >done &&
	grep -q "^the application layer, in 2 copies holding both directions: every ExecutionReport held to the order state matrices" done
'

test_expect_success 'resting orders canceled and replaced, a cancel of a replaced order rejected: no finding' '
	audit_session rest 6 --receipt rest.json >out &&
	grep -q "^OK: 2 sides, 12 orders, 0 findings" out &&
	grep -q "^pair 1 sender   orders: 6 sent, 10 ExecutionReports, 6 answered (0 filled, 1 canceled, 0 rejected, 0 expired, 5 open), 2 cancel and 1 replace requests, 0 unanswered$" out &&
	test "$(json_get rest.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"orders\"][\"cancel_rejects\"]")" = 1 &&
	test "$(json_get rest.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"orders\"][\"final\"][\"replaced_once_or_more\"]")" = 1
'

test_expect_success 'an order the executor never answered is named in both copies' '
	mkdir -p skip && QF_EXECUTOR_SKIP=5 session skip fill logon send:8 wait-reports:21 logout &&
	test_expect_code 1 audit_session skip 8 --receipt skip.json >out 2>err &&
	grep -q "^audit: pair 1 sender: .*: record [0-9]* .*: order-unanswered: an order never answered by an ExecutionReport (expected an answer, found 5)$" err &&
	grep -q "^audit: pair 1 receiver: .*: order-unanswered: an order never answered by an ExecutionReport (expected an answer, found 5)$" err &&
	grep -q "^pair 1 sender   orders: 8 sent, 21 ExecutionReports, 7 answered .*, 1 unanswered: ClOrdID 5$" out &&
	sed "s/\"unanswered\": \"finding\"/\"unanswered\": \"listed\"/" "$SPEC" >listed.json &&
	"$AUDIT" journal --spec listed.json --dict "$DICT" --measured 8 --format qf-log \
		--sender skip/$ILOG --receiver skip/$ALOG --receipt listed-r.json >out &&
	test "$(json_get listed-r.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"orders\"][\"unanswered\"][\"first\"][0][\"clordid\"]")" = 5
'

test_expect_success 'a CumQty that is not the sum of the fills is named (order-quantity)' '
	edited "$(er_seq fill/$ALOG 3 F 1)" sub "|14=4|" "|14=5|" &&
	only_findings order-quantity order-quantity &&
	grep -q "ExecutionReport for ClOrdID 3: CumQty is not the fills${Q} sum (expected 4 (the CumQty before plus LastQty), found 5)" err
'

test_expect_success 'an AvgPx that is not the average of the fills is named (order-avgpx)' '
	edited "$(er_seq fill/$ALOG 7 F 2)" sub "|6=10000.6|" "|6=10000.9|" &&
	only_findings order-avgpx &&
	grep -q "ExecutionReport for ClOrdID 7: AvgPx is not the fills. average price (expected 10000.600 (the fills. average, to half a unit of the last digit), found 10000.9)" err
'

test_expect_success 'an AvgPx printed as a double, with more places than a quantity has, is no finding' '
	edited "$(er_seq fill/$ALOG 7 F 2)" sub "|6=10000.6|" "|6=10000.600000000000001|" &&
	rm -f long.json && audit_session m 20 --receipt long.json >out &&
	grep -q "^OK: 2 sides, 40 orders, 0 findings" out
'

test_expect_success 'a report after the order was filled is named (order-state)' '
	edited "$(er_seq fill/$ALOG 2 0 0)" set 11 1 &&
	only_findings order-state &&
	grep -q "ExecutionReport for ClOrdID 1: a report after the order was done (expected nothing but Order Status (I) or Restated (D), found ExecType 0 after Filled)" err
'

test_expect_success 'a Pending Cancel nobody asked for is named (order-state)' '
	edited "$(er_seq fill/$ALOG 4 0 0)" sub "|39=0|" "|39=6|" &&
	python3 "$SURGERY" m/$ALOG ACPT "$(er_seq fill/$ALOG 4 0 0)" set 150 6 &&
	only_findings order-state &&
	grep -q "ExecutionReport for ClOrdID 4: a transition the order state matrices do not have (expected Pending Cancel (6) only after an OrderCancelRequest, found ExecType 6 after no answer)" err
'

test_expect_success 'an ExecID reported twice without PossDupFlag is named (order-state)' '
	edited "$(er_seq fill/$ALOG 9 0 0)" set 17 E1 &&
	only_findings order-state &&
	grep -q "ExecutionReport for ClOrdID 9: an ExecID already reported, without PossDupFlag (expected a new ExecID, found E1)" err
'

test_expect_success 'a report for an order never sent is named (order-state)' '
	seq=$(er_seq fill/$ALOG 12 0 0) && edited $seq set 11 99 &&
	only_findings order-state &&
	grep -q "order-state: an ExecutionReport for an order this copy never sent (expected the ClOrdID of an order sent, found 99)" err
'

test_expect_success 'a spec without "orders" follows no ExecutionReport and says so' '
	"$AUDIT" journal --spec "$EV_SRCDIR/share/audit/quickfix-fix44-new-order.json" --dict "$DICT" --measured 20 \
		--format qf-log --sender fill/$ILOG --receiver fill/$ALOG --receipt plain.json >out &&
	! grep -q "orders:" out &&
	json_get plain.json "\"\\n\".join(d[\"facts\"][\"coverage\"][\"not_checked\"])" >not &&
	grep -q "^ExecutionReports: the spec declares none (no \"orders\" section), so no order is followed through its states$" not
'

test_expect_success 'a spec whose "orders" is malformed is refused, naming the key' '
	sed "s/\"unanswered\": \"finding\"/\"unanswered\": \"sometimes\"/" "$SPEC" >bad-spec.json &&
	test_expect_code 2 audit_session fill 20 --spec bad-spec.json --receipt x.json 2>err &&
	grep -q "\"orders\": \"unanswered\" must be \"finding\" or \"listed\"" err &&
	test_must_be_absent x.json
'

test_done
