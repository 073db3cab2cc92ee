#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Clocks as evidence: two network namespaces, each a "host" running
# Debian's chronyd (one serving its local clock at stratum 1, the other
# its client over a veth), each recorded by capture clocks. Records
# showing both synchronised within --clock-bound make the figures that
# span the two clocks one-way latencies with the errors added as their
# bound, as an independent reading of the records computes it. The
# client's clock stepped half a second away (its chronyd under faketime)
# and a client that reaches no server leave them "between, offset
# included", saying why; --clock naming one clock for two hosts' records
# that do not show them synchronised is refused; a capture run's run.json
# is a record too (here: the kernel's word, not synchronised). The grade
# condition "clocks" fails a run whose clock was not synchronised. Bad
# records and options are refused with no receipt written.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "network namespaces and chronyd need root"
[ -x /usr/sbin/chronyd ] && [ -x /usr/bin/chronyc ] || test_skip_all "needs Debian's chrony"
FAKETIME_LIB=
for lib in /usr/lib/*/faketime/libfaketime.so.1; do [ -f "$lib" ] && FAKETIME_LIB=$lib; done
[ -n "$FAKETIME_LIB" ] || test_skip_all "needs libfaketime (Debian's faketime)"
Q="'"
NS=evc$$
SRV=${NS}s CLI=${NS}c

stop_chrony () {
	for pid in chrony-*.pid; do
		[ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
	done
	for pid in chrony-*.pid; do
		[ -f "$pid" ] && while kill -0 "$(cat "$pid")" 2>/dev/null; do sleep 0.05; done
		rm -f "$pid"
	done
	return 0
}
trap 'stop_chrony; ip netns del $SRV 2>/dev/null; ip netns del $CLI 2>/dev/null' EXIT

# chrony NAME NETNS CONF [env VAR=VALUE...]: chronyd NAME in NETNS, in
# the foreground of a background job whose pid (ip netns exec and env
# exec it: chronyd's own) is in chrony-NAME.pid; -x: it tracks the
# clock, never sets it (the namespaces share one)
chrony () {
	name=$1 ns=$2 conf=$3
	shift 3
	ip netns exec "$ns" "$@" /usr/sbin/chronyd -x -u root -d -f "$PWD/$conf" >"chrony-$name.log" 2>&1 &
	echo $! >"chrony-$name.pid"
}

# synced NETNS: chronyc in NETNS says the clock follows a reference (up to 10 s)
synced () {
	i=0
	while [ $i -lt 100 ]; do
		in_ns "$1" chronyc -c -n tracking 2>/dev/null | grep -q ",Normal$" &&
			! in_ns "$1" chronyc -c -n tracking | grep -q "^00000000," && return 0
		sleep 0.1
		i=$((i + 1))
	done
	in_ns "$1" chronyc -n tracking >&2
	return 1
}

# in_ns NETNS COMMAND...: COMMAND in NETNS, where chronyc reaches that
# namespace's chronyd: a chronyd of this host (its socket in /run/chrony,
# which chronyc tries first) is hidden under a mount namespace's tmpfs
in_ns () {
	unshare -m sh -c "if [ -d /run/chrony ]; then mount -t tmpfs none /run/chrony || exit 1; fi; exec ip netns exec \"\$@\"" sh "$@"
}

audit_pair () {
	"$AUDIT" journal --warmups 10 --measured 1000 --sender g/sender --receiver g/receiver --latency "$@"
}

# bound FILE...: the error an independent reading of each record gives,
# added: chrony's |system - NTP| + root dispersion + root delay / 2
bound () {
	python3 - "$@" <<-\PY
	import json, sys
	total = 0
	for path in sys.argv[1:]:
	    c = json.load(open(path))["chrony"]
	    assert c["synchronised"] is True, c
	    total += abs(c["system_fast_ns"]) + c["root_dispersion_ns"] + c["root_delay_ns"] // 2
	print(total)
	PY
}

test_expect_success 'setup: an llfix pair; two namespaces, a chrony server (local stratum 1) and its client over a veth' '
	"$GEN_JOURNAL" g 10 1000 &&
	ip netns add $SRV && ip netns add $CLI &&
	ip link add ${NS}a type veth peer name ${NS}b &&
	ip link set ${NS}a netns $SRV && ip link set ${NS}b netns $CLI &&
	ip -n $SRV addr add 10.231.7.1/24 dev ${NS}a && ip -n $CLI addr add 10.231.7.2/24 dev ${NS}b &&
	for n in $SRV $CLI; do ip -n $n link set lo up || return 1; done &&
	ip -n $SRV link set ${NS}a up && ip -n $CLI link set ${NS}b up &&
	mkdir -m 700 run &&
	cat >server.conf <<-EOF &&
	local stratum 1
	allow 10.231.7.0/24
	bindcmdaddress /
	pidfile $PWD/run/server.pid
	EOF
	cat >client.conf <<-EOF &&
	server 10.231.7.1 iburst minpoll -4 maxpoll -4
	bindcmdaddress /
	pidfile $PWD/run/client.pid
	port 0
	EOF
	sed "s/10.231.7.1 /10.231.7.99 /" client.conf >lost.conf &&
	chrony server $SRV server.conf &&
	chrony client $CLI client.conf &&
	synced $SRV && synced $CLI
'

test_expect_success 'capture clocks: each host record, the kernel view as ntp_adjtime gives it and the tracking chronyc prints' '
	in_ns $SRV "$CAPTURE" clocks -o server.json >out &&
	in_ns $CLI "$CAPTURE" clocks -o client.json >out2 &&
	grep -q "^synchronised: chrony: synchronised to 10.231.7.1 (stratum 2), the clock .* \(fast\|slow\), root delay .*, root dispersion .*: within " out2 &&
	grep -q "^record: client.json$" out2 &&
	test_expect_code 2 "$CAPTURE" clocks -o client.json 2>err &&
	grep -q "client.json" err &&
	python3 - <<-\PY
	import ctypes, json, os
	class Timex(ctypes.Structure):
	    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
	                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
	                ("rest", ctypes.c_long * 40)]
	t = Timex()
	state = ctypes.CDLL(None).adjtimex(ctypes.byref(t))
	for name in ("server.json", "client.json"):
	    d = json.load(open(name))
	    assert d["format"] == "evidence-clocks/1"
	    assert d["boot_id"] == open("/proc/sys/kernel/random/boot_id").read().strip()
	    k = d["kernel"]
	    assert k["synchronised"] == (not (t.status & 0x40) and state != 5), (k, t.status, state)
	    assert ("UNSYNC" in k["status"]) == bool(t.status & 0x40)
	    assert k["state"] == ["TIME_OK", "TIME_INS", "TIME_DEL", "TIME_OOP", "TIME_WAIT", "TIME_ERROR"][state]
	    assert d["ptp"].startswith("unavailable: "), d["ptp"]
	    assert d["clocksource"] == open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
	    flags = [l for l in open("/proc/cpuinfo") if l.startswith("flags")][0].split()
	    assert d["tsc"]["constant_tsc"] == ("constant_tsc" in flags)
	s, c = json.load(open("server.json"))["chrony"], json.load(open("client.json"))["chrony"]
	assert (s["stratum"], s["leap_status"], s["synchronised"], s["reference"]) == (1, "Normal", True, ""), s
	assert (c["stratum"], c["reference"], c["leap_status"], c["synchronised"]) == (2, "10.231.7.1", "Normal", True), c
	PY
'

test_expect_success 'both synchronised within the bound: the figures across the two clocks are one-way latencies, their bound the errors added' '
	audit_pair --clock-record sender=server.json --clock-record receiver=client.json --clock-bound 1000000 --receipt r.json >out &&
	grep -q "^pair 1 one-way  CLIENT1->EXECUTOR: the receiver${Q}s journal timestamp (received) - the sender${Q}s (sent), two clocks synchronised within [0-9.]* [nu]s (sender: chrony: synchronised to 7F7F0101 (stratum 1), .*; receiver: chrony: synchronised to 10.231.7.1 (stratum 2), .*): 1012 messages" out &&
	grep -q "^pair 1 receiver latency CLIENT1->EXECUTOR: journal timestamp (when received) - SendingTime(52), two clocks synchronised within " out &&
	test "$(json_words r.json "[(f[\"copy\"], f[\"clocks_synchronised\"], f[\"error_bound_ns\"]) for f in d[\"facts\"][\"pairs\"][0][\"latency\"] if \"clocks_synchronised\" in f]")" = \
		"receiver True $(bound server.json client.json) both True $(bound server.json client.json)" &&
	test "$(json_words r.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"figure\"]")" = "one-way: received stamp - sent stamp, two clocks synchronised" &&
	test "$(json_words r.json "[(i[\"name\"], i[\"sha256\"]) for i in d[\"inputs\"] if i[\"name\"].startswith(\"clock record\")]")" = \
		"clock record of the sender${Q}s host $(sha256_of server.json) clock record of the receiver${Q}s host $(sha256_of client.json)"
'

test_expect_success 'the errors above the bound: between, offset included, saying by how much' '
	audit_pair --clock-record sender=server.json --clock-record receiver=client.json --clock-bound 1 --receipt r1.json >out &&
	grep -q "^pair 1 between  CLIENT1->EXECUTOR: .*: not a latency, their offset included: the clocks${Q} errors add to [0-9.]* [nu]s, more than --clock-bound 1 ns (sender: chrony: .*; receiver: chrony: .*): 1012 messages" out &&
	test "$(json_words r1.json "d[\"facts\"][\"pairs\"][0][\"latency\"][2][\"clocks_synchronised\"]")" = False
'

test_expect_success 'the client clock stepped half a second away: between, offset included, naming the clock and how far' '
	kill "$(cat chrony-client.pid)" && while kill -0 "$(cat chrony-client.pid)" 2>/dev/null; do sleep 0.05; done &&
	chrony client $CLI client.conf env LD_PRELOAD="$FAKETIME_LIB" FAKETIME=+0.5s &&
	i=0 && until in_ns $CLI chronyc -c -n tracking 2>/dev/null | python3 -c "import sys; f = sys.stdin.read().split(\",\"); sys.exit(not (len(f) == 14 and abs(float(f[4])) > 0.1))"; do
		i=$((i + 1)) && [ $i -lt 100 ] && sleep 0.1 || return 1
	done &&
	in_ns $CLI "$CAPTURE" clocks -o away.json >/dev/null &&
	audit_pair --clock-record sender=server.json --clock-record receiver=away.json --clock-bound 1000000 --receipt r2.json >out &&
	grep -q "^pair 1 between  CLIENT1->EXECUTOR: .*: not a latency, their offset included: the clocks${Q} errors add to [0-9.]* m\?s, more than --clock-bound 1.0 ms (sender: .*; receiver: chrony: synchronised to 10.231.7.1 (stratum 2), the clock [0-9.]* ms \(fast\|slow\), " out &&
	! grep -q "one-way" out
'

test_expect_success 'a client that reaches no server: not synchronised, said; one clock named for the records of two hosts is refused' '
	kill "$(cat chrony-client.pid)" && while kill -0 "$(cat chrony-client.pid)" 2>/dev/null; do sleep 0.05; done &&
	chrony client $CLI lost.conf &&
	sleep 0.3 &&
	in_ns $CLI "$CAPTURE" clocks -o lost.json >out &&
	grep -q "^not synchronised: chrony says the clock is not synchronised (leap status Not synchronised, stratum 0)$" out &&
	audit_pair --clock-record sender=server.json --clock-record receiver=lost.json --clock-bound 1000000 --receipt r3.json >out &&
	grep -q "^pair 1 between  .*: not a latency, their offset included: the receiver${Q}s clock: chrony says the clock is not synchronised (leap status Not synchronised, stratum 0) (lost.json): 1012 messages" out &&
	python3 -c "import json; d = json.load(open(\"lost.json\")); d.update(host=\"lab2\", boot_id=\"0badc0de-0000-4000-8000-000000000002\"); json.dump(d, open(\"far.json\", \"w\"))" &&
	test_expect_code 2 audit_pair --clock sender=lab --clock receiver=lab --clock-record sender=server.json --clock-record receiver=far.json --clock-bound 1000000 --receipt no.json 2>err &&
	grep -q "^audit: --clock names one clock (lab) for both copies, but their clock records are of two hosts (.*, boot [0-9a-f]\{8\}; lab2, boot 0badc0de) and the receiver${Q}s clock: chrony says the clock is not synchronised .*: give each copy its own clock (no --clock), and the figure is said to span two$" err &&
	test_must_be_absent no.json &&
	audit_pair --clock sender=lab --clock receiver=lab --clock-record sender=server.json --clock-record receiver=lost.json --clock-bound 1000000 --receipt same.json >out &&
	grep -q "^pair 1 one-way  CLIENT1->EXECUTOR: .*, one clock (lab): 1012 messages" out
'

test_expect_success 'the run.json of a capture run is a record too; the grade condition clocks fails a run whose clock was not synchronised' '
	probe_install &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "clocks", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run pinned.json -o c >/dev/null 2>&1 &&
	RUN=c/runs/001-baseline-A-1/run.json &&
	test "$(json_words $RUN "sorted(d[\"clocks\"][\"before\"]), d[\"clocks\"][\"after\"][\"kernel\"][\"synchronised\"]")" = "chrony clocksource kernel ptp tsc False" &&
	audit_pair --clock-record sender=$RUN --clock-record receiver=client.json --clock-bound 1000000 --receipt r4.json >out &&
	grep -q "^pair 1 between  .*: not a latency, their offset included: the sender${Q}s clock: the kernel says the clock is not synchronised (TIME_ERROR), and no chronyd answered ($RUN): 1012 messages" out &&
	"$AUDIT" campaign c -o s >/dev/null 2>&1 &&
	grep -q "^| clocks | not graded | — |$" s/summary.md &&
	python3 -c "import json; d = json.load(open(\"pinned.json\")); r = json.load(open(\"s/summary.json\"))[\"grade\"][\"rules\"][\"declared\"]; r.update(name=\"two-hosts\", clocks={\"within_ns\": 100000}); d[\"grades\"] = r; json.dump(d, open(\"c/plan.json\", \"w\"))" &&
	{ "$AUDIT" campaign c -o s2 >/dev/null 2>&1; test -d s2; } &&
	grep -q "^| clocks | fail | before the run: the kernel says the clock is not synchronised (TIME_ERROR), and no chronyd answered (run 001); after the run: the kernel says " s2/summary.md
'

test_expect_success 'records signed by their hosts: held to the keys given; unsigned, foreign, altered or a run.json under --trust refused, no receipt' '
	"$REPLICATE" keygen -o srv >/dev/null && "$REPLICATE" keygen -o cli >/dev/null && "$REPLICATE" keygen -o other >/dev/null &&
	in_ns $SRV "$CAPTURE" clocks --sign-key srv.key -o server-signed.json >out &&
	grep -q "^record: server-signed.json (signed)$" out &&
	in_ns $SRV "$CAPTURE" clocks --sign-key other.key -o foreign.json >/dev/null &&
	in_ns $CLI "$CAPTURE" clocks --sign-key cli.key -o lost-signed.json >/dev/null &&
	audit_pair --clock-record sender=server-signed.json --clock-record receiver=lost-signed.json --clock-bound 1000000 \
		--trust srv.pub --trust cli.pub --receipt signed.json >out &&
	grep -q "^pair 1 between  .*the receiver${Q}s clock: chrony says the clock is not synchronised" out &&
	test_expect_code 2 audit_pair --clock-record sender=server.json --clock-record receiver=lost-signed.json --clock-bound 1000000 \
		--trust srv.pub --trust cli.pub --receipt x.json 2>err &&
	grep -q "^audit: server.json: the clock record is not signed: its clock is not taken on trust$" err &&
	test_expect_code 2 audit_pair --clock-record sender=foreign.json --clock-record receiver=lost-signed.json --clock-bound 1000000 \
		--trust srv.pub --trust cli.pub --receipt x.json 2>err &&
	grep -q "^audit: foreign.json: the clock record is signed by a key that is not trusted (key_sha256 [0-9a-f]\{64\}): its clock is not taken on trust$" err &&
	python3 -c "import json; d = json.load(open(\"lost-signed.json\")); d[\"chrony\"][\"synchronised\"] = True; d[\"chrony\"][\"leap_status\"] = \"Normal\"; open(\"forged.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\\n\")" &&
	test_expect_code 2 audit_pair --clock-record sender=server-signed.json --clock-record receiver=forged.json --clock-bound 1000000 \
		--trust srv.pub --trust cli.pub --receipt x.json 2>err &&
	grep -q "^audit: forged.json: the clock record .*: its clock is not taken on trust$" err &&
	test_expect_code 2 audit_pair --clock-record sender=c/runs/001-baseline-A-1/run.json --clock-record receiver=lost-signed.json --clock-bound 1000000 \
		--trust srv.pub --trust cli.pub --receipt x.json 2>err &&
	grep -q "^audit: c/runs/001-baseline-A-1/run.json: a run.json carries no signature of its own, and --trust holds every clock record to one: give a record its host signed (capture clocks --sign-key), or audit its campaign with --trust$" err &&
	test_must_be_absent x.json
'

test_expect_success 'refused, with no receipt: a record of one side only, no bound, a plan given as a record, a directory, a run.json without clocks' '
	test_expect_code 2 audit_pair --clock-record sender=server.json --clock-bound 5 --receipt x.json 2>err &&
	grep -q "^audit: option --clock-record: give one of each host, sender=FILE and receiver=FILE (a figure across two clocks needs both)$" err &&
	test_expect_code 2 audit_pair --clock-record sender=server.json --clock-record receiver=client.json --receipt x.json 2>err &&
	grep -q "^audit: option --clock-record needs --clock-bound NS, the largest error a figure across two clocks may have and be called a one-way latency$" err &&
	test_expect_code 2 audit_pair --clock-record sender=plan.json --clock-record receiver=client.json --clock-bound 5 --receipt x.json 2>err &&
	grep -q "plan.json: expected a clock record (evidence-clocks/1, capture clocks) or a run.json (evidence-run/1), found evidence-plan/1$" err &&
	test_expect_code 2 audit_pair --clock-record sender=g --clock-record receiver=client.json --clock-bound 5 --receipt x.json 2>err &&
	grep -q "g" err &&
	python3 -c "import json; d = json.load(open(\"c/runs/001-baseline-A-1/run.json\")); del d[\"clocks\"]; json.dump(d, open(\"old-run.json\", \"w\"))" &&
	test_expect_code 2 audit_pair --clock-record sender=old-run.json --clock-record receiver=client.json --clock-bound 5 --receipt x.json 2>err &&
	grep -q "old-run.json: a run.json without its clocks before and after the run (captured before they were recorded): give a clock record of each host (capture clocks)$" err &&
	test_expect_code 2 audit_pair --clock-record peer=x --receipt x.json 2>err &&
	grep -q "option --clock-record: expected sender=FILE or receiver=FILE, found ${Q}peer=x${Q}" err &&
	test_must_be_absent x.json
'

test_done
