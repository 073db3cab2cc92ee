#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate share/demo/campaign: a small synthetic campaign tree with the
shapes a real llfix TX campaign leaves (plan, per-run run.json, native
statistics block with ANSI colour codes, journals in the llfix layout (both endpoints' copies), raw
per-call latency series as CSV). Deterministic: same output every run.
Used once to make the committed sample; kept so that it can be checked."""
import json, os, random, struct, sys

SOH = b"\x01"
ROOT = sys.argv[1] if len(sys.argv) > 1 else "share/demo/campaign"
WARMUPS, MEASURED = 10, 200


def fix(fields):
    body = b"".join(b"%d=%s\x01" % (t, v) for t, v in fields[2:])
    head = b"8=FIXT.1.1\x019=%d\x01" % len(body)
    msg = head + body
    return msg + b"10=%03d\x01" % (sum(msg) % 256)


def logon(ts):
    return fix([(8, b""), (9, b""), (35, b"A"), (34, b"1"), (49, b"CLIENT1"), (52, ts),
                (56, b"EXECUTOR"), (98, b"0"), (108, b"30"), (1137, b"7")])


def logout(seq, ts):
    return fix([(8, b""), (9, b""), (35, b"5"), (34, b"%d" % seq), (49, b"CLIENT1"), (52, ts),
                (56, b"EXECUTOR")])


def order(seq, clordid, ts):
    return fix([(8, b""), (9, b""), (35, b"D"), (34, b"%d" % seq), (49, b"CLIENT1"),
                (52, ts), (56, b"EXECUTOR"), (50, b"SNDR_SUB"), (57, b"SRVR_SUB"),
                (11, b"%d" % clordid), (55, b"NOKIA.HE"), (54, b"1"), (38, b"10"),
                (44, b"10000"), (40, b"2"), (59, b"0"), (453, b"2"), (448, b"PARTY1"),
                (447, b"D"), (452, b"1"), (448, b"PARTY2"), (447, b"D"), (452, b"3"),
                (60, ts)])


def journal(messages, t0):
    out = bytearray(struct.pack("<Q", len(messages)))
    for i, m in enumerate(messages):
        out += struct.pack("<QBQ", t0 + i * 9000, 1, len(m)) + m
    size = (len(out) + 4095) // 4096 * 4096
    return bytes(out) + bytes(size - len(out))


def stats_block(samples, cpu):
    s = sorted(samples)
    n = len(s)
    esc = lambda t: "\x1b[0;34m%s\x1b[0m" % t
    pct = lambda p: s[n * p // 100]
    lines = [esc("CPU frequency") + " 2096000000 hertz", esc("Pinned to CPU core") + " %d" % cpu,
             esc("Antistall mock order count") + " : %d" % WARMUPS, "",
             esc("Title") + " : New order", esc("Sample count") + " : %d" % n,
             esc("Minimum") + " : %g nanoseconds" % s[0], esc("Maximum") + " : %g nanoseconds" % s[-1],
             esc("Average") + " : %f nanoseconds" % (sum(s) / n)]
    lines += [esc("P%d" % p) + " : %f nanoseconds" % pct(p) for p in (50, 75, 90, 95, 99)]
    return "\n".join(lines) + "\n"


def write(path, data, mode=0o644):
    path = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(path, mode)


def main():
    rnd = random.Random(20261202)
    cells = {"A": "receiver spin", "B": "receiver epoll"}
    plan = {"format": "evidence-plan/1", "cells": [{"name": k, "description": v} for k, v in cells.items()],
            "warmups": WARMUPS, "measured": MEASURED, "repeats": 1, "order": "balanced"}
    write("plan.json", json.dumps(plan, indent=2, sort_keys=True) + "\n")
    write("README", "A synthetic sample campaign shipped with evidence for its demo.\n"
                    "Two cells, one fresh-process run each; each run's journals in the llfix\n"
                    "layout, the sender's outgoing and the receiver's incoming copy.\n")
    for index, cell in enumerate(cells):
        run = "runs/%s-1" % cell
        ts = b"20261202-08:03:14.257"
        orders = WARMUPS + MEASURED
        msgs = [logon(ts)] + [order(i + 2, i + 1, ts) for i in range(orders)] + [logout(orders + 2, ts)]
        # The sender's outgoing and the receiver's incoming copy, as the
        # pair persisted them. git keeps 0644; scripts/demo.sh sets 0600 on
        # its copy, as llfix does.
        write(run + "/journal/sender/1.bin", journal(msgs, 1796198594257000000))
        write(run + "/journal/receiver/1.bin", journal(msgs, 1796198594257004000))
        base = 1900 if cell == "A" else 2400
        samples = [base + int(rnd.expovariate(1 / 150)) for _ in range(MEASURED)]
        write(run + "/series/send.csv", "\n".join(str(v) for v in samples) + "\n")
        write(run + "/native/sender.stdout", stats_block(samples, 1))
        write(run + "/native/receiver.stdout", "logon from CLIENT1\nreceived %d orders\nlogout\n"
              % (WARMUPS + MEASURED))
        meta = {"format": "evidence-run/1", "cell": cell, "order_index": index,
                "sender": {"argv": ["fix-sender", "--warmups", str(WARMUPS), "--measured", str(MEASURED)], "cpu": 1},
                "peer": {"argv": ["fix-receiver", "--mode", "spin" if cell == "A" else "epoll"], "cpu": 0},
                "exit_codes": {"sender": 0, "peer": 0},
                # As capture records them: a boot that is not this one, so
                # replicate prune can tell the processes are gone.
                "boot_id": "00000000-0000-4000-8000-000000000000",
                "processes": [{"role": "sender", "pid": 4242 + 2 * index, "start_ticks": 98765400},
                              {"role": "peer", "pid": 4243 + 2 * index, "start_ticks": 98765300}]}
        write(run + "/run.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    write("summary/summary.txt", "cell A (receiver spin): 1 run\ncell B (receiver epoll): 1 run\n")


main()
