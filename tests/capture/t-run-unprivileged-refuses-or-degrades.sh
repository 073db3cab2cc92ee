#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run without the rights for network namespaces and PM QoS (as
# nobody when the tests run as root): a plan that needs them is refused,
# saying what is missing and what to do, and nothing is created; with
# --degrade the campaign runs, both sides in capture's own namespace over
# loopback, and every run.json and the receipt say what could not be done.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || test_skip_all "setpriv (util-linux) is needed to drop root"
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --"
	chmod 755 "$trash"
	# the build may sit where nobody cannot go (/root/...): run a copy
	cp "$CAPTURE" "$trash/capture" && CAPTURE=$trash/capture
else
	AS=""
fi
probe_install || exit 99
# a lease registry this user may use: the test is about namespaces and PM QoS
mkdir -m 1777 leases && export EVIDENCE_LEASE_DIR=$PWD/leases

test_expect_success 'setup: a plan with namespaces and a PM QoS arm, and a directory nobody may write' '
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", "name": "rights", "warmups": 0, "measured": 1, "controller_shares": true,
	 "namespaces": "veth", "arms": [{"name": "base"}, {"name": "held", "cpu_dma_latency": 7}],
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	mkdir out && chmod 777 out &&
	if $AS unshare -n true 2>/dev/null; then echo "this user can make namespaces" >&2; false; fi
'

test_expect_success 'refused: the plan asks for namespaces this user cannot make; nothing is created' '
	test_expect_code 2 $AS "$CAPTURE" run pinned.json -o out/c 2>err &&
	echo "capture: pinned.json: the plan asks for network namespaces (\"namespaces\": \"veth\"), and this process cannot make them (unshare(CLONE_NEWNET): Operation not permitted); run capture as root, or pass --degrade to run both sides in this namespace and record that" >expect &&
	test_cmp expect err && test_must_be_absent out/c
'

test_expect_success 'refused: an arm asks to hold cpu_dma_latency, which this user cannot' '
	sed "s/\"namespaces\":\"veth\",//" pinned.json >nons.json && ! grep -q veth nons.json &&
	test_expect_code 2 $AS "$CAPTURE" run nons.json -o out/c 2>err &&
	grep -q "^capture: nons.json: an arm asks to hold cpu_dma_latency, and this process cannot (/dev/cpu_dma_latency: \(Permission denied\|No such file or directory\)); run capture as root, or pass --degrade to run the arm without it and record that$" err &&
	test_must_be_absent out/c
'

test_expect_success '--degrade: it runs, over loopback in this namespace, and says what it could not do' '
	$AS "$CAPTURE" run --degrade pinned.json -o out/d >out.txt 2>err &&
	grep -q "^capture: degraded: namespaces: veth asked for, not made (unshare(CLONE_NEWNET): Operation not permitted); both sides ran in capture'"'"'s network namespace over loopback" err &&
	grep -q "^capture: degraded: pm_qos: cpu_dma_latency asked for, not held" err &&
	root=$(readlink /proc/$$/ns/net | tr -dc 0-9) &&
	for r in 001-base-A-1 002-held-A-1; do
		test "$(cat out/d/runs/$r/p/sender/netns)" = "$root" &&
		test "$(json_words out/d/runs/$r/run.json "d[\"result\"], d[\"network\"][\"topology\"], len(d[\"degraded\"])")" = "ok none 2" || return 1
	done &&
	test "$(json_words out/d/runs/002-held-A-1/run.json "d[\"cpu_dma_latency\"][\"held\"], d[\"cpu_dma_latency\"][\"requested_us\"]")" = "False 7" &&
	test "$(json_words out/d/receipt-capture.json "d[\"result\"], len(d[\"facts\"][\"degraded\"]), d[\"facts\"][\"arms\"][1][\"cpu_dma_latency\"][\"held\"]")" = "pass 2 False" &&
	grep -q "unavailable: /dev/cpu_dma_latency" out/d/policy.json
'

test_done
