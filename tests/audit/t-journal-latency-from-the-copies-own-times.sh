#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal --latency: per direction, each copy's own time of a
# message (an llfix journal's record timestamp, a QuickFIX FileLog line's
# time) minus its SendingTime(52), and with both copies the receiver's time
# minus the sender's, message by message. Every figure is what an
# independent reading (tests/audit/latency-oracle.py, and numpy for the
# linear rule) computes; a difference of two clocks is named as such; a
# distribution at or above zero is exported as HdrHistogram text, one
# below zero is not and says so; a copy without times says so; and every
# refusal leaves neither a receipt nor an export behind.
. "$EV_SRCDIR/tests/lib/lib.sh"

ORACLE="$EV_SRCDIR/tests/audit/latency-oracle.py"
QF="$EV_BUILDDIR/tests/audit/qf-session"
SPEC_QF="$EV_SRCDIR/share/audit/quickfix-fix44-new-order.json"
DICT_QF="$EV_SRCDIR/share/fix/FIX44.xml"
Q="'"

# agree RECEIPT ORACLE.json: the receipt's figures with messages equal the oracle's, key by key
agree () {
	python3 - "$1" "$2" <<-\PY
	import json, sys
	got = [f for f in json.load(open(sys.argv[1]))["facts"]["pairs"][0]["latency"] if f["messages"]]
	want = json.load(open(sys.argv[2]))
	if len(got) != len(want):
	    sys.exit("%d figures, the oracle has %d" % (len(got), len(want)))
	for i, (g, w) in enumerate(zip(got, want)):
	    for k, v in w.items():
	        if g.get(k) != v:
	            sys.exit("figure %d (%s %s->%s): %s is %r, the oracle says %r" % (i, g["copy"], g["from"], g["to"], k, g.get(k), v))
	PY
}

audit_pair () {
	"$AUDIT" journal --warmups 10 --measured 1000 --sender g/sender --receiver g/receiver --latency "$@"
}

test_expect_success 'setup: an llfix pair of 1,012 messages over several journal files' '
	"$GEN_JOURNAL" --file-size 65536 g 10 1000 &&
	test -e g/sender/2.bin &&
	python3 "$ORACLE" llfix g/sender g/receiver CLIENT1 >want.json
'

test_expect_success 'each copy against SendingTime, and the receiver against the sender, as an independent reading computes them' '
	audit_pair --receipt r.json >out &&
	agree r.json want.json &&
	grep -q "^pair 1 sender   latency CLIENT1->EXECUTOR: journal timestamp (when sent) - SendingTime(52), one clock (the sender${Q}s own clock): 1012 messages: min 1.000 us, p50 4546.000 us" out &&
	grep -q "^pair 1 receiver latency CLIENT1->EXECUTOR: journal timestamp (when received) - SendingTime(52), two clocks (the stamp: the receiver${Q}s own clock; SendingTime: the sender${Q}s own clock), their offset included: 1012 messages" out &&
	grep -q "^  resolution 1 ms (the stamps to 1 us, SendingTime to 1 ms)$" out &&
	grep -q "^  resolution 1 us (the sender${Q}s stamps to 1 us, the receiver${Q}s to 1 us)$" out &&
	test "$(json_get r.json "d[\"facts\"][\"pairs\"][0][\"latency\"][0][\"stamp_taken_when\"]")" = sent &&
	test "$(json_get r.json "d[\"facts\"][\"pairs\"][0][\"latency\"][1][\"stamp_taken_when\"]")" = received
'

test_expect_success 'two copies on clocks not named the same: the figure between them is not called a latency' '
	grep -q "^pair 1 between  CLIENT1->EXECUTOR: the receiver${Q}s journal timestamp (received) - the sender${Q}s (sent), two clocks (the receiver${Q}s own clock; the sender${Q}s own clock): not a latency, their offset included: 1012 messages" out &&
	! grep -q "one-way" out &&
	test "$(json_get r.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"one_clock\"]")" = False &&
	audit_pair --clock sender=lab1:CLOCK_REALTIME --clock receiver=lab2:CLOCK_REALTIME --receipt two.json >out2 &&
	grep -q "two clocks (lab2:CLOCK_REALTIME; lab1:CLOCK_REALTIME): not a latency" out2
'

test_expect_success 'copies that name one clock: the figure between them is the one-way latency' '
	audit_pair --clock sender=lab1:CLOCK_REALTIME --clock receiver=lab1:CLOCK_REALTIME --receipt one.json >out &&
	agree one.json want.json &&
	grep -q "^pair 1 one-way  CLIENT1->EXECUTOR: the receiver${Q}s journal timestamp (received) - the sender${Q}s (sent), one clock (lab1:CLOCK_REALTIME): 1012 messages: min 0.000 us, p50 4.000 us" out &&
	grep -q "^pair 1 receiver latency CLIENT1->EXECUTOR: .*, one clock (lab1:CLOCK_REALTIME): 1012 messages" out &&
	test "$(json_get one.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"one_clock\"]")" = True
