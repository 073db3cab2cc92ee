#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit compare on real summaries of controlled campaigns (every run a
# constant series, so each of its statistics is that constant): the
# medians, ratio and difference computed by hand; a bootstrap interval
# any seed must give (runs 100, 110, 120 against 80, 90: the difference
# spans -40 to -10) and one that only its seed gives, redrawn here in
# Python from splitmix64; "B lower in every run" only when it is so and
# "inconclusive" when the runs overlap; two whole campaigns compared cell
# by cell. Refused, with nothing written: an existing OUTDIR, a summary
# edited after its audit (exit 1, named), a FIFO, a summary older than
# in_cell_median, a summary listing a cell twice, nothing to compare; a
# signal leaves no OUTDIR.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: two controlled campaigns, audited' '
	cat >make.py <<-\PY &&
	import json, os, struct, sys
	def series(path, values):
	    head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	    head += struct.pack("<QQQQ", 10**9, 0, len(values), 0)
	    open(path, "wb").write(head + b"".join(struct.pack("<Q", v) for v in values))
	top, shift = sys.argv[1], int(sys.argv[2])
	os.makedirs(top + "/runs")
	json.dump({"format": "evidence-plan/1", "name": top, "cells": [{"name": "spin"}, {"name": "epoll"}, {"name": "wide"}]},
	          open(top + "/plan.json", "w"))
	k = 0
	for arm, cell, values in [("base", "spin", [100, 110, 120]), ("fast", "spin", [80, 90]),
	                          ("base", "epoll", [1, 10]), ("fast", "epoll", [5, 20]),
	                          ("base", "wide", [100, 103, 111, 118, 120, 131, 140]),
	                          ("fast", "wide", [95, 99, 104, 112, 125, 133])]:
	    for repeat, v in enumerate(values, 1):
	        k += 1
	        name = "%03d-%s-%s-%d" % (k, arm, cell, repeat)
	        d = "%s/runs/%s" % (top, name)
	        os.makedirs(d + "/series")
	        series(d + "/series/send.bin", [v + shift] * 50)
	        json.dump({"format": "evidence-run/1", "name": name, "arm": arm, "cell": cell, "repeat": repeat,
	                   "result": "ok", "counts": {"warmups": 0, "measured": 50},
	                   "processes": [{"role": "peer"}, {"role": "sender", "outputs": {"series": "series/send.bin"}}]},
	                  open(d + "/run.json", "w"))
	PY
	python3 make.py one 0 && python3 make.py two 1000 &&
	"$AUDIT" campaign one -o s >/dev/null && "$AUDIT" campaign two -o s2 >/dev/null
'

