#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal names an input it cannot read (a journal, a dictionary, a
# spec, a directory without 1.bin), exits 2 and writes no receipt; the
# default spec and dictionaries come from EVIDENCE_DATADIR or where they
# are installed, and the build tree is not compiled in.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

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

test_expect_success 'the shipped spec and dictionaries are read from EVIDENCE_DATADIR, else where installed, never from the sources' '
	test_expect_code 2 env EVIDENCE_DATADIR=$PWD/no-data "$AUDIT" journal --sender p/sender --receipt r5.json 2>err &&
	grep -q "^audit: no --spec given, and the default spec $PWD/no-data/audit/llfix-tx-new-order.json cannot be read (is evidence installed? from a build tree, set EVIDENCE_DATADIR to the sources${Q} share/)$" err &&
	test_expect_code 2 env EVIDENCE_DATADIR=$PWD/no-data "$AUDIT" journal --sender p/sender \
		--spec "$EV_SRCDIR/share/audit/llfix-tx-new-order.json" --receipt r6.json 2>err &&
	grep -q "^audit: no --dict given, and the default dictionary $PWD/no-data/fix/FIXT11.xml cannot be read" err &&
	mkdir -p data && cp -R "$EV_SRCDIR/share/audit" "$EV_SRCDIR/share/fix" data/ &&
	env EVIDENCE_DATADIR=$PWD/data "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender --receiver p/receiver \
		--receipt r7.json >out &&
	test "$(json_get r7.json "d[\"result\"]")" = pass &&
	test_must_be_absent r5.json r6.json &&
	! strings "$AUDIT" | contains -F "$EV_SRCDIR/share"
'

test_done
