#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit compare --reference: a campaign's arm and cell held to a vendor's
# published statistics (the llfix TX benchmark's block as it prints it),
# pinned by SHA-256 with where and when they were published and the
# hardware and stack they name. Ratios are the median of runs over the
# published value, exactly; "reproduced within X%" only for quiet runs
# on the hardware and stack the reference names; a CPU model or network
# stack that differs gives "not comparable" naming it; a diagnostic
# campaign is never "reproduced"; a statistic beyond the tolerance is
# "not reproduced", named. A reference whose block changed, a descriptor
# that is not the one pinned, or one that names no hardware, climbs out
# of its directory or quotes a block cut short, is refused with nothing
# written.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi
Q="'"

# expected OUTDIR SUMMARY: each statistic's ratio as the median of the
# runs over the value as published, printed as C's %.9f does
ratios_exact () {
	python3 - "$@" <<-\PY
	import json, statistics, sys
	got, summary = json.load(open(sys.argv[1] + "/reproduction.json")), json.load(open(sys.argv[2] + "/summary.json"))
	runs = [r for r in summary["runs"] if r["arm"] == "baseline" and r["cell"] == "spin" and r["in_cell_median"]]
	names = [s["name"] for s in got["statistics"]]
	assert names == ["p50", "p95", "p99", "mean", "max"], names
	for s in got["statistics"]:
	    vals = [float(r["recomputed"]["quantiles"][s["name"]] if s["name"].startswith("p") else r["recomputed"][s["name"]]) for r in runs]
	    m = statistics.median(vals)
	    assert s["campaign"]["median"] == "%.9f" % m, (s, m)
	    assert s["campaign"]["min"] == "%.9f" % min(vals) and s["campaign"]["max"] == "%.9f" % max(vals), s
	    assert s["ratio"] == "%.9f" % (m / float(s["reference"]["printed"])), (s, m)
	PY
}

# worst OUTDIR SUMMARY [within]: "STAT is Rx", the statistic furthest from
# the published value, by the exact ratio of the median of the runs (the
# first of equals, as audit takes it); with "within", how far it is, in
# percent rounded up to 0.1
worst () {
	python3 - "$@" <<-\PY
	import json, math, statistics, sys
	got, summary = json.load(open(sys.argv[1] + "/reproduction.json")), json.load(open(sys.argv[2] + "/summary.json"))
	runs = [r for r in summary["runs"] if r["arm"] == "baseline" and r["cell"] == "spin" and r["in_cell_median"]]
	best, at = 0.0, None
	for s in got["statistics"]:
	    vals = [float(r["recomputed"]["quantiles"][s["name"]] if s["name"].startswith("p") else r["recomputed"][s["name"]]) for r in runs]
	    ratio = statistics.median(vals) / float(s["reference"]["printed"])
	    if abs(ratio - 1) * 100 > best:
	        best, at = abs(ratio - 1) * 100, (s["name"], ratio)
	if len(sys.argv) > 3:  # the deviation, rounded up to 0.1%, as audit says it
	    print("%.1f" % (math.ceil(best * 10 - 1e-9) / 10))
	else:
	    print("%s is %.3fx" % at)
	PY
}

test_expect_success 'setup: the demo campaign captured here (diagnostic), and as an isolated host records it (quiet)' '
	sed -e "s|@BINDIR@|$EV_BUILDDIR/capture/pair|g" -e "s|@USER@|$(id -un)|g" \
		-e "s|@PEER_CPU@|0|g" -e "s|@SENDER_CPU@|1|g" -e "s|@SHARES@|true|g" \
		-e "s|\"measured\": 20000|\"measured\": 2000|" "$EV_SRCDIR/share/demo/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run $degrade pinned.json -o c >/dev/null 2>&1 &&
	"$AUDIT" campaign c -o s >/dev/null 2>&1 &&
	cp -R c q && python3 "$EV_SRCDIR/tests/audit/isolated-host.py" q &&
	"$AUDIT" campaign q -o sq >/dev/null 2>&1 &&
	test "$(json_words sq/summary.json "d[\"grade\"][\"grade\"]")" = quiet
