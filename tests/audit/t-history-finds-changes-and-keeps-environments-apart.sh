#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit history reads a plan's campaigns from the catalog: on a synthetic
# history with a known step (p99 of one cell up 30% from campaign 12), it
# finds that one change at the right campaign, with a ratio and a bootstrap
# interval around 1.3, and none elsewhere; campaigns of another kernel,
# another plan digest or (with --match) another policy are listed apart,
# never compared; the same seed gives the same bytes; --gate fails only a
# change the newest campaigns start; SIGTERM mid-way writes no page; the
# page renders in Chromium with a trend per statistic and each change
# marked. Real captures of one plan
# whose arm's PM QoS changed half way: the two plans' campaigns are never
# mixed. Refusals: no such plan, no such plan digest, an --html that exists.
. "$EV_SRCDIR/tests/lib/lib.sh"

GEN="/usr/bin/python3 $EV_SRCDIR/tests/audit/history-campaigns.py"
CHROMIUM=$(command -v chromium || true)
FF=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff

test_expect_success 'setup: 24 audited campaigns, p99 of cell x up 30% from the 13th; one of another kernel, one of another plan, one of another policy' '
	$GEN synth "{\"plan\": \"synth\", \"campaigns\": 24, \"seed\": 3,
		\"shifts\": [{\"cell\": \"x\", \"statistic\": \"p99\", \"from\": 12, \"ratio\": 1.3}],
		\"kernel\": {\"5\": \"6.2.0-other\"}, \"plan_sha256\": {\"9\": \"$FF\"},
		\"policy\": {\"15\": {\"nohz_full\": \"1-3\"}}}" >plan.sha256 &&
	"$REPLICATE" index --catalog c.sqlite synth >out &&
	grep -q ": 24 receipts, 0 seals, 24 summaries, 0 registration or session records;" out
'

test_expect_success 'one change, at the campaign it was put, ratio and interval around 1.3; none in the other series' '
	"$AUDIT" history --catalog c.sqlite --plan synth --json >h.json &&
	/usr/bin/python3 - <<-\PY &&
	import json
	h = json.load(open("h.json"))
	assert h["format"] == "evidence-history/1" and h["plan_sha256"] == open("plan.sha256").read().strip()
	assert len(h["campaigns"]) == 22, len(h["campaigns"])
	apart = {a["field"]: a for a in h["apart"]}
	assert set(apart) == {"kernel", "plan"}, h["apart"]
	assert apart["kernel"]["value"] == "6.2.0-other" and apart["kernel"]["compared_with"] == "6.1.0-test"
	assert apart["plan"]["value"] == "f" * 64
	changes = [(s["arm"], s["cell"], s["statistic"], c) for s in h["series"] for c in s["changes"]]
	assert len(changes) == 1, changes
	arm, cell, stat, c = changes[0]
	assert (arm, cell, stat) == ("a", "x", "p99"), changes
	# campaign 12 of 24, after the two listed apart (5 and 9) before it: the 11th compared, #10
	assert c["campaign"] == 10 and h["campaigns"][10]["where"].endswith("/synth/c12/summary.json"), c
	r, lo, hi = float(c["ratio"]), float(c["interval"][0]), float(c["interval"][1])
	assert 1.25 < r < 1.35 and 1.2 < lo <= r <= hi < 1.4, c
	assert c["over"] == "runs" and c["before"] == 40 and c["after"] == 48, c
	assert float(c["p_value"]) <= 0.05
	assert [s["statistic"] for s in h["series"] if s["cell"] == "x"] == ["p50", "p99", "p99.9"]
	PY
	"$AUDIT" history --catalog c.sqlite --plan synth >h.txt &&
	grep -q "^history of plan synth (plan $(cut -c1-16 plan.sha256)), 22 campaigns compared, 2 listed apart; e-divisive means, alpha 0.05, 199 permutations, minimum segment 3, seed 1$" h.txt &&
	grep -q "^a/x p99: 22 campaigns, 1 change$" h.txt &&
	grep -q "^  change at #10 (2026-01-01T12:00:00Z): ratio 1\.[23][0-9]* \[1\.[23][0-9]*, 1\.[23][0-9]*\] over 40 and 48 runs, p 0\.0050" h.txt &&
	grep -q "^a/y p99: 22 campaigns, no change$" h.txt &&
	grep -q "^  apart: 2026-01-01T05:00:00Z $PWD/synth/c05/summary.json: kernel differs (6.2.0-other here, 6.1.0-test in the campaigns compared)$" h.txt
