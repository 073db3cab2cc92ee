#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run leases every CPU its plan uses, exclusively, for the whole
# campaign, in the host's registry: a second capture over the same CPUs is
# refused, naming the holder, or with --wait queued and started when the
# first ends, high priority before normal; work in the shared pool
# (--pool shared) waits while a capture holds its CPUs and then runs on
# the shared CPUs alone; a holder SIGKILLed leaves no lease; capture
# leases lists holders and waiters; run.json records the lease.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99
# this host, as the tests see it: CPU 1 isolated, CPU 0 shared
printf "# test pools\nisolated 1\nshared 0\n" >pools && export EVIDENCE_POOLS=$PWD/pools

# plan FILE SECONDS: one probe cell on CPUs 0 and 1 (controller 0), the
# sender SECONDS long.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "lease", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}", "0", "$2"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

started () { cat "$1/runs/001-baseline-A-1/sender/probe/started"; }
ended () { cat "$1/runs/001-baseline-A-1/sender/probe/ended"; }
# released FILE: waits until the test creates FILE, so that shared work
# holds its lease exactly as long as a case needs it, however slow the host
released () { n=0; until test -e "$1"; do n=$((n + 1)); test $n -lt 1200 || return 1; sleep 0.05; done; }

test_expect_success 'setup' '
	plan long.json 2 && plan short.json 0.3
'

