#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit series recomputes the reference pair's statistics from its series:
# they agree with its block and report, and every line of the llfix block
# it printed is in the receipt, compared or named as not recomputable.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a paced run of the reference pair, with its series, delays, journal and report' '
	paced_pair_run
'

test_expect_success 'the sender'"'"'s statistics, block and report, agree with its series' '
	"$AUDIT" series --native report.json --receipt a.json s.bin >out &&
	grep -q "^OK: 0 statistics differ, 0 series findings" out &&
	"$AUDIT" series --native stdout.txt --receipt b.json s.bin >out &&
	test "$(json_words b.json "sorted(set(s[\"verdict\"] for s in d[\"facts\"][\"statistics\"]))")" = "equal not recomputable"
'

test_expect_success 'every line of the llfix block the sender printed is in the receipt, compared or named as not recomputable' '
	python3 - <<-\PY
	import json, re
	d = json.load(open("b.json"))
	said = {}
	for s in d["facts"]["statistics"]:
	    said.setdefault(s["native"], []).append(s["verdict"])
	text = re.sub(r"\x1b\[[0-9;]*m", "", open("stdout.txt").read())
	lines = [l for l in text.splitlines() if l.strip()]
	assert lines, "no block"
	for line in lines:
	    if line.startswith("Title"):
	        continue                  # the title names the block, it states no number
	    # as printed: "CPU frequency 2596000000 hertz", "Pinned to CPU core 1", "Label : value"
	    value = line.split(" : ", 1)[1] if " : " in line else " ".join(line.split(" ")[-2:]) if line.endswith("hertz") else line.rsplit(" ", 1)[-1]
	    value = value.replace(" nanoseconds", "").strip()
	    assert value in said, (line, value)
	    assert all(v == "equal" or v == "not recomputable" for v in said[value]), (line, said[value])
	PY
'

test_done
