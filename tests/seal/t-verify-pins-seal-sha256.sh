#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --seal-sha256 pins the seal itself: a SEAL.json whose bytes hash
# differently is refused before anything else is read; an edited seal is
# refused even unpinned, because its bytes are no longer canonical.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	pin=$(sha256_of out/SEAL.json) && echo "$pin" >pin
'

test_expect_success 'the right pin passes' '
	"$SEAL" verify --seal out/SEAL.json --seal-sha256 "$(cat pin)" c >/dev/null &&
	"$SEAL" verify --seal out/SEAL.json --seal-sha256 "$(cat pin)" out/archive.tar.zst >/dev/null
'

test_expect_success 'a seal for another tree fails the pin, exit 1, nothing else checked' '
	echo other >c/summary/other.txt && "$SEAL" create c -o other >/dev/null &&
	test_expect_code 1 "$SEAL" verify --seal other/SEAL.json --seal-sha256 "$(cat pin)" c 2>actual >/dev/null &&
	echo "seal: other/SEAL.json: SEAL.json is not the pinned seal; nothing else was checked (expected $(cat pin), found $(sha256_of other/SEAL.json))" >expect &&
	test_cmp expect actual
'

test_expect_success 'a hand-edited SEAL.json (same meaning, new spacing) is refused' '
	python3 -c "import json; d=json.load(open(\"out/SEAL.json\")); json.dump(d, open(\"edited.json\",\"w\"), indent=1, sort_keys=True)" &&
	test_expect_code 1 "$SEAL" verify --seal edited.json --seal-sha256 "$(cat pin)" c 2>/dev/null >/dev/null &&
	test_expect_code 2 "$SEAL" verify --seal edited.json c 2>actual &&
	echo "seal: edited.json: not in canonical form (sorted keys, no spaces, one trailing newline); it was edited or not written by evidence" >expect &&
	test_cmp expect actual
'

test_expect_success 'a failed pin still writes the receipt that says so' '
	test_expect_code 1 "$SEAL" verify --receipt r.json --seal other/SEAL.json --seal-sha256 "$(cat pin)" c 2>/dev/null >/dev/null &&
	python3 -c "
import json
r = json.load(open(\"r.json\"))
assert r[\"result\"] == \"fail\", r
pins = [c for c in r[\"checks\"] if c[\"name\"].startswith(\"seal-sha256\")]
assert [(c[\"name\"], c[\"result\"]) for c in pins] == [(\"seal-sha256\", \"fail\")], r[\"checks\"]
assert \"SEAL.json is not the pinned seal; nothing else was checked (expected \" in pins[0][\"detail\"], pins[0]
"
'

test_expect_success 'a receipt is never overwritten' '
	test_expect_code 2 "$SEAL" verify --receipt r.json --seal out/SEAL.json c 2>actual >/dev/null &&
	echo "seal: r.json: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect actual
'

test_done
