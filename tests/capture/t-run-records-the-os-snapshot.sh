#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run records the OS as it was: policy.json holds, per campaign
# CPU, its SMT siblings, energy-performance preference and frequency
# limits; the intel_pstate limits and SMT state; every per-CPU row of
# /proc/interrupts for the campaign's CPUs with each device IRQ's
# affinity; and the active tuned profile's contents. Each run's run.json
# has every interrupt row before and after. Each value is checked against
# the file it came from, read here independently; a file the host lacks is
# "unavailable: PATH: REASON", never left out.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

test_expect_success 'setup: one probe cell, no namespaces' '
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "snapshot", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run pinned.json -o c >out 2>err
'

# check.py: the snapshot against the files, read again here.
cat >check.py <<'EOF'
import json, os, sys
policy = json.load(open("c/policy.json"))
run = json.load(open("c/runs/001-baseline-A-1/run.json"))
def read(path, whole=False):
    try:
        with open(path) as f:
            return f.read() if whole else f.readline().rstrip("\n")
    except OSError as e:
        return "unavailable: %s: %s" % (path, e.strerror)
bad = []
def same(what, got, want):
    if got != want:
        bad.append("%s: recorded %r, the file says %r" % (what, got, want))
for cpu in ("0", "1"):
    base = "/sys/devices/system/cpu/cpu%s/" % cpu
    rec = policy["cpus"][cpu]
    for key, rel in [("smt_siblings", "topology/thread_siblings_list"),
                     ("energy_performance_preference", "cpufreq/energy_performance_preference"),
                     ("scaling_min_freq_khz", "cpufreq/scaling_min_freq"), ("scaling_max_freq_khz", "cpufreq/scaling_max_freq"),
                     ("cpuinfo_min_freq_khz", "cpufreq/cpuinfo_min_freq"), ("cpuinfo_max_freq_khz", "cpufreq/cpuinfo_max_freq")]:
        same("cpu %s %s" % (cpu, key), rec[key], read(base + rel))
same("smt control", policy["smt"]["control"], read("/sys/devices/system/cpu/smt/control"))
if os.path.exists("/sys/devices/system/cpu/intel_pstate"):
    same("intel_pstate max_perf_pct", policy["intel_pstate"]["max_perf_pct"], read("/sys/devices/system/cpu/intel_pstate/max_perf_pct"))
else:
    same("intel_pstate", policy["intel_pstate"], None)
active = read("/etc/tuned/active_profile")
if active.startswith("unavailable:") or not active:
    same("tuned_profiles", policy["tuned_profiles"], None)
else:
    for name in active.split():
        for d in ("/etc/tuned", "/usr/lib/tuned"):
            p = "%s/%s/tuned.conf" % (d, name)
            if os.path.exists(p):
                same("tuned " + name, policy["tuned_profiles"][name]["contents"], read(p, True))
                break
lines = open("/proc/interrupts").read().splitlines()
cols = [int(c[3:]) for c in lines[0].split()]
rows = {}
for line in lines[1:]:
    label, _, rest = line.strip().partition(":")
    words = rest.split()
    if len(words) < len(cols) or not all(w.isdigit() for w in words[:len(cols)]):
        continue
    rows[label] = " ".join(words[len(cols):])
same("interrupt rows", sorted(policy["interrupts"]), sorted(rows))
for label, desc in rows.items():
    same("interrupt %s description" % label, policy["interrupts"][label]["description"].split(), desc.split())
    if label.isdigit():
        same("irq %s affinity" % label, policy["interrupts"][label]["smp_affinity_list"], read("/proc/irq/%s/smp_affinity_list" % label))
    same("irq %s cpus" % label, sorted(policy["interrupts"][label]["counts"]), ["0", "1"])
for when in ("before", "after"):
    got = run["cpus"][when]["interrupts"]
    missing = sorted(set(rows) - set(got))
    if missing:
        bad.append("run.json cpus %s: rows missing: %s" % (when, missing))
if run["cpus"]["after"]["interrupts"]["LOC"]["1"] < run["cpus"]["before"]["interrupts"]["LOC"]["1"]:
    bad.append("LOC on CPU 1 went backwards")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

test_expect_success 'policy.json and run.json hold what the files held, row for row' '
	/usr/bin/python3 check.py
'

test_expect_success 'a device IRQ row names where it may run; a host total (ERR, MIS) is not a CPU row' '
	test "$(json_words c/policy.json "sorted(k for k in d[\"interrupts\"] if k in (\"ERR\", \"MIS\"))")" = "" &&
	test "$(json_words c/policy.json "[k for k, v in d[\"interrupts\"].items() if k.isdigit() and \"smp_affinity_list\" not in v]")" = ""
'

test_done
