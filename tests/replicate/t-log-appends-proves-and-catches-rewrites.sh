#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate log: an append-only log of receipts and seals as RFC 9162
# builds a transparency log. Every root, inclusion path and consistency
# proof for every tree size from 1 to 300 is the one an independent
# implementation of RFC 9162 §2.1 (tests/replicate/rfc9162.py) computes,
# and verifies there. A log appends, signs its tree heads, writes each
# file's inclusion proof beside it (checked here independently), and
# verify recomputes it; an entry removed, reordered or edited is named
# with the tree size it breaks, and nothing more is appended to it; an
# unsigned or foreign head is named; two hosts whose logs diverge are
# caught by the consistency proof. push --log gives each destination this
# host's latest tree head (replicate keep-head there), kept only when it
# extends the one kept before: a history rewritten since the last push
# is caught by the next, by the pusher and by the far end on its own.
. "$EV_SRCDIR/tests/lib/lib.sh"

RFC="$EV_SRCDIR/tests/replicate/rfc9162.py"

test_expect_success 'every root, inclusion path and consistency proof of sizes 1 to 300 is RFC 9162'"'"'s, and verifies' '
	"$EV_BUILDDIR/tests/lib/merkle-dump" 300 >dump &&
	python3 "$RFC" dump 300 >agree &&
	echo "300 roots, 45150 inclusion paths, 45150 consistency proofs agree" >want && test_cmp want agree
'

test_expect_success 'setup: keys, and five receipts and seals to log' '
	"$REPLICATE" keygen -o lab >/dev/null && "$REPLICATE" keygen -o stranger >/dev/null &&
	for n in 1 2 3; do
		mkdir -p t$n/c && echo "run $n" >t$n/c/run.log && "$SEAL" create t$n/c -o s$n >/dev/null || return 1
	done
'

test_expect_success 'append in two batches: entries, signed heads, an inclusion proof beside each file; verify holds' '
	"$REPLICATE" log --log L --sign-key lab.key append s1/receipt.json s1/SEAL.json >out &&
	grep -q "^.*/s1/receipt.json: entry 0; inclusion proof .*/s1/receipt.json.inclusion.json, tlog-proof .*/s1/receipt.json.tlog-proof$" out &&
	grep -q "^log L: 2 entries, root [0-9a-f]\\{64\\}; tree head L/heads/head-0000000002.json, checkpoint L/heads/checkpoint-0000000002$" out &&
	"$REPLICATE" log --log L --sign-key lab.key append s2/receipt.json s2/SEAL.json s3/receipt.json >out &&
	test -s s3/receipt.json.inclusion.json &&
	"$REPLICATE" log --log L --trust lab.pub verify >out &&
	grep -q "^OK: log L: 5 entries, 2 tree heads, 2 checkpoints, 0 cosignatures, root [0-9a-f]\\{64\\}$" out
'

test_expect_success 'each inclusion proof verifies independently against its line and its signed head' '
	/usr/bin/python3 - "$RFC" <<-\PY
	import hashlib, json, sys
	sha = lambda b: hashlib.sha256(b).digest()
	lines = open("L/entries.jsonl", "rb").read().split(b"\n")[:-1]
	for i, line in enumerate(lines):
	    e = json.loads(line)
	    p = json.load(open(e["file"] + ".inclusion.json"))
	    head = json.load(open(p["log"]))
	    assert p["index"] == i and p["size"] == head["size"] and p["root_sha256"] == head["root_sha256"]
	    r, fn, sn = sha(b"\x00" + line), i, p["size"] - 1
	    assert r.hex() == p["leaf_sha256"]
	    for h in map(bytes.fromhex, p["path"]):   # RFC 9162 2.1.3.2
	        if fn & 1 or fn == sn:
	            r = sha(b"\x01" + h + r)
	            while not fn & 1 and fn:
	                fn >>= 1; sn >>= 1
	        else:
	            r = sha(b"\x01" + r + h)
	        fn >>= 1; sn >>= 1
	    assert sn == 0 and r.hex() == head["root_sha256"], "entry %d" % i
	PY
'

