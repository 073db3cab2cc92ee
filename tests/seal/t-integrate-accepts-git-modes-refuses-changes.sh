#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal integrate: the selected evidence committed to git still equals its
# seal. A sealed 0600 log comes back from git as 100644: accepted, and the
# mapping recorded; the same file with one byte changed, with its size
# changed, or with the executable bit set is refused with the member and
# the reason. A rebase onto a branch with unrelated concurrent changes
# still passes; a commit that touches a selected file fails. --worktree
# names untracked and unstaged files. An existing receipt is never
# replaced.
. "$EV_SRCDIR/tests/lib/lib.sh"

git_setup
SQ="'"

# commit_evidence: the selected files copied, modes and all, under
# results/ and committed.
commit_evidence () {
	mkdir -p repo/results &&
	cp -p ev/run.log ev/summary.txt ev/go.sh repo/results/ &&
	git -C repo add results && git -C repo commit -q -m "evidence of the campaign"
}

# integrate_fails 'LINE': integrate exits 1 with exactly that finding on
# stderr and a failing receipt naming it.
integrate_fails () {
	rm -f r.json &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --prefix results \
		--receipt r.json >out 2>err &&
	echo "$1" >expect && test_cmp expect err &&
	test "$(json_get r.json "d[\"result\"]")" = fail
}

test_expect_success 'setup: an evidence tree (a 0600 log, a script, a summary, bulk) sealed, three files selected' '
	mkdir -p ev/bulk &&
	printf "summary: p50 6094 ns\n" >ev/summary.txt &&
	printf "private run log\n" >ev/run.log && chmod 600 ev/run.log &&
	printf "#!/bin/sh\necho rerun\n" >ev/go.sh && chmod 755 ev/go.sh &&
	head -c 65536 /dev/zero >ev/bulk/big.bin &&
	"$SEAL" create ev -o sealed >/dev/null &&
	"$SEAL" select --seal sealed/SEAL.json --include summary.txt --include run.log --include go.sh -o sel.json >/dev/null &&
	git_init repo && echo "# lab notes" >repo/README && git -C repo add README && git -C repo commit -q -m start && git -C repo tag start
'

