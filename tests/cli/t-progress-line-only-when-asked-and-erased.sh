#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The progress line of every tool that reads long: drawn on stderr only on a
# terminal or when asked (EVIDENCE_PROGRESS=always), never into a pipe, and
# erased when done. Each tool's cases run in a directory of their own.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup
mkdir seal replicate audit || exit 99

# seal: seal create draws a progress line only when asked (a terminal, or
# EVIDENCE_PROGRESS=always), and erases it at the end.
test_expect_success 'seal: a progress line appears only when asked for (terminal), and is erased' '
	cd seal &&
	mkdir -p p && truncate -s 1G p/sparse &&
	EVIDENCE_PROGRESS=always "$SEAL" create p -o pout >/dev/null 2>err &&
	grep -q "seal: sealing: .* of 1.0 GiB, [01]/1 members, .*/s" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=never "$SEAL" create p -o pout2 >/dev/null 2>err &&
	test ! -s err
'

# replicate: verify and push draw a progress line only when asked, and erase
# it.
test_expect_success 'replicate: verify and push show a progress line only when asked, and erase it' '
	cd replicate &&
	mkdir -p big && truncate -s 1G big/sparse && "$SEAL" create big -o bout >/dev/null &&
	EVIDENCE_PROGRESS=always "$REPLICATE" verify --seal bout/SEAL.json --receipt p1.json bout/archive.tar.zst >/dev/null 2>err &&
	grep -q "replicate: verifying: .* of .*" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	mkdir -p noise && head -c 256M /dev/urandom >noise/random.bin && "$SEAL" create noise -o nout >/dev/null &&
	EVIDENCE_PROGRESS=always "$REPLICATE" push nout/archive.tar.zst --seal nout/SEAL.json --to copy >/dev/null 2>err &&
	grep -q "replicate: pushing: .* of 256.* MiB" err &&
	EVIDENCE_PROGRESS=never "$REPLICATE" verify --seal bout/SEAL.json --receipt p2.json bout/archive.tar.zst >/dev/null 2>err &&
	test ! -s err
'

# audit: audit journal draws a progress line only when asked, while it reads,
# and erases it before the first finding is printed; audit campaign and audit
# compare draw theirs through the same line (runs, pairs, and the one at
# work), only when asked, erased at the end.
test_expect_success 'audit: setup: a small pair' '
	cd audit &&
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'audit: a progress line only when asked for, and erased at the end' '
	cd audit &&
	python3 -c "
import struct
d = open(\"p/sender/1.bin\", \"rb\").read()
n, = struct.unpack_from(\"<Q\", d, 0)
p, out = 8, []
for _ in range(n):
    ts, ok, ln = struct.unpack_from(\"<QBQ\", d, p)
    out.append(d[p + 17:p + 17 + ln])
    p += 17 + ln
open(\"slow.fix\", \"wb\").write(b\"\".join(out))
" &&
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; }
	"$AUDIT" journal --warmups 3 --measured 20 --format raw --sender slow.fix --receipt fast.json \
		>/dev/null 2>fast.err; fast=$? &&
	# every read of the journal held 0.6 s (strace -P): the line is drawn
	# while it is read
	{ EVIDENCE_PROGRESS=always env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o /dev/null -P slow.fix -e trace=read -e inject=read:delay_enter=600000 \
		"$AUDIT" journal --warmups 3 --measured 20 --format raw \
		--sender slow.fix --receipt slow.json >/dev/null 2>err; st=$?; } &&
	test $st = $fast && test $st = 1 &&
	grep -q "audit: auditing: [0-9.]* [KMG]*i*B of 3.7 KiB, 0/1 files, .*B/s" err &&
	# erased before the first finding is printed, and not drawn again
	python3 -c "
import sys
e = open(\"err\", \"rb\").read()
line, rest = e.split(b\"audit: pair 1\", 1)
sys.exit(not (line.endswith(b\"\\r\\033[K\") and b\"auditing\" not in rest))
" &&
	EVIDENCE_PROGRESS=never "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender \
		--receipt quiet.json >/dev/null 2>err && test ! -s err
'

test_expect_success 'audit: audit campaign and audit compare: the runs and pairs counted, the one at work named, erased; nothing unless asked' '
	cd audit &&
	[ "$(nproc)" -ge 2 ] || test_skip_case "one CPU: a campaign pins its pair on two"
	sed -e "s|@BINDIR@|$EV_BUILDDIR/capture/pair|g" -e "s|@USER@|$(id -un)|g" \
		-e "s|@PEER_CPU@|0|g" -e "s|@SENDER_CPU@|1|g" -e "s|@SHARES@|true|g" \
		-e "s|\"measured\": 20000|\"measured\": 500|" "$EV_SRCDIR/share/demo/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi &&
	"$CAPTURE" run $degrade pinned.json -o c >/dev/null 2>&1 &&
	EVIDENCE_PROGRESS=always "$AUDIT" campaign c -o s >/dev/null 2>err &&
	grep -q "audit: auditing runs: 0/8 runs: 001-baseline-spin-1" err &&
	python3 -c "import sys; e = open(\"err\", \"rb\").read(); sys.exit(not e.startswith(b\"\\r\\033[K\") or b\"\\r\\033[K\" + e.rsplit(b\"\\r\\033[K\", 1)[1] != b\"\\r\\033[K\")" &&
	EVIDENCE_PROGRESS=never "$AUDIT" campaign c -o s2 >/dev/null 2>err && test ! -s err &&
	EVIDENCE_PROGRESS=always "$AUDIT" compare --unregistered --resamples 100 --arm baseline --arm dma0 s -o cmp >/dev/null 2>err &&
	grep -q "audit: resampling: 0/2 pairs: arm baseline cell spin" err &&
	python3 -c "import sys; e = open(\"err\", \"rb\").read(); sys.exit(not e.endswith(b\"\\r\\033[K\"))" &&
	EVIDENCE_PROGRESS=never "$AUDIT" compare --unregistered --resamples 100 --arm baseline --arm dma0 s -o cmp2 >/dev/null 2>err && test ! -s err
'

test_done
