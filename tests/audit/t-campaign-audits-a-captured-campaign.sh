#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign on a campaign capture recorded with the reference pair:
# every run's statistics recomputed from its series agree with the pair's
# own report, both endpoints' journals pass, the journal-page cohorts are
# there with their controls, and the HTML report renders in headless
# Chromium with one spectrum line per cell and a dot per run. A byte
# changed in one run's series is named, and the campaign fails.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
CHROMIUM=$(command -v chromium || true)

test_expect_success 'setup: a captured campaign of the reference pair, two cells, two repeats' '
	two_cell_plan plan.json small 11011 3000 2 &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null
'

test_expect_success 'every run agrees with its own report; the journals pass; cohorts with controls' '
	"$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^OK: 4 runs; summary s" out && grep -q "^report: s/report.html" out &&
	json_words s/summary.json "[(r[\"name\"], sorted(set(x[\"verdict\"] for x in r[\"native\"][\"statistics\"]))) for r in d[\"runs\"]]" >got &&
	echo "001-baseline-spin-1 equal not recomputable 002-baseline-epoll-1 equal not recomputable 003-baseline-epoll-2 equal not recomputable 004-baseline-spin-2 equal not recomputable" >expect &&
	test_cmp expect got &&
	test "$(json_words s/audit-journal.json "d[\"result\"], len(d[\"facts\"][\"pairs\"])")" = "pass 4" &&
	for r in 001-baseline-spin-1 002-baseline-epoll-1 003-baseline-epoll-2 004-baseline-spin-2; do
		mine=$(json_words s/summary.json "[(x[\"recomputed\"][\"quantiles\"][\"p50\"], x[\"recomputed\"][\"quantiles\"][\"p99\"], x[\"recomputed\"][\"max\"], x[\"recomputed\"][\"rule\"]) for x in d[\"runs\"] if x[\"name\"] == \"$r\"]") &&
		theirs=$(json_words c/runs/$r/report.json "d[\"stats\"][\"p50\"], d[\"stats\"][\"p99\"], d[\"stats\"][\"max\"], d[\"rule\"]") &&
		test "$mine" = "$theirs" || { echo "$r: summary $mine, report $theirs"; return 1; }
	done &&
	test "$(json_words s/summary.json "[c[\"displacement\"] for c in d[\"runs\"][0][\"cohorts\"][\"by_displacement\"]]")" = "0 1 8 128" &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"cohorts\"][\"by_displacement\"][0][\"page\"][\"calls\"] > 0")" = True &&
	grep -q "^## Arm baseline" s/summary.md
'

test_expect_success 'the page labels are what an independent reader of the journal finds' '
	python3 - <<-\PY
	import json, os, struct
	d = "c/runs/001-baseline-spin-1/journal/sender"
	labels, k = [], 0
	for name in sorted(os.listdir(d), key=lambda n: int(n.split(".")[0])):
	    data = open(os.path.join(d, name), "rb").read()
	    count, = struct.unpack_from("<Q", data, 0)
	    p, top = 8, -1
	    for _ in range(count):
	        ts, ok, ln = struct.unpack_from("<QBQ", data, p)
	        last = (p + 17 + ln - 1) // 4096
	        labels.append(last > top)
	        top = max(top, last)
	        p += 17 + ln
	measured = labels[1 + 100:1 + 100 + 3000]
	s = json.load(open("s/summary.json"))["runs"][0]["cohorts"]["by_displacement"][0]
	assert s["page"]["calls"] == sum(measured), (s["page"]["calls"], sum(measured))
	assert s["other"]["calls"] == 3000 - sum(measured)
	PY
'

test_expect_success 'the HTML report renders in headless Chromium: a spectrum line per cell, a dot per run, nothing fetched' '
	if [ -z "$CHROMIUM" ]; then echo "chromium is not installed (Debian package chromium)"; false; fi &&
	! grep -q "src=\|href=\|@import\|url(" s/report.html &&
	nice -n 19 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-sync \
		--disable-background-networking --disable-component-update --user-data-dir="$PWD/profile" \
		--dump-dom "file://$PWD/s/report.html" >dom.html 2>chromium.err &&
	python3 - <<-\PY
	import re
	dom = open("dom.html").read()
	spectra = re.findall(r"<polyline class=\"spectrum\" data-series=\"([^\"]+)\"", dom)
	assert sorted(spectra) == ["epoll", "spin"], spectra
	assert len(re.findall(r"<circle class=\"run-p99\"", dom)) == 4
	assert len(re.findall(r"<polyline class=\"timeseries\"", dom)) == 4
	assert dom.count("<svg") == 4, dom.count("<svg")
	PY
'

test_expect_success 'audited again, the campaign receipt compares the same: its journal receipt counts by what it says, not by its times' '
	sleep 1 && "$AUDIT" campaign c -o s-again >/dev/null 2>&1 &&
	! cmp -s s/audit-journal.json s-again/audit-journal.json &&
	test "$(json_get s/receipt.json "d[\"comparable\"]")" = "$(json_get s-again/receipt.json "d[\"comparable\"]")" &&
	test "$(json_get s/receipt.json "[o[\"comparable\"] for o in d[\"outputs\"] if o[\"name\"] == \"audit-journal.json\"][0]")" = \
		"$(json_get s/audit-journal.json "d[\"comparable\"]")"
'

test_expect_success 'SIGTERM while its receipt is synced: exit 2, no OUTDIR, no temporary; then it passes' '
	signal_while_outdir_receipt late "$AUDIT" campaign c -o late &&
	grep -q "interrupted by a signal; nothing is claimed" late.err &&
	"$AUDIT" campaign c -o late >/dev/null && test "$(json_get late/receipt.json "d[\"result\"]")" = pass
'

test_expect_success 'a byte changed in one run'"'"'s series: that run is named, the campaign fails' '
	cp -R c c2 &&
	flip_byte c2/runs/002-baseline-epoll-1/series/send.bin 1000 &&
	test_expect_code 1 "$AUDIT" campaign c2 -o s3 >out 2>err &&
	test "$(json_words s3/receipt.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]")" = \
		"run 002-baseline-epoll-1 statistics run 002-baseline-epoll-1 against the capture receipt" &&
	grep -q "^audit: 002-baseline-epoll-1: runs/002-baseline-epoll-1/series/send.bin: its SHA-256 is not the one receipt-capture.json recorded (changed after capture)$" err &&
	grep -q "^| 002-baseline-epoll-1 | epoll | ok |.* DIFFERS | whole |" s3/summary.md
'

test_expect_success '--seal: the journals audit-journal.json read are held against the seal too' '
	"$SEAL" create c -o sealed-c >/dev/null &&
	"$AUDIT" campaign --seal sealed-c/SEAL.json c -o s-sealed >/dev/null &&
	test "$(json_words s-sealed/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"inputs against the seal\"]")" = pass &&
	cp -R c c4 &&
	flip_byte c4/runs/003-baseline-epoll-2/journal/receiver/1.bin 200 &&
	test_expect_code 1 "$AUDIT" campaign --seal sealed-c/SEAL.json c4 -o s4 >/dev/null 2>err &&
	grep -q "^audit: c4/runs/003-baseline-epoll-2/journal/receiver/1.bin: its SHA-256 is not the seal.s (changed after sealing)$" err
'

test_done