'

test_expect_success 'quiet, on the hardware and stack it names: ratios exact, reproduced within the largest deviation' '
	reference r1 sq 1.02 &&
	"$AUDIT" compare --unregistered --reference r1/ref.json --arm baseline --cell spin sq -o rep1 >out 2>err &&
	ratios_exact rep1 sq &&
	want=$(worst rep1 sq within) &&
	test "$(tail -n 1 out)" = "OK: reproduced within $want% (tolerance 10%); reproduction rep1" &&
	grep -q "^verdict: reproduced within $want% (tolerance 10%)$" rep1/reproduction.md &&
	grep -q "^| p50 | [0-9.]* | [0-9.]*-[0-9.]* | [0-9.]* | 0.98[0-9]* |$" rep1/reproduction.md &&
	grep -q "^- reference: llfix-1.0.5-tx-kernel, published at https://example.org/llfix/benchmarks/README.md on 2026-06-01 (descriptor SHA-256 $(sha256_of r1/ref.json))$" rep1/reproduction.md &&
	test "$(json_words rep1/receipt.json "d[\"result\"], d[\"facts\"][\"differences\"], [i[\"name\"] for i in d[\"inputs\"]]")" = "pass summary A reference reference statistics receipt of summary A" &&
	test "$(json_words rep1/receipt.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"reference statistics\"]")" = "$(sha256_of r1/llfix-tx.txt)" &&
	"$AUDIT" compare --unregistered --reference r1/ref.json --reference-sha256 "$(sha256_of r1/ref.json)" --arm baseline --cell spin sq -o rep1b >/dev/null
'

test_expect_success 'another CPU model, or another network stack: not comparable, each named' '
	reference r2 sq 1.02 "d[\"hardware\"][\"cpu_model\"] = \"Intel(R) Xeon(R) Gold 6354 CPU @ 3.00GHz\"" "d[\"stack\"][\"network\"] = \"onload\"" &&
	"$AUDIT" compare --unregistered --reference r2/ref.json --arm baseline --cell spin sq -o rep2 >out 2>err &&
	cpu=$(json_words sq/summary.json "d[\"provenance\"][\"cpu_model\"]") &&
	test "$(tail -n 1 out)" = "OK: not comparable: cpu_model: the campaign${Q}s $cpu, the reference${Q}s Intel(R) Xeon(R) Gold 6354 CPU @ 3.00GHz; network: the campaign${Q}s kernel, the reference${Q}s onload; reproduction rep2"
'

test_expect_success 'a diagnostic campaign is never reproduced, whatever its numbers' '
	reference r3 s 1.0 &&
	"$AUDIT" compare --unregistered --reference r3/ref.json --arm baseline --cell spin s -o rep3 >out 2>err &&
	tail -n 1 out | contains "^OK: not comparable: arm baseline cell spin is diagnostic (isolcpus fail, .*): a published figure is reproduced only by quiet runs; reproduction rep3$" &&
	! grep -q "reproduced within" out rep3/reproduction.md &&
	ratios_exact rep3 s
'

test_expect_success 'beyond the tolerance: not reproduced, the statistic named' '
	reference r4 sq 2.0 &&
	"$AUDIT" compare --unregistered --reference r4/ref.json --arm baseline --cell spin sq -o rep4 >out 2>err &&
	want=$(worst rep4 sq) &&
	test "$(tail -n 1 out)" = "OK: not reproduced: $want the reference${Q}s (beyond the tolerance of 10%); reproduction rep4"
'

