#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign sums a campaign up per arm and cell as the median of the
# runs' own statistics, shows every run (failed ones too), and takes the
# largest maximum of any run; samples are never pooled: for two runs of
# 1s and 10s the cell's p50 is 5.5, where the pooled p50 would be 1. Its
# A failed run is shown but not summed up. Its outputs are complete or
# absent, and it refuses an existing output and a directory that is no
# campaign.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a campaign of controlled series (cells A and B, a failed run, a cut one)' '
	python3 - <<-\PY
	import json, os, struct
	def series(path, values):
	    head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	    head += struct.pack("<QQQQ", 10**9, 0, len(values), 0)
	    open(path, "wb").write(head + b"".join(struct.pack("<Q", v) for v in values))
	def run(name, cell, repeat, values, result="ok"):
	    d = "c/runs/%s" % name
	    os.makedirs(d + "/series")
	    series(d + "/series/send.bin", values)
	    doc = {"format": "evidence-run/1", "name": name, "arm": "baseline", "cell": cell, "repeat": repeat,
	           "result": result, "counts": {"warmups": 0, "measured": len(values)},
	           "processes": [{"role": "peer"}, {"role": "sender", "outputs": {"series": "series/send.bin"}}]}
	    json.dump(doc, open(d + "/run.json", "w"))
	os.makedirs("c/runs")
	json.dump({"format": "evidence-plan/1", "name": "controlled", "cells": [{"name": "A"}, {"name": "B"}]},
	          open("c/plan.json", "w"))
	run("001-baseline-A-1", "A", 1, [1] * 100)
	run("002-baseline-B-1", "B", 1, [100] * 99 + [50])
	run("003-baseline-B-2", "B", 2, [200] * 99 + [5000])
	run("004-baseline-A-2", "A", 2, [10] * 100)
	run("005-baseline-B-3", "B", 3, [300] * 99 + [70])
	run("006-baseline-A-3", "A", 3, [7] * 10, result="failed")
	os.makedirs("c/runs/007-baseline-B-4")           # cut short: no run.json
	PY
'

test_expect_success 'the cell is the median of its runs, never a quantile of pooled samples' '
	test_expect_code 1 "$AUDIT" campaign c -o s >out 2>err &&
	json_words s/summary.json "[(x[\"cell\"], x[\"runs\"], x[\"median_of_runs\"][\"p50\"], x[\"largest_max\"]) for x in d[\"cells\"]]" >got &&
	echo "A 2 5.500000000 10 B 3 200.000000000 5000" >expect && test_cmp expect got &&
	grep -q "^audit: .*007-baseline-B-4: no run.json (a run cut short): left out" err
'

test_expect_success 'two runs: the median of their p50s (5.5), where pooling would say 1' '
	mkdir -p two/runs && cp c/plan.json two/ &&
	cp -R c/runs/001-baseline-A-1 c/runs/004-baseline-A-2 two/runs/ &&
	"$AUDIT" campaign two -o s2 >out &&
	test "$(json_words s2/summary.json "d[\"cells\"][0][\"median_of_runs\"][\"p50\"]")" = 5.500000000 &&
	test "$(json_words s2/summary.json "d[\"cells\"][0][\"median_of_runs\"][\"mean\"]")" = 5.500000000 &&
	grep -q "^| A | 2 | nearest-rank | 5.5 |" s2/summary.md
'

test_expect_success 'every run has its row, the failed one with its result' '
	for r in 001-baseline-A-1 002-baseline-B-1 003-baseline-B-2 004-baseline-A-2 005-baseline-B-3; do
		grep -q "^| $r | " s/summary.md || return 1
	done &&
	grep -q "^| 006-baseline-A-3 | A | failed |" s/summary.md &&
	test "$(json_words s/summary.json "len(d[\"runs\"])")" = 6 &&
	grep -q "^| B | 3 | nearest-rank | 200 | 200 | 200 | 300 | 248 | 5000 |" s/summary.md
'

test_expect_success 'the outputs are all there, named in the receipt with their digests; --json prints the summary alone' '
	"$AUDIT" campaign --json two -o s4 >printed 2>err && cmp printed s4/summary.json &&
	grep -q "^OK: 2 runs; summary s4" err &&
	for f in summary.json summary.md report.html receipt.json; do test -s s/$f || return 1; done &&
	test "$(json_words s/receipt.json "sorted(o[\"name\"] for o in d[\"outputs\"])")" = \
		"cell-baseline-A.hgrm cell-baseline-B.hgrm report.html run-001-baseline-A-1.hgrm run-002-baseline-B-1.hgrm run-003-baseline-B-2.hgrm run-004-baseline-A-2.hgrm run-005-baseline-B-3.hgrm run-006-baseline-A-3.hgrm runs.csv summary.json summary.md" &&
	test "$(json_words s/receipt.json "[o[\"sha256\"] for o in d[\"outputs\"] if o[\"name\"] == \"summary.md\"]")" = "$(sha256_of s/summary.md)"
'

test_expect_success 'refused: an existing output, and a directory that is no campaign; nothing written' '
	test_expect_code 2 "$AUDIT" campaign c -o s 2>err &&
	grep -q "^audit: s: already exists" err &&
	mkdir empty && test_expect_code 2 "$AUDIT" campaign empty -o e 2>err &&
	grep -q "^audit: empty/runs: cannot read the campaign.s runs" err &&
	test_must_be_absent e && no_temporaries .
'

test_done
