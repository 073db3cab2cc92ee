#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The reference pair (fix-sender, fix-receiver) writes what the llfix TX
# benchmark writes (../shared/formats/llfix.md), as an independent little
# reader written here sees it: per N.bin file a u64 count, exactly that
# many packed records (u64 realtime ns, u8 success 1, u64 length, a FIX
# message), zeros to the end, files of the asked size, mode 0600, rotated
# only when the next record did not fit; a Logon, ClOrdID 1.. and
# MsgSeqNum 2.. without a gap, a Logout; the receiver's copy equal to the
# sender's. Its statistics block and report agree with its raw series
# under llfix's floor-index rule, and audit passes both journals.
. "$EV_SRCDIR/tests/lib/lib.sh"

cat >reader.py <<'PY'
import struct, sys, os, re

def read_journal(d, file_size):
    """Every record of an llfix journal directory, checking its layout."""
    names = sorted(os.listdir(d), key=lambda n: int(n.split(".")[0]))
    assert names == ["%d.bin" % (i + 1) for i in range(len(names))], names
    records, prev_left = [], None
    for n in names:
        data = open(os.path.join(d, n), "rb").read()
        st = os.stat(os.path.join(d, n))
        assert len(data) == file_size, (n, len(data))
        assert st.st_mode & 0o777 == 0o600, (n, oct(st.st_mode))
        count, = struct.unpack_from("<Q", data, 0)
        p = 8
        for i in range(count):
            ts, ok, ln = struct.unpack_from("<QBQ", data, p)
            assert ok == 1 and 1.7e18 < ts < 2.2e18, (n, i, ok, ts)
            msg = data[p + 17:p + 17 + ln]
            assert len(msg) == ln and msg.startswith(b"8=FIXT.1.1\x01"), (n, i)
            if i == 0 and prev_left is not None:
                assert prev_left < 17 + ln, ("rotated early", n, prev_left, ln)
            records.append(msg)
            p += 17 + ln
        assert data[p:] == bytes(len(data) - p), ("nonzero tail", n, p)
        prev_left = len(data) - p
    return records, len(names)

def field(msg, tag):
    m = re.search(rb"\x01" + tag + rb"=([^\x01]*)\x01", msg)
    return m.group(1).decode() if m else None

if __name__ == "__main__":
    sender, files = read_journal(sys.argv[1], int(sys.argv[3]))
    receiver, _ = read_journal(sys.argv[2], int(sys.argv[3]))
    orders = int(sys.argv[4])
    assert receiver == sender, "the receiver's copy differs"
    assert len(sender) == orders + 2, len(sender)
    assert field(sender[0], b"35") == "A" and field(sender[0], b"34") == "1"
    assert field(sender[-1], b"35") == "5" and field(sender[-1], b"34") == str(orders + 2)
    for i, m in enumerate(sender[1:-1], 1):
        assert field(m, b"35") == "D" and field(m, b"11") == str(i) and field(m, b"34") == str(i + 1), i
        assert b"\x01453=2\x01448=PARTY1\x01447=D\x01452=1\x01448=PARTY2\x01447=D\x01452=3\x01" in m
    print(files)
PY

test_expect_success 'a pair on loopback, journals in 64 KiB files so that they rotate' '
	"$FIX_RECEIVER" --listen 127.0.0.1:0 --mode epoll >/dev/null 2>err;
	test "$(cat err)" = "fix-receiver: option port: expected a number from 1 to 65535, found '"'"'0'"'"'" &&
	port=$(free_port) &&
	{ "$FIX_RECEIVER" --listen 127.0.0.1:$port --mode spin --journal rj --journal-file-size 65536 \
		--outgoing-journal ro >recv.out 2>recv.err & } &&
	"$FIX_SENDER" --connect 127.0.0.1:$port --warmups 50 --measured 3000 --journal sj \
		--incoming-journal si --journal-file-size 65536 --series series.bin --report report.json \
		>send.out 2>send.err &&
	wait $! &&
	grep -q "^Messages received : 3052 (3050 orders)" recv.out
'

