#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate verify names each mutation of a compressed archive with the
# right finding and exits 1 with a failing receipt: a flipped byte in the
# compressed stream, in a member's content, a changed mode, an extra, a
# missing and a duplicated member, two members swapped, truncation at
# several points, trailing garbage, bytes in the padding frame or an extra
# skippable frame, a cut where a frame ends, a header whose name is not its
# pax path. It never crashes and never says OK.
. "$EV_SRCDIR/tests/lib/lib.sh"

J=runs/A-1/journal/1.bin
Q="'"

# operated OP ARGS...: out/archive.tar.zst with one change, as m.tar.zst.
operated () {
	rm -f m.tar.zst && python3 "$SURGERY" out/archive.tar.zst m.tar.zst "$@"
}

# findings ARCHIVE 'expected stderr lines...': exit 1, exactly these lines,
# and a receipt whose result is fail.
findings () {
	archive=$1
	shift
	printf "%s\n" "$@" >expect &&
	rm -f receipt.json &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --receipt receipt.json \
		"$archive" >stdout 2>actual &&
	test_cmp expect actual &&
	grep -q "^FAIL: $archive: 19 members, $# finding" stdout &&
	test "$(json_get receipt.json "d[\"result\"]")" = fail
}

test_expect_success 'setup: a sealed campaign whose archive verifies' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt ok.json out/archive.tar.zst >/dev/null
'

test_expect_success 'the untouched archive rewritten by the surgery tool still verifies (the tool is neutral)' '
	operated chmod runs/run.sh 755 &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt neutral.json m.tar.zst >/dev/null
'

test_expect_success 'one flipped byte in a member: the member and both digests' '
	operated flip $J 100 &&
	zstd -dcq m.tar.zst | tar -xOf - c/$J >flipped &&
	findings m.tar.zst "replicate: $J: content differs (SHA-256) (expected $(sha256_of c/$J), found $(sha256_of flipped))"
'

test_expect_success 'a changed mode' '
	operated chmod $J 644 &&
	findings m.tar.zst "replicate: $J: mode differs (expected 0600, found 0644)"
'

test_expect_success 'an extra member' '
	operated add-after runs/A-1/journal runs/A-1/journal/2.bin "not sealed" &&
	findings m.tar.zst "replicate: runs/A-1/journal/2.bin: member not in the seal (found file)"
'

test_expect_success 'a missing member' '
	operated drop runs/run.sh &&
	findings m.tar.zst "replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_expect_success 'a duplicated member' '
	operated dup runs/run.sh &&
	findings m.tar.zst "replicate: runs/run.sh: member appears more than once"
'

test_expect_success 'two members swapped: both are named, not their neighbours' '
	operated swap runs/run.sh runs/B-1/empty.log &&
	findings m.tar.zst \
		"replicate: runs/run.sh: member out of seal order (expected after runs/B-1/journal/1.bin, found after runs/B-1)" \
		"replicate: runs/B-1/empty.log: member out of seal order (expected after runs/B-1, found after runs/B-1/journal/1.bin)"
'

test_expect_success 'a flipped byte in the compressed stream: the frame, and the member it garbled' '
	cp out/archive.tar.zst flip.tar.zst &&
	size=$(stat -c %s flip.tar.zst) &&
	# Halfway in, the garbled bytes are a member'"'"'s content, so the frame
	# checksum catches them (where they garble a tar header, libarchive
	# reports a damaged tar first).
	printf "\125" | dd of=flip.tar.zst bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	rm -f receipt.json &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --receipt receipt.json flip.tar.zst >/dev/null 2>actual &&
	grep -q "^replicate: [^ ]*: archive stream is damaged or truncated.* (found zstd frame damaged: the frame that starts at byte [0-9]* (Restored data doesn.t match checksum))$" actual &&
	grep -q "content differs (SHA-256)" actual &&
	test "$(json_get receipt.json "d[\"result\"]")" = fail
'

test_expect_success 'truncation at many points: always exit 1 with a stream finding, never a crash or an OK' '
	size=$(stat -c %s out/archive.tar.zst) &&
	for cut in 0 1 4 100 $((size / 4)) $((size / 2)) $((size * 3 / 4)) $((size - 2)) $((size - 1)); do
		head -c $cut out/archive.tar.zst >cut.tar.zst &&
		test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --receipt cut-$cut.json \
			cut.tar.zst >/dev/null 2>actual &&
		grep -q "archive stream is damaged or truncated\|not a zstd or gzip compressed tar archive" actual &&
		! grep -q "missing from the archive" actual &&
		test "$(json_get cut-$cut.json "d[\"result\"]")" = fail || return 1
	done
'

test_expect_success 'a cut inside the last frame names the frame; all members before it were checked' '
	size=$(stat -c %s out/archive.tar.zst) &&
	head -c $((size - 1)) out/archive.tar.zst >cut.tar.zst &&
	findings cut.tar.zst "replicate: cut.tar.zst: archive stream is damaged or truncated (found zstd data cut short: the file ends inside the frame that starts at byte $(python3 -c "
