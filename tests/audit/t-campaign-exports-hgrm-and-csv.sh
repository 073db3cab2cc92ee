#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign's exports of the demo campaign (share/demo/plan.json,
# captured here): each run's .hgrm is, byte for byte, what HdrHistogram's
# outputPercentileDistribution writes for its raw series (redrawn here in
# Python from HdrHistogram's Java PercentileIterator, 5 ticks per half
# distance), and holds the layout HdrHistogram's plotter reads; each
# cell's .hgrm is its counted runs' samples together; runs.csv has a
# header row and each run's recomputed statistics as summary.json has
# them; the receipt names every export by SHA-256.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"

test_expect_success 'setup: the demo campaign, captured and audited' '
	user=$(id -un) &&
	sed -e "s|@BINDIR@|$EV_BUILDDIR/capture/pair|g" -e "s|@USER@|$user|g" \
		-e "s|@PEER_CPU@|0|g" -e "s|@SENDER_CPU@|1|g" -e "s|@SHARES@|true|g" \
		-e "s|\"measured\": 20000|\"measured\": 2000|" "$EV_SRCDIR/share/demo/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi &&
	"$CAPTURE" run $degrade pinned.json -o c >/dev/null 2>&1 &&
	"$AUDIT" campaign c -o s >/dev/null &&
	ls s/run-*.hgrm | wc -l | tr -d " " >runs && test "$(cat runs)" = 8 &&
	test "$(ls s/cell-*.hgrm | sed "s|^s/||" | tr "\n" " ")" = "cell-baseline-epoll.hgrm cell-baseline-spin.hgrm cell-dma0-epoll.hgrm cell-dma0-spin.hgrm "
'

cat >hdr.py <<'PY'
# HdrHistogram's outputPercentileDistribution (Java), for exact values:
# the PercentileIterator's levels and the format strings, written from
# its source, independently of audit.
import math, struct, sys

def series(path):
    data = open(path, "rb").read()
    n, = struct.unpack_from("<Q", data, 64)
    return list(struct.unpack_from("<%dQ" % n, data, 80))

def hgrm(values, decimals=3, scale=1.0):
    values = sorted(values)
    total = len(values)
    out = ["%12s %14s %10s %14s\n\n" % ("Value", "Percentile", "TotalCount", "1/(1-Percentile)")]
    level, i = 0.0, 0
    while i < total:
        v = values[i]
        while i < total and values[i] == v:
            i += 1
        cumulative = i
        while 100.0 * cumulative / total >= level:
            out.append("%12.*f %2.12f %10d %14.2f\n" % (decimals, v / scale, level / 100.0, cumulative,
                                                        1 / (1 - level / 100.0)))
            ticks = 5 * int(math.pow(2, int(math.log(100.0 / (100.0 - level)) / math.log(2)) + 1))
            level += 100.0 / ticks
            if cumulative == total:
                break
    out.append("%12.*f %2.12f %10d\n" % (decimals, values[-1] / scale, 1.0, total))
    mean = sum(values) / total
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / total)
    out.append("#[Mean    = %12.*f, StdDeviation   = %12.*f]\n" % (decimals, mean / scale, decimals, sd / scale))
    out.append("#[Max     = %12.*f, Total count    = %12d]\n" % (decimals, values[-1] / scale, total))
    out.append("#[Buckets = %12d, SubBuckets     = %12d]\n" % (0, 0))
    return "".join(out)

if __name__ == "__main__":
    values = [v for p in sys.argv[1:] for v in series(p)]
    sys.stdout.write(hgrm(values))
PY

