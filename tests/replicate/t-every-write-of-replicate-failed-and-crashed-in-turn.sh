#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Faults survived, replicate's writers: verify, receive, push (to a local
# copy), prune, attest, log append, keep-head and index, each with every
# write, sync, rename, mkdir, create and close of its own failing in turn
# (EIO, ENOSPC, EDQUOT), SIGKILL entering each, and its writes cut short
# by a file size limit (tests/lib/fault-sweep.py): a fault exits 1 or 2
# naming the error with nothing new in place; a crash leaves only whole
# files (a receipt's outputs with their digests, a log that verifies, a
# catalog that passes integrity_check); the same command then completes,
# and an index then equals the walk. The table of calls and cases is
# printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "needs strace"

test_expect_success 'setup: a sealed tree, a key, a replica receipt, a log of one entry, what keep-head is sent' '
	mkdir -p tpl/ev/runs && for i in 1 2 3; do seq 1 $((i * 1000)) >tpl/ev/runs/f$i || return 1; done &&
	cd tpl && "$SEAL" create ev -o sealed >/dev/null && "$REPLICATE" keygen -o k >/dev/null &&
	"$REPLICATE" verify --seal sealed/SEAL.json --receipt r1.json sealed/archive.tar.zst >/dev/null &&
	mkdir L0 && "$REPLICATE" log --log L --origin lab.example/log --sign-key k.key append r1.json >/dev/null &&
	mkdir far receipts && cd .. &&
	# a stand-in ssh that runs the far command here, keeping keep-head'"'"'s input
	cat >fakessh <<-EOF &&
	#!/bin/sh
	while [ \$# -gt 0 ]; do case "\$1" in -F|-o) shift 2;; -*) shift;; *) break;; esac; done
	shift
	case "\$*" in *keep-head*) tee "$PWD/keep-head.in" | sh -c "\$*"; exit \$?;; esac
	exec sh -c "\$*"
	EOF
	chmod +x fakessh && cp -a tpl pushed && top=$PWD &&
	(cd pushed && "$REPLICATE" push sealed/archive.tar.zst --seal sealed/SEAL.json --to "h:$top/pushed/far2" \
		--receipt-dir receipts --log L --sign-key k.key --ssh "$top/fakessh" --remote-replicate "$REPLICATE" >/dev/null) &&
	test -s keep-head.in
'

test_expect_success 'replicate verify --receipt: a receipt in place only whole' '
	fault_sweep "replicate verify --receipt" "test ! -e r.json || grep -q \"\\\"result\\\":\\\"pass\\\"\" r.json" \
		--again-refused "r.json: already exists" -- \
		"$REPLICATE" verify --seal sealed/SEAL.json --receipt r.json --sign-key k.key sealed/archive.tar.zst
'

test_expect_success 'replicate receive: a file at its name only whole, with its digest' '
	printf "from 0\n" >recv.in && cat tpl/sealed/archive.tar.zst >>recv.in &&
	sha=$(sha256_of tpl/sealed/archive.tar.zst) && size=$(wc -c <tpl/sealed/archive.tar.zst) &&
	fault_sweep "replicate receive" "test ! -e far/a.tar.zst || test \"\$(sha256sum <far/a.tar.zst | cut -c1-64)\" = $sha" \
		--stdin recv.in --again-refused "already" -- "$REPLICATE" receive far a.tar.zst $size $sha
'

test_expect_success 'replicate push to a local copy: each receipt kept is whole and signed, the others named' '
	fault_sweep "replicate push" "for r in receipts/*.json; do test ! -e \"\$r\" || grep -q \"\\\"result\\\":\\\"pass\\\"\" \"\$r\" || exit 1; done" \
		--mutable far --mutable receipts -- "$REPLICATE" push sealed/archive.tar.zst --seal sealed/SEAL.json --to far \
		--receipt-dir receipts --sign-key k.key
'

test_expect_success 'replicate prune: the tree whole or gone, the receipt only with it gone' '
	fault_sweep "replicate prune" "test ! -e cleanup.json || test ! -e ev" --mutable ev --again-refused "ev" -- \
		"$REPLICATE" prune --seal sealed/SEAL.json --min-hosts 1 --receipts r1.json --receipt cleanup.json \
		--sign-key k.key ev
'

test_expect_success 'replicate attest: an envelope only whole and checking' '
	fault_sweep "replicate attest" "test ! -e env.json || \"$REPLICATE\" check --trust k.pub env.json >/dev/null" \
		--again-refused "env.json: already exists" -- "$REPLICATE" attest --sign-key k.key -o env.json r1.json
'

