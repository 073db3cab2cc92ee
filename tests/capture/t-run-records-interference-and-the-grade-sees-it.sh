#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Interference: capture reads, on each measured CPU before and after each
# run, the SMI count, APERF/MPERF, throttle counts, /proc/stat and
# softirqs, and the host's swapping and pressure stalls; each value read
# here again from its file. On this machine the counters that exist move
# (CPU hogs beside the pair raise the CPU pressure, and the default grade
# names it), and those that do not are "unavailable" with the reason,
# graded unknown saying it. Stand-ins for /dev/cpu/N/msr and the CPU's
# thermal_throttle directory (mounted in a mount namespace of the test's
# own) whose counts move during the run fail smi and thermal_throttle,
# naming the CPU and the count; a run whose APERF/MPERF says 90% fails
# effective_frequency. Rules written before the counters (the default's
# version 1) grade as before, none of the seven conditions added since
# listed; a campaign captured without counters is unknown under version
# 2; broken rules for the new conditions are refused.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99
Q="'"
if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi

# edit FILE EXPR...: run Python statements over d, the JSON of FILE
edit () {
	f=$1
	shift
	python3 - "$f" "$@" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	for statement in sys.argv[2:]:
	    exec(statement)
	json.dump(d, open(sys.argv[1], "w"))
	PY
}

# plan FILE SENDER_ARGV_JSON: one cell, the peer a probe on CPU 0 that
# sleeps a second, the sender on CPU 1 as given
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "interference", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}", "0", "1"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	  "sender": {"argv": $2, "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
}

RUN=runs/001-baseline-A-1/run.json

test_expect_success 'this machine: every counter read before and after, moving; CPU hogs raise the pressure and the grade names it; what the host lacks is unavailable, graded unknown with its reason' '
	plan plan.json "[\"$PROBE\", \"{out:probe}\", \"0\", \"1\"]" &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	hogs= &&
	for i in 1 2 3; do
		timeout 30 taskset -c 0 sh -c "while :; do :; done" &
		hogs="$hogs $!"
	done &&
	"$CAPTURE" run $degrade pinned.json -o c >out 2>err; status=$?
	kill $hogs; wait
	test "$status" = 0 &&
	python3 - c <<-\PY &&
	import json, os, sys
	d = sys.argv[1]
	run = json.load(open(os.path.join(d, "runs/001-baseline-A-1/run.json")))
	pol = json.load(open(os.path.join(d, "policy.json")))
	b, a = run["interference"]["before"], run["interference"]["after"]
	assert a["monotonic_ns"] > b["monotonic_ns"] >= 0, (a["monotonic_ns"], b["monotonic_ns"])
	assert a["ticks_per_second"] == os.sysconf("SC_CLK_TCK")
	for cpu in ("0", "1"):
	    for k in ("user", "system", "idle", "irq", "softirq", "steal"):
	        assert 0 <= b["cpus"][cpu]["stat"][k] <= a["cpus"][cpu]["stat"][k], (cpu, k)
	    assert a["cpus"][cpu]["softirqs"]["TIMER"] >= b["cpus"][cpu]["softirqs"]["TIMER"] > 0
	    msr = "/dev/cpu/%s/msr" % cpu
	    for k in ("smi", "aperf", "mperf"):
	        v = a["cpus"][cpu][k]
	        if os.path.exists(msr) and os.geteuid() == 0:
	            assert isinstance(v, int) or "this CPU does not have it" in v, (k, v)
	        else:
	            assert v.startswith("unavailable: %s: " % msr), (k, v)
	    tt = "/sys/devices/system/cpu/cpu%s/thermal_throttle" % cpu
	    if os.path.isdir(tt):
	        assert sorted(a["cpus"][cpu]["thermal_throttle"]) == sorted(f for f in os.listdir(tt) if f.endswith("_count"))
	    else:
	        assert a["cpus"][cpu]["thermal_throttle"].startswith("unavailable: %s: No such file or directory" % tt)
	assert a["pressure"]["cpu"]["some_total_us"] > b["pressure"]["cpu"]["some_total_us"], "the hogs stalled nothing?"
	assert a["vmstat"]["pswpin"] >= b["vmstat"]["pswpin"] >= 0
	assert pol["randomize_va_space"] == open("/proc/sys/kernel/randomize_va_space").read().strip()
	assert pol["perf_event_max_sample_rate"] == open("/proc/sys/kernel/perf_event_max_sample_rate").read().strip()
	vd = "/sys/devices/system/cpu/vulnerabilities"
	assert pol["vulnerabilities"] == {f: open(os.path.join(vd, f)).read().strip() for f in os.listdir(vd)}
	flags = [l for l in open("/proc/cpuinfo") if l.startswith("flags")][0].split()
	assert (pol["hypervisor"] is None) == ("hypervisor" not in flags), pol["hypervisor"]
	assert set(pol["bios"]) == {"vendor", "version", "date"}
	PY
	"$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^grade: diagnostic by the rules evidence-default version 2 (the shipped default): " out &&
	grep -q "^| pressure | fail | the host${Q}s cpu pressure: some task stalled [0-9,]* ms of the run${Q}s [0-9,]* ms ([1-9][0-9]* per mille; bound 10; PSI is per host, not per CPU) (run 001)" s/summary.md &&
	if [ ! -e /dev/cpu/1/msr ]; then
		grep -q "^| smi | unknown | CPU 0 (the peer${Q}s): no SMI count (unavailable: /dev/cpu/0/msr: No such file or directory (the msr module is not loaded: modprobe msr; a VM may have none)) (run 001); CPU 1 (the sender${Q}s): no SMI count " s/summary.md &&
		grep -q "^| effective_frequency | unknown | CPU 0 (the peer${Q}s): no APERF and MPERF counts (unavailable: /dev/cpu/0/msr: " s/summary.md
	fi &&
	if [ ! -d /sys/devices/system/cpu/cpu0/thermal_throttle ]; then
		grep -q "^| thermal_throttle | unknown | CPU 0 (the peer${Q}s): no throttle counts (unavailable: /sys/devices/system/cpu/cpu0/thermal_throttle: No such file or directory (no thermal monitoring here: a VM, or not an x86 CPU)) " s/summary.md
	fi &&
	grep -q "^| 001-baseline-A-1 | .* | [1-9][0-9]*‰ | [0-9]*‰ | [0-9]*‰ | .*|$" s/summary.md &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"interference\"][\"pressure_per_mille\"][\"cpu\"] > 0, sorted(d[\"runs\"][0][\"interference\"])")" = \
		"True effective_frequency_pct marked pressure_per_mille smi steal_ms swapped_pages thermal_throttle" &&
	grep -q "<section id=\"interference\"><h2>Interference</h2>" s/report.html &&
	awk -F, "NR == 2 { print (\$25 > 0) }" s/runs.csv | grep -qx 1