test_expect_success 'two arms: medians, ratio, difference and the interval any seed gives, by hand' '
	"$AUDIT" compare --unregistered --arm base --arm fast s -o c >out &&
	json_words c/comparison.json "[(p[\"a\"][\"arm\"], p[\"a\"][\"cell\"], p[\"b\"][\"arm\"], p[\"b\"][\"runs\"]) for p in d[\"pairs\"]]" >got &&
	echo "base spin fast 2 base epoll fast 2 base wide fast 6" >expect && test_cmp expect got &&
	for stat in 0 3 4 5; do
		json_words c/comparison.json "[(x[\"a\"][\"median\"], x[\"b\"][\"median\"], x[\"ratio_b_over_a\"], x[\"difference_b_minus_a\"], x[\"interval_difference\"], x[\"interval_ratio\"], x[\"verdict\"]) for x in [d[\"pairs\"][0][\"statistics\"][$stat]]]" >got &&
		echo "110.000000000 85.000000000 0.772727273 -25.000000000 -40.000000000 -10.000000000 0.666666667 0.900000000 B lower in every run" >expect &&
		test_cmp expect got || return 1
	done &&
	test "$(json_words c/comparison.json "[x[\"name\"] for x in d[\"pairs\"][0][\"statistics\"]]")" = "p50 p95 p99 p99.9 mean max" &&
	test "$(json_words c/comparison.json "[(r[\"run\"], r[\"value\"]) for r in d[\"pairs\"][0][\"statistics\"][0][\"a\"][\"runs\"]]")" = \
		"001-base-spin-1 100.000000000 002-base-spin-2 110.000000000 003-base-spin-3 120.000000000" &&
	grep -q "^statistic  *A median (ns)  *A min-max (ns)  *B median (ns)  *B min-max (ns)  *B/A  *95% of B/A  *B-A (ns)  *95% of B-A (ns)  *verdict$" out &&
	grep -q "^p50  *110  *100-120  *85  *80-90  *0.773  *0.667 to 0.900  *-25  *-40 to -10  *B lower in every run$" out &&
	grep -q "^| p99 | 110 | 100-120 | 85 | 80-90 | 0.773 | 0.667 to 0.900 | -25 | -40 to -10 | B lower in every run |$" c/comparison.md &&
	grep -q "^003-base-spin-3  *A  *120  *120  *120  *120  *120  *120$" out &&
	grep -q "^OK: 3 pairs compared; comparison c$" out
'

test_expect_success 'runs that overlap are inconclusive, whatever their medians' '
	json_words c/comparison.json "[(x[\"a\"][\"median\"], x[\"b\"][\"median\"], x[\"verdict\"]) for x in [d[\"pairs\"][1][\"statistics\"][0]]]" >got &&
	echo "5.500000000 12.500000000 inconclusive: runs overlap" >expect && test_cmp expect got &&
	test "$(json_words c/comparison.json "sorted(set(x[\"verdict\"] for x in d[\"pairs\"][1][\"statistics\"]))")" = "inconclusive: runs overlap"
'

test_expect_success 'the interval is the one its seed draws: splitmix64 redrawn in Python' '
	"$AUDIT" compare --unregistered --arm base --arm fast --cell wide --cell wide --seed 7 --resamples 2000 s -o w7 >/dev/null &&
	cat >redraw.py <<-\PY &&
	import json, math, sys
	M = (1 << 64) - 1
	class Rng:
	    def __init__(self, seed): self.s = seed
	    def next(self):
	        self.s = (self.s + 0x9e3779b97f4a7c15) & M
	        z = self.s
	        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
	        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
	        return z ^ (z >> 31)
	    def below(self, n): return (self.next() * n) >> 64
	def median(v):
	    v = sorted(v); n = len(v)
	    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
	a, b = [100, 103, 111, 118, 120, 131, 140], [95, 99, 104, 112, 125, 133]
	seed, R = int(sys.argv[1]), int(sys.argv[2])
	g, diffs, ratios = Rng(seed), [], []
	for _ in range(R):
	    ra = [a[g.below(len(a))] for _ in a]
	    rb = [b[g.below(len(b))] for _ in b]
	    diffs.append(median(rb) - median(ra)); ratios.append(median(rb) / median(ra))
	diffs.sort(); ratios.sort()
	lo = math.floor(R * 0.05 / 2); hi = R - 1 - lo
	print("%.9f %.9f %.9f %.9f" % (diffs[lo], diffs[hi], ratios[lo], ratios[hi]))
	PY
	python3 redraw.py 7 2000 >expect &&
	json_words w7/comparison.json "d[\"pairs\"][0][\"statistics\"][0][\"interval_difference\"] + d[\"pairs\"][0][\"statistics\"][0][\"interval_ratio\"]" >got &&
	test_cmp expect got &&
	test "$(json_words w7/receipt.json "(d[\"facts\"][\"bootstrap\"][\"seed\"], d[\"facts\"][\"bootstrap\"][\"resamples\"])")" = "7 2000"
'

test_expect_success 'the same seed, the same bytes; another seed, another interval' '
	"$AUDIT" compare --unregistered --arm base --arm fast --cell wide --cell wide --seed 7 --resamples 2000 s -o w7again >/dev/null &&
	cmp w7/comparison.json w7again/comparison.json && cmp w7/comparison.md w7again/comparison.md &&
	"$AUDIT" compare --unregistered --arm base --arm fast --cell wide --cell wide --seed 8 --resamples 2000 s -o w8 >/dev/null &&
	python3 redraw.py 8 2000 >expect8 &&
	json_words w8/comparison.json "d[\"pairs\"][0][\"statistics\"][0][\"interval_difference\"] + d[\"pairs\"][0][\"statistics\"][0][\"interval_ratio\"]" >got8 &&
	test_cmp expect8 got8 && ! test_cmp expect got8 2>/dev/null
'

test_expect_success 'two whole campaigns, arm by arm and cell by cell; the receipt names both by SHA-256' '
	"$AUDIT" compare --unregistered s s2 -o both >out &&
	test "$(json_words both/comparison.json "len(d[\"pairs\"])")" = 6 &&
	test "$(json_words both/comparison.json "sorted(set(x[\"verdict\"] for p in d[\"pairs\"] for x in p[\"statistics\"]))")" = "A lower in every run" &&
	test "$(json_words both/receipt.json "[(i[\"name\"], i[\"sha256\"]) for i in d[\"inputs\"] if i[\"name\"].startswith(\"summary\")]")" = \
		"summary A $(sha256_of s/summary.json) summary B $(sha256_of s2/summary.json)" &&
	test "$(json_words both/receipt.json "sorted(c[\"name\"] for c in d[\"checks\"] if c[\"name\"].endswith(\"audited\"))")" = "summary A audited summary B audited" &&
	test "$(json_words both/receipt.json "d[\"result\"]")" = pass &&
	test "$(json_words both/receipt.json "[(o[\"name\"], o[\"sha256\"]) for o in d[\"outputs\"]]")" = \
		"comparison.json $(sha256_of both/comparison.json) comparison.md $(sha256_of both/comparison.md) comparison.html $(sha256_of both/comparison.html)" &&
	test "$(json_words both/comparison.json "d[\"format\"]")" = evidence-run-comparison/1 &&
	"$AUDIT" compare --unregistered --json s s2 -o both-json >printed 2>err && cmp printed both-json/comparison.json &&
	grep -q "^OK: 6 pairs compared; comparison both-json$" err
'

test_expect_success 'a summary edited after its audit: exit 1, named, and the receipt says fail' '
	cp -R s edited &&
	python3 -c "
import json
d = json.load(open(\"edited/summary.json\"))
d[\"runs\"][3][\"recomputed\"][\"quantiles\"][\"p50\"] = 60
open(\"edited/summary.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\n\")
" &&
	test_expect_code 1 "$AUDIT" compare --unregistered --arm base --arm fast edited -o ce >out 2>err &&
	grep -q "^audit: summary A: edited/summary.json: summary.json changed after its audit: its SHA-256 is $(sha256_of edited/summary.json), its receipt names $(sha256_of s/summary.json)$" err &&
	grep -q "^audit: summary B: edited/summary.json: arm fast cell spin: p50: the cell says 85.000000000, the median of its runs is 75.000000000$" err &&
	test "$(json_words ce/receipt.json "d[\"result\"]")" = fail &&
	grep -q "^FAIL: 3 pairs compared; comparison ce$" out
'

test_expect_success 'a summary alone, without its receipt: compared, and the receipt says what was not checked' '
	mkdir alone && cp s/summary.json alone/ &&
	"$AUDIT" compare --unregistered --arm base --arm fast alone/summary.json -o ca >/dev/null &&
	json_words ca/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"][0]" >got &&
	echo "summary A (alone/summary.json): no audit campaign receipt.json beside it, so whether its audit passed and these are its bytes is not checked" >expect &&
	test_cmp expect got
'

test_expect_success 'each input check alone: a median edited (no receipt), an audit that failed, an edited receipt: exit 1, named' '
	mkdir lone && python3 -c "
import json
d = json.load(open(\"s/summary.json\"))
d[\"runs\"][0][\"recomputed\"][\"quantiles\"][\"p95\"] = 115
open(\"lone/summary.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\n\")
" &&
	test_expect_code 1 "$AUDIT" compare --unregistered --arm base --arm fast lone -o cl >out 2>err &&
	grep -q "^audit: summary A: lone/summary.json: arm base cell spin: p95: the cell says 110.000000000, the median of its runs is 115.000000000$" err &&
	test "$(json_words cl/receipt.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]")" = "summary A arm base cell spin: medians of its runs" &&
	cp -R one failed && python3 -c "
import json
p = \"failed/runs/001-base-spin-1/run.json\"
d = json.load(open(p)); d[\"result\"] = \"failed\"; json.dump(d, open(p, \"w\"))
" &&
	test_expect_code 1 "$AUDIT" campaign failed -o sf >/dev/null 2>&1 &&
	test_expect_code 1 "$AUDIT" compare --unregistered --arm base --arm fast sf -o cf1 >/dev/null 2>err &&
	grep -q "^audit: summary A: sf/summary.json: its audit campaign receipt says fail: some run, series or journal did not hold$" err &&
	test "$(json_words cf1/receipt.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]")" = "summary A audited" &&
	cp -R s re && python3 -c "
import json
d = json.load(open(\"re/receipt.json\"))
d[\"facts\"][\"runs\"] = 99
open(\"re/receipt.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\n\")
" &&
	test_expect_code 1 "$AUDIT" compare --unregistered --arm base --arm fast re -o cr >/dev/null 2>err &&
	grep -q "^audit: summary A: re/summary.json: receipt.json was edited: its comparable digest no longer matches its content$" err
'

test_expect_success 'refused, nothing written: an existing OUTDIR, a FIFO, an old summary, nothing to compare, misuse' '
	test_expect_code 2 "$AUDIT" compare --unregistered --arm base --arm fast s -o c 2>err &&
	grep -q "^audit: c: already exists" err &&
	mkfifo fifo.json &&
	test_expect_code 2 timeout 10 "$AUDIT" compare --unregistered --arm base --arm fast fifo.json -o cf 2>err &&
	grep -q "fifo.json: .*a FIFO" err && test_must_be_absent cf &&
	mkdir old && python3 -c "
import json
d = json.load(open(\"s/summary.json\"))
for r in d[\"runs\"]: del r[\"in_cell_median\"]
open(\"old/summary.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\n\")
" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --arm base --arm fast old -o co 2>err &&
	grep -q "^audit: old/summary.json: run 001-base-spin-1 has no in_cell_median: the summary was written by an audit campaign older than audit compare; audit the campaign again$" err &&
	test_must_be_absent co &&
	mkdir twice && python3 -c "
import json
d = json.load(open(\"s/summary.json\"))
d[\"cells\"].append(d[\"cells\"][0])
open(\"twice/summary.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\n\")
" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --arm base --arm fast twice -o ct 2>err &&
	grep -q "^audit: twice/summary.json: cells\[[0-9]*\]: arm base, cell spin is listed twice (also cells\[0\]); refused: audit campaign lists each once, so this summary was edited$" err &&
	test_must_be_absent ct &&
	test_expect_code 2 "$AUDIT" compare --unregistered --arm base --arm nope s -o cn 2>err &&
	grep -q "^audit: nothing to compare: arm base cell spin of A: B has no arm nope cell spin$" err &&
	test_must_be_absent cn &&
	test_expect_code 2 "$AUDIT" compare --unregistered s -o cu 2>err &&
	grep -q "^audit: one summary: name two arms (--arm A --arm B) or two cells (--cell X --cell Y) to compare inside it$" err &&
	test_expect_code 2 "$AUDIT" compare --unregistered --arm base s s2 -o cu 2>err &&
	grep -q "^audit: --arm names two: A.s, then B.s$" err &&
	test_expect_code 2 "$AUDIT" compare --unregistered --resamples 0 s s2 -o cu 2>err &&
	grep -q "^audit: option --resamples: expected 1-1000000, found .0.$" err &&
	test_must_be_absent cu && no_temporaries .
'

test_expect_success 'a SIGTERM while resampling: exit 2, no OUTDIR' '
	STOPPED_AFTER=1 stopped SIGTERM cstop "$AUDIT" compare --unregistered --resamples 1000000 s s2 -o cstop &&
	test_must_be_absent cstop && no_temporaries . &&
	grep -q "^audit: cstop: interrupted by a signal; nothing is claimed$" stopped.err
'

test_expect_success 'a SIGTERM while the receipt is being synced: exit 2, no OUTDIR, no temporary; unsignalled, the same comparison passes' '
	signal_while_outdir_receipt clate "$AUDIT" compare --unregistered s s2 -o clate &&
	grep -q "^audit: .*interrupted by a signal; nothing is claimed" late.err &&
	"$AUDIT" compare --unregistered s s2 -o clate >/dev/null &&
	test "$(json_get clate/receipt.json "d[\"result\"]")" = pass
'

test_done
