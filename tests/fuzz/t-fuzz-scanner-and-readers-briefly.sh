#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A short libFuzzer run of every target (the scanner, and the llfix, raw,
# qf-store and qf-log readers with every rule behind them, the series
# readers, and a hostile campaign's run.json and plan.json whose oracle
# is that nothing outside the campaign is opened), each from a
# seed corpus of real records: no crash, leak, out-of-bounds read or
# undefined behaviour (the targets are built with ASan and UBSan). Runs in
# the build configured with --enable-fuzzing (CC=clang); skips elsewhere.
# A longer run: tests/fuzz/fuzz-llfix -max_total_time=3600 CORPUS_DIR
# (doc/formats.md, "Fuzzing").
. "$EV_SRCDIR/tests/lib/lib.sh"

FUZZ="$EV_BUILDDIR/tests/fuzz"
[ -x "$FUZZ/fuzz-scanner" ] || test_skip_all "fuzz targets not built (configure CC=clang --enable-fuzzing)"
RUNS=${EV_FUZZ_RUNS:-20000}
# A quarantine of 16 MiB still holds every block one execution frees, so a
# use after free is still caught; with ASan's default of 256 MiB each
# execution faulted in fresh pages (350 MiB resident, not 95).
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

TARGETS="scanner llfix raw qf-store qf-log series campaign"

# fuzz TARGET: RUNS executions from the corpus TARGET, at most 4 KiB
# inputs, one worker; its output in fuzz-TARGET.log, its exit status in
# fuzz-TARGET.status.
fuzz () {
	"$FUZZ/fuzz-$1" -runs="$RUNS" -max_len=4096 -seed=1 -print_final_stats=1 "$1" >"fuzz-$1.log" 2>&1
	echo $? >"fuzz-$1.status"
}

# fuzz_all: every target, two at a time (each has one worker, and the
# machine two cores), the next started as soon as one ends.
fuzz_all () {
	export -f fuzz && export FUZZ RUNS &&
	printf "%s\n" $TARGETS | xargs -P 2 -n 1 bash -c 'fuzz "$0"'
}

# fuzzed TARGET: its run ended well and made every execution.
fuzzed () {
	test "$(cat "fuzz-$1.status")" = 0 || { tail -n 40 "fuzz-$1.log"; return 1; }
	grep -q "Done $RUNS runs" "fuzz-$1.log"
}

