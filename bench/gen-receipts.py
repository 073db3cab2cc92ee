#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/gen-receipts.py OUT CAMPAIGNS PER: CAMPAIGNS directories OUT/cNNNN,
each a SEAL.json of 20 members and PER receipts naming it, shaped as a lab
keeps them: one seal receipt, replica receipts from four hosts, seal
verify receipts, audits reading the archive and members, one cleanup.
Each seal is well formed (members in byte order) and each receipt's
comparable digest is its content's, as the tools write them: status
judges them as it would a lab's, intact and sealed. The members' bytes are
not there; what is measured is how fast receipts are found, indexed and
judged."""
import hashlib, json, os, sys

out, campaigns, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def canonical(d):
    return (json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n").encode()

def h(text):
    return hashlib.sha256(text.encode()).hexdigest()

def comparable(r):
    """lib/receipt's comparable digest: what the receipt says, without its
    times, host or invocation"""
    def names(items):
        return [{"name": i["name"], "sha256": i["sha256"]} for i in items]
    part = {"kind": r["kind"], "tool": {"name": r["tool"]["name"], "version": r["tool"]["version"]},
            "inputs": names(r["inputs"]), "outputs": names(r["outputs"]), "facts": r["facts"],
            "checks": r["checks"], "result": r["result"]}
    return hashlib.sha256(canonical(part)).hexdigest()

tool = {"name": "replicate", "version": "0.1.0"}
for c in range(campaigns):
    d = os.path.join(out, "c%04d" % c)
    os.makedirs(d)
    members = [{"mode": "0644", "path": "runs/r%02d/series.bin" % i, "sha256": h("m %d %d" % (c, i)), "size": 1000 + i,
                "type": "file"} for i in range(20)]
    tree = [{"mode": "0755", "path": "runs", "type": "dir"}] + \
        [{"mode": "0755", "path": "runs/r%02d" % i, "type": "dir"} for i in range(20)] + members
    seal = canonical({"format": "evidence-seal/1", "members": sorted(tree, key=lambda m: m["path"].encode()),
                      "root": "campaign-%04d" % c, "totals": {"bytes": 20190, "dirs": 21, "files": 20}})
    seal_sha = hashlib.sha256(seal).hexdigest()
    open(os.path.join(d, "SEAL.json"), "wb").write(seal)
    for r in range(per):
        kind = "seal" if r == 0 else "cleanup" if r == per - 1 else ("replica", "verify", "audit")[r % 3]
        seal_entry = {"name": "SEAL.json", "path": "sealed/SEAL.json", "sha256": seal_sha}
        inputs = [] if kind == "seal" else [seal_entry]
        if kind == "audit":
            inputs += [{"name": "archive", "path": "sealed/archive.tar.zst", "sha256": h("a %d" % c)}] + \
                      [{"name": "series %d" % i, "path": m["path"], "sha256": m["sha256"]} for i, m in enumerate(members[:4])]
        receipt = {"format": "evidence-receipt/1", "kind": kind, "host": "lab%d" % (r % 4), "result": "pass",
                   "tool": dict(tool, name="audit" if kind == "audit" else "replicate"),
                   "invocation": {"argv": ["replicate", kind if kind != "audit" else "campaign"]},
                   "finished": "2026-%02d-%02dT%02d:%02d:00Z" % (1 + c % 12, 1 + r % 28, r % 24, c % 60),
                   "checks": [{"name": "members", "result": "pass", "detail": "20 members expected, 0 findings"}],
                   "facts": {"root": "campaign-%04d" % c, "members_read": 41, "coverage": {"recomputed": ["every member"]}},
                   "inputs": inputs, "outputs": [seal_entry] if kind == "seal" else []}
        receipt["comparable"] = comparable(receipt)
        open(os.path.join(d, "r%03d.json" % r), "wb").write(canonical(receipt))
