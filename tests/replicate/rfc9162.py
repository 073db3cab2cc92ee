#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""rfc9162.py DUMP N: an independent implementation of RFC 9162 §2.1 (the
Merkle tree hash, PATH and PROOF as the RFC writes them, recursively,
memoised; verification as §2.1.3.2 and §2.1.4.2 give it), held against
what tests/lib/merkle-dump N printed for the leaves "leaf-0" ...: every
root, inclusion path and consistency proof must be the RFC's, byte for
byte, and verify. Prints "N roots, I inclusion paths, C consistency
proofs agree" or exits 1 naming the first that does not."""
import functools
import hashlib
import sys


def sha(b):
    return hashlib.sha256(b).digest()


def main():
    dump, n = sys.argv[1], int(sys.argv[2])
    leaves = [sha(b"\x00" + b"leaf-%d" % i) for i in range(n)]

    def split(k):
        s = 1
        while s << 1 < k:
            s <<= 1
        return s

    @functools.lru_cache(maxsize=None)
    def mth(a, b):
        if b - a == 0:
            return sha(b"")
        if b - a == 1:
            return leaves[a]
        k = split(b - a)
        return sha(b"\x01" + mth(a, a + k) + mth(a + k, b))

    def path(m, a, b):
        if b - a <= 1:
            return []
        k = split(b - a)
        if m < k:
            return path(m, a, a + k) + [mth(a + k, b)]
        return path(m - k, a + k, b) + [mth(a, a + k)]

    def subproof(m, a, b, whole):
        if m == b - a:
            return [] if whole else [mth(a, b)]
        k = split(b - a)
        if m <= k:
            return subproof(m, a, a + k, whole) + [mth(a + k, b)]
        return subproof(m - k, a + k, b, False) + [mth(a, a + k)]

    def verify_inclusion(i, size, leaf, proof, root):
        if i >= size:
            return False
        fn, sn, r = i, size - 1, leaf
        for p in proof:
            if sn == 0:
                return False
            if fn & 1 or fn == sn:
                r = sha(b"\x01" + p + r)
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
            else:
                r = sha(b"\x01" + r + p)
            fn >>= 1
            sn >>= 1
        return sn == 0 and r == root

    def verify_consistency(m, size, old, new, proof):
        if m == size:
            return not proof and old == new
        if m & (m - 1) == 0:
            proof = [old] + proof
        fn, sn = m - 1, size - 1
        while fn & 1:
            fn >>= 1
            sn >>= 1
        fr = sr = proof[0]
        for c in proof[1:]:
            if sn == 0:
                return False
            if fn & 1 or fn == sn:
                fr = sha(b"\x01" + c + fr)
                sr = sha(b"\x01" + c + sr)
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
            else:
                sr = sha(b"\x01" + sr + c)
            fn >>= 1
            sn >>= 1
        return sn == 0 and fr == old and sr == new

    def hashes(text):
        return [bytes.fromhex(h) for h in text.split(",")] if text else []

    counts = {"root": 0, "incl": 0, "cons": 0}
    for line in open(dump):
        f = line.rstrip("\n").split(" ")
        kind = f[0]
        if kind == "root":
            size, got = int(f[1]), bytes.fromhex(f[2])
            if got != mth(0, size):
                sys.exit("root of size %d: %s, the RFC gives %s" % (size, f[2], mth(0, size).hex()))
        elif kind == "incl":
            size, i, got = int(f[1]), int(f[2]), hashes(f[3] if len(f) > 3 else "")
            want = path(i, 0, size)
            if got != want:
                sys.exit("inclusion path of %d in size %d differs from the RFC's" % (i, size))
            if not verify_inclusion(i, size, leaves[i], got, mth(0, size)):
                sys.exit("inclusion path of %d in size %d does not verify" % (i, size))
        elif kind == "cons":
            m, size, got = int(f[1]), int(f[2]), hashes(f[3] if len(f) > 3 else "")
            want = subproof(m, 0, size, True)
            if got != want:
                sys.exit("consistency proof %d -> %d differs from the RFC's" % (m, size))
            if not verify_consistency(m, size, mth(0, m), mth(0, size), got):
                sys.exit("consistency proof %d -> %d does not verify" % (m, size))
        else:
            sys.exit("unknown line: " + line)
        counts[kind] += 1
    want_roots = n
    if counts["root"] != want_roots or counts["incl"] != n * (n + 1) // 2 or counts["cons"] != n * (n + 1) // 2:
        sys.exit("expected %d roots and %d proofs of each kind, found %s" % (n, n * (n + 1) // 2, counts))
    print("%d roots, %d inclusion paths, %d consistency proofs agree" % (counts["root"], counts["incl"], counts["cons"]))


main()
