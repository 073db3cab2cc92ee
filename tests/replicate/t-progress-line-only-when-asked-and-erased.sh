#!/bin/sh
# verify and push draw a progress line only when asked, and erase it.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'verify and push show a progress line only when asked, and erase it' '
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

test_done
