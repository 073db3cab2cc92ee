#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal names an input it cannot read (a journal, a dictionary, a
# spec, a directory without 1.bin), exits 2 and writes no receipt.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'unreadable inputs are named, exit 2, no receipt' '
	test_expect_code 2 "$AUDIT" journal --sender nowhere --receipt r1.json 2>err &&
	grep -q "^audit: nowhere: cannot read: No such file or directory" err &&
	test_expect_code 2 "$AUDIT" journal --sender p/sender --dict missing.xml --receipt r2.json 2>err &&
	grep -q "^audit: missing.xml: cannot open" err &&
	echo "{\"format\": \"evidence-fix-spec/1\", \"bogus\": 1}" >bad-spec.json &&
	test_expect_code 2 "$AUDIT" journal --sender p/sender --spec bad-spec.json --receipt r3.json 2>err &&
	grep -q "bad-spec.json: the spec: unknown key \"bogus\"" err &&
	mkdir empty && test_expect_code 2 "$AUDIT" journal --sender empty --receipt r4.json 2>err &&
	grep -q "empty: a directory without 1.bin" err &&
	test_must_be_absent r1.json r2.json r3.json r4.json
'

test_done
