#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo: the evidence campaign demo, end to end. capture pins the reference
# FIX pair and runs its campaign (share/demo/plan.json: receiver spinning
# against receiver in epoll, two repeats in balanced order, in two network
# namespaces, a second arm holding PM QoS); seal freezes it and verifies
# the tree, the archive and an extracted copy, and shows a failure; audit
# recomputes both endpoints' FIX journals of every run cold, from the tree
# and streamed from the archive; replicate pushes the archive to two
# replica directories (standing in for hosts), compares the receipts,
# names a tampered replica's member, and prune removes the runtime copy
# once its guards hold, after which audit campaign reads the sealed archive
# alone to the same summary, the campaign audit's receipt is exported as
# a signed in-toto attestation and logged, and the seal gets a trusted
# time from a local test TSA; audit campaign sums the campaign up per cell (the
# median of its runs' recomputed statistics) in a table and an HTML
# report, grades it (diagnostic on a host without isolation, each
# condition named) and judges it against the registration capture
# register wrote before the first run (timestamped, logged; two sessions
# planned, both on the record); audit compare sets the two arms side by
# side, and the campaign against its second session, as registered; two more replicas witness the
# log (each cosigns its checkpoint with a key of its own), the lab signs an
# acceptance policy, and replicate accept judges the whole campaign by it
# and writes the verdict and its evidence as one in-toto bundle, which it
# judges again alone; a summary closes. Every receipt is signed (the
# demo's own configuration gives every command the lab's key).
#
#   scripts/demo.sh BUILDDIR      (scripts/quickstart demo builds and calls it)
#   scripts/demo.sh --installed [BINDIR]   the installed tools (default /usr/bin)
#
# Its outputs go to BUILDDIR/demo, or to EVIDENCE_DEMO_DIR (a test's own).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --installed ]; then # the tools a package installed, in BINDIR (default /usr/bin)
	bindir=${2:-/usr/bin}
	seal=$bindir/seal replicate=$bindir/replicate audit=$bindir/audit capture=$bindir/capture pairdir=$bindir
	work=${EVIDENCE_DEMO_DIR:-$PWD/evidence-demo}
	unset EVIDENCE_DATADIR # what the package installed, and nothing else
else
	build=$(cd "${1:-$top/build/plain}" && pwd)
	seal=$build/seal/seal replicate=$build/replicate/replicate audit=$build/audit/audit
	capture=$build/capture/capture pairdir=$build/capture/pair
	work=${EVIDENCE_DEMO_DIR:-$build/demo}
	export EVIDENCE_DATADIR=$top/share # a build tree's tools read the sources' data
fi
# The servers the demo starts (the test TSA) end with it on every path:
# its end, a failed step, Ctrl-C, kill, the logout's SIGHUP.
servers=()
stop_servers () {
	local pid
	for pid in "${servers[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		echo "demo: stopped the test TSA (pid $pid)"
	done
	servers=()
}
trap stop_servers EXIT
for sig in INT TERM HUP; do
	# shellcheck disable=SC2064 # the signal's name, now
	trap "stop_servers; trap - $sig EXIT; kill -s $sig \$\$" $sig
done
for tool in "$seal" "$replicate" "$audit" "$capture"; do
	[ -x "$tool" ] || { echo "demo: $tool not built; run scripts/quickstart demo" >&2; exit 2; }
done

step () { printf '\n== %s\n' "$*"; }
show () { printf '$ %s\n' "$*"; "$@"; }

# The demo owns $work: it is made fresh on every run.
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# A lab host signs what it writes: the demo's own configuration gives every
# command the lab's key (sign-key), as /etc/evidence/config would.
"$replicate" keygen -o lab >/dev/null
printf 'sign-key = %s\n' "$work/lab.key" >evidence.conf
export EVIDENCE_CONFIG=$work/evidence.conf
echo "(every receipt below is signed with lab.key: evidence.conf's sign-key, as a lab host's configuration would give it)"

step "capture: pin the plan's programs, then run the campaign, each pair fresh, pinned, in its namespaces"
# The sides drop to nobody when capture runs as root and nobody can reach
# the pair and this directory; else they run as whoever runs the demo.
user=$(id -un)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		sh -c 'test -x "$1" && test -x "$2"' sh "$pairdir/fix-sender" "$work"; then
	user=nobody
fi
echo "(the pair runs as $user)"
# The controller (capture and its observers) keeps a CPU of its own where
# there is one to spare; on two CPUs it shares the peer's, and says so.
if [ "$(nproc)" -ge 3 ]; then
	peer_cpu=1 sender_cpu=2 shares=false
	echo "(the controller runs on CPU 0, the peer on 1, the sender on 2)"