test_expect_success 'an independent reader finds the llfix layout exactly, both copies equal' '
	test "$(python3 reader.py sj rj 65536 3050)" -gt 10 &&
	test "$(python3 reader.py si ro 65536 0)" = 1
'

test_expect_success 'the statistics block and the report agree with the raw series, floor-index rule' '
	python3 - <<-\PY
	import json, re, struct
	raw = open("series.bin", "rb").read()
	magic, version, header = raw[:8], *struct.unpack_from("<II", raw, 8)
	clock = raw[16:48].rstrip(b"\0").decode()
	tps, source, n = struct.unpack_from("<QQQ", raw, 48)
	assert (magic, version, header, clock, tps, source, n) == (b"EVSERIES", 1, 80, "CLOCK_MONOTONIC_RAW", 10**9, 0, 3000)
	s = sorted(struct.unpack_from("<%dQ" % n, raw, 80))
	block = re.sub(r"\x1b\[[0-9;]*m", "", open("send.out").read())
	got = dict(re.findall(r"^(\w[\w ]*?) : ([^\n]*) nanoseconds$", block, re.M))
	want = {"Minimum": "%g" % s[0], "Maximum": "%g" % s[-1], "Average": "%f" % (sum(s) / n)}
	for p in (50, 75, 90, 95, 99):
	    want["P%d" % p] = "%f" % s[n * p // 100]
	assert got == want, (got, want)
	assert "Sample count : 3000" in block and "Antistall mock order count : 50" in block
	r = json.load(open("report.json"))
	assert r["stats"]["p99"] == s[n * 99 // 100] and r["stats"]["sum"] == sum(s) and r["rule"] == "floor-index"
	assert r["journal"] == {"files": r["journal"]["files"], "records": 3052}
	PY
'

test_expect_success 'audit journal passes both copies' '
	"$AUDIT" journal --warmups 50 --measured 3000 --sender sj --receiver rj --receipt a.json >out &&
	grep -q "^OK: 2 sides, 6100 orders, 0 findings" out
'

test_expect_success 'the sender refuses to replace a series, and says what it was asked' '
	port=$(free_port) &&
	{ "$FIX_RECEIVER" --listen 127.0.0.1:$port >/dev/null 2>&1 & } &&
	test_expect_code 1 "$FIX_SENDER" --connect 127.0.0.1:$port --warmups 0 --measured 10 \
		--series series.bin >/dev/null 2>err &&
	wait &&
	grep -q "^fix-sender: series.bin: cannot create: File exists" err &&
	test_expect_code 2 "$FIX_SENDER" --connect 127.0.0.1:1 --delay-series d.bin 2>err &&
	grep -q "^fix-sender: --delay-series needs --rate (an unpaced run has no deadlines)" err
'

test_expect_success 'paced: never faster than asked, and every missed deadline is a delay of a whole interval' '
	port=$(free_port) &&
	{ "$FIX_RECEIVER" --listen 127.0.0.1:$port >/dev/null 2>&1 & } &&
	"$FIX_SENDER" --connect 127.0.0.1:$port --warmups 100 --measured 2000 --rate 10000 \
		--delay-series delay.bin --report paced.json >paced.out &&
	wait &&
	python3 -c "
import json, struct
r = json.load(open(\"paced.json\"))[\"pacing\"]
d = open(\"delay.bin\", \"rb\").read()
n, = struct.unpack_from(\"<Q\", d, 64)
delays = struct.unpack_from(\"<%dQ\" % n, d, 80)
# re-anchored, never caught up: no faster than the rate, whatever the load
assert n == 2000 and r[\"rate\"] == 10000 and r[\"interval_ns\"] == 100000 and 0 < r[\"achieved\"] <= 10000 * 1.001, r
assert r[\"missed\"] == sum(1 for x in delays if x >= 100000), (r[\"missed\"], sorted(delays)[-5:])
assert r[\"delay\"][\"max\"] == max(delays) and r[\"delay\"][\"count\"] == n
" &&
	grep -q "^Pacing : 10000 orders/s asked" paced.out
'

test_done
