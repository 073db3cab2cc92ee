#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The configuration files give the defaults people repeat: the user's file
# (XDG_CONFIG_HOME) over the system's, EVIDENCE_CONFIG alone when set, the
# environment over both, the command line over everything; a receipt
# records the options the files added. TOOL config says each value and
# where it came from; a default file out of the user's reach is no file. A
# malformed file is named by line, exit 2, and no command runs; a relative
# path, an unknown key, a FIFO are refused.
. "$EV_SRCDIR/tests/lib/lib.sh"

signer () { # the key id a receipt is signed with
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"signature\"][\"key_id\"])" "$1"
}

test_expect_success 'setup: two keys, a system file, a user file, a tree' '
	"$REPLICATE" keygen -o a >/dev/null && "$REPLICATE" keygen -o b >/dev/null &&
	mkdir -p xdg/evidence receipts && printf "x\n" >t-file && mkdir t && mv t-file t/f &&
	printf "# the lab default\nsign-key = $PWD/b.key\ntrust = $PWD/b.pub\nreceipt-dir = $PWD/receipts\n" >system.conf &&
	printf "sign-key = $PWD/a.key\n" >xdg/evidence/config &&
	"$SEAL" create t -o plain >/dev/null && "$SEAL" create t -o signed-a --sign-key a.key >/dev/null &&
	"$SEAL" create t -o signed-b --sign-key b.key >/dev/null
'

export EVIDENCE_SYSTEM_CONFIG="$PWD/system.conf" XDG_CONFIG_HOME="$PWD/xdg"

test_expect_success 'the user'"'"'s sign-key over the system'"'"'s; the system'"'"'s receipt-dir; the receipt records the added option' '
	"$REPLICATE" verify --seal plain/SEAL.json plain/archive.tar.zst >out &&
	r=$(ls receipts/replica-*.json) && test -f "$r" &&
	test "$(signer "$r")" = "$(signer signed-a/receipt.json)" &&
	python3 -c "import json,sys; a=json.load(open(sys.argv[1]))[\"invocation\"][\"argv\"]; i=a.index(\"--sign-key\"); assert a[i+1].endswith(\"/a.key\") and \"--receipt-dir\" in a, a" "$r" &&
	rm receipts/*
'

test_expect_success 'the command line wins: --sign-key, and --receipt over the configured directory' '
	"$REPLICATE" verify --seal plain/SEAL.json --sign-key b.key --receipt mine.json plain/archive.tar.zst >out &&
	test "$(signer mine.json)" = "$(signer signed-b/receipt.json)" && dir_empty receipts
'

test_expect_success 'EVIDENCE_CONFIG is read alone; EVIDENCE_CATALOG in the environment wins over the file'"'"'s catalog' '
	printf "sign-key = $PWD/b.key\ncatalog = $PWD/from-file.sqlite\n" >only.conf &&
	EVIDENCE_CONFIG=$PWD/only.conf "$SEAL" verify --seal plain/SEAL.json --receipt only.json t >out &&
	test "$(signer only.json)" = "$(signer signed-b/receipt.json)" &&
	test -f from-file.sqlite &&
	EVIDENCE_CONFIG=$PWD/only.conf EVIDENCE_CATALOG=$PWD/env.sqlite "$SEAL" config >cfg &&
	grep -q "^catalog      $PWD/env.sqlite  (EVIDENCE_CATALOG)$" cfg &&
	grep -q "^sign-key     $PWD/b.key  ($PWD/only.conf:1)$" cfg &&
	grep -q "^trust        (not set)$" cfg &&
	grep -q "^files read: $PWD/only.conf$" cfg
'

test_expect_success 'TOOL config: every key, its value and where it came from, text and JSON' '
	"$REPLICATE" config >cfg &&
	grep -q "^sign-key     $PWD/a.key  ($PWD/xdg/evidence/config:1)$" cfg &&
	grep -q "^trust        $PWD/b.pub  ($PWD/system.conf:3)$" cfg &&
	grep -q "^receipt-dir  $PWD/receipts  ($PWD/system.conf:4)$" cfg &&
	grep -q "^pool         (not set)$" cfg &&
	grep -q "^files read: $PWD/system.conf, $PWD/xdg/evidence/config$" cfg &&
	"$AUDIT" config --json >cfg.json &&
	test "$(json_words cfg.json "[s[\"from\"] for s in d[\"settings\"] if s[\"key\"] == \"trust\"]")" = "$PWD/system.conf:3"
'

test_expect_success 'a malformed file: named by line, exit 2, no command runs, nothing written' '
	printf "sign-key = $PWD/a.key\n\nsign key: a.key\n" >xdg/evidence/config &&
	test_expect_code 2 "$SEAL" verify --seal plain/SEAL.json --receipt never.json t >out 2>err &&
	grep -q "^seal: $PWD/xdg/evidence/config:3: expected KEY = VALUE, found .sign key: a.key.; fix the file, or set EVIDENCE_CONFIG to another$" err &&
	test_must_be_absent never.json &&
	printf "signing-key = $PWD/a.key\n" >xdg/evidence/config &&
	test_expect_code 2 "$SEAL" config >out 2>err &&
	grep -q "config:1: unknown key .signing-key. (known: sign-key, trust, receipt-dir, ssh-option, catalog, pool, max-age)" err &&
	printf "sign-key = a.key\n" >xdg/evidence/config &&
	test_expect_code 2 "$SEAL" config >out 2>err &&
	grep -q "config:1: sign-key: .a.key. must be an absolute path or start with ~/" err &&
	printf "pool = everything\n" >xdg/evidence/config &&
	test_expect_code 2 "$SEAL" config >out 2>err &&
	grep -q "config:1: pool: expected shared or none, found .everything." err &&
	printf "receipt-dir = ~/%04075d\n" 0 >xdg/evidence/config &&
	test_expect_code 2 env HOME="$PWD" "$SEAL" config >out 2>err &&
	grep -q "config:1: receipt-dir: the path is longer than 4095 bytes; fix the file, or set EVIDENCE_CONFIG to another$" err &&
	printf "receipt-dir = ~/%04100d\n" 0 >xdg/evidence/config &&
	test_expect_code 2 "$SEAL" config >out 2>err &&
	grep -q "config:1: a line longer than 4094 bytes; fix the file, or set EVIDENCE_CONFIG to another$" err &&
	rm xdg/evidence/config && mkfifo xdg/evidence/config &&
	test_expect_code 2 "$SEAL" config >out 2>err &&
	grep -q "^seal: $PWD/xdg/evidence/config: the configuration is not a regular file; expected lines KEY = VALUE$" err &&
	rm xdg/evidence/config
'

test_expect_success 'a user whose HOME another owns (setpriv to nobody): the file out of reach is no file, the command runs' '
	{ [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || test_skip_case "needs root and setpriv"; } &&
	printf "sign-key = $PWD/a.key\n" >xdg/evidence/config && chmod 700 xdg &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME=$PWD XDG_CONFIG_HOME=$PWD/xdg \
		EVIDENCE_SYSTEM_CONFIG=/nonexistent "$SEAL" config >cfg 2>err &&
	grep -q "^sign-key     (not set)$" cfg && grep -q "^files read: none$" cfg && test ! -s err
'

test_done
