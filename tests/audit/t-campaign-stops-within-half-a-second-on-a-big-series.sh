#!/bin/sh
# A signal stops audit campaign and audit series within half a second
# whatever the size of the series, on a loaded machine: a run whose
# series holds 10^8 samples (800 MB), SIGTERM at moments spread over its
# loading, hashing, passes, order statistics and distribution, two CPU
# hogs running. Exit 2, no OUTDIR, no receipt.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
/usr/bin/python3 -c "import numpy" 2>/dev/null || test_skip_all "python3-numpy missing (/usr/bin/python3)"

test_expect_success 'setup: a one-run campaign whose series holds 10^8 samples' '
	P=$EV_BUILDDIR/capture/pair &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "big", "warmups": 10, "measured": 200, "repeats": 1,
	 "cells": [
	  {"name": "spin", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin"],
	     "cpu": 0, "ready": {"tcp_listen": 11001}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--series", "{out:series}"], "cpu": 1,
	     "outputs": {"series": "series/send.bin"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null &&
	s=$(ls -d c/runs/*)/series/send.bin && test -f "$s" &&
	/usr/bin/python3 - "$s" <<-\PY
	import numpy as np, struct, sys
	n = 10**8
	v = (1800 + np.random.default_rng(1).gamma(2.0, 150.0, n)).astype("<u8")
	head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	head += struct.pack("<QQQQ", 10**9, 0, n, 0)
	with open(sys.argv[1], "wb") as f:
	    f.write(head)
	    f.write(v.tobytes())
	PY
'

hogs () {
	for i in 1 2; do
		sh -c 'end=$(($(date +%s) + 30)); while [ "$(date +%s)" -lt $end ]; do :; done' &
	done
}

test_expect_success 'audit campaign: SIGTERM at 0.1, 0.25 and 0.4 s, two CPU hogs running: exit 2 within 0.5 s, nothing written' '
	hogs &&
	for t in 0.1 0.25 0.4; do
		STOPPED_AFTER=$t stopped SIGTERM s/receipt.json "$AUDIT" campaign c -o s || { kill $(jobs -p) 2>/dev/null; return 1; }
		grep -q "interrupted by a signal; nothing is claimed" stopped.err && test_must_be_absent s &&
		no_temporaries . || { kill $(jobs -p) 2>/dev/null; return 1; }
	done &&
	kill $(jobs -p) 2>/dev/null; wait; true
'

test_expect_success 'audit series on the same series: SIGTERM at 0.2 and 0.5 s under load: exit 2 within 0.5 s' '
	s=$(ls -d c/runs/*)/series/send.bin && hogs &&
	for t in 0.2 0.5; do
		STOPPED_AFTER=$t stopped SIGTERM r.json "$AUDIT" series --receipt r.json "$s" || { kill $(jobs -p) 2>/dev/null; return 1; }
	done &&
	kill $(jobs -p) 2>/dev/null; wait; true
'

test_done