test_expect_success 'the older head is a prefix of the newer: a consistency proof that verifies independently' '
	"$REPLICATE" log --log L consistency L/heads/head-0000000002.json L/heads/head-0000000005.json >out &&
	grep -q "^CONSISTENT: L/heads/head-0000000002.json is a prefix of L/heads/head-0000000005.json" out &&
	"$REPLICATE" log --log L --json consistency L/heads/head-0000000002.json L/heads/head-0000000005.json >proof.json &&
	test "$(json_get proof.json "d[\"consistent\"], d[\"old\"][\"size\"], d[\"new\"][\"size\"]")" = "True 2 5" &&
	/usr/bin/python3 - <<-\PY
	import hashlib, json
	sha = lambda b: hashlib.sha256(b).digest()
	d = json.load(open("proof.json"))
	m, n = d["old"]["size"], d["new"]["size"]
	old, new = bytes.fromhex(d["old"]["root_sha256"]), bytes.fromhex(d["new"]["root_sha256"])
	proof = [bytes.fromhex(h) for h in d["proof"]]
	if m & (m - 1) == 0:                      # RFC 9162 2.1.4.2
	    proof = [old] + proof
	fn, sn = m - 1, n - 1
	while fn & 1:
	    fn >>= 1; sn >>= 1
	fr = sr = proof[0]
	for c in proof[1:]:
	    if fn & 1 or fn == sn:
	        fr, sr = sha(b"\x01" + c + fr), sha(b"\x01" + c + sr)
	        while not fn & 1 and fn:
	            fn >>= 1; sn >>= 1
	    else:
	        sr = sha(b"\x01" + sr + c)
	    fn >>= 1; sn >>= 1
	assert sn == 0 and fr == old and sr == new
	PY
'

# broken NAME PYTHON: a copy of the log L as NAME, its entries (lines, a
# list of bytes) changed by PYTHON.
broken () {
	rm -rf "$1" && cp -r L "$1" && /usr/bin/python3 - "$1" "$2" <<-\PY
	import sys
	path = sys.argv[1] + "/entries.jsonl"
	lines = open(path, "rb").read().split(b"\n")[:-1]
	exec(sys.argv[2])
	open(path, "wb").write(b"".join(l + b"\n" for l in lines))
	PY
}

test_expect_success 'an entry removed: the heads it breaks and the entries it moved are named; nothing is appended' '
	broken Lrm "del lines[2]" &&
	test_expect_code 1 "$REPLICATE" log --log Lrm verify >out 2>err &&
	grep -q "^replicate: tree size 5: entries-removed: Lrm/heads/head-0000000005.json covers 5 entries; the log holds 4: entries were removed$" err &&
	grep -q "^replicate: entry 2: entry-moved: .*/s2/SEAL.json: its inclusion proof .* places it at index 3, the log has it at 2" err &&
	grep -q "^FAIL: log Lrm: 4 entries" out &&
	test_expect_code 2 "$REPLICATE" log --log Lrm append t1/c/run.log 2>err &&
	grep -q "^replicate: Lrm: holds 4 entries, its tree head Lrm/heads/head-0000000005.json covers 5: entries were removed; nothing appended" err &&
	test "$(wc -l <Lrm/entries.jsonl)" = 4
'

test_expect_success 'entries reordered: named, and the tree size whose root no longer holds' '
	broken Lswap "lines[0], lines[1] = lines[1], lines[0]" &&
	test_expect_code 1 "$REPLICATE" log --log Lswap verify >out 2>err &&
	grep -q "^replicate: tree size 2: tree-head: Lswap/heads/head-0000000002.json: the log.s first 2 entries no longer hash to the root it signed" err &&
	grep -q "^replicate: entry 0: entry-moved: .*/s1/SEAL.json: its inclusion proof .* places it at index 1, the log has it at 0" err
'

test_expect_success 'an entry edited: named' '
	broken Ledit "lines[3] = lines[3].replace(b\"\\\"added\\\":\\\"2\", b\"\\\"added\\\":\\\"1\")" &&
	test_expect_code 1 "$REPLICATE" log --log Ledit verify 2>err >/dev/null &&
	grep -q "^replicate: entry 3: entry-edited: .*/s2/SEAL.json: this line is not the one its inclusion proof .* was made for: the entry was edited$" err &&
	grep -q "^replicate: tree size 5: tree-head: " err
