#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal verify reports each mutation of a sealed tree as exactly the member
# it touched, with expected and found values, and exits 1; on archives too.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

J=runs/A-1/journal/1.bin

# mutated NAME 'shell applied inside the copy': a fresh copy of the tree.
mutated () {
	rm -rf "$1" && cp -a c "$1" && (cd "$1" && eval "$2")
}

# findings TARGET 'expected stderr lines...': verify exits 1 with exactly those.
findings () {
	target=$1
	shift
	printf "%s\n" "$@" >expect &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json "$target" >stdout 2>actual &&
	test_cmp expect actual &&
	grep -q "^FAIL: $target: 19 members, $# finding" stdout
}

test_expect_success 'setup: seal a campaign; the tree and the archive verify clean' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	"$SEAL" verify --seal out/SEAL.json --receipt r.json c >stdout &&
	printf "%s\n" "checked every sealed member${Q}s content, size, mode and type, and nothing else is there; not checked: owners and times (not sealed); SEAL.json not pinned" \
		"OK: c: 19 members, 0 findings against out/SEAL.json; receipt r.json" >expect && test_cmp expect stdout &&
	json_get r.json "d[\"facts\"][\"coverage\"][\"not_checked\"]" >not &&
	grep -q "owners, groups, modification times, extended attributes and ACLs" not &&
	"$SEAL" verify --seal out/SEAL.json out/archive.tar.zst >/dev/null
'

test_expect_success 'one flipped byte: the member and both digests' '
	mutated m "printf \"\\\\377\" | dd of=$J bs=1 seek=100 conv=notrunc 2>/dev/null" &&
	findings m "seal: $J: content differs (SHA-256) (expected $(sha256_of c/$J), found $(sha256_of m/$J))"
'

test_expect_success 'a truncation: the member and both sizes' '
	size=$(stat -c %s c/$J) &&
	mutated m "truncate -s -1 $J" &&
	findings m "seal: $J: size differs (expected $size, found $((size - 1)))"
'

test_expect_success 'a chmod: the member and both modes' '
	mutated m "chmod 644 $J" &&
	findings m "seal: $J: mode differs (expected 0600, found 0644)"
'

test_expect_success 'an added file' '
	mutated m "echo new >runs/A-1/new.txt" &&
	findings m "seal: runs/A-1/new.txt: not in the seal (found file)"
'

test_expect_success 'a removed file' '
	mutated m "rm runs/run.sh" &&
	findings m "seal: runs/run.sh: missing (expected file, found nothing)"
'

test_expect_success 'a rename: the old name missing, the new one extra' '
	mutated m "mv runs/run.sh runs/start.sh" &&
	findings m "seal: runs/run.sh: missing (expected file, found nothing)" \
		"seal: runs/start.sh: not in the seal (found file)"
'

test_expect_success 'a file replaced by a symbolic link to an identical copy' '
	mutated m "cp runs/run.sh $trash/run-copy && rm runs/run.sh && ln -s $trash/run-copy runs/run.sh" &&
	findings m "seal: runs/run.sh: type differs (expected file, found symlink)"
'

test_expect_success 'several mutations at once: every one is reported' '
	mutated m "chmod 644 $J && rm runs/run.sh && echo x >extra" &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json m 2>actual >/dev/null &&
	test "$(wc -l <actual)" -eq 3
'

test_expect_success 'archives: a mutated tree sealed under the same name names the member' '
	mutated m "chmod 644 $J && echo x >>summary/r*.txt" &&
	"$SEAL" create --name c m -o mout >/dev/null &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json mout/archive.tar.zst 2>actual >/dev/null &&
	grep -x "seal: SEAL.json: the archive.s SEAL.json differs from the seal given" actual &&
	grep -x "seal: $J: mode differs (expected 0600, found 0644)" actual &&
	grep -q "^seal: summary/r.*sum.*\.txt: size differs (expected 9, found 11)$" actual &&
	test "$(wc -l <actual)" -eq 3
'

test_expect_success 'archives: same-size content changes in two members, each named with both digests' '
	mutated m "printf \"\\377\" | dd of=$J bs=1 seek=100 conv=notrunc 2>/dev/null && printf X | dd of=runs/A-1/series/send.csv bs=1 seek=0 conv=notrunc 2>/dev/null" &&
	"$SEAL" create --name c m -o mout3 >/dev/null &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json mout3/archive.tar.zst 2>actual >/dev/null &&
	printf "%s\n" "seal: SEAL.json: the archive'\''s SEAL.json differs from the seal given" \
		"seal: $J: content differs (SHA-256) (expected $(sha256_of c/$J), found $(sha256_of m/$J))" \
		"seal: runs/A-1/series/send.csv: content differs (SHA-256) (expected $(sha256_of c/runs/A-1/series/send.csv), found $(sha256_of m/runs/A-1/series/send.csv))" >expect &&
	test_cmp expect actual