'

test_expect_success 'each distribution is HdrHistogram text named among the outputs of the receipt with its SHA-256' '
	mkdir h &&
	audit_pair --hgrm h --receipt hg.json >out &&
	for f in pair-1-sender-CLIENT1-EXECUTOR pair-1-receiver-CLIENT1-EXECUTOR pair-1-between-copies-CLIENT1-EXECUTOR; do
		test "$(json_get hg.json "[o[\"sha256\"] for o in d[\"outputs\"] if o[\"name\"] == \"$f.hgrm\"][0]")" = \
			"$(sha256_of h/$f.hgrm)" || return 1
	done &&
	grep -q "^#\[Max     = *8965000, Total count    = *1012\]$" h/pair-1-sender-CLIENT1-EXECUTOR.hgrm &&
	grep -q "^#\[Max     = *4000, Total count    = *1012\]$" h/pair-1-between-copies-CLIENT1-EXECUTOR.hgrm
'

test_expect_success 'the linear rule gives the percentile numpy gives of the same differences' '
	audit_pair --quantile-rule linear --receipt lin.json >out &&
	/usr/bin/python3 - <<-\PY
	import json, struct, glob, os, calendar, numpy
	def recs(d):
	    for path in sorted(glob.glob(d + "/*.bin"), key=lambda p: int(os.path.basename(p)[:-4])):
	        data = open(path, "rb").read(); n, = struct.unpack_from("<Q", data, 0); p = 8
	        for _ in range(n):
	            ts, ok, ln = struct.unpack_from("<QBQ", data, p); yield ts, data[p + 17:p + 17 + ln]; p += 17 + ln
	def sending(m):
	    v = [f[3:] for f in m.split(b"\x01") if f.startswith(b"52=")][0].decode()
	    t = calendar.timegm((int(v[:4]), int(v[4:6]), int(v[6:8]), int(v[9:11]), int(v[12:14]), int(v[15:17])))
	    return t * 10**9 + int((v[18:] + "000000000")[:9])
	d = numpy.array([ts - sending(m) for ts, m in recs("g/sender")], dtype=numpy.float64)
	fig = json.load(open("lin.json"))["facts"]["pairs"][0]["latency"][0]
	assert fig["quantile_rule"] == "linear", fig
	for p in ("50", "90", "99", "99.9", "99.99"):
	    want = numpy.percentile(d, float(p))
	    got = float(fig["p%s_ns" % p])
	    assert abs(got - want) < 0.01, (p, got, want)
	PY
'

test_expect_success 'read from a sealed archive, the figures are the same as from the tree' '
	"$SEAL" create g -o sealed >/dev/null &&
	"$AUDIT" journal --warmups 10 --measured 1000 --archive sealed/archive.tar.zst --seal sealed/SEAL.json \
		--sender sender --receiver receiver --latency --receipt ar.json >out &&
	test "$(json_get ar.json "d[\"facts\"][\"pairs\"][0][\"latency\"]")" = \
		"$(json_get r.json "d[\"facts\"][\"pairs\"][0][\"latency\"]")"
'

test_expect_success 'a distribution below zero (a receiver clock behind) is measured but not exported, and says so' '
	rm -rf b && cp -R g b &&
	python3 - <<-\PY &&
	import glob, struct
	for path in glob.glob("b/receiver/*.bin"):
	    data = bytearray(open(path, "rb").read()); n, = struct.unpack_from("<Q", data, 0); p = 8
	    for _ in range(n):
	        ts, ok, ln = struct.unpack_from("<QBQ", data, p)
	        struct.pack_into("<Q", data, p, ts - 10**7)  # 10 ms behind
	        p += 17 + ln
	    open(path, "wb").write(data)
	PY
	python3 "$ORACLE" llfix b/sender b/receiver CLIENT1 >wantb.json &&
	mkdir hb &&
	"$AUDIT" journal --warmups 10 --measured 1000 --sender b/sender --receiver b/receiver --latency --hgrm hb --receipt rb.json >out &&
	agree rb.json wantb.json &&
	grep -q "^pair 1 between  .*: 1012 messages: min -10000.000 us, p50 -9996.000 us" out &&
	test "$(json_get rb.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"hgrm_left_out\"]")" = "values below zero: HdrHistogram holds none" &&
	test_must_be_absent hb/pair-1-between-copies-CLIENT1-EXECUTOR.hgrm &&
	test -s hb/pair-1-sender-CLIENT1-EXECUTOR.hgrm
'