'

test_expect_success 'heads signed by no trusted key are named with --trust' '
	echo "{\"format\":\"evidence-plan/1\"}" >plan.json &&
	test_expect_code 2 "$REPLICATE" log --log U append plan.json 2>err &&
	grep -q "^replicate: plan.json: not a receipt, a seal, a registration or a session (format evidence-plan/1): not logged$" err &&
	mkdir -p u && cp s1/receipt.json u/r.json && "$REPLICATE" log --log U append u/r.json >/dev/null &&
	test_expect_code 1 "$REPLICATE" log --log U --trust lab.pub verify 2>err >/dev/null &&
	grep -q "^replicate: tree size 1: signature: U/heads/head-0000000001.json is not signed$" err &&
	mkdir -p v && cp s1/receipt.json v/r.json && "$REPLICATE" log --log V --sign-key stranger.key append v/r.json >/dev/null &&
	test_expect_code 1 "$REPLICATE" log --log V --trust lab.pub verify 2>err >/dev/null &&
	grep -q "^replicate: tree size 1: signature: V/heads/head-0000000001.json is signed by a key that is not trusted" err
'

test_expect_success 'two hosts whose logs diverge: the consistency proof catches the rewritten history' '
	for h in A B; do mkdir -p $h && cp s1/receipt.json $h/r1.json && cp s2/SEAL.json $h/SEAL.json || return 1; done &&
	"$REPLICATE" log --log A/log append A/r1.json >/dev/null &&
	"$REPLICATE" log --log B/log append B/r1.json >/dev/null &&
	sed "s/\"result\":\"pass\"/\"result\":\"fail\"/" s2/receipt.json >B/forged.json &&
	"$REPLICATE" log --log A/log append A/SEAL.json >/dev/null &&
	"$REPLICATE" log --log B/log append B/forged.json >/dev/null &&
	"$REPLICATE" log --log B/log append B/SEAL.json >/dev/null &&
	test_expect_code 1 "$REPLICATE" log --log B/log consistency A/log/heads/head-0000000002.json \
		B/log/heads/head-0000000003.json 2>err >/dev/null &&
	grep -q "^replicate: A/log/heads/head-0000000002.json is not a prefix of this log: its tree of size 2 has root [0-9a-f]*, this log.s first 2 entries hash to [0-9a-f]*: the history it saw was rewritten$" err &&
	"$REPLICATE" log --log B/log consistency B/log/heads/head-0000000001.json B/log/heads/head-0000000003.json >/dev/null &&
	test_expect_code 2 "$REPLICATE" log --log A/log consistency A/log/heads/head-0000000001.json \
		B/log/heads/head-0000000003.json 2>err >/dev/null &&
	grep -q "^replicate: A/log: holds 2 entries; B/log/heads/head-0000000003.json covers 3: not this log.s head$" err
'

test_expect_success 'push --log: each destination keeps this host'"'"'s tree head, and the next one only when it extends it' '
	mkdir rc && "$SEAL" create t1/c -o sp >/dev/null &&
	"$REPLICATE" push sp/archive.tar.zst --seal sp/SEAL.json --receipt-dir rc --to R --log L >out &&
	grep -q "^R: pass; receipt rc/replica-R-.*; tree head head-0000000005 kept there$" out &&
	label=$(ls R/log-heads) && test -s R/log-heads/$label/heads/head-0000000005.json &&
	mkdir -p more && cp s3/SEAL.json more/SEAL.json &&
	"$REPLICATE" log --log L --sign-key lab.key append more/SEAL.json >/dev/null &&
	"$REPLICATE" push sp/archive.tar.zst --seal sp/SEAL.json --receipt-dir rc --to R --log L >out &&
	grep -q "^R: pass; receipt .*; tree head head-0000000006 kept there$" out &&
	ls R/log-heads/$label/heads >kept && printf "%s\n" head-0000000005.json head-0000000006.json >want && test_cmp want kept
'

