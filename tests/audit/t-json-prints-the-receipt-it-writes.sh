#!/bin/sh
# audit journal --json prints the receipt it writes; a receipt is never
# overwritten (by journal, series or profile: refused before any input is
# read); without --receipt one gets a fresh name where audit runs.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success '--json prints the receipt it writes; a receipt is never overwritten' '
	"$AUDIT" journal --warmups 3 --measured 20 --sender p/sender --receiver p/receiver \
		--receipt r.json --json >printed &&
	test_cmp r.json printed &&
	test "$(json_get r.json "d[\"kind\"]")" = audit &&
	test "$(json_get r.json "d[\"result\"]")" = pass &&
	cp r.json before.json &&
	test_expect_code 2 "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender --receipt r.json 2>err &&
	grep -q "r.json: already exists; evidence is never overwritten" err &&
	test_cmp before.json r.json
'

test_expect_success 'without --receipt, a fresh name in the current directory' '
	mkdir here && (cd here && "$AUDIT" journal --warmups 3 --measured 20 --sender ../p/sender >out) &&
	ls here/audit-journal-*.json >/dev/null && grep -q "receipt ./audit-journal-.*Z.json$" here/out
'

test_expect_success 'audit series and audit profile refuse a named receipt that exists, before reading' '
	echo kept >kept.json && cp kept.json before.json &&
	test_expect_code 2 "$AUDIT" series --receipt kept.json no-such.bin 2>err &&
	test "$(cat err)" = "audit: kept.json: already exists; evidence is never overwritten (choose a new name)" &&
	test_expect_code 2 "$AUDIT" profile --receipt kept.json no-such-run 2>err &&
	test "$(cat err)" = "audit: kept.json: already exists; evidence is never overwritten (choose a new name)" &&
	test_cmp before.json kept.json
'

test_done