'

test_expect_success 'stand-ins for the MSRs and thermal_throttle whose counts move during the run: smi and thermal_throttle fail, naming the CPU and the count' '
	[ "$(id -u)" = 0 ] || test_skip_case "mounting the stand-ins needs root (a mount namespace of the test${Q}s own)" &&
	for cpu in 0 1; do
		mkdir -p fx/cpu$cpu/thermal_throttle fx/cpu$cpu/topology &&
		cp /sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list fx/cpu$cpu/topology/ &&
		echo 0 >fx/cpu$cpu/thermal_throttle/core_throttle_count &&
		echo 4 >fx/cpu$cpu/thermal_throttle/package_throttle_count || return 1
	done &&
	cat >msr.py <<-\PY &&
	# msr.py FILE REG=VALUE...: a /dev/cpu/N/msr stand-in, a register a
	# little-endian u64 at its number, where the msr driver reads it. (A
	# file holds one such value per 8 bytes: registers closer together,
	# as APERF and MPERF are, would overlap, so those are left zero.)
	import struct, sys
	new = not sys.argv[1].startswith("/dev")
	f = open(sys.argv[1], "wb" if new else "r+b")
	if new:
	    f.write(bytes(4096))
	for a in sys.argv[2:]:
	    reg, value = a.split("=")
	    f.seek(int(reg, 16))
	    f.write(struct.pack("<Q", int(value)))
	PY
	python3 msr.py fx/cpu0/msr 0x34=7 &&
	python3 msr.py fx/cpu1/msr 0x34=7 &&
	cat >bump <<-EOF &&
	#!/bin/sh
	# the sender: 3 SMIs and 2 throttles on its CPU, nothing on the peer${Q}s
	python3 $PWD/msr.py /dev/cpu/1/msr 0x34=10 &&
	echo 2 >/sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count &&
	exec "\$@"
	EOF
	chmod 755 bump &&
	plan fx.json "[\"$PWD/bump\", \"$PROBE\", \"{out:probe}\"]" &&
	"$CAPTURE" pin fx.json -o fxpinned.json >/dev/null &&
	unshare -m sh -c "
		mount -t tmpfs none /dev/cpu && mkdir /dev/cpu/0 /dev/cpu/1 &&
		cp fx/cpu0/msr /dev/cpu/0/msr && cp fx/cpu1/msr /dev/cpu/1/msr &&
		mount --bind fx/cpu0 /sys/devices/system/cpu/cpu0 &&
		mount --bind fx/cpu1 /sys/devices/system/cpu/cpu1 &&
		\"$CAPTURE\" run fxpinned.json -o cfx" >out 2>err &&
	test "$(json_words cfx/$RUN "[d[\"interference\"][w][\"cpus\"][\"1\"][\"smi\"] for w in (\"before\", \"after\")], d[\"interference\"][\"after\"][\"cpus\"][\"1\"][\"thermal_throttle\"][\"core_throttle_count\"]")" = "7 10 2" &&
	"$AUDIT" campaign cfx -o sfx >out 2>err &&
	grep -q "^| smi | fail | CPU 1 (the sender${Q}s) took 3 SMIs during the run (MSR 0x34; bound 0) (run 001) |$" sfx/summary.md &&
	grep -q "^| thermal_throttle | fail | CPU 1 (the sender${Q}s): core_throttle_count rose by 2 during the run (bound 0) (run 001) |$" sfx/summary.md &&
	grep -q "^| effective_frequency | unknown | CPU 0 (the peer${Q}s): MPERF did not advance during the run (APERF +0, MPERF +0) (run 001); " sfx/summary.md &&
	grep -q "^| 001-baseline-A-1 | 3 | 2 | — | .* | \*\*SMI, throttled.*\*\* |$" sfx/summary.md &&
	test "$(json_words sfx/summary.json "[d[\"runs\"][0][\"interference\"][k] for k in (\"smi\", \"thermal_throttle\")], d[\"runs\"][0][\"interference\"][\"marked\"][:2]")" = "3 2 SMI throttled" &&
	grep -q "^001-baseline-A-1,.*,diagnostic,3,2,,.*,\"\?SMI throttled" sfx/runs.csv &&
	grep -q "<tr class=\"fail\"><td>001-baseline-A-1</td><td>3</td><td>2</td><td>—</td>" sfx/report.html
'

test_expect_success 'an edited run: the clock at 90% of base fails effective_frequency; rules written before the counters (version 1 of the default) grade it as before, the seven added since neither listed nor graded' '
	cp -R c old && python3 "$EV_SRCDIR/tests/audit/isolated-host.py" old &&
	edit old/$RUN "d[\"interference\"][\"after\"][\"cpus\"][\"3\"] = dict(d[\"interference\"][\"after\"][\"cpus\"][\"3\"], smi=99)" &&
	edit old/$RUN "d[\"interference\"][\"after\"][\"cpus\"][\"3\"] = dict(d[\"interference\"][\"after\"][\"cpus\"][\"3\"], aperf=1900000)" &&
	"$AUDIT" campaign old -o sold2 >out 2>err &&
	grep -q "^| smi | fail | CPU 3 (the sender${Q}s) took 94 SMIs during the run (MSR 0x34; bound 0) (run 001) |$" sold2/summary.md &&
	grep -q "^| effective_frequency | fail | CPU 3 (the sender${Q}s) ran at 90% of its base frequency during the run (APERF/MPERF; the rules allow 95-105%) (run 001) |$" sold2/summary.md &&
	grep -q "^| 001-baseline-A-1 | 94 | 0 | 90% | 0 ms | 0 | 0‰ | 0‰ | 0‰ | \*\*SMI\*\* |$" sold2/summary.md &&
	edit old/plan.json "d[\"grades\"] = json.loads(open(\"sold2/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"[d[\"grades\"].pop(k) for k in (\"smi\", \"thermal_throttle\", \"effective_frequency\", \"steal\", \"swapping\", \"pressure\", \"clocks\")]" \
		"d[\"grades\"][\"version\"] = 1" &&
	"$AUDIT" campaign old -o sold1 >out 2>err &&
	grep -q "^grade: quiet by the rules evidence-default version 1 (the plan): 0 conditions failed, 0 unknown$" out &&
	test "$(json_words sold1/summary.json "len(d[\"grade\"][\"conditions\"]), [c[\"condition\"] for c in d[\"grade\"][\"conditions\"] if c[\"condition\"] in (\"smi\", \"pressure\")]")" = 19 &&
	! grep -q "^| smi \|^| pressure " sold1/summary.md
'

test_expect_success 'a campaign captured without the counters: each of the six unknown under version 2, never quiet' '
	cp -R c none && python3 "$EV_SRCDIR/tests/audit/isolated-host.py" none &&
	edit none/$RUN "del d[\"interference\"]" &&
	"$AUDIT" campaign none -o snone >out 2>err &&
	grep -q "^grade: diagnostic by the rules evidence-default version 2 (the shipped default): 0 conditions failed, 6 unknown (each named under Grade)$" out &&
	grep -q "^| steal | unknown | run.json records no interference counters before and after the run (captured by a capture that did not read them) (run 001) |$" snone/summary.md &&
	grep -q "^| 001-baseline-A-1 | — | — | — | — | — | — | — | — |  |$" snone/summary.md
'

test_expect_success 'broken rules for the new conditions are refused, naming the key, nothing written' '
	cp -R c bad1 && edit bad1/plan.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"d[\"grades\"][\"effective_frequency\"] = {\"min_pct\": 105, \"max_pct\": 95}" &&
	test_expect_code 2 "$AUDIT" campaign bad1 -o sbad1 >out 2>err &&
	grep -q "^audit: bad1/plan.json: \"grades\": \"effective_frequency\": expected {\"min_pct\": N, \"max_pct\": M}, 1 <= N <= M <= 1000, the range of APERF/MPERF in percent of the base frequency (or null: not graded)$" err &&
	test_must_be_absent sbad1 &&
	cp -R c bad2 && edit bad2/plan.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"d[\"grades\"][\"pressure\"] = {\"disk\": 5}" &&
	test_expect_code 2 "$AUDIT" campaign bad2 -o sbad2 >out 2>err &&
	grep -q "^audit: bad2/plan.json: \"grades\": \"pressure\": \"disk\": not a resource (cpu, memory or io)$" err &&
	test_must_be_absent sbad2
'

test_done
