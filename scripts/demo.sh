#!/usr/bin/env bash
# demo: the evidence campaign demo, end to end with the tools that exist.
# Today: seal the sample campaign shipped under share/demo, verify the tree
# and the archive (with the seal pinned by its SHA-256), extract the archive
# with GNU tar and verify the copy, then show what a verification failure
# looks like. capture, audit and replicate join as their issues land.
#
#   scripts/demo.sh BUILDDIR      (scripts/quickstart demo builds and calls it)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/plain}
seal=$build/seal/seal
work=$build/demo
[ -x "$seal" ] || { echo "demo: $seal not built; run scripts/quickstart demo" >&2; exit 2; }

step () { printf '\n== %s\n' "$*"; }
show () { printf '$ %s\n' "$*"; "$@"; }

# The demo owns $work: it is made fresh on every run.
rm -rf "$work"
mkdir -p "$work"
cd "$work"
cp -R "$top/share/demo/campaign" campaign
# git does not keep modes: journals are 0600 as llfix writes them.
chmod 600 campaign/runs/*/journal/*.bin

step "seal the campaign: one read pass, SEAL.json + archive + receipt"
show "$seal" create campaign -o sealed
pin=$(sha256sum sealed/SEAL.json | cut -c1-64)

step "verify the tree and the archive against the pinned seal"
show "$seal" verify --seal sealed/SEAL.json --seal-sha256 "$pin" campaign
show "$seal" verify --seal sealed/SEAL.json --seal-sha256 "$pin" sealed/archive.tar.zst

step "any tar extracts it; the copy verifies, modes included"
mkdir extracted
show tar -C extracted --zstd -xf sealed/archive.tar.zst
ls -l extracted/campaign/runs/A-1/journal
show "$seal" verify --seal extracted/SEAL.json --seal-sha256 "$pin" extracted/campaign

step "what a failure looks like: one flipped byte and a chmod in the copy"
printf '\377' | dd of=extracted/campaign/runs/B-1/journal/1.bin bs=1 seek=4096 conv=notrunc 2>/dev/null
chmod 644 extracted/campaign/runs/A-1/journal/1.bin
set +e
show "$seal" verify --seal sealed/SEAL.json extracted/campaign
status=$?
set -e
echo "(exit status $status: 1 means a check failed, and the findings name each member)"
[ "$status" -eq 1 ]

step "summary"
python3 - sealed <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/receipt.json"))
t = r["facts"]["totals"]
print("sealed %s: %d files, %d dirs, %d bytes; result %s" % (r["facts"]["root"], t["files"], t["dirs"], t["bytes"], r["result"]))
for o in r["outputs"]:
    print("  %-16s %s" % (o["name"], o["sha256"]))
print("receipt comparable digest: " + r["comparable"])
PY
echo
echo "demo: done; outputs are in $work"
