#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign reads the whole session and everything published: the
# sender's outgoing journal against the peer's incoming one (the orders)
# and the peer's outgoing journal against the sender's incoming one (its
# Logon and Logout answers, no order expected), each with its own pair;
# beside a report, what the sender printed on stdout is compared with the
# series too. Each alteration of one of them (an edited peer-outgoing
# journal, an edited P99 on stdout) fails the run, named; the coverage
# says exactly what was read and names each declared output no reader
# here reads.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"

test_expect_success 'setup: a campaign whose pair journals both directions, with a series, a report and a printed block' '
	P=$EV_BUILDDIR/capture/pair &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "both", "warmups": 20, "measured": 300, "repeats": 1, "port": 11004,
	 "cells": [
	  {"name": "plain", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin",
	     "--journal", "{out:journal}", "--outgoing-journal", "{out:outgoing}", "--journal-file-size", "262144"], "cpu": 0,
	     "outputs": {"journal": "journal/peer-in", "outgoing": "journal/peer-out"}, "ready": {"tcp_listen": 11004}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--incoming-journal", "{out:incoming}",
	     "--journal-file-size", "262144", "--series", "{out:series}", "--report", "{out:report}",
	     "--rate", "100000", "--delay-series", "{out:extra}"], "cpu": 1,
	     "outputs": {"journal": "journal/sender-out", "incoming": "journal/sender-in", "series": "series.bin",
	                 "report": "report.json", "extra": "extra.bin"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null &&
	r=c/runs/001-baseline-plain-1 && grep -q "P99" $r/native/sender.stdout && test -s $r/journal/peer-out/1.bin
'

test_expect_success 'both directions audited, each its own pair; stdout compared beside the report; the coverage exact' '
	"$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"journal_pair\"], d[\"runs\"][0][\"journal_pair_reverse\"]")" = "1 2" &&
	test "$(json_words s/audit-journal.json "[(p[\"sender\"][\"expected_orders\"], p[\"sender\"][\"orders\"]) for p in d[\"facts\"][\"pairs\"]]")" = "320 320 0 0" &&
	test "$(json_words s/summary.json "sorted(set(x[\"verdict\"] for x in d[\"runs\"][0][\"native_stdout\"][\"statistics\"]))")" != "" &&
	json_words s/receipt.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"journals\"]" >journals &&
	grep -q "^2 runs. pairs (1 of them the other way), 0 findings (audit-journal.json)$" journals &&
	json_words s/receipt.json "d[\"facts\"][\"coverage\"][\"recomputed\"]" >recomputed &&
	grep -q "the other direction of 1 run: the peer.s outgoing journal against the sender.s incoming one, no order expected" recomputed &&
	grep -q "what the sender printed beside its report, in 1 run: compared with the series too" recomputed &&
	json_words s/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"]" >not-checked &&
	grep -q "the sender.s output extra of 1 run: declared, not read" not-checked &&
	! grep -q "output incoming\|output outgoing\|output report\|output series" not-checked &&
	grep -q "native stdout" s/receipt.json
'

test_expect_success 'the same run with its delay series declared as such: paced at the rate its report states' '
	cp -R c dl && rm -f dl/receipt-capture*.json &&
	python3 - dl/runs/001-baseline-plain-1/run.json <<-\PY &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	out = [p for p in d["processes"] if p["role"] == "sender"][0]["outputs"]
	out["delay_series"] = out.pop("extra")
	json.dump(d, open(sys.argv[1], "w"))
	PY
	"$AUDIT" campaign dl -o sdl >out 2>err &&
	test "$(json_words sdl/summary.json "d[\"runs\"][0][\"pacing\"][\"rate\"]")" = 100000 &&
	test "$(json_words sdl/summary.json "d[\"runs\"][0][\"pacing\"][\"missed_and_reanchored\"]")" = "$(json_words c/runs/001-baseline-plain-1/report.json "d[\"pacing\"][\"missed\"]")"
'

test_expect_success 'an edited byte in the peer'"'"'s outgoing journal: the reverse pair names it, the run fails' '
	cp -R c e1 && chmod -R u+w e1 && f=e1/runs/001-baseline-plain-1/journal/peer-out/1.bin &&
	python3 - "$f" <<-\PY &&
	import sys
	p = sys.argv[1]
	b = bytearray(open(p, "rb").read())
	i = b.index(b"\x0149=") + 4  # the first SenderCompID value of the Logon answer
	b[i] ^= 0x20
	open(p, "wb").write(bytes(b))
	PY
	test_expect_code 1 "$AUDIT" campaign e1 -o s1 >out 2>err &&
	grep -q "^audit: pair 2 .*journal/peer-out/1.bin" err &&
	grep -q "^audit: 001-baseline-plain-1: runs/001-baseline-plain-1/journal/peer-out/1.bin: its SHA-256 is not the one receipt-capture.json recorded" err &&
	test "$(json_words s1/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"journals\"]")" = fail
'

test_expect_success 'a P99 edited on stdout beside an honest report: named against the series, the run fails' '
	cp -R c e2 && chmod -R u+w e2 && f=e2/runs/001-baseline-plain-1/native/sender.stdout &&
	sed "s/\(P99.* : \)[0-9]*\(\.0* nanoseconds\)/\11\2/" c/runs/001-baseline-plain-1/native/sender.stdout >$f &&
	! cmp -s $f c/runs/001-baseline-plain-1/native/sender.stdout &&
	rm e2/receipt-capture.json &&
	test_expect_code 1 "$AUDIT" campaign e2 -o s2 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: $f: p99: differs (native 1.000000, recomputed " err &&
	test "$(json_words s2/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-plain-1 statistics\"]")" = fail
'

test_expect_success 'a declared reverse journal that is not there fails the run, named' '
	cp -R c e3 && chmod -R u+w e3 && rm -r e3/runs/001-baseline-plain-1/journal/sender-in &&
	test_expect_code 1 "$AUDIT" campaign e3 -o s3 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: the sender.s incoming journal e3/runs/001-baseline-plain-1/journal/sender-in: missing$" err
'

test_done
