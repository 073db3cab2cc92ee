#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The raw, QuickFIX store and QuickFIX log readers, on the messages of a
# generated pair rewritten in their layouts: each passes as written, and
# names the damage only it can see, at the right byte: bytes between the
# messages of a stream and a message cut short (stream-framing), a .header
# that indexes a message elsewhere or indexes one too many (store-index),
# a log line of another shape (log-line). Messages around the damage are
# still read, so nothing else is named.
. "$EV_SRCDIR/tests/lib/lib.sh"

COUNTS="--warmups 3 --measured 20"
Q="'"

test_expect_success 'setup: the messages of a pair as a raw stream, a FileStore and a FileLog' '
	"$GEN_JOURNAL" --file-size 4096 g 3 20 &&
	python3 - <<-\PY
	import os, struct
	msgs = []
	for n in (1, 2):
	    d = open("g/sender/%d.bin" % n, "rb").read()
	    count, = struct.unpack_from("<Q", d, 0)
	    p = 8
	    for _ in range(count):
	        ts, ok, ln = struct.unpack_from("<QBQ", d, p)
	        msgs.append(d[p + 17:p + 17 + ln])
	        p += 17 + ln
	open("stream.fix", "wb").write(b"".join(msgs))
	os.mkdir("store")
	header, off = [], 0
	for i, m in enumerate(msgs):
	    header.append(b"%d,%d,%d " % (i + 1, off, len(m)))
	    off += len(m)
	open("store/S.body", "wb").write(b"".join(msgs))
	open("store/S.header", "wb").write(b"".join(header))
	open("store/S.seqnums", "wb").write(b"%010d : %010d" % (len(msgs) + 1, 1))
	open("store/S.session", "wb").write(b"20261202-07:59:00")
	lines = []
	for i, m in enumerate(msgs):
	    lines.append(b"20261202-08:00:00.%09d : " % i + m + b"\n")
	    # the other direction, interleaved, as QuickFIX logs it
	    other = m.replace(b"\x0149=CLIENT1\x01", b"\x0149=EXECUTOR\x01").replace(b"\x0156=EXECUTOR\x01", b"\x0156=CLIENT1\x01")
	    lines.append(b"20261202-08:00:00.%09d : " % i + other + b"\n")
	open("session.log", "wb").write(b"".join(lines))
	PY
'

test_expect_success 'each layout passes as written, and the log keeps only its direction' '
	"$AUDIT" journal $COUNTS --sender stream.fix --receiver g/receiver --receipt r1.json >out1 &&
	grep -q "^pair 1 sender   stream.fix: raw, 1 file, 25 records" out1 &&
	"$AUDIT" journal $COUNTS --sender store/S.body --receiver session.log --receipt r2.json >out2 &&
	grep -q "qf-store, 1 file, 25 records" out2 &&
	test "$(json_get r2.json "sorted(i[\"name\"] for i in d[\"inputs\"] if i[\"name\"].startswith(\"pair 1 sender\"))")" = \
		"[${Q}pair 1 sender S.body${Q}, ${Q}pair 1 sender S.header${Q}, ${Q}pair 1 sender S.seqnums${Q}, ${Q}pair 1 sender S.session${Q}]" &&
	test "$(json_get r2.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"read_beside\"][\"S.seqnums\"]")" = \
		"next sender 26 checked against the last MsgSeqNum; next target 1 read, not checkable here (the peer${Q}s messages are in the peer${Q}s journal)" &&
	grep -q "qf-log, 1 file, 50 records (25 of the other direction left out): 23 orders" out2
'

test_expect_success 'stream-framing: junk between two messages, named where it starts' '
	python3 -c "
d = open(\"stream.fix\", \"rb\").read()
i = d.index(b\"8=FIXT.1.1\", 10)
open(\"junk.fix\", \"wb\").write(d[:i] + b\"garbage\" + d[i:])
print(i)" >at &&
	test_expect_code 1 "$AUDIT" journal $COUNTS --sender junk.fix --receipt f1.json 2>err &&
	grep -q "^audit: pair 1 sender: junk.fix: byte $(cat at): stream-framing" err &&
	test "$(json_get f1.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"]")" = "{${Q}stream-framing${Q}: 1}"
'

test_expect_success 'stream-framing: a stream that ends inside a message' '
	size=$(wc -c <stream.fix) && head -c $((size - 20)) stream.fix >cut.fix &&
	test_expect_code 1 "$AUDIT" journal --warmups 3 --measured 20 --sender cut.fix --receipt f2.json 2>err &&
	grep -q "stream-framing" err &&
	test "$(json_get f2.json "sorted(d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"])")" = "[${Q}stream-framing${Q}]"
'

test_expect_success 'store-index: a .header record pointing a byte off, and one record too many' '
	mkdir s2 && cp store/S.body store/S.seqnums store/S.session s2/ &&
	python3 -c "
recs = open(\"store/S.header\").read().split()
seq, off, size = recs[4].split(\",\")
recs[4] = \",\".join((seq, str(int(off) + 1), size))
open(\"s2/S.header\", \"w\").write(\" \".join(recs) + \" 26,99999,10 \")" &&
	test_expect_code 1 "$AUDIT" journal $COUNTS --sender s2/S.body --receipt f3.json 2>err &&
	grep -q "store-index: .header does not index this message where it is" err &&
	grep -q "store-index: .header indexes more than .body holds" err &&
	test "$(json_get f3.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"]")" = "{${Q}store-index${Q}: 2}"
'

test_expect_success 'log-line: a line of another shape, named at its byte; the messages around it are read' '
	python3 -c "
d = open(\"session.log\", \"rb\").read()
i = d.index(b\"\\n\", 1000) + 1
open(\"bad.log\", \"wb\").write(d[:i] + b\"not a log line\\n\" + d[i:])
print(i)" >at &&
	test_expect_code 1 "$AUDIT" journal $COUNTS --sender bad.log --receipt f4.json 2>err &&
	grep -q "^audit: pair 1 sender: bad.log: byte $(cat at): log-line" err &&
	test "$(json_get f4.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"]")" = "{${Q}log-line${Q}: 1}"
'

test_done