else
	peer_cpu=0 sender_cpu=1 shares=true
	echo "(this machine has $(nproc) CPUs: the controller shares CPU 0 with the peer; run.json and the receipt record it)"
fi
sed -e "s|@BINDIR@|$pairdir|g" -e "s|@USER@|$user|g" -e "s|@PEER_CPU@|$peer_cpu|g" \
	-e "s|@SENDER_CPU@|$sender_cpu|g" -e "s|@SHARES@|$shares|g" "$top/share/demo/plan.json" >plan-template.json
show "$capture" pin plan-template.json -o plan.json
degrade=()
if [ "$(id -u)" != 0 ]; then
	echo "(not root: network namespaces and PM QoS cannot be made here; capture runs with --degrade and records that)"
	degrade=(--degrade)
fi

step "capture register: the statistics, the comparison and the sessions claimed before the first run, timestamped and logged"
# A local test time-stamp authority (RFC 3161) gives the registration,
# and later the seal, a trusted time; its replies are verified before
# they are kept.
tsa=() status_tsa=()
if /usr/bin/python3 -c "import cryptography" 2>/dev/null; then
	mkdir tsa
	/usr/bin/python3 "$top/tests/seal/tsa.py" tsa certs
	/usr/bin/python3 "$top/tests/seal/tsa.py" tsa serve &
	servers+=($!)
	for _ in $(seq 1 100); do [ -e tsa/port ] && break; sleep 0.05; done
	tsa=(--tsa "http://127.0.0.1:$(cat tsa/port)/good" --tsa-ca tsa/ca.pem)
	status_tsa=(--tsa-ca tsa/ca.pem)
else
	echo "(python3-cryptography is not installed: the test TSA cannot be made; the log alone orders the registration)"
fi
show "$capture" register plan.json -o registration.json --statistic p50 --statistic p99 --statistic p99.9 \
	--compare-arms baseline,dma0 --sessions 2 --hypothesis "holding PM QoS at 0 (arm dma0) lowers p99" "${tsa[@]}"
show "$replicate" log --log evidence-log --origin demo.example/log --sign-key lab.key append registration.json
sleep 1 # a token's genTime is to the second: the first run begins after it

