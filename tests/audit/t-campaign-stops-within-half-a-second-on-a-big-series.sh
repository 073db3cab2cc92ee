#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A signal stops audit campaign and audit series within half a second
# whatever the size of the series, on a loaded machine: a run whose
# series holds 10^8 samples (800 MB), SIGTERM at moments spread over its
# loading, hashing, passes, order statistics and distribution, two CPU
# hogs running. Exit 2, no OUTDIR, no receipt. A stop over the bound is
# measured once more: the VM can stall any process that long, while a
# slow stop is slow twice.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
/usr/bin/python3 -c "import numpy" 2>/dev/null || test_skip_all "python3-numpy missing (/usr/bin/python3)"

test_expect_success 'setup: a one-run campaign whose series holds 10^8 samples' '
	P=$EV_BUILDDIR/capture/pair &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "big", "port": 11014, "warmups": 10, "measured": 200, "repeats": 1,
	 "cells": [
	  {"name": "spin", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin"],
	     "cpu": 0, "ready": {"tcp_listen": 11014}},
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

# stopped_in_analysis DELAY: audit campaign c -o s, SIGTERM DELAY seconds
# after its OUTDIR's hidden directory appears (its runs loaded, the series
# about to be read: past any startup, a sanitizer's too); exit 2 within
# 0.5 s (times EV_TIME_SCALE), no OUTDIR, no temporary.
stopped_in_analysis () {
	python3 - "$AUDIT" "$1" <<-\PY
	import glob, os, signal, subprocess, sys, time
	audit, delay = sys.argv[1], float(sys.argv[2])
	within = 0.5 * float(os.environ["EV_TIME_SCALE"])
	def trial():
	    p = subprocess.Popen([audit, "campaign", "c", "-o", "s"], stdout=subprocess.DEVNULL,
	                         stderr=open("stopped.err", "w"))
	    start = time.monotonic()
	    while not glob.glob(".s.tmp-*"):
	        assert p.poll() is None, "ended (%s) before it began the analysis" % p.returncode
	        assert time.monotonic() - start < 60, "no OUTDIR was begun"
	        time.sleep(0.005)
	    time.sleep(delay)
	    assert p.poll() is None, "finished before the signal: the test needs a longer series"
	    t = time.monotonic()
	    p.send_signal(signal.SIGTERM)
	    code = p.wait(timeout=30)
	    return code, time.monotonic() - t
	code, took = trial()
	if code == 2 and took > within:
	    # it stops in 0.01-0.03 s here; a loaded VM stalls a process half a
	    # second now and then (0.53 s once in CI), and a slow stop is slow twice
	    print("took %.2f s, over %.2f s: measured once more" % (took, within), file=sys.stderr)
	    code, took = trial()
	assert code == 2, "exit %d after SIGTERM" % code
	assert took <= within, "took %.2f s to stop" % took
	assert not glob.glob("s") and not glob.glob(".s.tmp-*"), "an OUTDIR or its temporary is left"
	PY
}

test_expect_success 'audit campaign: SIGTERM 0, 0.1 and 0.2 s into the analysis, two CPU hogs running: exit 2 within 0.5 s, nothing written' '
	hogs &&
	for t in 0 0.1 0.2; do
		stopped_in_analysis $t || { kill $(jobs -p) 2>/dev/null; return 1; }
		grep -q "interrupted by a signal; nothing is claimed" stopped.err || { kill $(jobs -p) 2>/dev/null; return 1; }
	done &&
	kill $(jobs -p) 2>/dev/null; wait; true
'

test_expect_success 'audit series on the same series: SIGTERM at 0.3 and 0.5 s under load: exit 2 within 0.5 s' '
	s=$(ls -d c/runs/*)/series/send.bin && hogs &&
	for t in 0.3 0.5; do
		STOPPED_AFTER=$t stopped SIGTERM r.json "$AUDIT" series --receipt r.json "$s" || { kill $(jobs -p) 2>/dev/null; return 1; }
	done &&
	kill $(jobs -p) 2>/dev/null; wait; true
'

test_done