'

test_expect_success '--match policy.nohz_full lists the campaign of another policy apart too' '
	"$AUDIT" history --catalog c.sqlite --plan synth --match policy.nohz_full >h.txt &&
	grep -q ", 21 campaigns compared, 3 listed apart;" h.txt &&
	grep -q "^  apart: 2026-01-01T15:00:00Z $PWD/synth/c15/summary.json: policy.nohz_full differs (1-3 here, null in the campaigns compared)$" h.txt
'

test_expect_success 'the same seed gives the same bytes (JSON and page); the plan digest chooses what is compared' '
	"$AUDIT" history --catalog c.sqlite --plan synth --json --html a.html >a.json &&
	"$AUDIT" history --catalog c.sqlite --plan synth --json --html b.html >b.json &&
	cmp a.json b.json && cmp a.html b.html && cmp a.json h.json &&
	"$AUDIT" history --catalog c.sqlite --plan synth --plan-sha256 $FF >ff.txt &&
	grep -q ", 1 campaign compared, 23 listed apart;" ff.txt
'

test_expect_success '--gate: a change the newest campaigns start fails it, exit 1; an older change or a smaller one does not' '
	$GEN gated "{\"plan\": \"gated\", \"campaigns\": 15, \"seed\": 4,
		\"shifts\": [{\"cell\": \"y\", \"statistic\": \"p50\", \"from\": 12, \"ratio\": 0.6}]}" >/dev/null &&
	"$REPLICATE" index --catalog c.sqlite gated >/dev/null &&
	test_expect_code 1 "$AUDIT" history --catalog c.sqlite --plan gated --gate 1.5 >g.txt &&
	grep -q "^GATE: a/y p50: the newest campaigns start a change of ratio 0\.[56][0-9]* (the gate is 1.5)$" g.txt &&
	"$AUDIT" history --catalog c.sqlite --plan gated --gate 2 >g.txt &&
	grep -q "^gate 2: no change the newest campaigns start passes it$" g.txt &&
	"$AUDIT" history --catalog c.sqlite --plan synth --gate 1.1 >g.txt &&
	grep -q "^gate 1.1: no change the newest campaigns start passes it$" g.txt
'

test_expect_success 'SIGTERM in the middle of the permutations: exit 2 within half a second, no page written' '
	# 300 campaigns with a change: a split kept is tested to the last of its
	# 100,000 shuffles (a refused one stops early), seconds of work
	$GEN long "{\"plan\": \"long\", \"campaigns\": 300, \"seed\": 5,
		\"shifts\": [{\"cell\": \"x\", \"statistic\": \"p99\", \"from\": 150, \"ratio\": 1.3}]}" >/dev/null &&
	"$REPLICATE" index --catalog long.sqlite long >/dev/null &&
	STOPPED_AFTER=0.2 stopped SIGTERM stopped.html "$AUDIT" history --catalog long.sqlite --plan long --permutations 100000 \
		--statistic p99 --statistic p50 --html stopped.html &&
	grep -q "^audit: stopped by a signal$" stopped.err
'

test_expect_success 'refusals: no such plan, no such plan digest, an --html that exists (left as it was), bad options' '
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite --plan nothing >out 2>err &&
	grep -q "^audit: catalog c.sqlite: no campaign summary of plan .nothing. (replicate index the audit campaign OUTDIRs first)$" err &&
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite --plan synth --plan-sha256 $(echo x | sha256sum | cut -c1-64) >out 2>err &&
	grep -q "^audit: catalog c.sqlite: plan .synth. has 24 campaigns, none with the plan digest [0-9a-f]*$" err &&
	echo keep >exists.html &&
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite --plan synth --html exists.html >out 2>err &&
	test "$(cat exists.html)" = keep &&
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite >out 2>err && grep -q "plan NAME is required" err &&
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite --plan synth --statistic p42 >out 2>err &&
	grep -q "option --statistic: expected p50, p95, p99, p99.9, mean or max, found .p42." err &&
	test_expect_code 2 "$AUDIT" history --catalog c.sqlite --plan synth --gate 0.5 >out 2>err &&
	grep -q "option --gate: expected a ratio above 1" err
'

