#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate continue: a copy whose archive changed one member's mode
# (0600 -> 0644, made by a copier later found to drop modes) fails verify;
# the continuation accepts exactly that mode, reruns verify on the same
# archive (its receipt sent elsewhere, --receipt-dir left out) and passes,
# the original receipt unchanged. An archive changed since, under the same
# name, is refused.
. "$EV_SRCDIR/tests/lib/lib.sh"

SQ="'"
J=runs/A-1/journal/1.bin

test_expect_success 'setup: a sealed campaign; a copy with one mode changed fails verify' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	python3 "$SURGERY" out/archive.tar.zst m.tar.zst chmod $J 644 &&
	mkdir receipts &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --receipt-dir receipts m.tar.zst >/dev/null 2>&1 &&
	orig=$(ls receipts/*.json) && test -n "$orig" && cp "$orig" orig.kept && echo "$orig" >orig.name
'

test_expect_success 'accepting mode 0644 passes; the fresh receipt went to no receipt directory' '
	orig=$(cat orig.name) &&
	"$REPLICATE" continue --original "$orig" --accept-value mode=0644 --receipt cont.json >said &&
	grep -q "^OK: continuation of $orig .*${SQ}replicate verify${SQ} rerun, 1 difference, 1 accepted, 0 remain; receipt cont.json$" said &&
	cmp "$orig" orig.kept && test "$(ls receipts | wc -l)" = 1 &&
	test "$(json_words cont.json "[(a[\"check\"], a[\"subject\"], a[\"found\"]) for a in d[\"facts\"][\"accepted\"]]")" = "mode $J 0644"
'

test_expect_success 'an archive changed since the original (a second mode) is refused, nothing written' '
	orig=$(cat orig.name) &&
	python3 "$SURGERY" m.tar.zst m2.tar.zst chmod runs/run.sh 700 &&
	mv m2.tar.zst m.tar.zst &&
	test_expect_code 2 "$REPLICATE" continue --original "$orig" --accept-value mode=0644 --receipt c2.json 2>err &&
	grep -q "^replicate: $orig: the inputs are not the original${SQ}s: input archive " err &&
	test_must_be_absent c2.json && cmp "$orig" orig.kept
'

test_done
