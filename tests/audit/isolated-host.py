#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""isolated-host.py CAMPAIGN_DIR

Rewrite a captured campaign as an isolated host would have recorded it:
the sides on CPUs 2 and 3 (isolated with domain and managed_irq,
tickless, callback-free, alone on their cores), the controller on CPU 0,
every IRQ and the watchdog on 0-1, frequency pinned at performance with
turbo off, THP never, NUMA balancing off, the TSC; no interrupt and no
involuntary switch on a measured CPU during any run, no SMI, throttling,
steal, swapping or pressure, the clocks at base frequency, and PM QoS
held as each arm declares. The capture receipts are removed: this is a fixture
for the grades, not a capture."""
import glob
import json
import os
import sys

d = sys.argv[1]
for receipt in glob.glob(os.path.join(d, "receipt-capture*.json")):
    os.remove(receipt)
pol = json.load(open(os.path.join(d, "policy.json")))
perf = {"governor": "performance", "energy_performance_preference": "performance"}
pol["isolation"] = {"isolcpus": "domain,managed_irq,2-3", "nohz_full": "2-3", "rcu_nocbs": "2-3", "irqaffinity": "0-1"}
pol["cpus"] = {c: dict(perf, smt_siblings=c) for c in ("0", "2", "3")}
pol["turbo"] = {"intel_pstate_no_turbo": "1"}
pol.update(transparent_hugepage="always madvise [never]", numa_balancing="0", clocksource="tsc",
           watchdog_cpumask="0-1")
for irq in pol["interrupts"].values():
    if "smp_affinity_list" in irq:
        irq.update(effective_affinity_list="0", smp_affinity_list="0-1")
json.dump(pol, open(os.path.join(d, "policy.json"), "w"))
declared = {a["name"]: a.get("cpu_dma_latency") for a in json.load(open(os.path.join(d, "plan.json"))).get("arms", [])}
for path in glob.glob(os.path.join(d, "runs", "*", "run.json")):
    r = json.load(open(path))
    r["controller"] = {"cpus": [0], "chosen": "plan", "shared_with_sides": []}
    r["lease"] = {"mode": "exclusive", "cpus": "0,2-3", "dir": "/run/evidence", "priority": "normal"}
    for p in r["processes"]:
        p["cpu"] = 2 if p["role"] == "peer" else 3
        p["before"] = {"status": {"nonvoluntary_ctxt_switches": 3}}
        p["after"] = {"status": {"nonvoluntary_ctxt_switches": 3}}
    rows = {label: {"2": 7, "3": 7} for label in r["cpus"]["before"]["interrupts"]}
    r["cpus"] = {"before": {"interrupts": rows}, "after": {"interrupts": rows}}
    if declared.get(r["arm"]) is not None:
        r["cpu_dma_latency"] = {"held": True, "requested_us": declared[r["arm"]], "observed_us": declared[r["arm"]]}
    # the interference counters of an undisturbed run: nothing moved but
    # the clocks, which ran at the base frequency
    def snapshot(t):
        cpu = {"smi": 5, "aperf": 1000000 * t, "mperf": 1000000 * t,
               "thermal_throttle": {"core_throttle_count": 2, "package_throttle_count": 2},
               "stat": {"user": 10 * t, "system": 3, "idle": 40, "iowait": 0, "irq": 0, "softirq": 1, "steal": 0},
               "softirqs": {"TIMER": 9}}
        return {"monotonic_ns": 1000000000 * t, "ticks_per_second": 100,
                "cpus": {"2": cpu, "3": cpu},
                "vmstat": {"pswpin": 4, "pswpout": 4},
                "pressure": {k: {"some_total_us": 700, "full_total_us": 0} for k in ("cpu", "memory", "io")},
                "rapl": "unavailable: /sys/class/powercap: No such file or directory"}
    r["interference"] = {"before": snapshot(1), "after": snapshot(2)}
    json.dump(r, open(path, "w"))
