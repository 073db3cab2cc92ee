#!/bin/sh
# create --json and verify --json print the receipt, canonical, as written.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup

test_expect_success 'create --json and verify --json print canonical receipts' '
	make_campaign c &&
	"$SEAL" create --json c -o out >receipt.json &&
	cmp receipt.json out/receipt.json &&
	python3 -c "import json,sys; r=json.load(open(\"receipt.json\")); assert r[\"kind\"]==\"seal\" and r[\"result\"]==\"pass\" and r[\"format\"]==\"evidence-receipt/1\", r" &&
	"$SEAL" verify --json --seal out/SEAL.json c >v.json &&
	python3 -c "import json; r=json.load(open(\"v.json\")); assert r[\"kind\"]==\"verify\" and r[\"result\"]==\"pass\", r"
'

test_done
