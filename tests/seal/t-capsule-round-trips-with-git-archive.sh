#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal capsule seals a commit's tree as git records it, not the working
# tree: extracted, it is byte for byte and mode for mode what `git archive`
# writes for the same commit; it is deterministic; --verify passes against
# its commit (as an OUTDIR, a SEAL.json or an extracted tree, directories
# and all) and names every differing file against another commit; symbolic
# links and submodules are refused unless recorded; nothing is written for
# a refused tree.
. "$EV_SRCDIR/tests/lib/lib.sh"

git_setup
SQ="'"

test_expect_success 'setup: commit one (a 0600 file in the work tree, an executable, nested dirs) and two' '
	git_init r &&
	mkdir -p r/src/deep &&
	printf "int main(void) { return 0; }\n" >r/src/main.c &&
	printf "#!/bin/sh\nexit 0\n" >r/build.sh && chmod 755 r/build.sh &&
	printf "deep\n" >r/src/deep/x.txt &&
	printf "private\n" >r/notes.txt && chmod 600 r/notes.txt &&
	git -C r add . && git -C r commit -q -m one && git -C r tag one &&
	printf "int main(void) { return 1; }\n" >r/src/main.c &&
	chmod 644 r/build.sh && git -C r rm -q notes.txt && echo new >r/added.txt &&
	git -C r add -A && git -C r commit -q -m two && git -C r tag two &&
	echo "not committed" >r/src/main.c
'

test_expect_success 'a capsule of commit one, extracted, is what git archive writes: bytes and modes' '
	"$SEAL" capsule --repo r --commit one --name cap -o c1 >out &&
	grep -q "^sealed cap: 4 files, 2 dirs" out &&
	test "$(json_get c1/SEAL.json "d[\"source\"][\"git\"][\"commit\"]")" = "$(git -C r rev-parse one)" &&
	test "$(json_get c1/SEAL.json "d[\"source\"][\"git\"][\"tree\"]")" = "$(git -C r rev-parse one^{tree})" &&
	mkdir ours theirs &&
	zstd -qdc c1/archive.tar.zst | tar -x -C ours &&
	git -C r -c tar.umask=0022 archive --format=tar --prefix=cap/ one | tar -x -C theirs &&
	diff -r ours/cap theirs/cap &&
	(cd ours && find cap -printf "%m %y %p\n" | sort) >ours.modes &&
	(cd theirs && find cap -printf "%m %y %p\n" | sort) >theirs.modes &&
	test_cmp theirs.modes ours.modes &&
	grep -q "^644 f cap/notes.txt$" ours.modes && grep -q "^755 f cap/build.sh$" ours.modes
'

test_expect_success 'the same commit seals to the same bytes, whatever the work tree holds' '
	echo "more noise" >r/untracked.txt &&
	"$SEAL" capsule --repo r --commit one --name cap -o c1b >/dev/null &&
	cmp c1/SEAL.json c1b/SEAL.json && cmp c1/archive.tar.zst c1b/archive.tar.zst
'

test_expect_success '--verify passes against its commit: the OUTDIR, its SEAL.json, an extracted tree' '
	"$SEAL" capsule --verify --repo r c1 >out && grep -q "^OK: c1: 6 members against commit $(git -C r rev-parse one), 0 findings" out &&
	"$SEAL" capsule --verify --repo r c1/SEAL.json >out && grep -q "^OK:" out &&
	cp c1/SEAL.json ours/ &&
	"$SEAL" capsule --verify --repo r ours >out && grep -q "^OK: ours: 6 members" out &&
	"$SEAL" capsule --verify --repo r --commit one ours/cap >out && grep -q "^OK:" out
'