cat >probe.js <<-\JS
<script>
(function () {
  var out = {series: [], overflow: []};
  document.querySelectorAll("section.series").forEach(function (s) {
    var svg = s.querySelector("svg"), box = svg.getBoundingClientRect();
    out.series.push({name: s.dataset.arm + "/" + s.dataset.cell + " " + s.dataset.statistic,
                     points: svg.querySelectorAll("circle").length, changes: svg.querySelectorAll("line.change").length,
                     rows: s.querySelectorAll("tr.change").length, width: Math.round(box.width)});
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.overflow.push(t.textContent);
    });
  });
  out.apart = document.querySelectorAll("table.apart tr").length - 1;
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
JS

test_expect_success 'the page in Chromium at 480 and 1600 pixels: a trend per series, every campaign a point, the change marked, no label outside its chart' '
	if [ -z "$CHROMIUM" ]; then echo "chromium is not installed (Debian package chromium)"; false; fi &&
	python3 -c "
doc = open(\"a.html\").read()
open(\"probed.html\", \"w\").write(doc.replace(\"</body></html>\", open(\"probe.js\").read() + \"</body></html>\"))
" &&
	for w in 480 1600; do
		nice -n 19 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
			--disable-background-networking --disable-component-update --user-data-dir="$PWD/profile" \
			--window-size=$w,2000 --dump-dom "file://$PWD/probed.html" >dom-$w.html 2>chromium.err || return 1
		python3 - dom-$w.html <<-\PY || return 1
		import html, json, re, sys
		p = json.loads(html.unescape(re.search(r"<pre id=\"probe\">(.*?)</pre>", open(sys.argv[1]).read(), re.S).group(1)))
		assert len(p["series"]) == 6, p
		for s in p["series"]:
		    assert s["points"] == 22, s
		    want = 1 if s["name"] == "a/x p99" else 0
		    assert s["changes"] == want and s["rows"] == want, s
		assert not p["overflow"], p["overflow"]
		assert p["apart"] == 2, p
		PY
	done
'

test_expect_success 'real captures of one plan, its held arm'"'"'s PM QoS changed half way: the two plans are never compared' '
	if [ "$(id -u)" != 0 ]; then echo "needs root to hold PM QoS"; false; fi &&
	two_cell_plan base.json weekly 11061 1500 1 && mkdir real &&
	for qos in 0 0 0 100 100 100; do
		python3 - base.json $qos <<-\PY || return 1
		import json, sys
		p = json.load(open(sys.argv[1]))
		p["arms"] = [{"name": "baseline"}, {"name": "held", "cpu_dma_latency": int(sys.argv[2])}]
		json.dump(p, open("plan.json", "w"))
		PY
		n=$((${n:-0} + 1)) &&
		"$CAPTURE" pin plan.json -o pinned-$n.json >/dev/null && "$CAPTURE" run pinned-$n.json -o real/c$n >/dev/null &&
		"$AUDIT" campaign real/c$n -o real/s$n >/dev/null || return 1
	done &&
	"$REPLICATE" index --catalog c.sqlite real >/dev/null &&
	"$AUDIT" history --catalog c.sqlite --plan weekly --json >w.json &&
	/usr/bin/python3 - <<-\PY &&
	import json
	h = json.load(open("w.json"))
	# captures finished within one second are ordered by the digests of their summaries
	assert sorted(c["where"].split("/")[-2] for c in h["campaigns"]) == ["s4", "s5", "s6"], h["campaigns"]
	assert [c["captured"] for c in h["campaigns"]] == sorted(c["captured"] for c in h["campaigns"])
	assert [a["field"] for a in h["apart"]] == ["plan"] * 3, h["apart"]
	assert all(c["runs"] == 4 for c in h["campaigns"])
	assert {(s["arm"], s["cell"]) for s in h["series"]} == {("baseline", "spin"), ("baseline", "epoll"), ("held", "spin"), ("held", "epoll")}
	assert all(len(s["points"]) == 3 for s in h["series"])
	PY
	older=$(/usr/bin/python3 -c "import json; print(json.load(open(\"w.json\"))[\"apart\"][0][\"value\"])") &&
	"$AUDIT" history --catalog c.sqlite --plan weekly --plan-sha256 $older >w.txt &&
	grep -q "^history of plan weekly (plan $(echo $older | cut -c1-16)), 3 campaigns compared, 3 listed apart;" w.txt
'

test_done