test_expect_success 'a sealed 0600 file committed to git (100644) is accepted, the mapping recorded' '
	commit_evidence &&
	test "$(stat -c %a repo/results/run.log)" = 600 &&
	test "$(git -C repo ls-tree HEAD results/run.log | cut -c1-6)" = 100644 &&
	"$SEAL" integrate --selection sel.json --repo repo --prefix results --receipt ok.json >out &&
	grep -q "^OK: 3 selected members against commit $(git -C repo rev-parse --short=12 HEAD), 0 findings, 1 mode represented by the rule; receipt ok.json$" out &&
	test "$(json_get ok.json "[m.get(\"representation\") for m in d[\"facts\"][\"members\"] if m[\"path\"] == \"run.log\"][0]")" = \
		"sealed 0600 stored by git as 100644: accepted (git keeps only the executable bit)" &&
	test "$(json_get ok.json "[m[\"blob\"] for m in d[\"facts\"][\"members\"] if m[\"path\"] == \"run.log\"][0]")" = \
		"$(git -C repo rev-parse HEAD:results/run.log)" &&
	test "$(json_get ok.json "d[\"facts\"][\"tree\"]")" = "$(git -C repo rev-parse HEAD^{tree})"
'

test_expect_success 'the same file with one byte changed is refused: content (SHA-256)' '
	git -C repo checkout -q -b byte &&
	printf "private run Log\n" >repo/results/run.log && git -C repo commit -q -am byte &&
	integrate_fails "seal: results/run.log: content differs (SHA-256) (expected $(sha256sum <ev/run.log | cut -c1-64), found $(sha256sum <repo/results/run.log | cut -c1-64))"
'

test_expect_success 'the same file with its size changed is refused: size' '
	git -C repo checkout -q -f main && git -C repo checkout -q -b size &&
	printf "private run log, longer\n" >repo/results/run.log && git -C repo commit -q -am size &&
	integrate_fails "seal: results/run.log: size differs (expected 16, found 24)"
'

test_expect_success 'the same file with the executable bit set is refused: executable' '
	git -C repo checkout -q -f main && git -C repo checkout -q -b exec &&
	chmod u+x repo/results/run.log && git -C repo commit -q -am exec &&
	integrate_fails "seal: results/run.log: the executable bit differs from the sealed mode${SQ}s (expected 100644 (sealed 0600), found 100755)"
'

test_expect_success 'a script that lost its executable bit, and a missing file, are refused too' '
	git -C repo checkout -q -f main && git -C repo checkout -q -b lost &&
	chmod a-x repo/results/go.sh && git -C repo rm -q results/summary.txt &&
	git -C repo commit -q -am lost &&
	rm -f r.json &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --prefix results --receipt r.json 2>err &&
	cat >expect <<-EOF &&
	seal: results/go.sh: the executable bit differs from the sealed mode${SQ}s (expected 100755 (sealed 0755), found 100644)
	seal: results/summary.txt: a selected file the repository does not hold
	EOF
	test_cmp expect err
'

test_expect_success 'without --prefix, the missing files say where to look' '
	git -C repo checkout -q -f main &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --receipt r2.json 2>err &&
	head -n 1 err >actual &&
	echo "seal: go.sh: a selected file the repository does not hold (committed under a directory? say --prefix DIR)" >expect &&
	test_cmp expect actual
'

test_expect_success 'rebased onto a branch with unrelated concurrent changes, integration still passes' '
	git -C repo checkout -q -b other start &&
	echo "a concurrent note" >repo/NOTES && mkdir -p repo/results && echo "other run" >repo/results/other.txt &&
	git -C repo add NOTES results/other.txt && git -C repo commit -q -m "concurrent work" &&
	git -C repo checkout -q -f main && git -C repo rebase -q other &&
	test "$(git -C repo rev-parse HEAD~1)" = "$(git -C repo rev-parse other)" &&
	"$SEAL" integrate --selection sel.json --repo repo --prefix results --receipt rebased.json >out &&
	grep -q "^OK: 3 selected members against commit $(git -C repo rev-parse --short=12 HEAD)" out
'

test_expect_success 'after the rebase, a commit that touches a selected file fails, naming it' '
	echo "summary: p50 6000 ns, revised" >repo/results/summary.txt && git -C repo commit -q -am "touch the summary" &&
	integrate_fails "seal: results/summary.txt: size differs (expected $(wc -c <ev/summary.txt), found $(wc -c <repo/results/summary.txt))" &&
	"$SEAL" integrate --selection sel.json --repo repo --prefix results --rev HEAD~1 --receipt before.json >/dev/null
'

test_expect_success '--worktree names a file not staged, and one not tracked' '
	git -C repo reset -q --hard HEAD~1 &&
	cp -p ev/summary.txt repo/results/ && printf "private run Log\n" >repo/results/run.log &&
	git -C repo rm -q --cached results/go.sh &&
	test_expect_code 1 "$SEAL" integrate --worktree --selection sel.json --repo repo --prefix results --receipt wt.json 2>err &&
	cat >expect <<-EOF &&
	seal: results/go.sh: in the working tree but not tracked by git (expected tracked, found untracked)
	seal: results/run.log: the working tree${SQ}s file is not the one staged (git add it) (expected $(git -C repo rev-parse :results/run.log), found $(git hash-object repo/results/run.log))
	seal: results/run.log: content differs (SHA-256) (expected $(sha256sum <ev/run.log | cut -c1-64), found $(sha256sum <repo/results/run.log | cut -c1-64))
	EOF
	test_cmp expect err &&
	test "$(json_get wt.json "d[\"facts\"][\"checked\"]")" = "working tree and index"
'

test_expect_success 'a git object whose bytes no longer match its id is an error naming the file, no receipt' '
	git_init bad && cp -p ev/run.log ev/go.sh ev/summary.txt bad/ && git -C bad add . && git -C bad commit -q -m bad &&
	id=$(git -C bad rev-parse HEAD:run.log) && obj=bad/.git/objects/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-) &&
	chmod u+w $obj &&
	python3 -c "import sys, zlib; p = sys.argv[1]; d = zlib.decompress(open(p, \"rb\").read()); open(p, \"wb\").write(zlib.compress(d.replace(b\"private\", b\"Private\")))" $obj &&
	test_expect_code 2 "$SEAL" integrate --selection sel.json --repo bad --receipt bad.json 2>err &&
	grep -q "^seal: run.log: $id: cannot read the blob (object hash mismatch - expected $id but got " err &&
	test_must_be_absent bad.json
'

test_expect_success 'an existing receipt is refused and left as it was; a bad revision is a usage error' '
	cp ok.json ok.before &&
	test_expect_code 2 "$SEAL" integrate --selection sel.json --repo repo --prefix results --receipt ok.json 2>err &&
	echo "seal: ok.json: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect err && cmp ok.json ok.before &&
	test_expect_code 2 "$SEAL" integrate --selection sel.json --repo repo --rev nope --receipt r9.json 2>err &&
	grep -q "^seal: nope: no such commit" err && test_must_be_absent r9.json &&
	test_expect_code 2 "$SEAL" integrate --selection sel.json --repo repo --rev HEAD --worktree 2>err &&
	head -n 1 err >actual && echo "seal: --rev and --worktree both given; choose one" >expect && test_cmp expect actual
'

test_done
