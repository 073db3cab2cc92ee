#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every tool's --json prints on stdout the receipt it writes, canonical,
# byte for byte; a receipt is never overwritten. Each tool's cases run in
# a directory of their own.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup
mkdir seal audit capture || exit 99

# seal: create --json and verify --json print the receipt, canonical, as
# written.
test_expect_success 'seal: create --json and verify --json print canonical receipts' '
	cd seal &&
	make_campaign c &&
	"$SEAL" create --json c -o out >receipt.json &&
	cmp receipt.json out/receipt.json &&
	python3 -c "import json,sys; r=json.load(open(\"receipt.json\")); assert r[\"kind\"]==\"seal\" and r[\"result\"]==\"pass\" and r[\"format\"]==\"evidence-receipt/1\", r" &&
	"$SEAL" verify --json --seal out/SEAL.json c >v.json &&
	python3 -c "import json; r=json.load(open(\"v.json\")); assert r[\"kind\"]==\"verify\" and r[\"result\"]==\"pass\", r"
'

# audit: audit journal --json prints the receipt it writes; a receipt is never
# overwritten (by journal, series or profile: refused before any input is
# read); without --receipt one gets a fresh name where audit runs.
test_expect_success 'audit: setup: a small pair' '
	cd audit &&
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'audit: --json prints the receipt it writes; a receipt is never overwritten' '
	cd audit &&
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

test_expect_success 'audit: without --receipt, a fresh name in the current directory' '
	cd audit &&
	mkdir here && (cd here && "$AUDIT" journal --warmups 3 --measured 20 --sender ../p/sender >out) &&
	ls here/audit-journal-*.json >/dev/null && grep -q "receipt ./audit-journal-.*Z.json$" here/out
'

test_expect_success 'audit: audit series and audit profile refuse a named receipt that exists, before reading' '
	cd audit &&
	echo kept >kept.json && cp kept.json before.json &&
	test_expect_code 2 "$AUDIT" series --receipt kept.json no-such.bin 2>err &&
	test "$(cat err)" = "audit: kept.json: already exists; evidence is never overwritten (choose a new name)" &&
	test_expect_code 2 "$AUDIT" profile --receipt kept.json no-such-run 2>err &&
	test "$(cat err)" = "audit: kept.json: already exists; evidence is never overwritten (choose a new name)" &&
	test_cmp before.json kept.json
'

# capture: capture pin --json prints the receipt it writes; a pinned plan is
# never overwritten.
test_expect_success 'capture: --json prints the receipt it writes; a pinned plan is never overwritten' '
	cd capture &&
	probe_install &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "json", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A", "peer": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 0, "outputs": {"p": "p/peer"}},
	  "sender": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 1, "outputs": {"p": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	test_expect_code 2 "$CAPTURE" pin plan.json -o pinned.json 2>err &&
	grep -q "^capture: pinned.json: already exists" err &&
	if [ "$(nproc)" -ge 2 ]; then
		"$CAPTURE" run --json pinned.json -o c >printed &&
		cmp printed c/receipt-capture.json &&
		test "$(json_words printed "d[\"kind\"], d[\"tool\"][\"name\"], d[\"result\"]")" = "capture capture pass"
	fi
'

test_done
