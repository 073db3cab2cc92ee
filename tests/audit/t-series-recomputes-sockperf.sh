#!/bin/sh
# audit series with a real latency tool: Debian's sockperf runs a
# ping-pong pair on loopback with --full-log; audit recomputes every
# statistic sockperf printed (its percentiles by its rule, rank
# floor(p N + 1/2), its maximum, minimum and average of half round trips)
# from the log's own tx and rx times, and agrees with each (where the text
# differs, only for one of sockperf's two documented causes: its per
# timestamp tick conversion, 1 ns, or its double rank); a sample changed
# in the log is caught.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v sockperf >/dev/null || test_skip_all "sockperf is not installed (Debian package sockperf)"

test_expect_success 'setup: a sockperf ping-pong on loopback, its summary and its full log' '
	port=$((30000 + $$ % 20000)) &&
	{ sockperf server --tcp -i 127.0.0.1 -p $port >server.out 2>&1 & } &&
	spid=$! &&
	n=0 && while ! grep -q ":$(printf %04X $port) 00000000:0000 0A" /proc/net/tcp && [ $n -lt 100 ]; do
		sleep 0.05; n=$((n + 1)); done &&
	sockperf ping-pong --tcp -i 127.0.0.1 -p $port -t 1 --full-log full.csv >client.out 2>&1;
	st=$?; kill $spid; wait $spid; test $st = 0 &&
	grep -q "Summary: Latency is" client.out && grep -q "^packet, txTime(sec), rxTime(sec), latency(usec)" full.csv
'

test_expect_success 'every statistic sockperf printed, recomputed from its log, agrees' '
	"$AUDIT" series --native client.out --receipt r.json full.csv >out &&
	grep -q "^OK: 0 statistics differ, 0 series findings" out &&
	json_words r.json "[s[\"name\"] + \"=\" + s[\"verdict\"] for s in d[\"facts\"][\"statistics\"]]" >got &&
	for s in p50 p99 p99.9 p99.999 max min mean count; do
		grep -q "^$s=equal\| $s=equal" got || { echo "missing or not equal: $s"; return 1; }
	done &&
	! grep -q "differs\|not compared" got &&
	python3 - <<-\PY &&
	# every statistic not equal to the letter is equal for one of the two
	# documented causes; often there is none (then nothing to check)
	import json
	d = json.load(open("r.json"))
	causes = ("sockperf converts TSC ticks", "sockperf takes element")
	odd = [s for s in d["facts"]["statistics"]
	       if s["verdict"] != "equal" and not s.get("why", "").startswith(causes)]
	assert not odd, odd
	PY
	test "$(json_words r.json "d[\"facts\"][\"native\"][\"rule\"], d[\"facts\"][\"series\"][\"half_round_trip\"]")" = "round-half-up True" &&
	"$AUDIT" series --native full.csv --receipt r2.json full.csv >/dev/null
'

test_expect_success 'a changed sample: the row named, and the statistics that move' '
	python3 - <<-\PY &&
	lines = open("full.csv").read().split("\n")
	at = next(i for i, l in enumerate(lines) if l.startswith("packet, txTime"))
	rows = [(i, l.split(", ")) for i, l in enumerate(lines[at + 1:], at + 1) if l[:1].isdigit()]
	# the fastest call becomes the slowest: rx moved a second later
	i, f = min(rows, key=lambda r: float(r[1][3]))
	f[2] = "%.9f" % (float(f[2]) + 1.0)
	lines[i] = ", ".join(f)
	open("changed.csv", "w").write("\n".join(lines))
	PY
	test_expect_code 1 "$AUDIT" series --native client.out --receipt c.json changed.csv >out 2>err &&
	grep -q "^audit: changed.csv: line [0-9]*: the latency column is not (rxTime - txTime) as sockperf computes it" err &&
	json_words c.json "[s[\"name\"] for s in d[\"facts\"][\"statistics\"] if s[\"verdict\"] == \"differs\"]" >moved &&
	grep -q "max" moved && grep -q "mean" moved
'

test_done
