#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run with "namespaces": "link": two interfaces of the host
# namespace (a NIC's two ports joined by a cable; here a veth pair this
# test makes, which capture must treat exactly as such) are moved into the
# sides' namespaces with their addresses and MTU, the pair's traffic
# crosses them, their driver and counters are recorded, and both come
# back to the host namespace with their MTU after the run, after a failed
# run, and after capture was SIGKILLed mid-run (its link keeper returns
# them). A missing interface is refused before anything runs.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "moving interfaces between namespaces needs root"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
command -v ip >/dev/null || test_skip_all "ip (iproute2) is needed to make the stand-in cable"
probe_install || exit 99

A=evl$$a B=evl$$b
cleanup_link () { ip link del "$A" 2>/dev/null; true; }
trap cleanup_link EXIT

# in_host IFACE: the interface is in this (the host) namespace; its MTU.
mtu_in_host () { cat "/sys/class/net/$1/mtu"; }

# plan FILE SENDER_SECONDS SENDER_EXIT: the reference pair over the link,
# and a probe cell whose sender sleeps and exits as told.
plan () {
	P=$EV_BUILDDIR/capture/pair
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "link", "warmups": 100, "measured": 2000,
	 "order": "listed", "namespaces": "link", "link": {"sender": "$A", "peer": "$B", "mtu": 1400},
	 "cells": [
	  {"name": "pair",
	   "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--journal", "{out:journal}",
	     "--journal-file-size", "262144"], "cpu": 0, "outputs": {"journal": "peer/journal"}, "ready": {"tcp_listen": 11001}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--journal-file-size", "262144"], "cpu": 1,
	     "outputs": {"journal": "sender/journal"}}},
	  {"name": "probe",
	   "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "$3", "$2"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

test_expect_success 'setup: a veth pair in the host namespace stands in for the cable, MTU 1500' '
	ip link add "$A" mtu 1500 type veth peer name "$B" mtu 1500 &&
	test "$(mtu_in_host $A) $(mtu_in_host $B)" = "1500 1500" &&
	plan ok.json 0 0 && plan fail.json 0 3 && plan long.json 30 0
'

test_expect_success 'the pair runs over the link: each end in its side'"'"'s namespace, its address, MTU 1400, traffic on it' '
	"$CAPTURE" run pinned-ok.json -o ok >out 2>err &&
	r=ok/runs/001-baseline-pair-1 &&
	test "$(json_words $r/run.json "d[\"result\"], d[\"network\"][\"topology\"], d[\"network\"][\"sender\"][\"interface\"], d[\"network\"][\"sender\"][\"address\"], d[\"network\"][\"peer\"][\"interface\"], d[\"network\"][\"peer\"][\"address\"]")" = \
		"ok link $A 10.201.0.1 $B 10.201.0.2" &&
	test "$(json_words $r/run.json "[(d[\"network\"][k][\"link\"][\"driver\"], d[\"network\"][k][\"link\"][\"mtu\"], d[\"network\"][k][\"mtu_during\"], d[\"network\"][k][\"returned\"]) for k in (\"sender\", \"peer\")]")" = \
		"veth 1500 1400 returned veth 1500 1400 returned" &&
	sent=$(json_words $r/run.json "d[\"network\"][\"sender_links\"][\"after\"][\"$A\"][\"tx_bytes\"] - d[\"network\"][\"sender_links\"][\"before\"][\"$A\"][\"tx_bytes\"]") &&
	got=$(json_words $r/run.json "d[\"network\"][\"peer_links\"][\"after\"][\"$B\"][\"rx_bytes\"] - d[\"network\"][\"peer_links\"][\"before\"][\"$B\"][\"rx_bytes\"]") &&
	test "$sent" -gt 200000 && test "$got" -eq "$sent" &&
	test "$(json_words $r/run.json "sorted(d[\"network\"][\"sender_links\"][\"before\"])")" = "$A lo" &&
	test "$(json_words $r/run.json "d[\"network\"][\"sender_links\"][\"before\"][\"$A\"][\"mtu\"], d[\"network\"][\"peer_links\"][\"after\"][\"$B\"][\"mtu\"]")" = "1400 1400" &&
	p=ok/runs/002-baseline-probe-1 &&
	grep -q "^ *$A:" $p/sender/probe/netdev && ! grep -q "^ *$B:" $p/sender/probe/netdev &&
	grep -q "^ *$B:" $p/peer/probe/netdev &&
	test "$(json_words ok/receipt-capture.json "d[\"facts\"][\"link\"][\"sender\"][\"interface\"], d[\"facts\"][\"link\"][\"peer\"][\"interface\"]")" = "$A $B"
'

test_expect_success 'both ends are back in the host namespace with their MTU after the run' '
	test "$(mtu_in_host $A) $(mtu_in_host $B)" = "1500 1500"
'

test_expect_success 'after a failed run too' '
	test_expect_code 1 "$CAPTURE" run pinned-fail.json -o fail >out 2>err &&
	test "$(json_words fail/runs/002-baseline-probe-1/run.json "d[\"result\"], d[\"network\"][\"sender\"][\"returned\"]")" = "failed returned" &&
	test "$(mtu_in_host $A) $(mtu_in_host $B)" = "1500 1500"
'

test_expect_success 'capture SIGKILLed mid-run: its keeper returns both ends, then goes' '
	{ "$CAPTURE" run pinned-long.json -o long >long.out 2>long.err & } &&
	pid=$! &&
	wait_for long/runs/002-baseline-probe-1/sender/probe/started &&
	test ! -e /sys/class/net/$A &&
	keeper=$(pgrep -x capture-links) &&
	kill -s KILL $pid && { wait $pid; test $? = 137; } &&
	n=0 && while [ ! -e /sys/class/net/$A ] || [ ! -e /sys/class/net/$B ] || kill -0 $keeper 2>/dev/null; do
		n=$((n + 1)) && test $n -lt 50 && sleep 0.1 || return 1
	done &&
	test "$(mtu_in_host $A) $(mtu_in_host $B)" = "1500 1500" &&
	# the side died with capture (PR_SET_PDEATHSIG), but not the sleep
	# its shell had started: that one is still in the side'"'"'s group
	{ kill -KILL -- -"$(cat long/runs/002-baseline-probe-1/sender/probe/pid)" 2>/dev/null || true; }
'

test_expect_success 'capture stopped by SIGTERM mid-run: exit 2, no receipt, both ends back, no keeper left' '
	{ "$CAPTURE" run pinned-long.json -o term >term.out 2>term.err & } &&
	pid=$! &&
	wait_for term/runs/002-baseline-probe-1/sender/probe/started &&
	keeper=$(pgrep -x capture-links) &&
	kill -s TERM $pid && { wait $pid; test $? = 2; } &&
	test_must_be_absent term/receipt-capture.json term/runs/002-baseline-probe-1/run.json &&
	test "$(mtu_in_host $A) $(mtu_in_host $B)" = "1500 1500" &&
	! kill -0 $keeper 2>/dev/null
'

test_expect_success 'a link end missing from the host namespace is refused before anything runs' '
	sed "s/\"peer\":\"$B\"/\"peer\":\"evlnone0\"/" pinned-ok.json >missing.json && grep -q evlnone0 missing.json &&
	test_expect_code 2 "$CAPTURE" run missing.json -o m 2>err &&
	echo "capture: missing.json: link: peer: interface evlnone0: not found in capture'"'"'s network namespace (a link'"'"'s two ports must be there, and up to it, before the campaign): No such device" >expect &&
	test_cmp expect err && test_must_be_absent m
'

test_expect_success 'a link without its two ends, or with one end twice, is refused at load' '
	sed "s/\"peer\":\"$B\"/\"peer\":\"$A\"/" pinned-ok.json >twice.json &&
	test_expect_code 2 "$CAPTURE" run twice.json -o m 2>err &&
	echo "capture: twice.json: link: sender and peer are both $A: a link has two ends" >expect && test_cmp expect err &&
	sed "s/,\"link\":{[^}]*}//" pinned-ok.json >nolink.json && ! grep -q "\"link\":" nolink.json &&
	test_expect_code 2 "$CAPTURE" run nolink.json -o m 2>err &&
	echo "capture: nolink.json: link: required by \"namespaces\": \"link\": {\"sender\": IFACE, \"peer\": IFACE}" >expect && test_cmp expect err
'

test_done
