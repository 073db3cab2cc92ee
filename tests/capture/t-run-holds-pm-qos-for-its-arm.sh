#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run: an arm that asks for cpu_dma_latency holds /dev/cpu_dma_latency
# at that value for exactly its runs: the processes of those runs read the
# held value, the runs of the arms before and after read the baseline, and
# the receipt records the value requested, read back during the arm, and
# read after its release.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "holding /dev/cpu_dma_latency needs root (t-run-unprivileged covers the refusal)"
[ -c /dev/cpu_dma_latency ] || test_skip_all "no /dev/cpu_dma_latency here"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99
baseline=$(od -An -t d4 -N4 /dev/cpu_dma_latency | tr -d ' ')
# a value below any baseline a machine is likely to hold, and not a round one
held=7
[ "$baseline" -gt "$held" ] || test_skip_all "this machine already holds $baseline us or less"

test_expect_success 'setup: baseline, then an arm holding 7 us, then baseline again; two cells each' '
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "pmqos", "warmups": 0, "measured": 1, "order": "listed",
	 "arms": [{"name": "before"}, {"name": "held", "cpu_dma_latency": $held}, {"name": "after"}],
	 "cells": [
	  {"name": "A", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "p/sender"}}},
	  {"name": "B", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null
'

test_expect_success 'the held arm'"'"'s processes read the held value; the others the baseline' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	ls c/runs >names &&
	printf "%s\n" 001-before-A-1 002-before-B-1 003-held-A-1 004-held-B-1 005-after-A-1 006-after-B-1 >expect &&
	test_cmp expect names &&
	for r in 001-before-A-1 002-before-B-1 005-after-A-1 006-after-B-1; do
		test "$(cat c/runs/$r/p/sender/dma)" = "$baseline" &&
		test "$(json_words c/runs/$r/run.json "d[\"cpu_dma_latency\"][\"observed_us\"], d[\"cpu_dma_latency\"][\"held\"]")" = "$baseline False" || return 1
	done &&
	for r in 003-held-A-1 004-held-B-1; do
		test "$(cat c/runs/$r/p/sender/dma)" = "$held" &&
		test "$(cat c/runs/$r/p/peer/dma)" = "$held" &&
		test "$(json_words c/runs/$r/run.json "d[\"cpu_dma_latency\"][\"observed_us\"], d[\"cpu_dma_latency\"][\"requested_us\"], d[\"cpu_dma_latency\"][\"held\"]")" = "$held $held True" || return 1
	done
'

test_expect_success 'the receipt says what was asked, read back during the arm and after its release' '
	json_words c/receipt-capture.json "[(a[\"name\"], sorted(a.get(\"cpu_dma_latency\", {}).items())) for a in d[\"facts\"][\"arms\"]]" >got &&
	echo "before held after_release_us $baseline effective_during_us $held requested_us $held after" >expect &&
	test_cmp expect got &&
	grep -q "^arm held: holding /dev/cpu_dma_latency at $held us (read back $held)" out &&
	grep -q "^arm held: released /dev/cpu_dma_latency (now $baseline us)" out &&
	test "$(od -An -t d4 -N4 /dev/cpu_dma_latency | tr -d " ")" = "$baseline"
'

test_done