test_expect_success 'refused: --hgrm on a file, --hgrm or --clock without --latency, a clock of no side, an unknown rule; no receipt' '
	: >afile &&
	test_expect_code 2 audit_pair --hgrm afile --receipt x.json 2>err &&
	grep -q "^audit: option --hgrm: afile is a regular file, not a directory; create it first$" err &&
	test_expect_code 2 audit_pair --hgrm nowhere --receipt x.json 2>err &&
	grep -q "^audit: option --hgrm: nowhere is absent, not a directory; create it first$" err &&
	test_expect_code 2 "$AUDIT" journal --sender g/sender --hgrm h --receipt x.json 2>err &&
	grep -q "^audit: --hgrm needs --latency; none given$" err &&
	test_expect_code 2 audit_pair --clock peer=x --receipt x.json 2>err &&
	grep -q "^audit: option --clock: expected sender=NAME or receiver=NAME, found ${Q}peer=x${Q}$" err &&
	test_expect_code 2 audit_pair --clock sender= --receipt x.json 2>err &&
	grep -q "^audit: option --clock: expected sender=NAME or receiver=NAME, found ${Q}sender=${Q}$" err &&
	test_expect_code 2 audit_pair --quantile-rule median --receipt x.json 2>err &&
	grep -q "^audit: option --quantile-rule: expected nearest-rank, floor-index, round-half-up or linear, found ${Q}median${Q}$" err &&
	test_must_be_absent x.json
'

test_expect_success 'an export never replaces a file; the refused run leaves no receipt and none of its own exports' '
	mkdir taken && echo mine >taken/pair-1-receiver-CLIENT1-EXECUTOR.hgrm &&
	test_expect_code 2 audit_pair --hgrm taken --receipt t.json 2>err &&
	grep -q "taken/pair-1-receiver-CLIENT1-EXECUTOR.hgrm" err &&
	test "$(cat taken/pair-1-receiver-CLIENT1-EXECUTOR.hgrm)" = mine &&
	test "$(ls -A taken)" = pair-1-receiver-CLIENT1-EXECUTOR.hgrm &&
	test_must_be_absent t.json
'

test_expect_success 'a real QuickFIX session: the log line times of both engines, both directions, and between the two logs' '
	[ -x "$QF" ] || test_skip_case "QuickFIX not built (tests/audit/qf-session)"
	mkdir -p qf/a qf/i &&
	port=$(free_port) &&
	{ "$QF" acceptor qf/a $port "$DICT_QF" & } && acceptor=$! &&
	i=0 && while [ ! -e qf/a/listening ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done &&
	{ "$QF" initiator qf/i $port "$DICT_QF" logon send:40 logout || { kill $acceptor; false; }; } &&
	wait $acceptor &&
	ilog=qf/i/log/FIX.4.4-INIT-ACPT.messages.current.log alog=qf/a/log/FIX.4.4-ACPT-INIT.messages.current.log &&
	python3 "$ORACLE" qf-log $ilog $alog INIT >wantq.json &&
	"$AUDIT" journal --spec "$SPEC_QF" --dict "$DICT_QF" --measured 40 --format qf-log --sender $ilog --receiver $alog \
		--latency --clock sender=this-host --clock receiver=this-host --receipt q.json >out &&
	agree q.json wantq.json &&
	grep -q "^pair 1 sender   latency INIT->ACPT: log line time (when sent) - SendingTime(52), one clock (this-host): 42 messages" out &&
	grep -q "^pair 1 sender   latency ACPT->INIT: log line time (when received) - SendingTime(52), one clock (this-host)" out &&
	grep -q "^pair 1 receiver latency INIT->ACPT: log line time (when received)" out &&
	grep -q "^pair 1 one-way  INIT->ACPT: the receiver${Q}s log line time (received) - the sender${Q}s (sent), one clock (this-host): 42 messages" out &&
	grep -q "^pair 1 one-way  ACPT->INIT: the sender${Q}s log line time (received) - the receiver${Q}s (sent)" out &&
	grep -q "^  resolution 1 us (the sender${Q}s stamps to 1 us, the receiver${Q}s to 1 us)$" out &&
	test "$(json_get q.json "min(f[\"min_ns\"] for f in d[\"facts\"][\"pairs\"][0][\"latency\"] if f[\"copy\"] == \"both\")")" -ge 0
'

test_expect_success 'a copy without times of its own (a QuickFIX store) says so and measures nothing' '
	[ -x "$QF" ] || test_skip_case "QuickFIX not built (tests/audit/qf-session)"
	"$AUDIT" journal --spec "$SPEC_QF" --dict "$DICT_QF" --measured 40 --sender qf/i/store/FIX.4.4-INIT-ACPT.body \
		--receiver qf/a/log/FIX.4.4-ACPT-INIT.messages.current.log --latency --receipt s.json >out &&
	grep -q "^pair 1 sender   latency INIT->ACPT: the qf-store keeps no time of its own: 42 messages not measured$" out &&
	grep -q "^pair 1 receiver latency INIT->ACPT: log line time (when received) - SendingTime(52), .*: 42 messages" out &&
	test "$(json_get s.json "d[\"facts\"][\"pairs\"][0][\"latency\"][0][\"left_out\"][\"unstamped\"]")" = 42
'

test_done