import sys
data = open(sys.argv[1], \"rb\").read()
magic = bytes([0x28, 0xB5, 0x2F, 0xFD])
print(data.rfind(magic))" out/archive.tar.zst))"
'

test_expect_success 'trailing garbage: one finding with count and offset, every member checked' '
	(cat out/archive.tar.zst && printf "garbage") >tail.tar.zst &&
	findings tail.tar.zst "replicate: tail.tar.zst: bytes follow the end of the compressed stream (found 7 bytes from byte $(stat -c %s out/archive.tar.zst))"
'

test_expect_success 'gzip archives: a truncation and trailing garbage are found the same way' '
	"$SEAL" create --gzip c -o gout >/dev/null &&
	size=$(stat -c %s gout/archive.tar.gz) &&
	(cat gout/archive.tar.gz && printf "garbage") >tail.tar.gz &&
	rm -f receipt.json &&
	test_expect_code 1 "$REPLICATE" verify --seal gout/SEAL.json --receipt receipt.json tail.tar.gz >/dev/null 2>actual &&
	echo "replicate: tail.tar.gz: bytes follow the end of the compressed stream (found 7 bytes from byte $size)" >expect &&
	test_cmp expect actual &&
	head -c $((size / 2)) gout/archive.tar.gz >cut.tar.gz &&
	test_expect_code 1 "$REPLICATE" verify --seal gout/SEAL.json --receipt gcut.json cut.tar.gz >/dev/null 2>actual &&
	grep -q "gzip data cut short: the file ends inside the member that starts at byte [0-9]*)$" actual
'

test_expect_success 'bytes hidden in the padding frame after SEAL.json: named with their offset, not skipped' '
	python3 - <<-\PY >at &&
	d = bytearray(open("out/archive.tar.zst", "rb").read())
	i = d.index(bytes([0x50, 0x2A, 0x4D, 0x18]))
	size = int.from_bytes(d[i + 4:i + 8], "little")
	d[i + 8 + size // 2] = 0x41
	open("hidden.tar.zst", "wb").write(d)
	print(i, i + 8 + size // 2)
	PY
	read frame byte <at &&
	findings hidden.tar.zst \
		"replicate: hidden.tar.zst: archive stream is damaged or truncated (found zstd padding frame holds data: the skippable frame that starts at byte $frame (byte $byte is 0x41; the padding is zeros only))" \
		"replicate: hidden.tar.zst: sealed members left unchecked (found 19)"
'

test_expect_success 'an appended 100 KB skippable frame, which every zstd reader passes over, is named' '
	size=$(stat -c %s out/archive.tar.zst) &&
	{ cat out/archive.tar.zst && printf "\136\052\115\030\240\206\001\000" && head -c 100000 /dev/zero; } >appended.tar.zst &&
	zstd -t -q appended.tar.zst &&
	findings appended.tar.zst \
		"replicate: appended.tar.zst: archive stream is damaged or truncated (found zstd skippable frame where an evidence archive has none: the frame that starts at byte $size (magic 0x184D2A5E, 100000 bytes; only SEAL.json${Q}s zero padding, magic 0x184D2A50 right after its frame, belongs here))"
'

test_expect_success 'a cut where a frame ends decodes cleanly, and is still a stream truncation, its members unreached once' '
	python3 - <<-\PY &&
	d = open("out/archive.tar.zst", "rb").read()
	i = d.index(bytes([0x50, 0x2A, 0x4D, 0x18]))
	size = int.from_bytes(d[i + 4:i + 8], "little")
	open("at-frame.tar.zst", "wb").write(d[:i + 8 + size])
	PY
	zstd -t -q at-frame.tar.zst &&
	findings at-frame.tar.zst \
		"replicate: at-frame.tar.zst: archive stream is damaged or truncated (found the tar stream ends without its end-of-archive marker (cut where a frame or a header ends))" \
		"replicate: at-frame.tar.zst: sealed members left unchecked (found 19)"
'

test_expect_success 'a header naming another file than its pax path record is refused, with no duplicate about' '
	operated rename runs/run.sh c/runs/elsewhere.sh &&
	mv m.tar.zst renamed.tar.zst &&
	python3 "$SURGERY" renamed.tar.zst m.tar.zst pax-path runs/elsewhere.sh c/runs/run.sh &&
	findings m.tar.zst \
		"replicate: c/runs/run.sh: the member${Q}s pax path record names another file than its tar header (expected c/runs/run.sh, found c/runs/elsewhere.sh)"
'

test_expect_success 'several mutations at once: every one is reported' '
	python3 "$SURGERY" out/archive.tar.zst a.tar.zst chmod $J 644 &&
	python3 "$SURGERY" a.tar.zst b.tar.zst drop runs/run.sh &&
	python3 "$SURGERY" b.tar.zst m3.tar.zst add extra.txt hello &&
	findings m3.tar.zst "replicate: $J: mode differs (expected 0600, found 0644)" \
		"replicate: extra.txt: member not in the seal (found file)" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_done
