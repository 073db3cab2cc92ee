#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal against a real FIX engine: Debian's QuickFIX sends 50
# NewOrderSingles from an initiator to an acceptor over loopback TCP, both
# validating with QuickFIX's FIX44.xml and persisting with FileStore and
# FileLog. audit reads what QuickFIX wrote (the initiator's store as the
# sender, the acceptor's message log, filtered to the initiator's
# direction, as the receiver), passes it, and names one byte flipped in
# either copy, and an index record of the store that no longer fits.
. "$EV_SRCDIR/tests/lib/lib.sh"

QF="$EV_BUILDDIR/tests/audit/qf-session"
[ -x "$QF" ] || test_skip_all "QuickFIX not found at configure time (apt-get install libquickfix-dev)"

SPEC="$EV_SRCDIR/share/audit/quickfix-fix44-new-order.json" # shipped: the spec of a QuickFIX FIX.4.4 order session
DICT="$EV_SRCDIR/share/fix/FIX44.xml"
STORE=qf/initiator/store/FIX.4.4-INIT-ACPT
LOG=qf/acceptor/log/FIX.4.4-ACPT-INIT.messages.current.log
Q="'"

# audit_qf SENDER RECEIVER [options]
audit_qf () {
	s=$1 r=$2
	shift 2
	"$AUDIT" journal --spec "$SPEC" --dict "$DICT" --sender "$s" --receiver "$r" "$@"
}

test_expect_success 'setup: QuickFIX sends 50 orders from initiator to acceptor and logs out' '
	mkdir -p qf/acceptor qf/initiator && port=$(free_port) &&
	{ "$QF" acceptor qf/acceptor $port "$DICT" & } && acceptor=$! &&
	i=0 && while [ ! -e qf/acceptor/listening ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done &&
	test -e qf/acceptor/listening &&
	{ "$QF" initiator qf/initiator $port "$DICT" logon send:50 logout || { kill $acceptor; false; }; } &&
	wait $acceptor && test "$(cat qf/acceptor/received)" = 50 &&
	test -s $STORE.body && test -s $STORE.header && test -s $LOG &&
	grep -c "35=D" $LOG >orders && test "$(cat orders)" = 50
'

test_expect_success 'audit passes what QuickFIX wrote, both copies, every message compared (Logon and Logout too)' '
	audit_qf $STORE.body $LOG --receipt ok.json >stdout &&
	grep -q "^pair 1 sender .*: qf-store, 1 file, 52 records: 50 orders (expected 50)" stdout &&
	grep -q "^pair 1 receiver .*: qf-log, 1 file, .*: 50 orders (expected 50)" stdout &&
	grep -q "^OK: 2 sides, 100 orders, 0 findings" stdout &&
	grep -q "^checked every record against [0-9]* rules; copies compared message by message; the log${Q}s other direction left out$" stdout &&
	test "$(json_get ok.json "d[\"facts\"][\"coverage\"][\"not_read\"]")" = "none: every byte of every journal file, zero tails included" &&
	json_get ok.json "\"\\n\".join(d[\"facts\"][\"coverage\"][\"not_checked\"])" >not &&
	grep -q "^2 messages of the other direction in a log: read, left out$" not &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"messages_compared\"]")" = 52 &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"skipped_other_direction\"]")" -ge 2
'

test_expect_success 'every store file the audit relied on is among the receipt'"'"'s inputs, with its SHA-256' '
	for f in body header seqnums session; do
		test "$(json_get ok.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"pair 1 sender FIX.4.4-INIT-ACPT.$f\"][0]")" = \
			"$(sha256_of $STORE.$f)" || return 1
	done &&
	json_get ok.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"read_beside\"][\"FIX.4.4-INIT-ACPT.header\"]" >said &&
	grep -q "^52 records checked against .body (MsgSeqNum, offset, size), 0 did not fit$" said
'

test_expect_success 'the store is found from its prefix, as QuickFIX names it, with or without its dot' '
	audit_qf $STORE $LOG --receipt prefix.json >/dev/null &&
	audit_qf $STORE. $LOG --receipt prefix-dot.json >/dev/null
