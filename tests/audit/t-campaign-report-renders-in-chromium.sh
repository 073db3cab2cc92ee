#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign's report, rendered by headless Chromium at a narrow and a
# wide window, checked from the DOM: the provenance on top (campaign,
# seal SHA-256, host, kernel, every audit's verdict), real tables of every
# statistic per cell and arm with the unit in every header, every run in
# its table and as a faint spectrum line, the arms compared on one scale,
# no SVG text outside its drawing, a width that follows the window, and
# nothing fetched.
. "$EV_SRCDIR/tests/lib/lib.sh"

CHROMIUM=$(command -v chromium || true)
Q="'"

test_expect_success 'setup: a sealed campaign of two arms and two cells, audited against its seal' '
	python3 - <<-\PY &&
	import json, os, random, struct
	random.seed(7)
	def series(path, values):
	    head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	    head += struct.pack("<QQQQ", 10**9, 0, len(values), 0)
	    open(path, "wb").write(head + b"".join(struct.pack("<Q", v) for v in values))
	os.makedirs("a-campaign-with-a-long-name/runs")
	top = "a-campaign-with-a-long-name"
	json.dump({"format": "evidence-plan/1", "name": "report", "cells": [{"name": "spin"}, {"name": "epoll-with-a-long-cell-name"}]},
	          open(top + "/plan.json", "w"))
	k = 0
	for arm, base in (("baseline", 5000), ("pm-qos-held-at-zero", 4000)):
	    for cell in ("spin", "epoll-with-a-long-cell-name"):
	        for repeat in (1, 2, 3):
	            k += 1
	            name = "%03d-%s-%s-%d" % (k, arm, cell, repeat)
	            d = "%s/runs/%s" % (top, name)
	            os.makedirs(d + "/series")
	            series(d + "/series/send.bin", [int(random.lognormvariate(0, 0.5) * base) for _ in range(20000)])
	            json.dump({"format": "evidence-run/1", "name": name, "arm": arm, "cell": cell, "repeat": repeat,
	                       "result": "ok", "counts": {"warmups": 0, "measured": 20000},
	                       "processes": [{"role": "peer"}, {"role": "sender", "outputs": {"series": "series/send.bin"}}]},
	                      open(d + "/run.json", "w"))
	PY
	"$SEAL" create a-campaign-with-a-long-name -o sealed >/dev/null &&
	"$AUDIT" campaign --seal sealed/SEAL.json a-campaign-with-a-long-name -o s >/dev/null
'

