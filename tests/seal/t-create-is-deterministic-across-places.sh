#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The same content sealed from two places, with different mtimes, owners,
# directory order and thread counts, gives byte-identical SEAL.json and
# archive; the receipts agree on their comparable part.
. "$EV_SRCDIR/tests/lib/lib.sh"

comparable () {
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"comparable\"])" "$1"
}

test_expect_success 'setup: one campaign, and a copy made in reverse order elsewhere' '
	make_campaign here/campaign &&
	mkdir -p elsewhere/deep/campaign &&
	(cd here/campaign && find . -mindepth 1 -type d | sort -r) | while read -r d; do
		mkdir -p "elsewhere/deep/campaign/$d" || return 1
	done &&
	(cd here/campaign && find . -type f | sort -r) | while read -r f; do
		cp "here/campaign/$f" "elsewhere/deep/campaign/$f" || return 1
	done &&
	(cd here/campaign && find . -mindepth 1) | while read -r p; do
		chmod "$(stat -c %a "here/campaign/$p")" "elsewhere/deep/campaign/$p" || return 1
	done &&
	find elsewhere -exec touch -h -d "2019-03-04 05:06:07" {} + &&
	if [ "$(id -u)" = 0 ]; then chown -R nobody:nogroup elsewhere; fi
'

test_expect_success 'zstd: identical SEAL.json and archive bytes, 2 threads vs 1' '
	"$SEAL" create --jobs 2 here/campaign -o z1 >/dev/null &&
	"$SEAL" create --threads 1 elsewhere/deep/campaign -o z2 >/dev/null &&
	cmp z1/SEAL.json z2/SEAL.json &&
	cmp z1/archive.tar.zst z2/archive.tar.zst &&
	test "$(comparable z1/receipt.json)" = "$(comparable z2/receipt.json)"
'

test_expect_success 'gzip: identical archive bytes too' '
	"$SEAL" create --gzip here/campaign -o g1 >/dev/null &&
	"$SEAL" create --gzip --threads 1 elsewhere/deep/campaign -o g2 >/dev/null &&
	cmp g1/SEAL.json z1/SEAL.json &&
	cmp g1/archive.tar.gz g2/archive.tar.gz
'

test_expect_success 'a different root name or one changed byte changes the seal' '
	"$SEAL" create --name other here/campaign -o n1 >/dev/null &&
	! cmp -s n1/SEAL.json z1/SEAL.json &&
	printf x >> elsewhere/deep/campaign/runs/B-1/empty.log &&
	"$SEAL" create elsewhere/deep/campaign -o z3 >/dev/null &&
	! cmp -s z3/SEAL.json z1/SEAL.json && ! cmp -s z3/archive.tar.zst z1/archive.tar.zst
'

test_expect_success 'the receipt names both outputs by their SHA-256' '
	python3 - z1 <<-\PY
	import hashlib, json, sys
	d = sys.argv[1]
	r = json.load(open(d + "/receipt.json"))
	outs = {o["name"]: o["sha256"] for o in r["outputs"]}
	for name in ("SEAL.json", "archive.tar.zst"):
	    assert outs[name] == hashlib.sha256(open(d + "/" + name, "rb").read()).hexdigest(), name
	assert r["facts"]["totals"] == json.load(open(d + "/SEAL.json"))["totals"]
	PY
'

test_done