'

test_expect_success 'a dictionary of another version is refused before the first message, with the one to name' '
	test_expect_code 2 "$AUDIT" journal --spec "$SPEC" --sender $STORE.body --receiver $LOG --receipt d.json 2>err &&
	grep -q "^audit: $STORE.body: its messages are FIX.4.4, and the dictionaries given are FIXT.1.1, FIX.5.0: name the dictionary of that version (--dict FIX44.xml)$" err &&
	test "$(wc -l <err)" = 1 && test_must_be_absent d.json
'

test_expect_success 'a spec whose counts miss the store says so first' '
	test_expect_code 1 audit_qf $STORE.body $LOG --measured 5000 --receipt n.json 2>err &&
	head -n 1 err >first &&
	echo "audit: pair 1 sender: expected 5000 orders (0 warmups + 5000 measured), found 50: if the run was of another size, say --warmups and --measured" >expect &&
	test_cmp expect first
'

test_expect_success '--format per side: a raw copy named like a log read as raw beside the store' '
	cp $STORE.body copy.log &&
	test_expect_code 1 audit_qf $STORE.body copy.log --receipt wrong.json >out 2>err &&
	grep -q "log-line" err &&
	audit_qf $STORE.body copy.log --receiver-format raw --receipt right.json >out &&
	grep -q "^pair 1 receiver copy.log: raw, 1 file, 52 records" out &&
	test_expect_code 2 audit_qf $STORE.body copy.log --receiver-format tar --receipt no.json 2>err &&
	grep -q "^audit: option --receiver-format: expected llfix, raw, qf-store or qf-log, found ${Q}tar${Q}$" err
'

test_expect_success 'a .header named where the .body belongs: refused with the name to give' '
	test_expect_code 2 audit_qf $STORE.header $LOG --receipt h.json 2>err &&
	grep -q "^audit: $STORE.header: a QuickFIX store${Q}s header, not its messages: name $STORE.body (or the prefix), and the header is read beside it$" err &&
	test_must_be_absent h.json
'

# flip_digit FILE N: the last digit of the N-th TransactTime (60=) in FILE
# turned into another digit; prints its record as audit numbers it.
flip_digit () {
	python3 - "$1" "$2" <<-\EOF
	import re, sys
	path, n = sys.argv[1], int(sys.argv[2])
	data = bytearray(open(path, "rb").read())
	m = list(re.finditer(rb"\x0160=[0-9-:.]+\x01", bytes(data)))[n - 1]
	at = m.end() - 2
	data[at] = ord("0") + (data[at] - ord("0") + 1) % 10
	open(path, "wb").write(bytes(data))
	EOF
}

test_expect_success 'one byte flipped in the sender'"'"'s store: its checksum, and the copies disagree' '
	rm -rf m && cp -R qf m && flip_digit m/initiator/store/FIX.4.4-INIT-ACPT.body 7 &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body \
		m/acceptor/log/FIX.4.4-ACPT-INIT.messages.current.log --receipt f1.json >stdout 2>stderr &&
	grep -q "pair 1 sender: m/initiator/store/FIX.4.4-INIT-ACPT.body: record 8 (byte [0-9]*): checksum" stderr &&
	grep -q "pair 1 receiver: .*cross-agreement: message MsgSeqNum 8 differs from the sender" stderr &&
	test "$(json_get f1.json "sorted(d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"])")" = "[${Q}checksum${Q}]"
'

test_expect_success 'one byte flipped in the receiver'"'"'s log: its checksum there, and the copies disagree' '
	rm -rf m && cp -R qf m && flip_digit m/acceptor/log/FIX.4.4-ACPT-INIT.messages.current.log 20 &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body \
		m/acceptor/log/FIX.4.4-ACPT-INIT.messages.current.log --receipt f2.json >stdout 2>stderr &&
	grep -q "pair 1 receiver: .*messages.current.log: record [0-9]* (byte [0-9]*): checksum" stderr &&
	grep -q "cross-agreement: message MsgSeqNum 21 differs from the sender" stderr &&
	test "$(json_get f2.json "sorted(d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"])")" = "[]"
