#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent reading of what audit journal --latency computes.

latency-oracle.py FORMAT SENDER RECEIVER COMPID

FORMAT is llfix (directories of N.bin) or qf-log (QuickFIX FileLogs).
Prints, as JSON, the figures in the receipt's order: the sender's copy
(COMPID's direction, then the other), the receiver's copy (the same),
then between the copies (COMPID's direction, then the other). Each has
messages, min_ns, max_ns, mean_ns (a decimal string, 3 digits, half away
from zero), p50_ns .. p99.99_ns (nearest-rank) and resolution_ns.
Written from doc/formats.md and ../shared/formats, not from the C code."""
import calendar
import glob
import json
import os
import struct
import sys
from fractions import Fraction

SOH = b"\x01"


def utc_ns(text):
    """YYYYMMDD-HH:MM:SS[.fff...] as ns since 1970."""
    day, _, clock = text.partition("-")
    hms, _, frac = clock.partition(".")
    h, m, s = (int(x) for x in hms.split(":"))
    secs = calendar.timegm((int(day[:4]), int(day[4:6]), int(day[6:8]), h, m, s))
    return secs * 10**9 + int((frac + "000000000")[:9])


def fields(msg):
    out = {}
    for f in msg.split(SOH):
        if b"=" in f:
            t, _, v = f.partition(b"=")
            out.setdefault(int(t), v.decode("latin-1"))
    return out


def llfix_records(d):
    for path in sorted(glob.glob(os.path.join(d, "*.bin")), key=lambda p: int(os.path.basename(p)[:-4])):
        data = open(path, "rb").read()
        count, = struct.unpack_from("<Q", data, 0)
        p = 8
        for _ in range(count):
            ts, ok, ln = struct.unpack_from("<QBQ", data, p)
            yield ts, data[p + 17:p + 17 + ln]
            p += 17 + ln


def qflog_records(path):
    for line in open(path, "rb"):
        line = line.rstrip(b"\n")
        if not line:
            continue
        stamp, _, msg = line.partition(b" : ")
        yield utc_ns(stamp.decode()), msg


def streams(fmt, path, compid):
    """The two directions of a copy: lists of (numbering, seq, stamp, sending)."""
    recs = llfix_records(path) if fmt == "llfix" else qflog_records(path)
    out = [[], []]
    last = [None, None]
    for stamp, msg in recs:
        f = fields(msg)
        k = 0 if fmt == "llfix" or f.get(49) == compid else 1
        if f.get(43) == "Y" or not stamp or 34 not in f or 52 not in f:
            continue
        seq = int(f[34])
        numbering = out[k][-1][0] if out[k] else 0
        if last[k] is not None and seq < last[k]:
            numbering += 1
        last[k] = seq
        out[k].append((numbering, seq, stamp, utc_ns(f[52])))
    return out


def resolution(values):
    r = 10**9
    for v in values:
        while r > 1 and v % r:
            r //= 10
    return r


def decimal3(fr):
    neg = fr < 0
    fr = abs(fr)
    thousandths = (fr * 1000 + Fraction(1, 2)).__floor__()
    text = "%d.%03d" % (thousandths // 1000, thousandths % 1000)
    return "-" + text if neg and thousandths else text


def summary(values, res):
    if not values:
        return {"messages": 0}
    v = sorted(values)
    n = len(v)
    out = {"messages": n, "min_ns": v[0], "max_ns": v[-1], "mean_ns": decimal3(Fraction(sum(v), n)),
           "resolution_ns": res}
    for p in ("50", "90", "99", "99.9", "99.99"):
        r = max(1, -(-Fraction(p) * n // 100))
        out["p%s_ns" % p] = v[int(r) - 1]
    return out


def main():
    fmt, sender, receiver, compid = sys.argv[1:5]
    copies = [streams(fmt, sender, compid), streams(fmt, receiver, compid)]
    figures = []
    for copy in copies:
        for s in copy:
            if s:
                figures.append(summary([st - se for _, _, st, se in s],
                                       max(resolution(x[2] for x in s), resolution(x[3] for x in s))))
    for k in (0, 1):
        sent, received = (copies[0][k], copies[1][k]) if k == 0 else (copies[1][k], copies[0][k])
        if not sent or not received:
            continue
        first = [{}, {}]
        for i, s in enumerate((sent, received)):
            for numbering, seq, stamp, _ in s:
                key = (numbering, seq)
                if key not in first[i] or stamp < first[i][key]:
                    first[i][key] = stamp
        both = sorted(set(first[0]) & set(first[1]))
        figures.append(summary([first[1][key] - first[0][key] for key in both],
                               max(resolution(x[2] for x in sent), resolution(x[2] for x in received))))
    json.dump(figures, sys.stdout, indent=1)
    print()


main()
