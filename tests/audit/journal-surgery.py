#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""journal-surgery: damage an llfix journal directory in one precise way.

The audit tests break exactly one rule at a time; this tool makes the
break and nothing else. Records are addressed as FILE:INDEX ("1.bin:3",
1-based as audit reports them) or, for renumber, from that record on
through the later files. Edits of a message keep its BodyLength (9) and
CheckSum (10) right unless --raw, so that only the intended rule breaks.
Each file keeps its size: records are packed again after the count and
the rest is zeros, as llfix leaves it.

  journal-surgery.py DIR sub FILE:INDEX OLD NEW [--raw | --keep-body-length]
                                                           ('|' stands for SOH)
  journal-surgery.py DIR flip FILE:INDEX OFFSET            xor 1 into a message byte
                                                           (OFFSET < 0: from its end)
  journal-surgery.py DIR renumber TAG FILE:INDEX DELTA     TAG += DELTA from there on
  journal-surgery.py DIR dup FILE:INDEX                    a copy right after it
  journal-surgery.py DIR delete FILE:INDEX
  journal-surgery.py DIR send-failed FILE:INDEX            success byte 0
  journal-surgery.py DIR set-count FILE N                  the count header, records untouched
  journal-surgery.py DIR poke FILE OFFSET BYTE             one byte of the file (OFFSET < 0: from end)
  journal-surgery.py DIR truncate FILE LENGTH
"""
import os
import re
import struct
import sys

SOH = b"\x01"


def die(msg):
    sys.stderr.write("journal-surgery: %s\n" % msg)
    sys.exit(2)


def files_of(d):
    names = [n for n in os.listdir(d) if re.fullmatch(r"[1-9][0-9]*\.bin", n)]
    return sorted(names, key=lambda n: int(n[:-4]))


def read(path):
    data = open(path, "rb").read()
    (count,) = struct.unpack_from("<Q", data, 0)
    recs, p = [], 8
    for _ in range(count):
        ts, ok, ln = struct.unpack_from("<QBQ", data, p)
        recs.append([ts, ok, data[p + 17:p + 17 + ln]])
        p += 17 + ln
    return len(data), recs


def write(path, size, recs, count=None):
    out = bytearray(struct.pack("<Q", len(recs) if count is None else count))
    for ts, ok, msg in recs:
        out += struct.pack("<QBQ", ts, ok, len(msg)) + msg
    if len(out) > size:
        die("%s: the records no longer fit in %d bytes" % (path, size))
    out += bytes(size - len(out))
    with open(path, "wb") as f:
        f.write(out)


def fix_envelope(msg, body_length=True):
    """BodyLength and CheckSum of a message whose body was edited."""
    first = msg.index(SOH) + 1            # after 8=...
    second = msg.index(SOH, first) + 1    # after 9=...
    trailer = msg.rindex(b"10=")
    body = msg[second:trailer]
    head = msg[:first] + b"9=%d" % len(body) + SOH if body_length else msg[:second]
    out = head + body
    return out + b"10=%03d" % (sum(out) % 256) + SOH


def address(d, spec):
    name, _, index = spec.partition(":")
    names = files_of(d)
    if name not in names or not index.isdigit():
        die("no record %s (files: %s)" % (spec, " ".join(names)))
    return names, names.index(name), int(index) - 1


def main(argv):
    if len(argv) < 3:
        die(__doc__)
    d, op, args = argv[1], argv[2], argv[3:]
    raw = "--raw" in args
    keep_body_length = "--keep-body-length" in args
    args = [a for a in args if a not in ("--raw", "--keep-body-length")]
    if op in ("set-count", "poke", "truncate"):
        path = os.path.join(d, args[0])
        if op == "set-count":
            with open(path, "r+b") as f:
                f.write(struct.pack("<Q", int(args[1])))
        elif op == "poke":
            size = os.path.getsize(path)
            off = int(args[1])
            with open(path, "r+b") as f:
                f.seek(off if off >= 0 else size + off)
                f.write(bytes([int(args[2], 0)]))
        else:
            os.truncate(path, int(args[1]))
        return
    if op == "renumber":
        tag, spec, delta = args[0].encode(), args[1], int(args[2])
    else:
        spec = args[0]
    names, fi, ri = address(d, spec)
    path = os.path.join(d, names[fi])
    size, recs = read(path)
    if ri >= len(recs):
        die("%s has %d records" % (names[fi], len(recs)))
    rec = recs[ri]
    if op == "sub":
        old, new = args[1].encode().replace(b"|", SOH), args[2].encode().replace(b"|", SOH)
        if old not in rec[2]:
            die("%s does not hold %r" % (spec, old))
        rec[2] = rec[2].replace(old, new, 1)
        if not raw:
            rec[2] = fix_envelope(rec[2], not keep_body_length)
    elif op == "flip":
        msg = bytearray(rec[2])
        off = int(args[1])
        msg[off] ^= 1
        rec[2] = bytes(msg)
    elif op == "dup":
        recs.insert(ri + 1, list(rec))
    elif op == "delete":
        del recs[ri]
    elif op == "send-failed":
        rec[1] = 0
    elif op == "renumber":
        pattern = re.compile(SOH + re.escape(tag) + b"=([0-9]+)" + SOH)
        for k, name in enumerate(names[fi:]):
            p = os.path.join(d, name)
            s, rs = (size, recs) if k == 0 else read(p)
            for r in rs[ri if k == 0 else 0:]:
                m = pattern.search(r[2])
                if m:
                    v = b"%d" % (int(m.group(1)) + delta)
                    r[2] = fix_envelope(r[2][:m.start(1)] + v + r[2][m.end(1):])
            write(p, s, rs)
        return
    else:
        die("unknown operation %s" % op)
    write(path, size, recs)


if __name__ == "__main__":
    main(sys.argv)
