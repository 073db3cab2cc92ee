#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit continue, on a journal pair whose orders carry Side=Z (a value the
# dictionary does not list, later understood to be harmless): the original
# receipt, which showed one finding per rule and side (--max-findings 1),
# is kept byte for byte; a continuation that accepts 54=Z for both rules
# it broke passes, having rerun every finding (four, not the two shown);
# one that names only enum-value leaves spec-value remaining; a rule the
# original did not fail is refused; a journal changed since is refused.
. "$EV_SRCDIR/tests/lib/lib.sh"

SQ="'"
COUNTS="--warmups 3 --measured 20"

test_expect_success 'setup: Side=Z in two orders of both sides; the audit fails on enum-value and spec-value' '
	"$GEN_JOURNAL" --file-size 4096 base 3 20 >/dev/null &&
	cp -R base/sender base/receiver . &&
	for side in sender receiver; do
		python3 "$JOURNAL_SURGERY" $side sub 1.bin:5 "|54=1|" "|54=Z|" &&
		python3 "$JOURNAL_SURGERY" $side sub 2.bin:3 "|54=1|" "|54=Z|" || return 1
	done &&
	test_expect_code 1 "$AUDIT" journal $COUNTS --sender sender --receiver receiver --max-findings 1 \
		--receipt orig.json >/dev/null 2>&1 &&
	test "$(json_words orig.json "sorted(set(f[\"rule\"] for f in d[\"facts\"][\"first_findings\"]))")" = "enum-value spec-value" &&
	test "$(json_get orig.json "len(d[\"facts\"][\"first_findings\"])")" = 4 &&
	cp orig.json orig.kept
'

test_expect_success 'accepting 54=Z for both rules passes on every finding of the rerun, the original untouched' '
	"$AUDIT" continue --original orig.json --original-sha256 "$(sha256sum <orig.json | cut -c1-64)" \
		--accept-value enum-value=54=Z --accept "spec-value=54=[A-Z]" >out &&
	grep -q "^OK: continuation of orig.json .*${SQ}audit journal${SQ} rerun, 8 differences, 8 accepted, 0 remain; receipt ./orig-continuation.json$" out &&
	cmp orig.json orig.kept &&
	test "$(json_words orig-continuation.json "[(r[\"check\"], r[\"accepted\"]) for r in d[\"facts\"][\"rules\"]]")" = "enum-value 4 spec-value 4" &&
	test "$(json_get orig-continuation.json "d[\"facts\"][\"original\"][\"sha256\"]")" = "$(sha256sum <orig.json | cut -c1-64)" &&
	test "$(json_get orig-continuation.json "d[\"fresh_receipt\"][\"facts\"][\"max_findings_per_rule\"]")" = 0 &&
	test "$(json_get orig-continuation.json "d[\"facts\"][\"accepted_count\"]")" = 8
'

test_expect_success 'naming enum-value only leaves every spec-value finding remaining, named (exit 1)' '
	test_expect_code 1 "$AUDIT" continue --original orig.json --accept-value enum-value=54=Z --receipt half.json >out 2>err &&
	test "$(grep -c "spec-value differs, and no rule accepts it (expected 54=1, found 54=Z)$" err)" = 4 &&
	test "$(wc -l <err)" = 4 &&
	grep -q "^audit: pair 1 sender 1.bin at byte 1002 record 5 tag 54: spec-value differs" err &&
	test "$(json_words half.json "d[\"result\"], d[\"facts\"][\"accepted_count\"], len(d[\"facts\"][\"remaining\"])")" = "fail 4 4"
'

test_expect_success 'a rule the original did not fail is refused, and nothing is written' '
	test_expect_code 2 "$AUDIT" continue --original orig.json --accept-value checksum=123 --receipt no.json 2>err &&
	echo "audit: --accept-value checksum=123: the original did not fail check ${SQ}checksum${SQ}; a continuation relaxes only a check the original failed (it failed: enum-value, spec-value)" >expect &&
	test_cmp expect err && test_must_be_absent no.json && cmp orig.json orig.kept
'

test_expect_success 'a journal changed since the original is refused, and nothing is written' '
	printf x >>sender/2.bin &&
	test_expect_code 2 "$AUDIT" continue --original orig.json --accept-value enum-value=54=Z --receipt no.json 2>err &&
	grep -q "^audit: orig.json: the inputs are not the original${SQ}s: input pair 1 sender 2.bin (sender/2.bin) had SHA-256 " err &&
	test_must_be_absent no.json && cmp orig.json orig.kept
'

test_done
