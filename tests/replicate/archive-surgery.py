#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""archive-surgery.py IN OUT OP [ARG...]: rewrite a sealed archive (zstd or
gzip tar) with one change, for the replicate tests. The members are copied
with Python's tarfile (pax format) in their order, except that OP applies:

  flip PATH OFFSET        XOR one content byte of PATH with 0xFF
  replace PATH OLD NEW    replace the first OLD in PATH's content by NEW (as
                          long: a document that still parses, but edited)
  chmod PATH MODE         give PATH another mode (octal)
  add PATH TEXT           add a file PATH after the last member
  add-after AFTER PATH T  add a file PATH right after member AFTER
  drop PATH               leave PATH out
  dup PATH                write PATH twice
  swap A B                exchange the places of members A and B
  symlink PATH TARGET     replace PATH by a symbolic link to TARGET
  hardlink PATH TARGET    replace PATH by a hard link to TARGET
  device PATH             replace PATH by a character device (1, 3)
  fifo PATH               replace PATH by a FIFO
  pax-path PATH NEW       keep PATH's header name, but say NEW in a pax path record
  rename PATH NEW         name PATH's member NEW (header and all)

PATH is a member path inside the sealed root (the root is added), except
for rename NEW and pax-path NEW, which are taken as written.
The output is compressed as the input was (by its file name suffix)."""
import copy
import io
import subprocess
import sys
import tarfile


def read_members(path):
    tool = ["zstd", "-dcq"] if path.endswith(".zst") else ["gzip", "-dc"]
    raw = subprocess.run(tool + [path], check=True, stdout=subprocess.PIPE).stdout
    out = []
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as t:
        for m in t.getmembers():
            data = t.extractfile(m).read() if m.isfile() else None
            out.append([m, data])
    return out


def write(path, members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:", format=tarfile.PAX_FORMAT) as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data) if data is not None else None)
    tool = ["zstd", "-q", "-c"] if path.endswith(".zst") else ["gzip", "-c", "-n"]
    with open(path, "wb") as f:
        subprocess.run(tool, input=buf.getvalue(), check=True, stdout=f)


def main():
    src, dst, op, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    members = read_members(src)
    root = members[1][0].name.split("/")[0]
    full = lambda p: root + "/" + p
    index = {m.name.rstrip("/"): i for i, (m, _) in enumerate(members)}
    at = lambda p: index[full(p)]

    def new_file(name, text):
        m = tarfile.TarInfo(name)
        data = text.encode()
        m.size, m.mode, m.mtime = len(data), 0o644, 946684800
        return [m, data]

    def replace_type(p, kind, target=""):
        m, _ = members[at(p)]
        n = copy.copy(m)
        n.type, n.size, n.linkname = kind, 0, target
        if kind == tarfile.CHRTYPE:
            n.devmajor, n.devminor = 1, 3
        members[at(p)] = [n, None]

    if op == "flip":
        m, data = members[at(args[0])]
        data = bytearray(data)
        data[int(args[1])] ^= 0xFF
        members[at(args[0])][1] = bytes(data)
    elif op == "replace":
        old, new = args[1].encode(), args[2].encode()
        assert len(old) == len(new), "replace keeps the length"
        data = members[at(args[0])][1]
        assert old in data, "%s not in %s" % (args[1], args[0])
        members[at(args[0])][1] = data.replace(old, new, 1)
    elif op == "chmod":
        members[at(args[0])][0].mode = int(args[1], 8)
    elif op == "add":
        members.append(new_file(full(args[0]), args[1]))
    elif op == "add-after":
        members.insert(at(args[0]) + 1, new_file(full(args[1]), args[2]))
    elif op == "drop":
        del members[at(args[0])]
    elif op == "dup":
        i = at(args[0])
        members.insert(i + 1, [copy.copy(members[i][0]), members[i][1]])
    elif op == "swap":
        i, j = at(args[0]), at(args[1])
        members[i], members[j] = members[j], members[i]
    elif op == "symlink":
        replace_type(args[0], tarfile.SYMTYPE, args[1])
    elif op == "hardlink":
        replace_type(args[0], tarfile.LNKTYPE, args[1])
    elif op == "device":
        replace_type(args[0], tarfile.CHRTYPE)
    elif op == "fifo":
        replace_type(args[0], tarfile.FIFOTYPE)
    elif op == "pax-path":
        m = members[at(args[0])][0]
        m.pax_headers = dict(m.pax_headers, path=args[1])
    elif op == "rename":
        members[at(args[0])][0].name = args[1]
    else:
        sys.exit("archive-surgery.py: unknown operation " + op)
    write(dst, members)


main()