test_expect_success '--verify against another commit names every differing file (exit 1)' '
	test_expect_code 1 "$SEAL" capsule --verify --repo r --commit two c1 >out 2>err &&
	cat >expect <<-EOF &&
	seal: added.txt: in the commit, not in the capsule
	seal: build.sh: mode differs (expected 0644, found 0755)
	seal: notes.txt: in the capsule, not in the commit
	seal: src/main.c: content differs (SHA-256) (expected $(git -C r show two:src/main.c | sha256sum | cut -c1-64), found $(git -C r show one:src/main.c | sha256sum | cut -c1-64))
	EOF
	test_cmp expect err &&
	echo "the capsule names commit $(git -C r rev-parse one); checking it against $(git -C r rev-parse two)" >expect &&
	head -n 1 out >actual && test_cmp expect actual &&
	grep -q "^FAIL: c1: 6 members against commit $(git -C r rev-parse two), 4 findings" out
'

test_expect_success 'an extracted tree with one byte changed is named' '
	printf "deeP\n" >ours/cap/src/deep/x.txt &&
	test_expect_code 1 "$SEAL" capsule --verify --repo r ours >out 2>err &&
	grep -q "^seal: src/deep/x.txt: content differs (SHA-256)" err
'

test_expect_success 'a symbolic link is refused, nothing written; --symlinks record lists it' '
	ln -s src/main.c r/link && git -C r add link && git -C r commit -q -m link &&
	test_expect_code 2 "$SEAL" capsule --repo r -o c2 2>err &&
	cat >expect <<-EOF &&
	seal: link: a symbolic link (to src/main.c): --symlinks record lists it in the seal${SQ}s source instead
	seal: commit $(git -C r rev-parse HEAD): 1 member refused; nothing was written
	EOF
	test_cmp expect err && test_must_be_absent c2 &&
	"$SEAL" capsule --repo r --symlinks record -o c2 >/dev/null &&
	test "$(json_get c2/SEAL.json "d[\"source\"][\"git\"][\"symlinks\"]")" = "[{'"'"'path'"'"': '"'"'link'"'"', '"'"'target'"'"': '"'"'src/main.c'"'"'}]"
'

test_expect_success 'a submodule is refused unless recorded with its commit' '
	git -C r update-index --add --cacheinfo 160000,$(git -C r rev-parse one),vendor/lib &&
	git -C r commit -q -m submodule &&
	test_expect_code 2 "$SEAL" capsule --repo r --symlinks record -o c3 2>err &&
	grep -q "^seal: vendor/lib: a submodule" err && test_must_be_absent c3 &&
	"$SEAL" capsule --repo r --symlinks record --submodules record -o c3 >/dev/null &&
	test "$(json_get c3/SEAL.json "d[\"source\"][\"git\"][\"submodules\"][0][\"commit\"]")" = "$(git -C r rev-parse one)"
'

test_expect_success 'a progress line is drawn only when asked for, and erased' '
	git_init big && mkdir big/data &&
	for i in 1 2 3 4 5 6 7 8; do head -c 32M /dev/zero >big/data/zeros-$i.bin || return 1; done &&
	git -C big add . && git -C big commit -q -m zeros &&
	EVIDENCE_PROGRESS=always "$SEAL" capsule --repo big -o bigcap >/dev/null 2>err &&
	grep -q "seal: sealing the commit: .* of 256.0 MiB, [0-9]*/9 members" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=always "$SEAL" capsule --verify --repo big bigcap >/dev/null 2>err &&
	grep -q "seal: hashing the commit: " err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=never "$SEAL" capsule --repo big -o bigcap2 >/dev/null 2>err && test ! -s err
'

test_expect_success 'an unknown commit and an existing OUTDIR are refused before anything is written' '
	test_expect_code 2 "$SEAL" capsule --repo r --commit nope -o c4 2>err &&
	echo "seal: nope: no such commit in the repository (revspec '"'"'nope'"'"' not found)" >expect &&
	test_cmp expect err && test_must_be_absent c4 &&
	test_expect_code 2 "$SEAL" capsule --repo r --commit one -o c1 2>err &&
	grep -q "c1" err && cmp c1/SEAL.json c1b/SEAL.json
'

test_done