test_expect_success 'replicate log append: the log verifies or names its unheaded tail, and the same append completes it' '
	fault_sweep "replicate log append" "\"$REPLICATE\" log --log L --trust k.pub verify >verify.out 2>&1 ||
		{ test \$FAULT_MODE != again && grep -q \"no-tree-head: entries 1 to 1 are in no tree head\" verify.out; }" \
		--mutable L --mutable verify.out --mutable "sealed/SEAL.json.*" --again-refused "already in the log as entry 1" -- \
		"$REPLICATE" log --log L --sign-key k.key append sealed/SEAL.json &&
	cp -a tpl again && cd again &&
	test_expect_code 2 strace -f -qq -o /dev/null -e trace=write -e inject=write:error=ENOSPC:when=2 \
		"$REPLICATE" log --log L --sign-key k.key append sealed/SEAL.json 2>err &&
	grep -q "^replicate: L/heads/head-0000000002.json: write failed: No space left on device; entries 1 to 1 are in the log, not yet whole: the same append again completes them$" err &&
	test_expect_code 1 "$REPLICATE" log --log L --trust k.pub verify >/dev/null 2>&1 &&
	"$REPLICATE" log --log L --sign-key k.key append sealed/SEAL.json >out &&
	grep -q "tree head L/heads/head-0000000002.json, checkpoint L/heads/checkpoint-0000000002$" out &&
	"$REPLICATE" log --log L --trust k.pub verify >out && grep -q "^OK: log L: 2 entries, 2 tree heads, 2 checkpoints" out &&
	test -s sealed/SEAL.json.inclusion.json && test -s sealed/SEAL.json.tlog-proof &&
	test_expect_code 2 "$REPLICATE" log --log L --sign-key k.key append sealed/SEAL.json 2>err &&
	grep -q "already in the log as entry 1 " err
'

test_expect_success 'an unheaded entry completes only for the file it records, never a path the log names' '
	cp -a tpl named && cd named && mkdir elsewhere && cp sealed/SEAL.json elsewhere/SEAL.json &&
	test_expect_code 2 strace -f -qq -o /dev/null -e trace=write -e inject=write:error=ENOSPC:when=2 \
		"$REPLICATE" log --log L --sign-key k.key append elsewhere/SEAL.json 2>/dev/null &&
	test_expect_code 2 "$REPLICATE" log --log L --sign-key k.key append sealed/SEAL.json 2>err &&
	grep -q "^replicate: sealed/SEAL.json: already in the log as entry 1 ($PWD/elsewhere/SEAL.json); nothing appended$" err &&
	test_must_be_absent sealed/SEAL.json.inclusion.json && test_must_be_absent elsewhere/SEAL.json.inclusion.json &&
	test ! -e L/heads/head-0000000002.json
'

test_expect_success 'replicate keep-head: the head kept whole, or the one before' '
	fault_sweep "replicate keep-head" "for h in far/log-heads/vm/heads/*.json; do test ! -e \"\$h\" || python3 -c \"import json,sys; assert json.load(open(sys.argv[1]))[\\\"size\\\"] > 0\" \"\$h\" || exit 1; done" \
		--stdin keep-head.in --again-refused "already" -- "$REPLICATE" keep-head far vm
'

# SQLite decides which of its own calls it may lose (a sync of its WAL
# or directory, a close, its checkpoint into the database file and the
# truncation after it) and still answers SQLITE_OK: a row it committed is
# in the WAL, replayed at the next open. A fault of those that leaves
# index passing is judged as after a crash: integrity_check, then the
# same index, equal to the walk.
test_expect_success 'replicate index: the catalog passes integrity_check, and once indexed again equals the walk' '
	fault_sweep "replicate index" "test ! -e cat.sqlite || python3 -c \"import sqlite3,sys; assert sqlite3.connect(sys.argv[1]).execute(\\\"PRAGMA integrity_check\\\").fetchone()[0] == \\\"ok\\\"\" cat.sqlite;
		test \$FAULT_MODE != again || { \"$REPLICATE\" status \"\$PWD\" >walk.txt; \"$REPLICATE\" status --catalog cat.sqlite \"\$PWD\" >cat.txt; cmp -s walk.txt cat.txt; }" \
		--mutable "cat.sqlite*" --also-names "disk I/O error" --also-names "unable to open database file" --may-survive "#[0-9]* \([^)]*/cat\.sqlite(-[a-z]+)?\)|fdatasync #[0-9]* \([^)]*/fault-work\)" -- "$REPLICATE" index --catalog cat.sqlite .
'

test_expect_success 'the table has a row of cases for each writer' '
	test "$(grep -c "cases, every one held$" table.txt)" = 8
'
cat table.txt

test_done
