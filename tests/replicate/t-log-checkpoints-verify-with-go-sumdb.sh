#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The receipt log's proofs travel: each signed append also writes its tree
# head as a C2SP checkpoint (heads/checkpoint-SIZE) and each file's proof
# as a C2SP tlog-proof, and a verifier built here from Go's own
# golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's
# golang-golang-x-mod-dev, offline; tests/replicate/c2sp-verify.go, none
# of our code) accepts every checkpoint and tlog-proof of a log appended
# to 300 times, the log's consistency proofs, and every root, inclusion
# path and consistency proof of sizes 1 to 300 (tests/lib/merkle-dump,
# the code the log uses); it refuses an edited root, size, origin,
# signature and proof hash, as replicate log verify does on its own. The
# origin is recorded once and refused when another is given; vkey's
# refusals are named.
. "$EV_SRCDIR/tests/lib/lib.sh"

require_go_sumdb

# go_verify ARGS...: the Go verifier (built by the setup).
go_verify () {
	./c2sp-verify "$@"
}

test_expect_success 'setup: the Go verifier built offline from Debian'"'"'s x/mod, keys, 300 receipts to log' '
	build_c2sp_verify &&
	"$REPLICATE" keygen -o lab >/dev/null && "$REPLICATE" keygen -o stranger >/dev/null &&
	mkdir -p t/c && echo run >t/c/run.log && "$SEAL" create t/c -o s >/dev/null &&
	/usr/bin/python3 - <<-\PY
	import json, os
	base = json.loads(open("s/receipt.json", "rb").read())
	for i in range(1, 301):
	    base["facts"]["archive_bytes"] = 100000 + i   # 300 receipts, 300 different SHA-256s
	    os.makedirs("r%03d" % i)
	    open("r%03d/receipt.json" % i, "w").write(
	        json.dumps(base, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
	PY
'

test_expect_success 'sizes 1 to 300: each signed append writes a checkpoint and a tlog-proof; verify judges all' '
	"$REPLICATE" log --log L --origin lab.example/evidence-log --sign-key lab.key append r001/receipt.json >out &&
	grep -q "^.*/r001/receipt.json: entry 0; inclusion proof .*/r001/receipt.json.inclusion.json, tlog-proof .*/r001/receipt.json.tlog-proof$" out &&
	grep -q "^log L: 1 entries, root [0-9a-f]\\{64\\}; tree head L/heads/head-0000000001.json, checkpoint L/heads/checkpoint-0000000001$" out &&
	# the leak check at exit costs a sanitized process a third of its time;
	# the first append and every other command here keep it
	i=2 && while [ $i -le 300 ]; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$REPLICATE" log --log L --sign-key lab.key append r$(printf %03d $i)/receipt.json >/dev/null || return 1
		i=$((i + 1))
	done &&
	echo lab.example/evidence-log >want && test_cmp want L/origin &&
	"$REPLICATE" log --log L --trust lab.pub verify >out &&
	grep -q "^OK: log L: 300 entries, 300 tree heads, 300 checkpoints, 0 cosignatures, root [0-9a-f]\\{64\\}$" out
'

test_expect_success 'a checkpoint is the C2SP form: origin, size, base64 root, a blank line, one em-dash signature line' '
	/usr/bin/python3 - <<-\PY
	import base64, json, re
	head = json.load(open("L/heads/head-0000000007.json"))
	lines = open("L/heads/checkpoint-0000000007", encoding="utf-8").read().split("\n")
	root = base64.b64encode(bytes.fromhex(head["root_sha256"])).decode()
	assert lines[:4] == ["lab.example/evidence-log", "7", root, ""], lines
	assert re.fullmatch("\u2014 lab.example/evidence-log [A-Za-z0-9+/]{91}=", lines[4]) and lines[5:] == [""], lines
	PY
'

test_expect_success 'vkey: the key in note.NewVerifier'"'"'s form, its ID as signed-note derives it' '
	"$REPLICATE" log --log L vkey lab.pub >vkey &&
	/usr/bin/python3 - <<-\PY
	import base64, hashlib, subprocess
	name, kid, key = open("vkey").read().rstrip("\n").split("+", 2)
	raw = base64.b64decode(key)
	pem = subprocess.run(["openssl", "pkey", "-pubin", "-in", "lab.pub", "-outform", "DER"], capture_output=True,
	                     check=True).stdout
	assert name == "lab.example/evidence-log" and raw == b"\x01" + pem[-32:], (name, raw)
	assert kid == hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4].hex(), kid
	PY
'

test_expect_success 'Go accepts all 300 checkpoints and every file'"'"'s tlog-proof against its line' '
	go_verify checkpoint "$(cat vkey)" L/heads/checkpoint-* >out &&
	test "$(grep -c "^ok: " out)" = 300 &&
	go_verify inclusion "$(cat vkey)" L/entries.jsonl r*/receipt.json.tlog-proof >out &&
	test "$(grep -c "^ok: " out)" = 300
'

test_expect_success 'Go'"'"'s tlog agrees on every root, inclusion path and consistency proof of sizes 1 to 300' '
	"$EV_BUILDDIR/tests/lib/merkle-dump" 300 >dump &&
	go_verify dump dump >agree &&
	echo "300 roots, 45150 inclusion paths, 45150 consistency proofs agree" >want && test_cmp want agree &&
	sed "5s/^\(incl 2 0 \)3/\14/" dump >dump.edited && ! cmp -s dump dump.edited &&
	test_expect_code 1 go_verify dump dump.edited 2>err >/dev/null &&
	grep -q "^dump.edited: incl 2 0 4[0-9a-f]*: invalid transparency proof$" err
'

test_expect_success 'Go accepts the log'"'"'s consistency proofs, between checkpoints across every power of two and neighbours' '
	set -- &&
	for pair in 1:300 2:300 3:300 4:300 5:300 7:300 8:300 9:300 15:300 16:300 17:300 31:300 32:300 33:300 \
		63:300 64:300 65:300 100:300 127:300 128:300 129:300 200:300 255:300 256:300 257:300 299:300 300:300 \
		1:2 63:64 64:65 127:129 255:256 256:257 100:200; do
		old=$(printf %010d ${pair%:*}) && new=$(printf %010d ${pair#*:}) &&
		"$REPLICATE" log --log L --json consistency L/heads/head-$old.json L/heads/head-$new.json >c-$old-$new.json &&
		set -- "$@" L/heads/checkpoint-$old L/heads/checkpoint-$new c-$old-$new.json || return 1
	done &&
	go_verify consistency "$(cat vkey)" "$@" >out &&
	test "$(grep -c "^ok: " out)" = 34
'

# edited NAME LINE: checkpoint 7 with one character of line LINE (1-based)
# changed, as NAME: for line 5, the signature, one near its end (past the
# key ID, so that the key is still known and its signature fails).
edited () {
	/usr/bin/python3 - "$1" "$2" <<-\PY
	import sys
	lines = open("L/heads/checkpoint-0000000007", encoding="utf-8").read().split("\n")
	n = int(sys.argv[2]) - 1
	at = {0: 0, 1: 0, 2: 0, 4: len(lines[4]) - 8}[n]
	c = lines[n][at]
	lines[n] = lines[n][:at] + {"7": "8", "l": "m"}.get(c, "B" if c != "B" else "C") + lines[n][at + 1:]
	open(sys.argv[1], "w", encoding="utf-8").write("\n".join(lines))
	PY
	! cmp -s "$1" L/heads/checkpoint-0000000007
}

test_expect_success 'Go refuses an edited root, size, origin and signature' '
	edited root 3 && edited size 2 && edited origin 1 && edited signature 5 &&
	for f in root size origin signature; do
		test_expect_code 1 go_verify checkpoint "$(cat vkey)" $f 2>err >/dev/null &&
		grep -q "^$f: invalid signature for key lab.example/evidence-log+[0-9a-f]\\{8\\}$" err || { cat err; return 1; }
	done &&
	"$REPLICATE" log --log L vkey stranger.pub >stranger.vkey &&
	test_expect_code 1 go_verify checkpoint "$(cat stranger.vkey)" L/heads/checkpoint-0000000007 2>err >/dev/null &&
	grep -q "verifiable signatures" err
'

test_expect_success 'Go refuses a tlog-proof whose path or index was edited, and a consistency proof edited' '
	p=r100/receipt.json.tlog-proof &&
	h=$(sed -n 3p $p) &&
	sed "3s|.*|$(printf %s "$h" | tr A-Za-z B-ZAb-za)|" $p >edited.tlog-proof &&
	test_expect_code 1 go_verify inclusion "$(cat vkey)" L/entries.jsonl edited.tlog-proof 2>err >/dev/null &&
	grep -q "^edited.tlog-proof: entry 99 in the tree of size 100: " err &&
	sed "2s/^index 99$/index 98/" $p >moved.tlog-proof &&
	test_expect_code 1 go_verify inclusion "$(cat vkey)" L/entries.jsonl moved.tlog-proof 2>err >/dev/null &&
	grep -q "^moved.tlog-proof: entry 98 in the tree of size 100: " err &&
	"$REPLICATE" log --log L --json consistency L/heads/head-0000000100.json L/heads/head-0000000300.json >c.json &&
	/usr/bin/python3 -c "import json; d = json.load(open(\"c.json\")); h = d[\"proof\"][0]
d[\"proof\"][0] = (\"1\" if h[0] == \"0\" else \"0\") + h[1:]; json.dump(d, open(\"bad.json\", \"w\"))" &&
	! cmp -s c.json bad.json &&
	test_expect_code 1 go_verify consistency "$(cat vkey)" L/heads/checkpoint-0000000100 L/heads/checkpoint-0000000300 bad.json 2>err >/dev/null &&
	grep -q "^bad.json: " err
'

test_expect_success 'replicate log verify names the same edits on its own, and a checkpoint not signed by a trusted key' '
	cp -R L Lx && cp root Lx/heads/checkpoint-0000000007 &&
	test_expect_code 1 "$REPLICATE" log --log Lx --trust lab.pub verify 2>err >out &&
	grep -q "^replicate: tree size 7: checkpoint: Lx/heads/checkpoint-0000000007: line 5: the signature by lab.example/evidence-log (key ID [0-9a-f]\\{8\\}, trusted key [0-9a-f]\\{16\\}...) does not verify: the note was changed after it was signed$" err &&
	grep -q "^FAIL: log Lx: 300 entries, 300 tree heads, 299 checkpoints" out &&
	cp size Lx/heads/checkpoint-0000000007 &&
	test_expect_code 1 "$REPLICATE" log --log Lx verify 2>err >/dev/null &&
	grep -q "^replicate: tree size 7: checkpoint: Lx/heads/checkpoint-0000000007: says size 8, root [0-9a-f]\\{64\\}; its tree head Lx/heads/head-0000000007.json says size 7, root [0-9a-f]\\{64\\}$" err &&
	cp origin Lx/heads/checkpoint-0000000007 &&
	test_expect_code 1 "$REPLICATE" log --log Lx verify 2>err >/dev/null &&
	grep -q "^replicate: tree size 7: checkpoint: Lx/heads/checkpoint-0000000007: names the log mab.example/evidence-log; this log is lab.example/evidence-log (its file origin)$" err &&
	cp L/heads/checkpoint-0000000007 Lx/heads/ &&
	"$REPLICATE" log --log Lx --trust lab.pub verify >/dev/null &&
	test_expect_code 1 "$REPLICATE" log --log Lx --trust stranger.pub verify 2>err >/dev/null &&
	grep -q "^replicate: tree size 7: checkpoint: Lx/heads/checkpoint-0000000007: not signed by a trusted key named lab.example/evidence-log (its origin): 1 signature line, none by a key given with --trust$" err &&
	cp r100/receipt.json.tlog-proof r100/saved && cp edited.tlog-proof r100/receipt.json.tlog-proof &&
	test_expect_code 1 "$REPLICATE" log --log L verify 2>err >/dev/null &&
	cp r100/saved r100/receipt.json.tlog-proof &&
	grep -q "^replicate: entry 99: tlog-proof: .*/r100/receipt.json.tlog-proof: does not prove this line at index 99 in its checkpoint'"'"'s tree of size 100: the entry or the proof was edited$" err &&
	"$REPLICATE" log --log L --trust lab.pub verify >/dev/null
'

test_expect_success 'the origin is recorded once: another --origin, or one that cannot be a note name, appends nothing' '
	mkdir -p x && cp s/receipt.json x/r.json &&
	cp L/entries.jsonl entries.before &&
	test_expect_code 2 "$REPLICATE" log --log L --origin other.example/log --sign-key lab.key append x/r.json 2>err &&
	grep -q "^replicate: L: this log'"'"'s origin is lab.example/evidence-log (recorded in its file origin by its first append); --origin other.example/log names another log: nothing appended$" err &&
	test_cmp entries.before L/entries.jsonl &&
	test_expect_code 2 "$REPLICATE" log --log M --origin "lab log" --sign-key lab.key append x/r.json 2>err &&
	grep -q "^replicate: M: .lab log. cannot be the log.s origin, its name in every checkpoint (printable ASCII without space or .+., at most 255 bytes); nothing appended$" err &&
	test_must_be_absent M/entries.jsonl M/origin
'

test_expect_success 'without --origin, the first append records this host and the log'"'"'s absolute path' '
	"$REPLICATE" log --log D append x/r.json >/dev/null &&
	echo "$(hostname)$(cd D && pwd -P)" >want && test_cmp want D/origin &&
	test_must_be_absent D/heads/checkpoint-0000000001 x/r.json.tlog-proof
'

test_expect_success 'vkey refuses: no origin yet, a file with two keys, not a key' '
	test_expect_code 2 "$REPLICATE" log --log nolog vkey lab.pub 2>err &&
	grep -q "^replicate: nolog: no origin recorded yet (no append made this log); give --origin NAME$" err &&
	"$REPLICATE" log --log nolog --origin a.example/x vkey lab.pub | grep -q "^a.example/x+[0-9a-f]\\{8\\}+A[Q-Za-f][A-Za-z0-9+/]\\{42\\}$" &&
	cat lab.pub stranger.pub >two.pub &&
	test_expect_code 2 "$REPLICATE" log --log L vkey two.pub 2>err &&
	grep -q "^replicate: two.pub: holds 2 public keys; give a file with the one meant$" err &&
	test_expect_code 2 "$REPLICATE" log --log L vkey 2>err && grep -q "vkey: give the log.s public key" err
'

test_done