'

test_expect_success 'a .header record that no longer fits the .body: store-index' '
	rm -rf m && cp -R qf m &&
	python3 -c "
import sys
p = sys.argv[1]
recs = open(p).read().split()
seq, off, size = recs[2].split(\",\")
recs[2] = \",\".join((seq, str(int(off) + 1), size))
open(p, \"w\").write(\" \".join(recs) + \" \")
" m/initiator/store/FIX.4.4-INIT-ACPT.header &&
	! cmp -s qf/initiator/store/FIX.4.4-INIT-ACPT.header m/initiator/store/FIX.4.4-INIT-ACPT.header &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body $LOG --receipt f3.json 2>stderr &&
	grep -q "store-index: .header does not index this message where it is" stderr &&
	test "$(json_get f3.json "sorted(d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"])")" = "[${Q}store-index${Q}]"
'

test_expect_success 'a .header sequence number edited: the message it no longer numbers is named' '
	rm -rf m && cp -R qf m &&
	sed -i "s/ 3,/ 30,/" m/initiator/store/FIX.4.4-INIT-ACPT.header &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body $LOG --receipt f4.json 2>stderr &&
	grep -q "FIX.4.4-INIT-ACPT.body: byte [0-9]*: store-index: .header gives this message another sequence number than its MsgSeqNum (expected seq 3, offset [0-9]*, size [0-9]*, found seq 30, offset [0-9]*, size [0-9]*)" stderr
'

test_expect_success '.seqnums edited: the next sender number that is not the last MsgSeqNum + 1 is named' '
	rm -rf m && cp -R qf m &&
	printf "0000000060 : 0000000003" >m/initiator/store/FIX.4.4-INIT-ACPT.seqnums &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body $LOG --receipt f5.json 2>stderr &&
	grep -q "store-index: .seqnums${Q} next sender number is not the last stored MsgSeqNum + 1 (expected next sender 53, found next sender 60)" stderr &&
	test "$(json_get f5.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"].endswith(\".seqnums\")][0]")" = \
		"$(sha256_of m/initiator/store/FIX.4.4-INIT-ACPT.seqnums)"
'

test_expect_success '.session later than the first message, or missing: named, never skipped' '
	rm -rf m && cp -R qf m &&
	printf "20991231-00:00:00" >m/initiator/store/FIX.4.4-INIT-ACPT.session &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body $LOG --receipt f6.json 2>stderr &&
	grep -q "store-index: .session was created after the first stored message was sent" stderr &&
	rm m/initiator/store/FIX.4.4-INIT-ACPT.session &&
	test_expect_code 1 audit_qf m/initiator/store/FIX.4.4-INIT-ACPT.body $LOG --receipt f7.json 2>stderr &&
	grep -q "store-index: m/initiator/store/FIX.4.4-INIT-ACPT.session beside the .body cannot be read (the session${Q}s creation time): No such file or directory" stderr
'

test_expect_success 'a FIFO where the .header belongs: refused at once, not waited on' '
	rm -rf m && cp -R qf m && rm m/initiator/store/FIX.4.4-INIT-ACPT.header &&
	mkfifo m/initiator/store/FIX.4.4-INIT-ACPT.header &&
	test_expect_code 1 timeout 10 "$AUDIT" journal --spec "$SPEC" --dict "$DICT" \
		--sender m/initiator/store/FIX.4.4-INIT-ACPT.body --receiver $LOG --receipt f8.json 2>stderr &&
	grep -q "store-index: m/initiator/store/FIX.4.4-INIT-ACPT.header beside the .body cannot be read (the index of the .body): not a regular file (expected a regular file, found not a regular file)" stderr &&
	rm m/initiator/store/FIX.4.4-INIT-ACPT.header
'

test_done