test_expect_success 'a history rewritten since the last push is caught by the next: the tree size named, nothing kept' '
	mkdir forged && k=0 &&
	for f in s1/receipt.json s2/receipt.json s2/SEAL.json s3/receipt.json more/SEAL.json sp/receipt.json sp/SEAL.json; do
		k=$((k + 1)) && cp $f forged/$k.json || return 1
	done &&
	"$REPLICATE" log --log Lforged --sign-key lab.key append forged/*.json >/dev/null &&
	test_expect_code 1 "$REPLICATE" push sp/archive.tar.zst --seal sp/SEAL.json --receipt-dir rc --to R --log Lforged >out &&
	grep -q "^R: pass; receipt .*; tree head REFUSED: the replica kept this host.s tree head of size 6, root [0-9a-f]\{64\}; this log.s first 6 entries hash to [0-9a-f]\{64\}: the history was rewritten (replicate log verify names the entry)$" out &&
	ls R/log-heads/$(ls R/log-heads)/heads >kept && test_cmp want kept
'

test_expect_success 'the far end refuses on its own a head that does not extend the one it kept' '
	label=$(ls R/log-heads) &&
	printf "%s\n" "{\"head\":{\"format\":\"evidence-tree-head/1\",\"host\":\"x\",\"root_sha256\":\"$(printf "%064d" 7)\",\"size\":9,\"time\":\"t\"},\"proof\":[]}" |
		test_expect_code 1 "$REPLICATE" keep-head R "$label" >answer 2>err &&
	head -n 1 answer | grep -q "^have 6 [0-9a-f]\{64\}$" &&
	grep -q "^refused: the head offered (size 9) does not extend the one kept from $label (size 6, root [0-9a-f]*): its history was rewritten$" answer &&
	ls R/log-heads/$label/heads >kept && test_cmp want kept
'

test_expect_success 'a signal while the new tree head is written: exit 2, no head; verify names the entries no head covers' '
	mkdir -p sig && cp s3/SEAL.json sig/s.json &&
	LATE_DIR=Lsig/heads late_signal head- 2 "$REPLICATE" log --log Lsig append sig/s.json &&
	grep -q "interrupted by a signal" late.err &&
	test_expect_code 1 "$REPLICATE" log --log Lsig verify 2>err >/dev/null &&
	grep -q "^replicate: entries: no-tree-head: entries 0 to 0 are in no tree head" err
'

test_expect_success 'an entry'"'"'s path is a stranger'"'"'s input: a link on the way, or a "..", is named and not followed' '
	mkdir -p lk && cp s1/SEAL.json lk/s.json && "$REPLICATE" log --log Llk append lk/s.json >/dev/null &&
	mv lk lk.real && ln -s lk.real lk &&
	test_expect_code 1 "$REPLICATE" log --log Llk verify 2>err >/dev/null &&
	grep -q "^replicate: entry 0: entry-path: .*/lk/s.json: its path now passes through a link (to .*/lk.real/s.json); its proof is not read$" err &&
	broken Ldots "lines[0] = lines[0].replace(b\"/s1/\", b\"/s1/../s1/\")" &&
	test_expect_code 1 "$REPLICATE" log --log Ldots verify 2>err >/dev/null &&
	grep -q "^replicate: entry 0: entry-path: .*/s1/../s1/receipt.json: not a real absolute path; its proof is not read$" err
'

test_expect_success 'misuse: no log, an unknown action, a FIFO, a file given twice; nothing is appended' '
	test_expect_code 2 "$REPLICATE" log verify 2>err && grep -q "no log given (--log DIR)" err &&
	test_expect_code 2 "$REPLICATE" log --log L rewrite 2>err && grep -q "unknown action .rewrite." err &&
	test_expect_code 2 "$REPLICATE" log --log L verify extra 2>err && grep -q "verify takes no file" err &&
	mkfifo fifo.json && test_expect_code 2 "$REPLICATE" log --log L append fifo.json 2>err && grep -q "fifo.json" err &&
	mkdir w && cp sp/receipt.json w/r.json &&
	test_expect_code 2 "$REPLICATE" log --log L append w/r.json w/r.json 2>err && grep -q "given twice" err &&
	"$REPLICATE" log --log L --trust lab.pub verify | grep -q "^OK: log L: 6 entries"
'

test_done
