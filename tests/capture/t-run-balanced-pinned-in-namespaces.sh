#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run: a balanced plan runs in exactly its order (A B B A), one
# run after the other; each process is pinned to its planned CPU, as the
# process itself sees in /proc and as capture read it back; each side is
# in a network namespace of its own, joined by a veth pair, that exists
# during the run and is gone after it, also after a run that failed.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "network namespaces need root (t-run-unprivileged covers the rest)"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

test_expect_success 'setup: two probe cells on swapped CPUs, two repeats, balanced, veth' '
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "order", "warmups": 0, "measured": 1, "repeats": 2,
	 "order": "balanced", "namespaces": "veth",
	 "cells": [
	  {"name": "A",
	   "peer": {"argv": ["$PROBE", "{out:probe}", "0", "0.3"], "cpu": 0, "outputs": {"probe": "probe/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0.2"], "cpu": 1, "outputs": {"probe": "probe/sender"}}},
	  {"name": "B",
	   "peer": {"argv": ["$PROBE", "{out:probe}", "0", "0.3"], "cpu": 1, "outputs": {"probe": "probe/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0.2"], "cpu": 0, "outputs": {"probe": "probe/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >out &&
	grep -q "pinned 1 program and 0 files: pinned.json" out
'

test_expect_success 'the runs happen in the planned order, A B B A, one after the other' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	ticks_now >c.ended &&
	ls c/runs >names &&
	printf "%s\n" 001-baseline-A-1 002-baseline-B-1 003-baseline-B-2 004-baseline-A-2 >expect &&
	test_cmp expect names &&
	prev=0 &&
	for r in $(cat names); do
		started=$(cat c/runs/$r/probe/peer/started) &&
		test "$started" -gt "$prev" &&
		prev=$(cat c/runs/$r/probe/sender/ended) &&
		test "$(json_get c/runs/$r/run.json "d[\"result\"]")" = ok || return 1
	done &&
	test "$(json_words c/runs/003-baseline-B-2/run.json "d[\"order_index\"], d[\"cell\"], d[\"repeat\"]")" = "3 B 2" &&
	grep -q "^\[4/4\] 004-baseline-A-2: ok" out &&
	json_words c/receipt-capture.json "[r[\"name\"] for r in d[\"facts\"][\"runs\"]]" >got &&
	echo $(cat names) >expect && test_cmp expect got &&
	test "$(json_get c/receipt-capture.json "d[\"result\"]")" = pass
'

test_expect_success 'each process runs only on its planned CPU, seen from /proc and read back' '
	for r in 001-baseline-A-1 004-baseline-A-2; do
		test "$(cat c/runs/$r/probe/peer/cpus)" = 0 &&
		test "$(cat c/runs/$r/probe/sender/cpus)" = 1 || return 1
	done &&
	test "$(cat c/runs/002-baseline-B-1/probe/peer/cpus)" = 1 &&
	test "$(cat c/runs/002-baseline-B-1/probe/sender/cpus)" = 0 &&
	json_words c/runs/002-baseline-B-1/run.json "[(p[\"role\"], p[\"cpu\"], p[\"affinity\"][\"read_back\"], p[\"affinity\"][\"exact\"], p[\"before\"][\"status\"][\"cpus_allowed_list\"]) for p in d[\"processes\"]]" >got &&
	echo "peer 1 1 True 1 sender 0 0 True 0" >expect &&
	test_cmp expect got
'

test_expect_success 'each side has a namespace of its own with its veth end, during the run' '
	root=$(readlink /proc/$$/ns/net | tr -dc 0-9) &&
	r=c/runs/001-baseline-A-1 &&
	s=$(cat $r/probe/sender/netns) && p=$(cat $r/probe/peer/netns) &&
	test "$s" != "$root" && test "$p" != "$root" && test "$s" != "$p" &&
	grep -q "evs0:" $r/probe/sender/netdev && ! grep -q "evp0:" $r/probe/sender/netdev &&
	grep -q "evp0:" $r/probe/peer/netdev && ! grep -q "evs0:" $r/probe/peer/netdev &&
	test "$(json_words $r/run.json "[p[\"netns_inode\"] for p in d[\"processes\"]]")" = "$p $s" &&
	test "$(json_words $r/run.json "d[\"network\"][\"topology\"], d[\"network\"][\"peer\"][\"address\"]")" = \
		"veth 10.201.0.2"
'

test_expect_success 'after the campaign no process is in those namespaces and no veth is left here' '
	for f in c/runs/*/probe/*/netns; do
		! netns_in_use "$(cat $f)" "$(cat c.ended)" || { echo "namespace of $f still in use"; return 1; }
	done &&
	! grep -q "evs0:\|evp0:" /proc/net/dev
'

test_expect_success 'a sender that fails: its run is failed, and the namespaces are gone all the same' '
	sed "s|\"{out:probe}\", \"0\", \"0.2\"], \"cpu\": 1|\"{out:probe}\", \"3\", \"0\"], \"cpu\": 1|" plan.json >fail.json &&
	! cmp -s plan.json fail.json &&
	"$CAPTURE" pin fail.json -o fail-pinned.json >/dev/null &&
	test_expect_code 1 "$CAPTURE" run fail-pinned.json -o f >out 2>err &&
	ended=$(ticks_now) &&
	test "$(json_words f/runs/001-baseline-A-1/run.json "d[\"result\"], d[\"failure\"]")" = \
		"failed sender exited with status 3 (its stderr: native/sender.stderr)" &&
	for f in f/runs/*/probe/*/netns; do
		! netns_in_use "$(cat $f)" "$ended" || return 1
	done &&
	! grep -q "evs0:\|evp0:" /proc/net/dev
'

test_done