'

test_expect_success 'archives: one member missing from an archive of a smaller tree' '
	mutated m "rm runs/B-1/empty.log" &&
	"$SEAL" create --name c m -o mout2 >/dev/null &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json mout2/archive.tar.zst 2>actual >/dev/null &&
	grep -x "seal: runs/B-1/empty.log: missing from the archive (expected file, found nothing)" actual
'

test_expect_success 'a truncated archive is a finding, not a crash' '
	head -c $(( $(stat -c %s out/archive.tar.zst) / 2 )) out/archive.tar.zst >cut.tar.zst &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json cut.tar.zst 2>actual >/dev/null &&
	grep -q "^seal: [^ ]*: archive stream is damaged or truncated" actual &&
	grep -q "^seal: cut.tar.zst: sealed members left unchecked (found [0-9]*)$" actual &&
	! grep -q "missing from the archive" actual
'

test_expect_success 'trailing garbage after the compressed stream is one finding; every member is still checked' '
	cat out/archive.tar.zst >tail.tar.zst && printf garbage >>tail.tar.zst &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json tail.tar.zst 2>actual >/dev/null &&
	echo "seal: tail.tar.zst: bytes follow the end of the compressed stream (found 7 bytes from byte $(stat -c %s out/archive.tar.zst))" >expect &&
	test_cmp expect actual
'

test_expect_success 'hidden bytes every zstd reader skips: in the padding frame, or an appended skippable frame' '
	python3 - <<-\PY &&
	d = bytearray(open("out/archive.tar.zst", "rb").read())
	i = d.index(bytes([0x50, 0x2A, 0x4D, 0x18]))
	d[i + 9] = 0x01
	open("pad.tar.zst", "wb").write(d)
	PY
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json pad.tar.zst 2>actual >/dev/null &&
	grep -q "^seal: pad.tar.zst: archive stream is damaged or truncated (found zstd padding frame holds data: the skippable frame that starts at byte [0-9]* (byte [0-9]* is 0x01; the padding is zeros only))$" actual &&
	{ cat out/archive.tar.zst && printf "\120\052\115\030\004\000\000\000data"; } >skip.tar.zst &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json skip.tar.zst 2>actual >/dev/null &&
	grep -q "^seal: skip.tar.zst: archive stream is damaged or truncated (found zstd skippable frame where an evidence archive has none: the frame that starts at byte $(stat -c %s out/archive.tar.zst) (magic 0x184D2A50, 4 bytes;" actual
'

# behind_end KIND OUT 'what to append': the sealed tar, decompressed, then
# the appended bytes, recompressed as one stream.
behind_end () {
	if [ "$1" = zstd ]; then zstd -dc out/archive.tar.zst; else gzip -dc gout/archive.tar.gz; fi >plain.tar &&
	(cat plain.tar && eval "$3") >joined.tar &&
	if [ "$1" = zstd ]; then zstd -q -f joined.tar -o "$2"; else gzip -c joined.tar >"$2"; fi
}

test_expect_success 'an archive appended behind the end-of-archive marker: its member is named (zstd, gzip)' '
	python3 -c "
import io, tarfile
with tarfile.open(\"evil.tar\", \"w\", format=tarfile.PAX_FORMAT) as t:
    i = tarfile.TarInfo(\"c/runs/evil.sh\"); d = b\"rm -rf ~\\n\"; i.size = len(d); t.addfile(i, io.BytesIO(d))
" &&
	"$SEAL" create --gzip c -o gout >/dev/null &&
	for kind in zstd gzip; do
		behind_end $kind appended.$kind "cat evil.tar" &&
		test_expect_code 1 "$SEAL" verify --seal out/SEAL.json appended.$kind 2>actual >/dev/null &&
		echo "seal: runs/evil.sh: member not in the seal (found file)" >expect &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'bytes other than zero padding behind the end-of-archive marker are damage; padding is not' '
	behind_end zstd garbage.tar.zst "printf garbage" &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json garbage.tar.zst 2>actual >/dev/null &&
	grep -q "^seal: garbage.tar.zst: archive stream is damaged or truncated (found .*)$" actual &&
	behind_end zstd padded.tar.zst "head -c 10240 /dev/zero" &&
	"$SEAL" verify --seal out/SEAL.json padded.tar.zst >/dev/null
'

test_expect_success 'a file that is not an archive at all is named as such' '
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json out/SEAL.json 2>actual >/dev/null &&
	grep -x "seal: out/SEAL.json: not a zstd or gzip compressed tar archive (found first bytes 7b 22 66 6f 72 6d 61 74)" actual
'

test_done
