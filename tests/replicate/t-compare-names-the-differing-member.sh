#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate compare: receipts of identical copies agree (exit 0) whatever
# their paths, hosts and times; a copy with one member changed differs, and
# the comparison names that member's check, the archive digest and the
# result; a receipt edited by hand is named as such.
. "$EV_SRCDIR/tests/lib/lib.sh"

J=runs/A-1/journal/1.bin
SQ="'"

test_expect_success 'setup: one archive, two faithful copies and one with a member changed' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	mkdir -p hostA hostB hostC &&
	cp out/SEAL.json out/archive.tar.zst hostA/ && cp out/SEAL.json out/archive.tar.zst hostB/ &&
	cp out/SEAL.json hostC/ &&
	python3 "$SURGERY" out/archive.tar.zst hostC/archive.tar.zst flip $J 4100 &&
	for h in hostA hostB hostC; do
		(cd $h && "$REPLICATE" verify --seal SEAL.json --receipt receipt.json archive.tar.zst >/dev/null 2>&1)
		test -f $h/receipt.json || return 1
	done
'

test_expect_success 'faithful copies agree: exit 0, one comparable digest' '
	"$REPLICATE" compare hostA/receipt.json hostB/receipt.json >stdout 2>stderr &&
	test ! -s stderr &&
	digest=$(json_get hostA/receipt.json "d[\"comparable\"]") &&
	grep -x "AGREE: 2 receipts, comparable $digest" stdout &&
	grep -q "^hostA/receipt.json: replica on .*, result pass, comparable ${digest%????????????????????????????????????????????????}$" stdout
'

test_expect_success 'the changed copy differs, and the member is named' '
	test_expect_code 1 "$REPLICATE" compare hostA/receipt.json hostB/receipt.json hostC/receipt.json >stdout 2>actual &&
	grep -x "DIFFER: 1 of 2 receipts differ from hostA/receipt.json; 6 problems named above" stdout &&
	grep -x "replicate: hostC/receipt.json: check sha256:$J: only in this receipt (found fail: content differs (SHA-256) (expected $(sha256_of c/$J), found $(zstd -dcq hostC/archive.tar.zst | tar -xOf - c/$J | sha256sum | cut -c1-64)))" actual &&
	grep -x "replicate: hostC/receipt.json: input archive: differs between the receipts (expected $(sha256_of out/archive.tar.zst), found $(sha256_of hostC/archive.tar.zst))" actual &&
	grep -x "replicate: hostC/receipt.json: result: differs between the receipts (expected pass, found fail)" actual &&
	grep -q "^replicate: hostC/receipt.json: check members: differs between the receipts" actual &&
	grep -x "replicate: hostC/receipt.json: fact archive_bytes: differs between the receipts (expected $(stat -c %s out/archive.tar.zst), found $(stat -c %s hostC/archive.tar.zst))" actual &&
	grep -x "replicate: hostC/receipt.json: fact findings_by_check: differs between the receipts (expected {}, found {\"sha256\":1})" actual &&
	test "$(wc -l <actual)" -eq 6
'

test_expect_success 'a receipt edited by hand (comparable left as it was) is named as edited' '
	python3 -c "
import json
d = json.load(open(\"hostC/receipt.json\"))
d[\"result\"] = \"pass\"
open(\"forged.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\")
" &&
	test_expect_code 1 "$REPLICATE" compare hostA/receipt.json forged.json >/dev/null 2>actual &&
	grep -x "replicate: forged.json: its comparable digest does not match its content: it was edited after it was written" actual
'

test_expect_success 'a field added outside the comparable digest is named as edited, without --trust' '
	python3 -c "
import json
d = json.load(open(\"hostB/receipt.json\"))
d[\"verdict_by_hand\"] = \"all fine\"
open(\"added.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\")
" &&
	test_expect_code 1 "$REPLICATE" compare hostA/receipt.json added.json >stdout 2>actual &&
	grep -x "replicate: added.json: holds a field no receipt has (\"verdict_by_hand\"), outside its comparable digest: it was edited after it was written" actual &&
	! grep -q "^AGREE" stdout
'

test_expect_success 'compare --json says the same for a program' '
	test_expect_code 1 "$REPLICATE" compare --json hostA/receipt.json hostC/receipt.json >c.json 2>/dev/null &&
	test "$(json_get c.json "d[\"format\"], d[\"agree\"], len(d[\"receipts\"])")" = "evidence-comparison/1 False 2" &&
	test "$(json_get c.json "sorted(set(f[\"check\"] for f in d[\"findings\"]))")" = "[${SQ}differs${SQ}, ${SQ}only-in-one${SQ}]" &&
	"$REPLICATE" compare --json hostA/receipt.json hostB/receipt.json >a.json &&
	test "$(json_get a.json "d[\"agree\"]")" = True
'

test_expect_success 'a file that is not a receipt is an error (exit 2), not a difference' '
	test_expect_code 2 "$REPLICATE" compare hostA/receipt.json out/SEAL.json 2>actual &&
	grep -q "^replicate: out/SEAL.json: " actual &&
	test_expect_code 2 "$REPLICATE" compare hostA/receipt.json missing.json 2>actual &&
	grep -q "^replicate: missing.json: cannot open" actual
'

test_done
