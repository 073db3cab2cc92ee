#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The archive is ordinary: GNU tar and bsdtar extract the same bytes and
# modes; sha256sum and mtree (mtree-netbsd) agree with every hash in the seal.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v bsdtar >/dev/null || test_skip_all "bsdtar missing (apt-get install libarchive-tools)"
command -v mtree >/dev/null || test_skip_all "mtree missing (apt-get install mtree-netbsd)"

# "path mode size" for every entry below $1, sorted.
listing () {
	(cd "$1" && find . -mindepth 1 -printf '%P %m %s %y\n' | LC_ALL=C sort)
}

test_expect_success 'setup: seal a campaign (zstd and gzip)' '
	make_campaign campaign &&
	"$SEAL" create campaign -o out >/dev/null &&
	"$SEAL" create --gzip campaign -o outgz >/dev/null
'

test_expect_success 'GNU tar extracts SEAL.json first, then the tree, bytes and modes exact' '
	tar -tf out/archive.tar.zst --zstd | sed -n 1p >first && echo SEAL.json >expect &&
	test_cmp expect first &&
	mkdir gnu && tar -C gnu --zstd -xpf out/archive.tar.zst 2>err && test ! -s err &&
	cmp gnu/SEAL.json out/SEAL.json &&
	diff -r campaign gnu/campaign &&
	listing campaign >expect && listing gnu/campaign >actual && test_cmp expect actual
'

test_expect_success 'bsdtar extracts the same, from zstd and from gzip' '
	mkdir bsd bsdgz &&
	bsdtar -C bsd -xpf out/archive.tar.zst && bsdtar -C bsdgz -xpf outgz/archive.tar.gz &&
	listing gnu >expect && listing bsd >actual && test_cmp expect actual &&
	listing bsdgz >actual && test_cmp expect actual && diff -r gnu bsd && diff -r gnu bsdgz
'

test_expect_success 'the zstd CLI sees the SEAL.json frame, one skippable frame and the members' '
	zstd -t -q out/archive.tar.zst &&
	zstd -dc out/archive.tar.zst | tar -tf - >names &&
	test "$(wc -l <names)" -eq "$(python3 -c "import json; print(1+len(json.load(open(\"out/SEAL.json\"))[\"members\"]))")"
'

test_expect_success 'sha256sum -c agrees with every file digest in the seal' '
	python3 -c "
import json
for m in json.load(open(\"out/SEAL.json\"))[\"members\"]:
    if m[\"type\"] == \"file\":
        print(m[\"sha256\"] + \"  \" + m[\"path\"])
" >sums &&
	test "$(wc -l <sums)" -eq 9 &&
	(cd campaign && sha256sum --strict -c ../sums) >checked &&
	test "$(grep -c ": OK$" checked)" -eq 9
'

test_expect_success 'mtree computes the same digest, mode and size for every member' '
	mtree -c -K sha256digest -p campaign | mtree -C -K sha256digest >spec &&
	python3 - <<-\PY
	import json, re
	def unvis(s):
	    # strvis(3) forms that mtree writes: \ooo octal and \M-c meta.
	    b = re.sub(rb"\\M-(.)", lambda m: bytes([0x80 | m.group(1)[0]]), s.encode())
	    return re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), b).decode()
	seal = {m["path"]: m for m in json.load(open("out/SEAL.json"))["members"]}
	seen = 0
	for line in open("spec"):
	    words = line.split()
	    if not words or words[0] == ".":
	        continue
	    path = unvis(words[0][2:])
	    kv = dict(w.split("=", 1) for w in words[1:])
	    m = seal[path]
	    assert kv["mode"] == m["mode"], (path, kv["mode"], m["mode"])
	    if m["type"] == "file":
	        assert kv["sha256"] == m["sha256"] and int(kv["size"]) == m["size"], path
	    seen += 1
	assert seen == len(seal), (seen, len(seal))
	PY
'

test_done
