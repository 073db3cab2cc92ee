#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hard links are sealed and archived as ordinary files: each name carries
# its own bytes, and extraction gives independent files.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'two names of one inode: two file members, no tar hardlink entry' '
	make_campaign c && ln c/runs/A-1/series/send.csv c/summary/send-copy.csv &&
	"$SEAL" create c -o out >/dev/null &&
	python3 -c "
import json
m = {x[\"path\"]: x for x in json.load(open(\"out/SEAL.json\"))[\"members\"]}
a, b = m[\"runs/A-1/series/send.csv\"], m[\"summary/send-copy.csv\"]
assert a[\"type\"] == b[\"type\"] == \"file\" and a[\"sha256\"] == b[\"sha256\"] and a[\"size\"] == b[\"size\"] > 0
" &&
	tar --zstd -tvf out/archive.tar.zst >list && ! grep -q " link to " list &&
	mkdir x && bsdtar -C x -xf out/archive.tar.zst &&
	test "$(stat -c %h x/c/summary/send-copy.csv)" -eq 1 &&
	cmp x/c/summary/send-copy.csv c/runs/A-1/series/send.csv &&
	"$SEAL" verify --seal out/SEAL.json out/archive.tar.zst >/dev/null
'

test_done
