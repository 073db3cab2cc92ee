#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A signal that lands while a receipt's bytes are being synced never
# leaves a pass behind: each receipt writer, its receipt's fsync held by
# strace, gets SIGTERM then, exits 2 and publishes nothing (no receipt,
# no temporary). seal verify of a tree and of an archive, replicate
# verify, audit journal, audit series, capture run's
# receipt-capture.json, seal capsule --verify, seal integrate and seal
# continue's continuation receipt (audit compare's and audit campaign's,
# in OUTDIR, and audit profile's in their own tests); run again without
# the signal, each passes. audit journal --latency --hgrm, stopped while its
# second histogram is synced, also takes back the one it had published.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "strace is not installed (Debian package strace)"


test_expect_success 'setup: a sealed tree, a journal pair and a series' '
	make_campaign tree && "$SEAL" create tree -o sealed >/dev/null &&
	"$FIX_RECEIVER" --help >/dev/null &&
	paced_pair_run >/dev/null 2>&1 && test -f s.bin && test -d sj && test -d rj
'

test_expect_success 'seal verify of a tree: no receipt, exit 2; then it passes' '
	late_signal verify- 1 "$SEAL" verify --seal sealed/SEAL.json tree &&
	grep -q "interrupted by a signal" late.err &&
	"$SEAL" verify --seal sealed/SEAL.json --receipt v.json tree >/dev/null &&
	test "$(json_get v.json "d[\"result\"]")" = pass
'

test_expect_success 'seal verify of an archive: no receipt, exit 2' '
	late_signal verify- 1 "$SEAL" verify --seal sealed/SEAL.json sealed/archive.tar.zst &&
	grep -q "interrupted by a signal" late.err
'

test_expect_success 'replicate verify: no receipt, exit 2' '
	late_signal replica- 1 "$REPLICATE" verify --seal sealed/SEAL.json sealed/archive.tar.zst &&
	grep -q "interrupted by a signal" late.err
'

test_expect_success 'audit journal: no receipt, exit 2' '
	late_signal audit-journal- 1 "$AUDIT" journal --warmups 50 --measured 4000 --sender sj --receiver rj &&
	grep -q "interrupted by a signal" late.err
'

test_expect_success 'audit journal --latency --hgrm: a signal while the second histogram is synced (fsync 3: the first file, its directory, the second) takes the first back; no receipt, exit 2; then it passes' '
	mkdir h && ls -I "*.txt" >before.txt &&
	LATE_DIR=h late_signal pair- 3 "$AUDIT" journal --latency --hgrm h --warmups 50 --measured 4000 --sender sj --receiver rj &&
	grep -q "interrupted by a signal" late.err &&
	dir_empty h && ls -I "*.txt" >after.txt && test_cmp before.txt after.txt &&
	"$AUDIT" journal --latency --hgrm h --receipt lat.json --warmups 50 --measured 4000 --sender sj --receiver rj >/dev/null &&
	test "$(json_get lat.json "d[\"result\"]")" = pass &&
	test "$(ls h | grep -c "^pair-1-.*\.hgrm$")" -ge 2
'

test_expect_success 'audit series: no receipt, exit 2' '
	late_signal audit-series- 1 "$AUDIT" series s.bin &&
	grep -q "interrupted by a signal" late.err
'

test_expect_success 'capture run: no receipt-capture.json, exit 2; run again, it resumes and passes' '
	probe_install &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "late", "warmups": 0, "measured": 1,
	 "cells": [
	  {"name": "A", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -qq -o fsyncs.txt -e trace=fsync "$CAPTURE" run pinned.json -o counted >/dev/null 2>&1 &&
	n=$(grep -c "^fsync(" fsyncs.txt) &&
	mkdir -p cd && LATE_DIR=cd/c late_signal receipt-capture $((n - 1)) "$CAPTURE" run pinned.json -o cd/c &&
	no_entry cd/c receipt-capture &&
	"$CAPTURE" run pinned.json -o cd/c >/dev/null && ls cd/c | contains "^receipt-capture.*\.json$"
'

test_expect_success 'seal capsule --verify: no receipt, exit 2; then it passes' '
	git_setup && git_init repo && echo one >repo/a && git -C repo add a && git -C repo commit -qm one &&
	"$SEAL" capsule --repo repo -o cap >/dev/null &&
	late_signal capsule-verify 1 "$SEAL" capsule --verify --repo repo --receipt capsule-verify.json cap &&
	grep -q "interrupted by a signal" late.err &&
	"$SEAL" capsule --verify --repo repo --receipt capsule-verify.json cap >/dev/null &&
	test "$(json_get capsule-verify.json "d[\"result\"]")" = pass
'

test_expect_success 'seal integrate: no receipt, exit 2; then it passes' '
	git_setup && git_init irepo && (cd tree && cp -p --parents summary/* ../irepo/) &&
	git -C irepo add . && git -C irepo commit -qm evidence &&
	"$SEAL" select --seal sealed/SEAL.json --include summary -o isel.json >/dev/null &&
	late_signal integrated 1 "$SEAL" integrate --selection isel.json --repo irepo --receipt integrated.json &&
	grep -q "interrupted by a signal" late.err &&
	"$SEAL" integrate --selection isel.json --repo irepo --receipt integrated.json >/dev/null &&
	test "$(json_get integrated.json "d[\"result\"]")" = pass
'

test_expect_success 'seal continue: no continuation receipt, exit 2; then it passes' '
	cp -pr tree edited && printf "p99 1944\n" >"edited/summary/$(printf "r\303\251sum\303\251.txt")" &&
	test_expect_code 1 "$SEAL" verify --seal sealed/SEAL.json --receipt failed.json edited >/dev/null 2>&1 &&
	late_signal continued 1 "$SEAL" continue --original failed.json --accept "sha256=[0-9a-f]{64}" \
		--receipt continued.json &&
	grep -q "interrupted by a signal" late.err &&
	"$SEAL" continue --original failed.json --accept "sha256=[0-9a-f]{64}" --receipt continued.json >/dev/null &&
	test "$(json_get continued.json "d[\"result\"]")" = pass
'

test_done
