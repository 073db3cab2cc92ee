#!/bin/sh
# audit series: a header count that disagrees with the samples and a CSV
# line that is not a number are findings naming the byte or line (exit 1,
# the rest still summed up); a paced run's deadlines rebuilt from its delay
# series give the same missed count and maximum delay the sender
# reported; the journal-page cohorts come with their displaced controls;
# misuse is named (exit 2, no receipt).
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a paced run of the reference pair, with its series, delays, journal and report' '
	port=$((40000 + $$ % 20000)) &&
	{ "$FIX_RECEIVER" --listen 127.0.0.1:$port --journal rj >/dev/null 2>&1 & } &&
	"$FIX_SENDER" --connect 127.0.0.1:$port --warmups 50 --measured 4000 --rate 20000 --journal sj \
		--series s.bin --delay-series d.bin --report report.json >stdout.txt &&
	wait
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

test_expect_success 'pacing rebuilt from the delays: the missed count and the true maximum the sender reported' '
	"$AUDIT" series --native report.json --delay d.bin --rate 20000 --receipt p.json s.bin >out &&
	grep -q "^paced at 20000/s: [0-9]* deadlines missed and re-anchored" out &&
	test "$(json_words p.json "d[\"facts\"][\"pacing\"][\"missed_and_reanchored\"], d[\"facts\"][\"pacing\"][\"max_delay\"], d[\"facts\"][\"pacing\"][\"calls\"]")" = \
		"$(json_words report.json "d[\"pacing\"][\"missed\"], d[\"pacing\"][\"delay\"][\"max\"], d[\"pacing\"][\"delay\"][\"count\"]")" &&
	test "$(json_words p.json "0 < float(d[\"facts\"][\"pacing\"][\"achieved_from_deadlines\"]) <= 20000 * 1.001")" = True
'

test_expect_success 'journal-page cohorts: the labels, their share, and the displaced controls' '
	"$AUDIT" series --journal sj --warmups 50 --threshold 1 --receipt c.json s.bin >out &&
	test "$(json_words c.json "[x[\"displacement\"] for x in d[\"facts\"][\"cohorts\"][\"by_displacement\"]]")" = "0 1 8 128" &&
	test "$(json_words c.json "[x[\"page\"][\"calls\"] + x[\"other\"][\"calls\"] for x in d[\"facts\"][\"cohorts\"][\"by_displacement\"]]")" = "4000 4000 4000 4000" &&
	test "$(json_words c.json "d[\"facts\"][\"cohorts\"][\"by_displacement\"][0][\"page\"][\"calls\"] > 0")" = True &&
	test_expect_code 1 "$AUDIT" series --journal sj --warmups 5000 --receipt c2.json s.bin >out 2>err &&
	grep -q "^audit: sj: 4052 records, too few for a Logon, 5000 warmups and the series. 4000 measured calls" err &&
	test "$(json_words c2.json "[f[\"check\"] for f in d[\"facts\"][\"series_findings\"]]")" = cohort-align
'

test_expect_success 'a header count that is not the samples, and trailing bytes: named, exit 1, the rest summed up' '
	cp s.bin cut.bin && truncate -s -12 cut.bin &&
	test_expect_code 1 "$AUDIT" series --receipt cut.json cut.bin >out 2>err &&
	grep -q "^audit: cut.bin: byte 64: the header.s count is not the number of samples the file holds (expected 4000 samples, found 3998 samples)" err &&
	grep -q "^audit: cut.bin: byte 32064: bytes after the last whole sample (expected none, found 4 bytes)" err &&
	test "$(json_words cut.json "d[\"facts\"][\"recomputed\"][\"count\"], d[\"result\"]")" = "3998 fail"
'

test_expect_success 'a CSV line that is not a number: the line named, the others kept' '
	printf "# evidence-series/1 clock=CLOCK_MONOTONIC_RAW ticks_per_second=1000000000 count=4\n10\n20\nx30\n40\n" >bad.csv &&
	test_expect_code 1 "$AUDIT" series --receipt bad.json bad.csv >out 2>err &&
	grep -q "^audit: bad.csv: line 4: not a whole number of ticks (expected a whole number, found \"x30\")" err &&
	grep -q "^audit: bad.csv: line 1: the header.s count is not the number of samples the file holds (expected 4 samples, found 3 samples)" err &&
	test "$(json_words bad.json "d[\"facts\"][\"recomputed\"][\"count\"], d[\"facts\"][\"recomputed\"][\"max\"]")" = "3 40"
'

test_expect_success 'misuse and refusals: named, exit 2, no receipt' '
	test_expect_code 2 "$AUDIT" series --delay d.bin s.bin 2>err && grep -q "^audit: --delay and --rate go together" err &&
	test_expect_code 2 "$AUDIT" series --rule median s.bin 2>err &&
	grep -q "^audit: option --rule: expected nearest-rank, floor-index, round-half-up or linear, found .median." err &&
	test_expect_code 2 "$AUDIT" series --quantile 101 s.bin 2>err &&
	grep -q "^audit: option --quantile: expected a percentile from 0 to 100, found .101." err &&
	printf "\0\1\2" >junk.bin && test_expect_code 2 "$AUDIT" series --receipt j.json junk.bin 2>err &&
	grep -q "^audit: junk.bin: binary, but not an evidence series (no \"EVSERIES\" at its start)" err &&
	test_must_be_absent j.json &&
	test_expect_code 2 "$AUDIT" series --native s.bin --receipt k.json s.bin 2>err &&
	test_must_be_absent k.json &&
	"$AUDIT" series --help >help.txt && grep -q "^usage: audit series" help.txt &&
	"$AUDIT" campaign --help >help.txt && grep -q "^usage: audit campaign CAMPAIGN_DIR -o OUTDIR" help.txt &&
	"$AUDIT" --help >help.txt && grep -q "^  series  *every statistic a benchmark printed" help.txt
'

test_done
