#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A header count that is not the samples, trailing bytes and a CSV line that
# is not a number are findings naming the byte or line (exit 1, the rest
# still summed up); misuse is named, exit 2, no receipt.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a paced run of the reference pair, with its series, delays, journal and report' '
	paced_pair_run
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
