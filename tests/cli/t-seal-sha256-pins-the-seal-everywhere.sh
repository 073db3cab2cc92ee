#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --seal-sha256 HEX is accepted wherever a seal is read: seal verify and
# replicate verify (a failing receipt: the check is theirs), and audit
# journal --archive, replicate push and replicate prune, which rely on the
# seal and so refuse another one before anything else (exit 2): nothing
# audited, nothing copied, nothing removed. The right pin passes; a
# malformed one is a usage error.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

J=runs/A-1/journal
WRONG=0000000000000000000000000000000000000000000000000000000000000000

test_expect_success 'setup: a sealed campaign with a pair of journals; receipts from two hosts' '
	mkdir -p c/$J && "$GEN_JOURNAL" --file-size 4096 c/$J 3 20 &&
	"$SEAL" create c -o out >/dev/null && pin=$(sha256_of out/SEAL.json) && echo "$pin" >pin &&
	as_host hA "$REPLICATE" verify --seal out/SEAL.json --receipt hA.json out/archive.tar.zst >/dev/null &&
	as_host hB "$REPLICATE" verify --seal out/SEAL.json --receipt hB.json out/archive.tar.zst >/dev/null
'

refusal () { # refusal TOOL: the one line a wrong pin gets
	echo "$1: out/SEAL.json: not the pinned seal: its bytes hash to $(cat pin), --seal-sha256 says $WRONG; nothing else was read${2:-}"
}

test_expect_success 'audit journal --archive: a wrong pin refused before any journal is read, no receipt' '
	test_expect_code 2 "$AUDIT" journal --warmups 3 --measured 20 --archive out/archive.tar.zst --seal out/SEAL.json \
		--seal-sha256 $WRONG --sender $J/sender --receiver $J/receiver --receipt a.json 2>err &&
	refusal audit >expect && test_cmp expect err && test_must_be_absent a.json &&
	"$AUDIT" journal --warmups 3 --measured 20 --archive out/archive.tar.zst --seal out/SEAL.json \
		--seal-sha256 "$(cat pin)" --sender $J/sender --receiver $J/receiver --receipt a.json >/dev/null &&
	test "$(json_get a.json "d[\"result\"]")" = pass
'

test_expect_success 'replicate push: a wrong pin refused before a byte is copied' '
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --seal-sha256 $WRONG \
		--to dest --receipt-dir . 2>err &&
	refusal replicate "; nothing was copied" >expect && test_cmp expect err && test_must_be_absent dest &&
	"$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --seal-sha256 "$(cat pin)" --to dest \
		--receipt-dir . >stdout && grep -q "^AGREE: 2 receipts" stdout
'

test_expect_success 'replicate prune: a wrong pin refused, nothing removed; the right one removes' '
	test_expect_code 2 "$REPLICATE" prune --seal out/SEAL.json --seal-sha256 $WRONG --receipt cl.json \
		--receipts hA.json hB.json c 2>err &&
	refusal replicate >expect && test_cmp expect err && test -d c/$J && test_must_be_absent cl.json &&
	"$REPLICATE" prune --seal out/SEAL.json --seal-sha256 "$(cat pin)" --receipt cl.json \
		--receipts hA.json hB.json c >/dev/null && test_must_be_absent c
'

test_expect_success 'the verifiers take the same pin, and every command refuses a malformed one' '
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json --seal-sha256 $WRONG out/archive.tar.zst >/dev/null 2>&1 &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --seal-sha256 $WRONG --receipt r.json \
		out/archive.tar.zst >/dev/null 2>&1 &&
	test_expect_code 2 "$AUDIT" journal --archive out/archive.tar.zst --seal out/SEAL.json --seal-sha256 xyz \
		--sender $J/sender 2>err &&
	grep -qx "audit: option --seal-sha256: expected 64 lower-case hex digits" err &&
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --seal-sha256 xyz --to d2 2>err &&
	grep -qx "replicate: option --seal-sha256: expected 64 lower-case hex digits" err &&
	test_expect_code 2 "$REPLICATE" prune --seal out/SEAL.json --seal-sha256 xyz --receipts hA.json hB.json x 2>err &&
	grep -qx "replicate: option --seal-sha256: expected 64 lower-case hex digits" err
'

test_done
