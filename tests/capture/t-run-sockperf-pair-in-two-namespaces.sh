#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run with a pair nobody here wrote: Debian's sockperf, its server
# as the peer (waited for until it listens, terminated once the client is
# done) and its ping-pong client as the sender, each pinned, in two
# network namespaces joined by a veth pair; their outputs (the client's
# summary and --full-log) are recorded in the run, and so is the TCP state
# of their connection, sampled while it ran.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "network namespaces need root"
command -v sockperf >/dev/null || test_skip_all "sockperf is not installed (Debian package sockperf)"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
SOCKPERF=$(readlink -f "$(command -v sockperf)")

test_expect_success 'setup: a sockperf cell, server on CPU 0, client on CPU 1, veth' '
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "sockperf", "warmups": 0, "measured": 1,
	 "namespaces": "veth", "port": 11111, "timeout_seconds": 60, "observe": {"interval_ms": 50},
	 "cells": [{"name": "tcp",
	  "peer": {"argv": ["$SOCKPERF", "server", "--tcp", "-i", "{peer_addr}", "-p", "{port}"], "cpu": 0,
	           "ready": {"tcp_listen": 11111}, "after_sender": "terminate"},
	  "sender": {"argv": ["$SOCKPERF", "ping-pong", "--tcp", "-i", "{peer_addr}", "-p", "{port}", "-t", "1",
	                      "--full-log", "{out:log}"], "cpu": 1, "outputs": {"log": "sockperf/full-log.csv"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null
'

test_expect_success 'the pair runs pinned in its namespaces, and the run holds'"'"' what it printed and logged' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	r=c/runs/001-baseline-tcp-1 &&
	test "$(json_words $r/run.json "d[\"result\"], d[\"network\"][\"topology\"]")" = "ok veth" &&
	json_words $r/run.json "[(p[\"role\"], p[\"affinity\"][\"read_back\"], p[\"affinity\"][\"exact\"]) for p in d[\"processes\"]]" >got &&
	echo "peer 0 True sender 1 True" >expect && test_cmp expect got &&
	test "$(json_words $r/run.json "[p[\"binaries\"][0][\"sha256\"] for p in d[\"processes\"]]")" = \
		"$(sha256_of "$SOCKPERF") $(sha256_of "$SOCKPERF")" &&
	grep -q "Summary: Latency is" $r/native/sender.stdout &&
	grep -q "percentile 99.000 =" $r/native/sender.stdout &&
	test "$(grep -c "^[0-9]" $r/sockperf/full-log.csv)" -gt 10 &&
	test "$(json_words $r/run.json "[p[\"exit\"].get(\"code\", p[\"exit\"].get(\"signal\")) for p in d[\"processes\"]]")" = "15 0"
'

test_expect_success 'the connection was sampled while it ran, from inside the namespaces' '
	r=c/runs/001-baseline-tcp-1 &&
	test "$(json_words $r/observe/tcp.json "len([s for t in d[\"samples\"] for s in t[\"sockets\"] if s[\"state\"] == \"ESTABLISHED\" and s[\"remote\"] == \"10.201.0.2:11111\"]) > 3")" = True &&
	test "$(json_words $r/observe/tcp.json "len([s for t in d[\"samples\"] for s in t[\"sockets\"] if s[\"local\"] == \"10.201.0.2:11111\" and \"rcvbuf\" in s and \"rtt_us\" in s]) > 3")" = True &&
	test "$(json_words $r/run.json "[d[\"network\"][k][\"after\"][i][c] > d[\"network\"][k][\"before\"][i][c] for k, i in ((\"sender_links\", \"evs0\"), (\"peer_links\", \"evp0\")) for c in (\"tx_packets\", \"rx_packets\")]")" = \
		"True True True True"
'

test_expect_success 'audit campaign compares what sockperf printed, on the clock its argv shows, and names an edited p99' '
	r=001-baseline-tcp-1 &&
	"$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/summary.json "[x[\"native\"][\"file\"].endswith(\"native/sender.stdout\") and x[\"native_log\"][\"file\"].endswith(\"full-log.csv\") for x in d[\"runs\"]]")" = True &&
	json_words s/summary.json "sorted(set(v[\"verdict\"] for x in d[\"runs\"] for k in (\"native\", \"native_log\") for v in x[k][\"statistics\"]))" >verdicts &&
	! grep -q "differs\|missing\|not compared" verdicts &&
	cp -R c edited && chmod u+w edited/runs/$r/native/sender.stdout &&
	python3 - <<-\PY &&
	import re
	p = "edited/runs/001-baseline-tcp-1/native/sender.stdout"
	t = open(p).read()
	m = re.search(r"percentile 99\.000 = +([0-9.]+)", t)
	open(p, "w").write(t.replace(m.group(0), m.group(0).replace(m.group(1), "%.3f" % (float(m.group(1)) + 5))))
	PY
	test_expect_code 1 "$AUDIT" campaign edited -o s2 >out 2>err &&
	grep -q "^audit: $r: edited/runs/$r/native/sender.stdout: p99: differs (native [0-9.]*, recomputed [0-9.]*)$" err &&
	grep -q "| $r | tcp | ok |.* DIFFERS | whole |" s2/summary.md &&
	grep -q "^| tcp | 0 |" s2/summary.md
'

test_done
