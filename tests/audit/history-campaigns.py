#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Write synthetic audited campaigns for audit history's tests.

history-campaigns.py OUT SPEC: SPEC is JSON:
  {"plan": NAME, "campaigns": N, "runs": R (4), "seed": S,
   "shifts": [{"cell": "x", "statistic": "p99", "from": I, "ratio": 1.3}],
   "kernel": {"I": "release"}, "plan_sha256": {"I": "hex"},
   "policy": {"I": {"nohz_full": "1-3"}},
   "sign": {"key": PEM, "campaigns": [I, ...]}}
Each campaign I (0-based, captured an hour apart) is OUT/cII/ holding
summary.json (evidence-campaign-summary/1: arm "a", cells "x" and "y", R
runs each whose recomputed p50, p99, p99.9, mean and max vary by 2%, each
cell's medians of runs) and receipt.json beside it, an audit receipt
naming the plan's digest and the summary's, as audit campaign writes them;
signed (Ed25519, as --sign-key signs) with the private key PEM for each
campaign listed (every one when "campaigns" is absent).
"""
import datetime, hashlib, json, os, random, statistics, sys

out, spec = sys.argv[1], json.loads(sys.argv[2])
rng = random.Random(spec.get("seed", 1))
base = {"p50": 5000.0, "p95": 8000.0, "p99": 12000.0, "p99.9": 40000.0, "mean": 5500.0, "max": 900000.0}
start = datetime.datetime(2026, 1, 1)  # campaigns an hour apart, in order however many
plan_default = hashlib.sha256(spec["plan"].encode()).hexdigest()

def canonical(d):
    return (json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode()

for i in range(spec["campaigns"]):
    key = str(i)
    runs, cells = [], []
    for cell in ("x", "y"):
        values = {s: [] for s in base}
        for r in range(spec.get("runs", 4)):
            v = {}
            for s, b in base.items():
                factor = 1.0
                for sh in spec.get("shifts", []):
                    if sh.get("cell", "x") == cell and sh["statistic"] == s and i >= sh["from"] and i < sh.get("until", 10**9):
                        factor *= sh["ratio"]
                v[s] = b * factor * rng.gauss(1, 0.02)
                values[s].append(v[s])
            runs.append({"name": "%03d-a-%s-%d" % (len(runs) + 1, cell, r + 1), "arm": "a", "cell": cell,
                         "in_cell_median": True, "result": "pass",
                         "recomputed": {"quantiles": {q: int(v[q]) for q in ("p50", "p95", "p99", "p99.9")},
                                        "mean": "%.9f" % v["mean"], "max": int(v["max"]), "min": 1000, "count": 20000}})
        med = {q: "%.9f" % statistics.median(int(x) for x in values[q]) for q in ("p50", "p95", "p99", "p99.9")}
        med["mean"] = "%.9f" % statistics.median(values["mean"])
        cells.append({"arm": "a", "cell": cell, "runs": len(values["p50"]), "rule": "floor-index", "source": "recomputed",
                      "unit": "ns", "median_of_runs": med, "largest_max": int(max(values["max"]))})
    policy = {"nohz_full": None, "clocksource": "tsc"}
    policy.update(spec.get("policy", {}).get(key, {}))
    summary = {"format": "evidence-campaign-summary/1", "campaign": spec["plan"], "cells": cells, "runs": runs,
               "provenance": {"campaign": spec["plan"], "captures": [{"finished": (start + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"), "host": "lab1", "result": "pass"}],
                              "kernel": {"release": spec.get("kernel", {}).get(key, "6.1.0-test")}, "cpu_model": "Test CPU",
                              "programs": [{"side": "sender", "sha256": "a" * 64}, {"side": "peer", "sha256": "b" * 64}],
                              "policy": policy, "seal_sha256": hashlib.sha256(b"seal %d" % i).hexdigest()}}
    d = os.path.join(out, "c%02d" % i)
    os.makedirs(d)
    body = canonical(summary)
    open(os.path.join(d, "summary.json"), "wb").write(body)
    receipt = {"format": "evidence-receipt/1", "kind": "audit", "host": "lab1", "result": "pass", "comparable": "0" * 64,
               "tool": {"name": "audit", "version": "test"}, "checks": [],
               "inputs": [{"name": "plan", "sha256": spec.get("plan_sha256", {}).get(key, plan_default)}],
               "outputs": [{"name": "summary.json", "sha256": hashlib.sha256(body).hexdigest()}]}
    sign = spec.get("sign")
    if sign and i in sign.get("campaigns", range(spec["campaigns"])):
        from cryptography.hazmat.primitives import serialization
        key = serialization.load_pem_private_key(open(sign["key"], "rb").read(), None)
        raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        receipt["signature"] = {"algorithm": "ed25519", "key_sha256": hashlib.sha256(raw).hexdigest(),
                                "value": key.sign(canonical(receipt)).hex()}
    open(os.path.join(d, "receipt.json"), "wb").write(canonical(receipt))
print(plan_default)