test_expect_success '--seal: a series changed after sealing fails "inputs against the seal", named; a wrong pin is refused; DIR/ holds' '
	cp -R a-campaign-with-a-long-name changed &&
	printf "\\001" | dd of=changed/runs/002-baseline-spin-2/series/send.bin bs=1 seek=100 conv=notrunc 2>/dev/null &&
	test_expect_code 1 "$AUDIT" campaign --seal sealed/SEAL.json changed -o sc >/dev/null 2>err &&
	grep -q "^audit: changed/runs/002-baseline-spin-2/series/send.bin: its SHA-256 is not the seal.s (changed after sealing)$" err &&
	test "$(json_words sc/receipt.json "[(c[\"result\"], c[\"detail\"]) for c in d[\"checks\"] if c[\"name\"] == \"inputs against the seal\"]")" = \
		"fail runs/002-baseline-spin-2/series/send.bin: its SHA-256 is not the seal${Q}s (changed after sealing)" &&
	test_expect_code 2 "$AUDIT" campaign --seal sealed/SEAL.json --seal-sha256 "$(printf %064d 0)" a-campaign-with-a-long-name -o sp 2>err &&
	grep -q "sealed/SEAL.json" err && test_must_be_absent sp &&
	"$AUDIT" campaign --seal sealed/SEAL.json a-campaign-with-a-long-name/ -o s-slash >/dev/null
'

test_expect_success 'one file that fetches nothing and runs no script' '
	! grep -q "src=\|href=\|@import\|url(\|<script" s/report.html
'

cat >probe.js <<'JS'
<script>
(function () {
  var out = {};
  out.width = window.innerWidth;
  out.scrollWidth = document.documentElement.scrollWidth;
  out.provenance = document.querySelector("body > section#provenance") !== null &&
    document.querySelector("section#provenance") === document.querySelector("section");
  var rows = {};
  document.querySelectorAll("table.provenance tr").forEach(function (tr) {
    rows[tr.querySelector("th").textContent] = tr.querySelector("td").textContent;
  });
  out.rows = rows;
  out.audits = [].map.call(document.querySelectorAll("table.audits tbody tr"), function (tr) {
    return [tr.cells[0].textContent, tr.cells[1].textContent];
  });
  var names = ["cell", "runs", "rule", "run", "result", "native", "series", "in its cell", "arm",
               "statistic", "B/A", "95% of B/A", "verdict", "side", "pinned by"];
  out.unitless = [];
  document.querySelectorAll("table.cells th, table.runs th, table.arms th, table.statistics th").forEach(function (th) {
    var t = th.textContent;
    if (names.indexOf(t) < 0 && !/ \((ns|ticks)\)$/.test(t)) out.unitless.push(t);
  });
  out.tables = {};
  ["cells", "runs", "arms", "provenance", "audits", "statistics", "grade"].forEach(function (c) {
    out.tables[c] = document.querySelectorAll("table." + c).length;
  });
  out.runRows = [].map.call(document.querySelectorAll("table.runs tr.run"), function (tr) { return tr.dataset.run; });
  out.runCells = [].map.call(document.querySelectorAll("table.runs tbody tr"), function (tr) { return tr.cells[0].textContent; });
  out.runLines = [].map.call(document.querySelectorAll("polyline.run-spectrum"), function (p) {
    return [p.dataset.series, p.getAttribute("stroke-opacity")];
  });
  out.armLines = [].map.call(document.querySelectorAll(".cell-compared"), function (d) {
    return [d.dataset.cell, [].map.call(d.querySelectorAll("polyline.arm-spectrum"), function (p) { return p.dataset.series; }),
            d.querySelector("svg").getAttribute("viewBox")];
  });
  out.overflow = [];
  out.svgWidths = [];
  document.querySelectorAll("svg").forEach(function (svg, i) {
    var box = svg.getBoundingClientRect();
    out.svgWidths.push(Math.round(box.width));
    svg.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.overflow.push(i + ": " + t.textContent);
    });
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
JS

# render WIDTH [PAGE]: PAGE (s/report.html) at a window WIDTH pixels wide,
# the probe's findings in probe-WIDTH.json
render () {
	python3 -c "
doc = open(\"${2:-s/report.html}\").read()
open(\"probed.html\", \"w\").write(doc.replace(\"</body></html>\", open(\"probe.js\").read() + \"</body></html>\"))
" &&
	nice -n 19 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-sync \
		--disable-background-networking --disable-component-update --user-data-dir="$PWD/profile" \
		--window-size="$1",2000 --dump-dom "file://$PWD/probed.html" >dom-$1.html 2>chromium.err &&
	python3 -c "
import html, re, sys
m = re.search(r\"<pre id=\\\"probe\\\">(.*?)</pre>\", open(\"dom-$1.html\").read(), re.S)
open(\"probe-$1.json\", \"w\").write(html.unescape(m.group(1)))
"
}

test_expect_success 'rendered at 480 and 1600 pixels: the probe ran' '
	if [ -z "$CHROMIUM" ]; then echo "chromium is not installed (Debian package chromium)"; false; fi &&
	render 480 && render 1600 &&
	test -s probe-480.json && test -s probe-1600.json
'

test_expect_success 'provenance on top: campaign, seal SHA-256, host, kernel, every audit and its verdict' '
	python3 - "$(sha256_of sealed/SEAL.json)" "$(uname -r)" <<-\PY
	import json, sys
	p = json.load(open("probe-1600.json"))
	assert p["provenance"], "the provenance is not the first section"
	rows = p["rows"]
	assert rows["campaign"] == "report", rows
	assert rows["seal SHA-256"] == sys.argv[1], rows["seal SHA-256"]
	for key in ("host", "kernel", "CPU model", "OS"):
	    assert key in rows, key
	checks = json.load(open("s/receipt.json"))["checks"]
	assert p["audits"] == [[c["name"], c["result"]] for c in checks], p["audits"]
	assert ["inputs against the seal", "pass"] in p["audits"]
	PY
'

test_expect_success 'real tables, the unit in every header, every run in its table and as a faint line' '
	python3 - <<-\PY
	import json
	p = json.load(open("probe-1600.json"))
	assert p["tables"] == {"cells": 2, "runs": 2, "arms": 2, "provenance": 1, "audits": 1, "statistics": 0, "grade": 1}, p["tables"]
	assert p["unitless"] == [], p["unitless"]
	runs = [r["name"] for r in json.load(open("s/summary.json"))["runs"]]
	assert sorted(p["runRows"]) == sorted(runs), p["runRows"]
	assert sorted(l[0] for l in p["runLines"]) == sorted(runs), p["runLines"]
	assert all(float(l[1]) < 0.5 for l in p["runLines"]), p["runLines"]
	PY
'

test_expect_success 'the arms compared cell by cell, every chart on one scale' '
	python3 - <<-\PY
	import json
	p = json.load(open("probe-1600.json"))
	assert [a[0] for a in p["armLines"]] == ["spin", "epoll-with-a-long-cell-name"], p["armLines"]
	assert all(a[1] == ["baseline", "pm-qos-held-at-zero"] for a in p["armLines"]), p["armLines"]
	PY
	python3 - <<-\PY
	import re
	doc = open("s/report.html").read()
	parts = doc.split("<div class=\"cell-compared\"")[1:]
	# the y axis: each tick label at the left margin, with its height
	ticks = [re.findall(r"<text x=\"66.0\" y=\"([0-9.]+)\" text-anchor=\"end\">([^<]*)</text>", p.split("</svg>")[0]) for p in parts]
	assert len(ticks) == 2 and ticks[0] == ticks[1] and len(ticks[0]) >= 2, ticks
	PY
'

test_expect_success 'no SVG text outside its drawing; the width follows the window' '
	python3 - <<-\PY
	import json
	narrow, wide = json.load(open("probe-480.json")), json.load(open("probe-1600.json"))
	for p in (narrow, wide):
	    assert p["overflow"] == [], p["overflow"]
	    assert p["scrollWidth"] <= p["width"], (p["scrollWidth"], p["width"])
	assert max(narrow["svgWidths"]) <= 480, narrow["svgWidths"]
	assert min(wide["svgWidths"]) > 760, wide["svgWidths"]
	PY
'

test_expect_success 'audit compare'"'"'s page: its tables with units, every run of both arms, nothing outside its drawing' '
	"$AUDIT" compare --unregistered --arm baseline --arm pm-qos-held-at-zero s -o c >/dev/null &&
	! grep -q "src=\|href=\|@import\|url(\|<script" c/comparison.html &&
	render 480 c/comparison.html && mv probe-480.json compare-480.json &&
	render 1600 c/comparison.html && mv probe-1600.json compare-1600.json &&
	python3 - <<-\PY
	import json
	runs = [r["name"] for r in json.load(open("s/summary.json"))["runs"]]
	for name in ("compare-480.json", "compare-1600.json"):
	    p = json.load(open(name))
	    assert p["tables"]["statistics"] == 2 and p["tables"]["runs"] == 2, p["tables"]
	    assert p["unitless"] == [], p["unitless"]
	    assert sorted(p["runCells"]) == sorted(runs), p["runCells"]
	    assert p["overflow"] == [], p["overflow"]
	    assert p["scrollWidth"] <= p["width"], (p["scrollWidth"], p["width"])
	PY
'

test_expect_success 'a screenshot renders' '
	nice -n 19 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$PWD/profile" \
		--hide-scrollbars --window-size=1280,2400 --screenshot="$PWD/report.png" "file://$PWD/s/report.html" 2>/dev/null &&
	test "$(head -c 8 report.png | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a
'

test_done