step "capture run: two sessions of the registered plan, each on the record (its start before the first pair, its end)"
show "$capture" run "${degrade[@]}" plan.json -o campaign --registration registration.json --log evidence-log
show "$capture" run "${degrade[@]}" plan.json -o campaign-again --registration registration.json --log evidence-log
runs=()
for d in campaign/runs/*/; do runs+=("$(basename "$d")"); done
first=${runs[0]}
echo "(each run: run.json, native/, observe/tcp.json, journals, series; e.g. campaign/runs/$first)"
ls -l "campaign/runs/$first/sender/journal"

step "seal the campaign: one read pass, SEAL.json + archive + receipt"
show "$seal" create campaign -o sealed
pin=$(sha256sum sealed/SEAL.json | cut -c1-64)

step "verify the tree and the archive against the pinned seal"
show "$seal" verify --seal sealed/SEAL.json --seal-sha256 "$pin" campaign
show "$seal" verify --seal sealed/SEAL.json --seal-sha256 "$pin" sealed/archive.tar.zst

step "any tar extracts it; the copy verifies, modes included"
mkdir extracted
show tar -C extracted --zstd -xf sealed/archive.tar.zst
show "$seal" verify --seal extracted/SEAL.json --seal-sha256 "$pin" extracted/campaign

step "what a failure looks like: one flipped byte and a chmod in the copy"
printf '\377' | dd of="extracted/campaign/runs/${runs[1]}/sender/journal/1.bin" bs=1 seek=4096 conv=notrunc 2>/dev/null
chmod 644 "extracted/campaign/runs/$first/sender/journal/1.bin"
set +e
show "$seal" verify --seal sealed/SEAL.json extracted/campaign
status=$?
set -e
echo "(exit status $status: 1 means a check failed, and the findings name each member)"
[ "$status" -eq 1 ]

warmups=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["warmups"])' plan.json)
measured=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["measured"])' plan.json)
pairs=()
for run in "${runs[@]}"; do
	pairs+=(--sender "runs/$run/sender/journal" --receiver "runs/$run/peer/journal")
done
step "audit: every FIX message both endpoints of every run persisted, recomputed cold, the copies held together"
(cd campaign && show "$audit" journal --warmups "$warmups" --measured "$measured" --receipt ../audit-tree.json "${pairs[@]}")
step "audit the same journals streamed from the sealed archive, every member checked against the seal"
show "$audit" journal --warmups "$warmups" --measured "$measured" --archive sealed/archive.tar.zst \
	--seal sealed/SEAL.json --receipt audit-archive.json "${pairs[@]}"

step "audit campaign: every run's statistics recomputed from its raw series and held against what the pair printed, summed up per cell as the median of its runs"
judged=(--log evidence-log --trust lab.pub "${status_tsa[@]}")
show "$audit" campaign --seal sealed/SEAL.json --seal-sha256 "$pin" "${judged[@]}" campaign -o summary
if command -v chromium >/dev/null; then
	echo "(the HTML report, as headless Chromium renders it: summary/report.png)"
	chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/.chromium" --hide-scrollbars \
		--window-size=1280,4000 --screenshot="$work/summary/report.png" "file://$work/summary/report.html" >/dev/null 2>&1 ||
		echo "(chromium could not render it)"
	rm -rf "$work/.chromium"
fi
echo "(one run in detail: each statistic the pair printed, recomputed with its rule)"
show "$audit" series --native "campaign/runs/$first/sender/report.json" --journal "campaign/runs/$first/sender/journal" \
	--warmups "$warmups" --receipt "audit-series-$first.json" "campaign/runs/$first/sender/series/send.bin"

step "audit compare: the two arms, cell by cell and run for run (medians, ratio, difference, a bootstrap interval over runs)"
show "$audit" compare --arm baseline --arm dma0 summary -o compare-arms

step "the plan's second session against its first, as registered: what run-to-run noise looks like"
"$audit" campaign "${judged[@]}" campaign-again -o summary-again >/dev/null
show "$audit" compare summary summary-again -o compare-campaigns

step "replicate: copy seal and archive to two replicas, verify each there and here, compare"
mkdir receipts
show "$replicate" push sealed/archive.tar.zst --seal sealed/SEAL.json --receipt-dir receipts \
	--to replicas/lab2 --to replicas/backup
show "$replicate" compare receipts/replica-*.json

step "a replica tampered with: verified there, compared here, the member is named"
zstd -dcq replicas/backup/archive.tar.zst >tampered.tar
python3 - tampered.tar <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"NOKIA.HE")
data[at] = ord("M")          # one order's symbol, in the first journal
open(sys.argv[1], "wb").write(data)
PY
rm replicas/backup/archive.tar.zst && zstd -q tampered.tar -o replicas/backup/archive.tar.zst
set +e
show "$replicate" verify --seal replicas/backup/SEAL.json --seal-sha256 "$pin" \
	--archive-sha256 "$(sha256sum sealed/archive.tar.zst | cut -c1-64)" \
	--receipt backup-now.json replicas/backup/archive.tar.zst
show "$replicate" compare receipts/replica-replicas_lab2-*.json backup-now.json
echo "(and audit names the order the changed byte broke, besides the member)"
show "$audit" journal --warmups "$warmups" --measured "$measured" --archive replicas/backup/archive.tar.zst \
	--seal replicas/backup/SEAL.json --receipt audit-backup.json "${pairs[@]}"
status=$?
set -e
[ "$status" -eq 1 ]

step "prune: the runtime copy of the campaign goes only when its guards hold"
set +e
show "$replicate" prune --seal sealed/SEAL.json --receipts receipts/replica-*.json campaign
status=$?
set -e
echo "(exit status $status: every replica here is on this one machine, which is one host, not two)"
[ "$status" -eq 1 ]
show "$replicate" prune --seal sealed/SEAL.json --min-hosts 1 --receipts receipts/replica-*.json \
	--receipt cleanup.json campaign

step "the runtime tree is gone: audit campaign from the sealed archive alone, every member checked in the one pass that reads it"
show "$audit" campaign --seal sealed/SEAL.json --seal-sha256 "$pin" "${judged[@]}" sealed/archive.tar.zst -o summary-archive |
	sed -n '1p;$p'
for f in summary.json summary.md report.html runs.csv; do
	cmp "summary/$f" "summary-archive/$f"
done
echo "(summary.json, summary.md, report.html and runs.csv: byte for byte those of the audit of the tree)"
echo "(and the replica that holds an intact copy audits it where it lives; the receipt and summary come back here)"
show "$replicate" audit --seal sealed/SEAL.json --seal-sha256 "$pin" --receipt-dir receipts replicas/lab2

step "an attestation others verify: the campaign audit's receipt as an in-toto statement in a DSSE envelope"
show "$replicate" attest --sign-key lab.key -o summary-attestation.json summary/receipt.json
show "$replicate" check --trust lab.pub summary-attestation.json
echo "(and the seal and the receipts go into this host's append-only log: an RFC 9162 tree, a signed head, a proof beside each)"
far_receipts=()
for f in receipts/replica-replicas_lab2-*.json receipts/audit-replicas_lab2-*.json; do
	case $f in *.summary.json) ;; *) far_receipts+=("$f") ;; esac
done
show "$replicate" log --log evidence-log --sign-key lab.key append sealed/SEAL.json \
	sealed/receipt.json summary/receipt.json "${far_receipts[@]}"
show "$replicate" log --log evidence-log --trust lab.pub verify

step "a trusted time for the seal from the same test time-stamp authority, its reply verified before it is kept"
if [ "${#tsa[@]}" -gt 0 ]; then
	show "$seal" timestamp "${tsa[@]}" sealed/SEAL.json
	stop_servers
else
	echo "(python3-cryptography is not installed: the test TSA cannot be made; skipped)"
fi

step "for a reviewer outside the lab: two more replicas witness the log, and the lab signs what acceptable means"
# Two more hosts (lab2, lab3; here directories reached through a stand-in
# for ssh) keep a verified copy and witness the log: each with its own key,
# trusting the lab's log key, cosigns the checkpoint it was shown.
cat >demo-ssh <<'SH'
#!/bin/sh
# stands in for ssh: drops the options and the host, runs the command here
while [ $# -gt 0 ]; do case "$1" in -o | -F) shift 2 ;; -*) shift ;; *) break ;; esac; done
shift
exec sh -c "$*"
SH
chmod +x demo-ssh
for host in lab2 lab3; do
	"$replicate" keygen -o "$host-witness" >/dev/null
	printf 'sign-key = %s\ntrust = %s\n' "$work/$host-witness.key" "$work/lab.pub" >"$host.conf"
	printf '#!/bin/sh\nexport EVIDENCE_CONFIG=%s\n[ "$1" = keep-head ] && { shift; exec %s keep-head --name %s "$@"; }\nexec %s "$@"\n' \
		"$work/$host.conf" "$replicate" "$host.example/witness" "$replicate" >"far-$host"
	chmod +x "far-$host"
	show "$replicate" push sealed/archive.tar.zst --seal sealed/SEAL.json --receipt-dir receipts --log evidence-log \
		--ssh "$work/demo-ssh" --remote-replicate "$work/far-$host" --to "$host:$work/far/$host"
done
# The lab's policy: who may sign what, the TSA's CA, how many hosts must
# hold and audit a copy (1 here: this machine is one host), which witnesses
# make a quorum; signed with the lab's policy key, which reviewers trust.
"$replicate" keygen -o policy >/dev/null
python3 - "${status_tsa[1]:-}" >policy-draft.json <<'PY'
import json, sys
ca = open(sys.argv[1]).read() if sys.argv[1] else None
print(json.dumps({
    "format": "evidence-acceptance/1", "name": "demo-lab", "version": 1, "expires": "2099-12-31T00:00:00Z",
    "keys": {}, "signers": {"seal": ["lab"], "replica": ["lab"], "audit": ["lab"]},
    "timestamp": {"tsa_ca": ca} if ca else None,
    "replicas": 1, "audits": 1,
    "checkpoints": {"origin": "demo.example/log", "log_key": "lab",
                    "witnesses": ["lab2.example/witness", "lab3.example/witness"], "quorum": 2},
    "grade": "any", "reference": None}, indent=1))
PY
show "$replicate" sign-policy --sign-key policy.key --key lab=lab.pub --key lab2.example/witness=lab2-witness.pub \
	--key lab3.example/witness=lab3-witness.pub -o policy.json policy-draft.json
step "replicate status: what is where, from the receipts alone"
show "$replicate" status "${status_tsa[@]}" .

step "the catalog: every seal, receipt and summary here indexed (SQLite), status from it, and the plan's history"
show "$replicate" index --catalog catalog.sqlite .
"$replicate" status "${status_tsa[@]}" "$work" >status-walk.txt
"$replicate" status "${status_tsa[@]}" --catalog catalog.sqlite "$work" >status-catalog.txt
cmp status-walk.txt status-catalog.txt
echo "(replicate status --catalog: the file walk's inventory, line for line, without reading a receipt)"
show "$audit" history --catalog catalog.sqlite --plan demo --html history.html

step "the verdict: replicate accept judges the whole campaign by the lab's policy, and writes it for reviewers"
show "$replicate" accept --policy policy.json --trust policy.pub --bundle campaign.intoto.jsonl .
echo "(the verdict and every document it read, in one file a reviewer takes away: campaign.intoto.jsonl, JSON Lines of"
echo " DSSE envelopes; accept judges that file alone as it judged this directory)"
show "$replicate" accept --policy policy.json --trust policy.pub campaign.intoto.jsonl | tail -n 1

step "summary"
python3 - sealed <<'PY'
import glob, json, sys
d = sys.argv[1]
r = json.load(open(d + "/receipt.json"))
t = r["facts"]["totals"]
print("sealed %s: %d files, %d dirs, %d bytes; result %s" % (r["facts"]["root"], t["files"], t["dirs"], t["bytes"], r["result"]))
for o in r["outputs"]:
    print("  %-16s %s" % (o["name"], o["sha256"]))
print("receipt comparable digest: " + r["comparable"])
for path in sorted(p for p in glob.glob("receipts/replica-*.json") if not p.endswith(".inclusion.json")):
    q = json.load(open(path))
    print("replica receipt %-52s %s on %s, comparable %s" % (path, q["result"], q["host"], q["comparable"][:16]))
s = json.load(open("summary/receipt.json"))
print("audit campaign: %s, %d runs; summary/summary.md, summary/report.html; comparable %s" % (
    s["result"], s["facts"]["runs"], s["comparable"][:16]))
print("registration: " + s["facts"]["registration"]["line"])
x = json.load(open("summary-archive/receipt.json"))
print("audit campaign from the archive: %s; the same checks and facts as from the tree: %s" % (
    x["result"], x["checks"] == s["checks"] and x["facts"] == s["facts"]))
judged_here = ("registered", "registered before the first run", "published as registered", "receipt log holds",
               "sessions accounted for")
def but_registration(receipt):  # what a replica without this host's log computes alike
    facts = {k: v for k, v in receipt["facts"].items() if k not in ("registration", "coverage")}
    return [c for c in receipt["checks"] if c["name"] not in judged_here], facts
for path in sorted(p for p in glob.glob("receipts/audit-*.json") if not p.endswith((".summary.json", ".inclusion.json"))):
    q = json.load(open(path))
    print("replica audit %s: %s on %s, the checks and facts of the audit of the archive here, but the registration "
          "(only this host's log judges it; there: %s): %s" % (path, q["result"], q["host"],
          q["facts"]["registration"]["state"], but_registration(q) == but_registration(x)))
g = s["facts"]["grade"]
print("grade: %s by the rules %s version %d (%s): %s" % (g["grade"], g["rules"]["name"], g["rules"]["version"],
      g["rules"]["from"], ", ".join("%s %s" % (c["condition"], c["verdict"]) for c in g["conditions"]
                                    if c["verdict"] in ("fail", "unknown")) or "every condition met"))
for name in ("audit-tree.json", "audit-archive.json", "audit-backup.json"):
    a = json.load(open(name))
    sides = [s for p in a["facts"]["pairs"] for s in p.values()]
    found = sum(sum(s["findings_by_rule"].values()) for s in sides)
    print("audit %-18s %s: %d sides, %d orders (expected %d), %d rule findings, comparable %s" % (
        name, a["result"], len(sides), sum(s["orders"] for s in sides),
        sum(s["expected_orders"] for s in sides), found, a["comparable"][:16]))
c = json.load(open("cleanup.json"))
print("cleanup: %s, %d members removed" % (c["result"], len(c["facts"]["removed"])))
PY
capture_receipt=$(tar --zstd -tf sealed/archive.tar.zst | awk '/^campaign\/receipt-capture/ && !seen++')
tar --zstd -xOf sealed/archive.tar.zst "$capture_receipt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
runs = r["facts"]["runs"]
print("capture: %s, %d runs (%s), degraded: %s" % (r["result"], len(runs),
      ", ".join("%s %s" % (x["name"], x["result"]) for x in runs), "; ".join(r["facts"]["degraded"]) or "nothing"))
for a in r["facts"]["arms"]:
    if "cpu_dma_latency" in a:
        print("  arm %s: cpu_dma_latency %s" % (a["name"], a["cpu_dma_latency"]))'
echo
echo "the campaign summary table: $work/summary/summary.md"
echo "the HTML report:            $work/summary/report.html (its screenshot: summary/report.png)"
echo "HdrHistogram and CSV:       $work/summary/run-*.hgrm, cell-*.hgrm, runs.csv"
echo "the two arms compared:      $work/compare-arms/comparison.md"
echo "the plan's history:         $work/history.html (from the catalog, $work/catalog.sqlite)"
echo "the verdict, for reviewers:  $work/campaign.intoto.jsonl (replicate accept --policy policy.json --trust policy.pub)"
echo "demo: done; outputs are in $work"