test_expect_success 'a second capture over the same CPUs is refused, naming the holder; capture leases shows it' '
	{ "$CAPTURE" run pinned-long.json -o first >first.out 2>first.err & } &&
	pid=$! &&
	wait_for first/runs/001-baseline-A-1/sender/probe/started &&
	test_expect_code 2 "$CAPTURE" run pinned-short.json -o second 2>err &&
	grep -q "^capture: pinned-short.json: CPUs 0-1 are not free: CPU 0 is held by capture run pinned-long.json -o $PWD/first (PID $pid, exclusive, since 20[0-9-]*T[0-9:]*Z); pass --wait to queue for them$" err &&
	test_must_be_absent second &&
	"$CAPTURE" leases >leases &&
	grep -q "^registry $EVIDENCE_LEASE_DIR; pools: isolated 1, shared 0 ($PWD/pools)$" leases &&
	grep -q "^held     cpus 0-1      exclusive pid $pid .* capture run pinned-long.json -o $PWD/first$" leases &&
	"$CAPTURE" leases --json >leases.json &&
	test "$(json_words leases.json "[(h[\"pid\"], h[\"mode\"], h[\"cpus\"]) for h in d[\"holders\"]]")" = "$pid exclusive 0-1" &&
	wait $pid &&
	test "$(json_words first/runs/001-baseline-A-1/run.json "d[\"lease\"][\"mode\"], d[\"lease\"][\"cpus\"], d[\"lease\"][\"dir\"]")" = "exclusive 0-1 $EVIDENCE_LEASE_DIR" &&
	test "$(json_words first/receipt-capture.json "d[\"facts\"][\"lease\"][\"cpus\"]")" = 0-1
'

test_expect_success 'the lease ends with its holder: nothing is listed, the CPUs are free' '
	"$CAPTURE" leases >leases && grep -q "^no lease is held or waited for$" leases
'

test_expect_success 'with --wait, queued: a high-priority request is served before an earlier normal one' '
	{ "$CAPTURE" run pinned-long.json -o hold >hold.out 2>hold.err & } &&
	hold=$! &&
	wait_for hold/runs/001-baseline-A-1/sender/probe/started &&
	{ "$CAPTURE" run --wait pinned-short.json -o normal >normal.out 2>normal.err & } &&
	normal=$! &&
	n=0 && until grep -q "waiting for CPUs" normal.err; do n=$((n + 1)); test $n -lt 100 || return 1; sleep 0.05; done &&
	{ "$CAPTURE" run --wait --priority high pinned-short.json -o high >high.out 2>high.err & } &&
	high=$! &&
	n=0 && until grep -q "waiting for CPUs" high.err; do n=$((n + 1)); test $n -lt 100 || return 1; sleep 0.05; done &&
	"$CAPTURE" leases >leases &&
	test "$(grep -c "^waiting " leases)" = 2 &&
	grep "^waiting " leases | sed -n 1p | contains "pid $high .*(priority high)$" &&
	grep -q "^capture: waiting for CPUs: CPU 0 is held by capture run pinned-long.json -o $PWD/hold (PID $hold, exclusive, since .*) (--wait, priority normal)$" normal.err &&
	wait $hold && wait $high && wait $normal &&
	test "$(ended hold)" -lt "$(started high)" &&
	test "$(ended high)" -lt "$(started normal)" &&
	test "$(json_words normal/runs/001-baseline-A-1/run.json "d[\"lease\"][\"priority\"], float(d[\"lease\"][\"waited_seconds\"]) > 1")" = "normal True"
'

test_expect_success 'shared work waits while a capture holds its CPU, then runs on the shared CPUs alone' '
	{ "$CAPTURE" run pinned-long.json -o busy >busy.out 2>busy.err & } &&
	busy=$! &&
	wait_for busy/runs/001-baseline-A-1/sender/probe/started &&
	mkdir recv &&
	{ { released go1; printf "from 0\n0123456789"; } | "$REPLICATE" --pool shared receive recv file 10 \
		84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882 >shared.out 2>shared.err & } &&
	shared=$! &&
	n=0 && until grep -q "waiting for the shared CPUs" shared.err; do n=$((n + 1)); test $n -lt 100 || return 1; sleep 0.05; done &&
	grep -q "^replicate: waiting for the shared CPUs: CPU 0 is held by capture run pinned-long.json -o $PWD/busy (PID $busy, exclusive, since .*)$" shared.err &&
	test ! -e recv/file &&
	wait $busy &&
	n=0 && until grep -q "^Cpus_allowed_list:	0$" /proc/$shared/status 2>/dev/null; do n=$((n + 1)); test $n -lt 100 || return 1; sleep 0.02; done &&
	"$CAPTURE" leases --json >leases.json &&
	test "$(json_words leases.json "[(h[\"pid\"], h[\"mode\"], h[\"cpus\"]) for h in d[\"holders\"]]")" = "$shared shared 0" &&
	>go1 && wait $shared && test "$(cat recv/file)" = 0123456789
'

test_expect_success 'a capture never starts on CPUs shared work holds' '
	{ { released go2; printf "from 0\n0123456789"; } | "$REPLICATE" --pool shared receive recv2 file 10 \
		84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882 >/dev/null 2>&1 & } &&
	shared=$! &&
	n=0 && until "$CAPTURE" leases | contains "^held .* shared"; do n=$((n + 1)); test $n -lt 100 || return 1; sleep 0.05; done &&
	test_expect_code 2 "$CAPTURE" run pinned-short.json -o refused 2>err &&
	grep -q "^capture: pinned-short.json: CPUs 0-1 are not free: CPU 0 is held by replicate receive recv2 file 10 .* (PID $shared, shared, since .*); pass --wait to queue for them$" err &&
	>go2 && wait $shared
'

test_expect_success 'shared work stopped by SIGTERM while it waits: exit 2 at once, no receipt, no ticket left' '
	{ "$CAPTURE" run pinned-long.json -o busy2 >/dev/null 2>&1 & } &&
	busy=$! &&
	wait_for busy2/runs/001-baseline-A-1/sender/probe/started &&
	STOPPED_AFTER=0.5 stopped SIGTERM s/receipt.json "$AUDIT" --pool shared campaign busy -o s &&
	grep -q "^audit: waiting for the shared CPUs: CPU 0 is held by capture run" stopped.err &&
	grep -q "^audit: --pool shared: interrupted while waiting for CPUs: nothing was done$" stopped.err &&
	test_must_be_absent s &&
	"$CAPTURE" leases --json >leases.json &&
	test "$(json_words leases.json "len(d[\"waiting\"])")" = 0 &&
	wait $busy
'

test_expect_success 'a holder SIGKILLed leaves no lease: the next capture runs at once' '
	{ "$CAPTURE" run pinned-long.json -o killed >/dev/null 2>&1 & } &&
	pid=$! &&
	wait_for killed/runs/001-baseline-A-1/sender/probe/started &&
	kill -s KILL $pid && { wait $pid; test $? = 137; } &&
	"$CAPTURE" run pinned-short.json -o after >out 2>err &&
	test "$(json_words after/runs/001-baseline-A-1/run.json "d[\"result\"], float(d[\"lease\"][\"waited_seconds\"]) < 0.5")" = "ok True" &&
	"$CAPTURE" leases >leases && grep -q "^no lease is held or waited for$" leases
'

test_expect_success 'a registry that cannot be used is refused, or with --degrade recorded' '
	test_expect_code 2 env EVIDENCE_LEASE_DIR=/proc/no-registry "$CAPTURE" run pinned-short.json -o nodir 2>err &&
	echo "capture: pinned-short.json: cannot lease CPUs 0-1 (pass --degrade to run without a lease and record that): /proc/no-registry: cannot create the lease registry: No such file or directory" >expect &&
	test_cmp expect err && test_must_be_absent nodir &&
	EVIDENCE_LEASE_DIR=/proc/no-registry "$CAPTURE" run --degrade pinned-short.json -o degraded >out 2>err &&
	grep -q "^capture: degraded: leases: CPUs 0-1 not leased (/proc/no-registry: cannot create the lease registry: No such file or directory); other work may have run on them$" err &&
	test "$(json_words degraded/runs/001-baseline-A-1/run.json "d[\"lease\"][\"not_taken\"][:7]")" = "leases:"
'

test_expect_success 'a bad pool or priority is a usage error' '
	misuse "$AUDIT" "audit: option --pool: expected shared or none, found '"'"'all'"'"'" --pool all campaign x -o y &&
	misuse "$CAPTURE" "capture: option --priority: expected high or normal, found '"'"'urgent'"'"'" run --priority urgent pinned-short.json -o x
'

test_done