test_expect_success 'setup: seed corpora cut from a generated journal pair' '
	"$GEN_JOURNAL" --file-size 2048 g 1 10 &&
	mkdir llfix raw qf-store qf-log scanner &&
	python3 - <<-\PY
	import struct
	# each reader target takes a leading byte: how reads cut the rest
	open("llfix/a", "wb").write(b"\x10" + open("g/sender/1.bin", "rb").read())
	open("llfix/b", "wb").write(b"\xff" + open("g/receiver/2.bin", "rb").read())
	d = open("g/sender/1.bin", "rb").read()
	n, = struct.unpack_from("<Q", d, 0)
	msgs, p = [], 8
	for _ in range(n):
	    ts, ok, ln = struct.unpack_from("<QBQ", d, p)
	    msgs.append(d[p + 17:p + 17 + ln])
	    p += 17 + ln
	for i, m in enumerate(msgs):
	    open("scanner/%d" % i, "wb").write(m)
	open("raw/a", "wb").write(b"\x02" + b"".join(msgs))
	# qf-store: the .body, then as the second half the .header, padded with
	# the spaces its records may be separated by
	body = b"".join(msgs)
	header, off = [], 0
	for i, m in enumerate(msgs):
	    header.append(b"%d,%d,%d " % (i + 1, off, len(m)))
	    off += len(m)
	hb = b"".join(header)
	hb += b" " * (len(body) - len(hb))
	open("qf-store/a", "wb").write(b"\x03" + body + hb)
	open("qf-log/a", "wb").write(b"\x05" + b"".join(b"20261202-08:00:00.000000000 : " + m + b"\n" for m in msgs))
	# and with ExecutionReports from the peer, which the qf-log target follows
	ers = []
	for i in range(1, 6):
	    body = (b"35=8\x0134=%d\x0149=EXECUTOR\x0152=20261202-08:00:00.001\x0156=CLIENT1\x016=10000\x0111=%d\x01"
	            b"14=10\x0117=E%d\x0131=10000\x0132=10\x0138=10\x0139=2\x01150=F\x01151=0\x01" % (i + 1, i, i))
	    head = b"8=FIXT.1.1\x019=%d\x01" % len(body)
	    ers.append(head + body + b"10=%03d\x01" % (sum(head + body) % 256))
	mixed = [x for pair in zip(msgs, ers + msgs[len(ers):]) for x in pair]
	open("qf-log/b", "wb").write(b"\x05" + b"".join(b"20261202-08:00:00.000000000 : " + m + b"\n" for m in mixed))
	# series and reports: each shape the readers know
	import os
	os.makedirs("series")
	head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	open("series/bin", "wb").write(head + struct.pack("<QQQQ", 10**9, 0, 5, 0) + struct.pack("<5Q", 5, 1, 9, 7, 3))
	open("series/csv", "w").write("# evidence-series/1 clock=x ticks_per_second=1000000000 count=3\n3\n1\n2\n")
	open("series/sockperf", "w").write("sockperf: ---> percentile 50.000 =   12.720\n"
	    "sockperf: ====> avg-latency=13.352 (std-dev=1)\n------------------------------\n"
	    "packet, txTime(sec), rxTime(sec), latency(usec)\n0, 2.435845963, 2.436907803, 530.920\n"
	    "1, 2.436907953, 2.436969882, 30.965\n------------------------------\n")
	open("series/llfix", "w").write("\033[0;34mTitle\033[0m : New order\n\033[0;34mSample count\033[0m : 3\n"
	    "\033[0;34mMaximum\033[0m : 4.76819e+08 nanoseconds\n\033[0;34mP50\033[0m : 2.000000 nanoseconds\n")
	open("series/pair", "w").write("{\"format\":\"evidence-pair-report/1\",\"stats\":{\"count\":3,\"mean\":2.5,\"p50\":2}}\n")
	# a hostile campaign: a run.json, NUL, a plan.json; honest, climbing,
	# absolute and linked paths to start from
	os.makedirs("campaign")
	plan = b"{\"format\":\"evidence-plan/1\",\"name\":\"c\",\"cells\":[{\"name\":\"a\"}]}"
	for i, outputs in enumerate(["{\"series\":\"series/send.bin\",\"journal\":\"journal\"}",
	                             "{\"series\":\"../../../secret\"}", "{\"series\":\"/etc/passwd\"}",
	                             "{\"series\":\"escape\"}", "{\"journal\":\".\"}"]):
	    run = ("{\"format\":\"evidence-run/1\",\"name\":\"001-a-1\",\"processes\":[{\"role\":\"sender\","
	           "\"outputs\":%s,\"stdout\":\"native/sender.stdout\"}],\"observers\":[{\"outputs\":"
	           "[{\"stdout\":\"series/send.bin\"}]}],\"tcp_samples\":\"native/sender.stdout\"}" % outputs).encode()
	    open("campaign/%d" % i, "wb").write(run + b"\0" + plan)
	PY
'

# Inputs that once crashed a target (tests/fuzz/regress/TARGET-what): each
# is replayed alone before any fuzzing.
test_expect_success 'every input that once crashed a target is replayed without a crash' '
	for f in "$EV_SRCDIR"/tests/fuzz/regress/*; do
		t=$(basename "$f" | sed "s/^\(scanner\|llfix\|raw\|qf-store\|qf-log\|series\|campaign\)-.*/\1/") &&
		"$FUZZ/fuzz-$t" "$f" >replay.log 2>&1 || { tail -n 30 replay.log; return 1; }
	done
'

test_expect_success 'every target fuzzed, two at a time' '
	fuzz_all
'

for target in $TARGETS; do
	test_expect_success "fuzz-$target: $RUNS runs without a crash, leak or undefined behaviour" "
		fuzzed $target
	"
done

test_done