test_expect_success 'refused, nothing written: a block changed after it was pinned, a descriptor not the one pinned' '
	reference r5 sq 1.02 && sed -i "s/^\(.*P99.*: \)/\1 1/" r5/llfix-tx.txt &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r5/ref.json --arm baseline --cell spin sq -o rep5 2>err &&
	grep -q "^audit: r5/llfix-tx.txt: its SHA-256 is $(sha256_of r5/llfix-tx.txt), the reference r5/ref.json pins [0-9a-f]*: these are not the published statistics$" err &&
	test_must_be_absent rep5 &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r1/ref.json --reference-sha256 "$(sha256_of r2/ref.json)" --arm baseline --cell spin sq -o rep5 2>err &&
	grep -q "^audit: r1/ref.json: its SHA-256 is $(sha256_of r1/ref.json), --reference-sha256 pins $(sha256_of r2/ref.json): not the reference you pinned$" err &&
	test_must_be_absent rep5
'

test_expect_success 'refused, nothing written: no hardware named, a path out of its directory, a block cut short, an unknown key' '
	reference r6 sq 1.02 "del d[\"hardware\"]" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r6/ref.json --arm baseline --cell spin sq -o rep6 2>err &&
	grep -q "^audit: r6/ref.json: \"hardware\": missing, or not an object$" err &&
	reference r7 sq 1.02 "d[\"statistics\"][\"path\"] = \"../r1/llfix-tx.txt\"" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r7/ref.json --arm baseline --cell spin sq -o rep6 2>err &&
	grep -q "^audit: r7/ref.json: statistics.path: " err &&
	reference r8 sq 1.02 &&
	grep -v P99 r8/llfix-tx.txt >r8/cut.txt &&
	python3 -c "import hashlib, json; d = json.load(open(\"r8/ref.json\")); d[\"statistics\"] = {\"path\": \"cut.txt\", \"sha256\": hashlib.sha256(open(\"r8/cut.txt\", \"rb\").read()).hexdigest()}; json.dump(d, open(\"r8/ref.json\", \"w\"))" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r8/ref.json --arm baseline --cell spin sq -o rep6 2>err &&
	grep -q "^audit: r8/cut.txt: the llfix block lacks its p99 line: a published block is quoted whole$" err &&
	reference r9 sq 1.02 "d[\"stack\"][\"compiler\"] = \"gcc 12\"" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r9/ref.json --arm baseline --cell spin sq -o rep6 2>err &&
	grep -q "^audit: r9/ref.json: \"stack\": \"compiler\": not a key there$" err &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r1/ref.json sq -o rep6 2>err &&
	grep -q "^audit: sq/summary.json: 4 arms and cells: name the one the reference is held to (--arm A --cell X)$" err &&
	test_must_be_absent rep6
'

test_expect_success 'SIGTERM while the receipt is being synced: exit 2, no OUTDIR, no temporary; unsignalled, the same run passes' '
	signal_while_outdir_receipt rep-late "$AUDIT" compare --unregistered --reference r1/ref.json --arm baseline --cell spin sq \
		-o rep-late &&
	grep -q "^audit: .*interrupted by a signal; nothing is claimed" late.err &&
	"$AUDIT" compare --unregistered --reference r1/ref.json --arm baseline --cell spin sq -o rep-late >/dev/null &&
	test "$(json_words rep-late/receipt.json "d[\"result\"]")" = pass
'

test_expect_success 'the statistics path a reference names: absolute, or through a symbolic link, is refused before it is read' '
	reference r11 sq 1.02 "d[\"statistics\"][\"path\"] = \"$PWD/r1/llfix-tx.txt\"" &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r11/ref.json --arm baseline --cell spin sq -o rep11 2>err &&
	grep -q "^audit: r11/ref.json: statistics.path: " err &&
	reference r12 sq 1.02 "d[\"statistics\"][\"path\"] = \"via/llfix-tx.txt\"" &&
	ln -s "$PWD/r12" r12/via &&
	test_expect_code 2 "$AUDIT" compare --unregistered --reference r12/ref.json --arm baseline --cell spin sq -o rep11 2>err &&
	grep -q "^audit: r12/ref.json: statistics.path: .*link" err &&
	test_must_be_absent rep11
'

test_done
