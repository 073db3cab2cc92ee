#!/bin/sh
# audit journal against a real FIX engine: Debian's QuickFIX sends 50
# NewOrderSingles from an initiator to an acceptor over loopback TCP, both
# validating with QuickFIX's FIX44.xml and persisting with FileStore and
# FileLog. audit reads what QuickFIX wrote (the initiator's store as the
# sender, the acceptor's message log, filtered to the initiator's
# direction, as the receiver), passes it, and names one byte flipped in
# either copy, and an index record of the store that no longer fits.
. "$EV_SRCDIR/tests/lib/lib.sh"

QF_PAIR="$EV_BUILDDIR/tests/audit/qf-pair"
[ -x "$QF_PAIR" ] || test_skip_all "QuickFIX not found at configure time (apt-get install libquickfix-dev)"

SPEC="$EV_SRCDIR/tests/audit/qf-fix44-spec.json"
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

free_port () {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

test_expect_success 'setup: QuickFIX sends 50 orders from initiator to acceptor and logs out' '
	mkdir qf && "$QF_PAIR" qf "$(free_port)" 50 "$DICT" &&
	test -s $STORE.body && test -s $STORE.header && test -s $LOG &&
	grep -c "35=D" $LOG >orders && test "$(cat orders)" = 50
'

test_expect_success 'audit passes what QuickFIX wrote, both copies, every message compared (Logon and Logout too)' '
	audit_qf $STORE.body $LOG --receipt ok.json >stdout &&
	grep -q "^pair 1 sender .*: qf-store, 1 file, 52 records: 50 orders (expected 50)" stdout &&
	grep -q "^pair 1 receiver .*: qf-log, 1 file, .*: 50 orders (expected 50)" stdout &&
	grep -q "^OK: 2 sides, 100 orders, 0 findings" stdout &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"messages_compared\"]")" = 52 &&
	test "$(json_get ok.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"skipped_other_direction\"]")" -ge 2
'

test_expect_success 'the store is found from its prefix, as QuickFIX names it' '
	audit_qf $STORE $LOG --receipt prefix.json >/dev/null
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

test_done