test_expect_success 'each run'"'"'s .hgrm is what HdrHistogram writes for its raw series' '
	for f in s/run-*.hgrm; do
		run=${f#s/run-} && run=${run%.hgrm} &&
		python3 hdr.py c/runs/$run/sender/series/send.bin >expect &&
		test_cmp expect "$f" || return 1
	done
'

test_expect_success 'each cell'"'"'s .hgrm is its counted runs'"'"' samples together' '
	for f in s/cell-*.hgrm; do
		cell=${f#s/cell-} && cell=${cell%.hgrm} &&
		runs=$(json_words s/summary.json "[\"c/runs/%s/sender/series/send.bin\" % r[\"name\"] for r in d[\"runs\"] if r[\"arm\"] + \"-\" + r[\"cell\"] == \"$cell\" and r[\"in_cell_median\"]]") &&
		test -n "$runs" &&
		python3 hdr.py $runs >expect && test_cmp expect "$f" || return 1
	done
'

test_expect_success 'the layout HdrHistogram documents: header, four columns, the last line at 1, the footer' '
	python3 - s/run-*.hgrm s/cell-*.hgrm <<-\PY
	import re, sys
	for path in sys.argv[1:]:
	    lines = open(path).read().split("\n")
	    assert lines[0] == "       Value     Percentile TotalCount 1/(1-Percentile)", (path, lines[0])
	    assert lines[1] == "" and lines[-1] == "", path
	    body, foot = lines[2:-4], lines[-4:-1]
	    rows = [l.split() for l in body]
	    assert all(len(r) == 4 for r in rows[:-1]) and len(rows[-1]) == 3, path
	    values = [float(r[0]) for r in rows]
	    ps = [float(r[1]) for r in rows]
	    counts = [int(r[2]) for r in rows]
	    assert ps[0] == 0 and ps[-1] == 1 and all(a <= b for a, b in zip(ps, ps[1:])), path
	    assert all(a <= b for a, b in zip(values, values[1:])), path
	    assert all(a <= b for a, b in zip(counts, counts[1:])), path
	    for r in rows[:-1]:
	        assert abs(float(r[3]) - 1 / (1 - float(r[1]))) < 0.006, (path, r)
	    assert re.fullmatch(r"#\[Mean    = +[0-9.]+, StdDeviation   = +[0-9.]+\]", foot[0]), foot[0]
	    m = re.fullmatch(r"#\[Max     = +([0-9.]+), Total count    = +([0-9]+)\]", foot[1])
	    assert m and float(m.group(1)) == values[-1] and int(m.group(2)) == counts[-1], foot[1]
	    assert re.fullmatch(r"#\[Buckets = +0, SubBuckets     = +0\]", foot[2]), foot[2]
	PY
'

test_expect_success 'runs.csv: a header row, then each run as summary.json has it' '
	python3 - <<-\PY
	import csv, json
	rows = list(csv.DictReader(open("s/runs.csv", newline="")))
	head = open("s/runs.csv", newline="").readline()
	assert head == "run,arm,cell,repeat,result,in_cell_median,unit,rule,count,min,p50,p95,p99,p99.9,mean,max,native_differ,series_findings,grade,smi,thermal_throttle,effective_frequency_pct,steal_ms,swapped_pages,psi_cpu_per_mille,psi_memory_per_mille,psi_io_per_mille,marked\r\n", head
	runs = json.load(open("s/summary.json"))["runs"]
	assert [r["run"] for r in rows] == [r["name"] for r in runs]
	for row, r in zip(rows, runs):
	    rec = r["recomputed"]
	    assert (row["arm"], row["cell"], int(row["repeat"]), row["result"]) == (r["arm"], r["cell"], r["repeat"], r["result"])
	    assert row["in_cell_median"] == ("true" if r["in_cell_median"] else "false")
	    assert (row["unit"], row["rule"], int(row["count"]), int(row["min"]), int(row["max"])) == ("ns", rec["rule"], rec["count"], rec["min"], rec["max"])
	    assert row["mean"] == rec["mean"]
	    for q in ("p50", "p95", "p99", "p99.9"):
	        assert row[q] == str(rec["quantiles"][q]), (q, row[q])
	    assert (row["native_differ"], row["series_findings"]) == ("0", "0")
	    f = r["interference"]
	    for key in ("smi", "thermal_throttle", "effective_frequency_pct", "steal_ms", "swapped_pages"):
	        assert row[key] == ("" if f[key] is None else str(f[key])), (key, row[key], f[key])
	    for res in ("cpu", "memory", "io"):
	        v = f["pressure_per_mille"][res]
	        assert row["psi_%s_per_mille" % res] == ("" if v is None else str(v)), res
	    assert row["marked"] == " ".join(f["marked"])
	PY
'

test_expect_success 'capture recorded the CPU model and the OS the provenance shows' '
	model=$(sed -n "s/^model name[[:space:]]*: //p" /proc/cpuinfo | sed -n 1p) &&
	os=$(sed -n "s/^PRETTY_NAME=//p" /etc/os-release | tr -d "\"") &&
	test "$(json_words c/policy.json "d[\"cpu_model\"]")" = "$(echo $model)" &&
	test "$(json_words c/policy.json "d[\"os\"]")" = "$(echo $os)" &&
	test "$(json_words s/summary.json "d[\"provenance\"][\"cpu_model\"], d[\"provenance\"][\"os\"]")" = "$(echo $model $os)"
'

test_expect_success 'the receipt names every export by SHA-256' '
	for f in s/*.hgrm s/runs.csv; do
		test "$(json_words s/receipt.json "[o[\"sha256\"] for o in d[\"outputs\"] if o[\"name\"] == \"${f#s/}\"]")" = "$(sha256_of $f)" || return 1
	done
'

test_done
