#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --max-findings bounds the findings shown and kept per rule; every one is
# still counted in the receipt.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success '--max-findings bounds what is shown and kept; every finding is counted' '
	json_get "$EV_SRCDIR/share/audit/llfix-tx-new-order.json" \
		"json.dumps(dict(d, fields=[dict(f, value=\"11\") if f[\"tag\"] == 38 else f for f in d[\"fields\"]]))" >qty11.json &&
	test_expect_code 1 "$AUDIT" journal --warmups 3 --measured 20 --spec qty11.json --sender p/sender \
		--max-findings 2 --receipt many.json >/dev/null 2>err &&
	test "$(grep -c "spec-value: order field differs" err)" = 2 &&
	grep -q "^audit: pair 1 sender: spec-value: 21 more not shown (--max-findings)" err &&
	test "$(json_get many.json "d[\"facts\"][\"pairs\"][0][\"sender\"][\"findings_by_rule\"][\"spec-value\"]")" = 23 &&
	test "$(json_get many.json "len(d[\"facts\"][\"first_findings\"])")" = 2
'

test_done
