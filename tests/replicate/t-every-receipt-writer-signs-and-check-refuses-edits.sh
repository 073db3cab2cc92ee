#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --sign-key on every command that writes a receipt: seal create and
# verify, audit journal, series, campaign and compare, capture run and
# replicate prune sign with one format, and replicate check holds any
# receipt against a trust list: each signed one passes; each one edited
# after it was written, one signed by another key, and an unsigned one
# are refused and named. A key others may read stops the command before
# it writes anything.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

test_expect_success 'setup: two keys, a campaign captured with a signed receipt' '
	"$REPLICATE" keygen -o k >/dev/null && "$REPLICATE" keygen -o other >/dev/null &&
	probe_install &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "signed", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A", "peer": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 0, "outputs": {"p": "p/peer"}},
	  "sender": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 1, "outputs": {"p": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run --sign-key k.key pinned.json -o c >/dev/null &&
	mkdir signed && cp c/receipt-capture.json signed/capture.json
'

test_expect_success 'every writer signs: seal, verify, audit journal, series, campaign, compare, prune' '
	make_campaign t &&
	"$SEAL" create --sign-key k.key t -o sealed >/dev/null && cp sealed/receipt.json signed/seal.json &&
	"$SEAL" verify --sign-key k.key --seal sealed/SEAL.json --receipt signed/verify.json sealed/archive.tar.zst >/dev/null &&
	(cd t && "$AUDIT" journal --sign-key ../k.key --sender runs/A-1/journal --receipt ../signed/journal.json >/dev/null 2>&1;
	 test -s ../signed/journal.json) &&
	python3 - <<-\PY &&
	import json, os, struct
	def series(path, values):
	    head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	    head += struct.pack("<QQQQ", 10**9, 0, len(values), 0)
	    open(path, "wb").write(head + b"".join(struct.pack("<Q", v) for v in values))
	os.makedirs("k/runs")
	json.dump({"format": "evidence-plan/1", "name": "k", "cells": [{"name": "A"}]}, open("k/plan.json", "w"))
	for i, (arm, v) in enumerate([("x", 10), ("x", 12), ("y", 20), ("y", 22)], 1):
	    d = "k/runs/%03d-%s-A-%d" % (i, arm, i)
	    os.makedirs(d + "/series")
	    series(d + "/series/send.bin", [v] * 20)
	    json.dump({"format": "evidence-run/1", "name": os.path.basename(d), "arm": arm, "cell": "A", "repeat": i,
	               "result": "ok", "counts": {"warmups": 0, "measured": 20},
	               "processes": [{"role": "peer"}, {"role": "sender", "outputs": {"series": "series/send.bin"}}]},
	              open(d + "/run.json", "w"))
	PY
	"$AUDIT" series --sign-key k.key --receipt signed/series.json k/runs/001-x-A-1/series/send.bin >/dev/null &&
	"$AUDIT" campaign --sign-key k.key k -o ks >/dev/null && cp ks/receipt.json signed/campaign.json &&
	"$AUDIT" compare --unregistered --sign-key k.key --arm x --arm y ks -o kc >/dev/null && cp kc/receipt.json signed/compare.json &&
	as_host h1 "$REPLICATE" verify --sign-key k.key --seal sealed/SEAL.json --receipt r1.json sealed/archive.tar.zst >/dev/null &&
	as_host h2 "$REPLICATE" verify --sign-key k.key --seal sealed/SEAL.json --receipt r2.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" prune --sign-key k.key --seal sealed/SEAL.json --receipts r1.json r2.json --receipt signed/cleanup.json t >/dev/null &&
	test_must_be_absent t &&
	for f in signed/*.json; do
		test "$(json_words $f "d[\"signature\"][\"algorithm\"]")" = ed25519 || { echo "$f unsigned"; return 1; }
	done &&
	test "$(ls signed | wc -l)" = 8 &&
	"$REPLICATE" check --trust k.pub signed/*.json r1.json >out &&
	grep -q "^OK: 9 of 9 receipts intact and signed by a trusted key$" out &&
	grep -q "^signed/capture.json: capture receipt from .* (pass), intact, signed by trusted key" out &&
	grep -q "^signed/cleanup.json: cleanup receipt from .* (pass), intact, signed by trusted key" out
'

test_expect_success 'each receipt edited after it was signed is refused, and named' '
	mkdir edited &&
	for f in signed/*.json; do
		python3 - "$f" "edited/${f#signed/}" <<-\PY || return 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		d["facts"]["edited"] = True
		open(sys.argv[2], "w").write(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
		PY
		test_expect_code 1 "$REPLICATE" check --trust k.pub "edited/${f#signed/}" >out 2>err || return 1
		grep -q "^replicate: edited/${f#signed/}: its comparable digest does not match its content" err || return 1
		grep -q "^FAIL: 0 of 1 receipts" out || return 1
	done
'

test_expect_success 'signed by a key not trusted, or not signed: refused' '
	"$SEAL" verify --sign-key other.key --seal sealed/SEAL.json --receipt by-other.json sealed/archive.tar.zst >/dev/null &&
	"$SEAL" verify --seal sealed/SEAL.json --receipt unsigned.json sealed/archive.tar.zst >/dev/null &&
	test_expect_code 1 "$REPLICATE" check --trust k.pub by-other.json unsigned.json signed/seal.json >out 2>err &&
	grep -q "^replicate: by-other.json: is signed by a key that is not trusted (key_sha256 [0-9a-f]*)$" err &&
	grep -q "^replicate: unsigned.json: is not signed$" err &&
	grep -q "^FAIL: 1 of 3 receipts" out &&
	"$REPLICATE" check --trust k.pub --trust other.pub by-other.json >/dev/null
'

test_expect_success 'a key others may read stops the command before it writes anything' '
	cp k.key loose.key && chmod 644 loose.key &&
	make_campaign t2 &&
	test_expect_code 2 "$SEAL" create --sign-key loose.key t2 -o s2 2>err &&
	grep -q "loose.key" err && test_must_be_absent s2 &&
	test_expect_code 2 "$AUDIT" series --sign-key loose.key --receipt r.json k/runs/001-x-A-1/series/send.bin 2>err &&
	test_must_be_absent r.json &&
	test_expect_code 2 "$REPLICATE" check k.pub 2>err && grep -q "no trust list given" err
'

test_done
