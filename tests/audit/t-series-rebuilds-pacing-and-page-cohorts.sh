#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A paced run's deadlines rebuilt from its delay series give the missed
# count and maximum delay the sender reported; the journal-page cohorts
# come with their share and their displaced controls.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a paced run of the reference pair, with its series, delays, journal and report' '
	paced_pair_run
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

test_done
