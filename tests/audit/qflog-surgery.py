#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""qflog-surgery: edit one message of a QuickFIX FileLog in one precise way.

A QuickFIX message log holds one message per line, "TIME : MESSAGE". The
session tests break one session rule at a time; this tool finds the
message by its direction and MsgSeqNum (the N-th such line when a number
repeats, as after a resend) and makes the break, keeping BodyLength (9)
and CheckSum (10) right so that only the intended rule breaks.

  qflog-surgery.py LOG SENDER SEQ[#N] sub OLD NEW     ('|' stands for SOH)
  qflog-surgery.py LOG SENDER SEQ[#N] delete
  qflog-surgery.py LOG SENDER SEQ[#N] dup                 a copy right after it
  qflog-surgery.py LOG SENDER SEQ[#N] drop-tag TAG
  qflog-surgery.py LOG SENDER SEQ[#N] set TAG VALUE
"""
import re
import sys

SOH = b"\x01"


def die(msg):
    sys.stderr.write("qflog-surgery: %s\n" % msg)
    sys.exit(2)


def reframe(body_fields):
    """8=..|9=..|<body>|10=..| from the fields after 9 and before 10."""
    begin, rest = body_fields[0], body_fields[1:]
    body = SOH.join(rest) + SOH
    head = begin + SOH + b"9=%d" % len(body) + SOH
    msg = head + body
    return msg + b"10=%03d" % (sum(msg) % 256) + SOH


def main(argv):
    if len(argv) < 5:
        die("usage: LOG SENDER SEQ[#N] sub OLD NEW | delete | drop-tag TAG")
    path, sender, where, op = argv[1], argv[2].encode(), argv[3], argv[4]
    seq, _, nth = where.partition("#")
    nth = int(nth or 1)
    lines = open(path, "rb").read().split(b"\n")
    hits = [i for i, l in enumerate(lines)
            if (SOH + b"49=" + sender + SOH) in l and (SOH + b"34=" + seq.encode() + SOH) in l]
    if len(hits) < nth:
        die("no message %s #%d from %s in %s" % (seq, nth, sender.decode(), path))
    i = hits[nth - 1]
    stamp, _, msg = lines[i].partition(b" : ")
    fields = msg.rstrip(SOH).split(SOH)
    fields = [f for f in fields if not f.startswith(b"9=") and not f.startswith(b"10=")]
    if op == "delete":
        del lines[i]
    elif op == "dup":
        lines.insert(i + 1, lines[i])
    else:
        if op == "sub":
            old, new = argv[5].replace("|", "\x01").encode(), argv[6].replace("|", "\x01").encode()
            joined = SOH + SOH.join(fields) + SOH
            if old not in joined:
                die("%r not in message %s" % (argv[5], where))
            fields = joined.replace(old, new, 1).strip(SOH).split(SOH)
        elif op == "drop-tag":
            tag = argv[5].encode() + b"="
            kept = [f for f in fields if not f.startswith(tag)]
            if len(kept) == len(fields):
                die("no tag %s in message %s" % (argv[5], where))
            fields = kept
        elif op == "set":
            tag = argv[5].encode() + b"="
            if not any(f.startswith(tag) for f in fields):
                die("no tag %s in message %s" % (argv[5], where))
            fields = [tag + argv[6].encode() if f.startswith(tag) else f for f in fields]
        else:
            die("unknown operation %r" % op)
        lines[i] = stamp + b" : " + reframe(fields)
    open(path, "wb").write(b"\n".join(lines))


if __name__ == "__main__":
    main(sys.argv)
