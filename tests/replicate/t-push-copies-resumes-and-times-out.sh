#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate push copies an archive and its seal to several destinations at
# once, verifies each copy there and here, keeps every receipt here and
# compares them. Through ssh (a stand-in here; real sshd in another test):
# remote paths with spaces and quotes arrive intact, a dropped connection
# leaves only a hidden partial file that the next push resumes, and a host
# that never answers is stopped after --timeout while the others finish.
. "$EV_SRCDIR/tests/lib/lib.sh"

FAKE_SSH="$EV_SRCDIR/tests/replicate/fake-ssh"
SQ="'"

# push ARGS...: replicate push of the sealed archive, receipts into r/.
push () {
	"$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir r \
		--remote-replicate "$REPLICATE" --ssh "$FAKE_SSH" "$@"
}

test_expect_success 'setup: a sealed campaign' '
	make_campaign c && "$SEAL" create c -o out >/dev/null && mkdir r
'

test_expect_success 'two local destinations: each holds a verified copy, three receipts agree' '
	push --to ./dirA --to dirB >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^pushing out/archive.tar.zst (.*) to 2 destinations$" stdout &&
	grep -q "^./dirA: pass; receipt r/replica-dirA-.*\\.json$" stdout &&
	grep -q "^dirB: pass; receipt r/replica-dirB-.*\\.json$" stdout &&
	grep -q "^here: pass; receipt r/replica-.*\\.json$" stdout &&
	grep -q "^AGREE: 3 receipts, comparable [0-9a-f]\\{64\\}$" stdout &&
	for d in dirA dirB; do
		cmp out/archive.tar.zst $d/archive.tar.zst && cmp out/SEAL.json $d/SEAL.json &&
		test "$(ls $d/replica-*.json | wc -l)" -eq 1 && no_temporaries $d &&
		test_must_be_absent $d/.archive.tar.zst.partial || return 1
	done &&
	test "$(ls r/*.json | wc -l)" -eq 3
'

test_expect_success 'pushing again keeps the copies (same bytes) and adds receipts; nothing is replaced' '
	before=$(stat -c %i dirA/archive.tar.zst) &&
	push --to dirA >stdout &&
	grep -q "^AGREE: 2 receipts" stdout &&
	test "$(stat -c %i dirA/archive.tar.zst)" = "$before" &&
	test "$(ls dirA/replica-*.json | wc -l)" -eq 2
'

test_expect_success 'a destination holding another seal is refused; the other destination is still served' '
	mkdir dirX && echo "not this seal" >dirX/SEAL.json &&
	test_expect_code 2 push --to dirX --to dirY >stdout 2>stderr &&
	grep -q "^dirX: error$" stdout && grep -q "^dirY: pass" stdout &&
	grep -q "^replicate: dirX: failed while offering SEAL.json: dirX/SEAL.json: already holds a different file (expected [0-9]* bytes with sha256 $(sha256_of out/SEAL.json), found 14 bytes with sha256 $(sha256_of dirX/SEAL.json)); evidence is never overwritten: push to a new directory$" stderr &&
	echo "not this seal" >expect && test_cmp expect dirX/SEAL.json && test_must_be_absent dirX/archive.tar.zst
'

test_expect_success 'over ssh: a remote directory with spaces and quotes arrives intact' '
	FAKE_SSH_LOG=ssh.log push --to "hostA:$(pwd)/remote dir/it'"'"'s here" >stdout &&
	grep -q "^AGREE: 2 receipts" stdout &&
	cmp out/archive.tar.zst "remote dir/it'"'"'s here/archive.tar.zst" &&
	grep -q "^hostA .*receive.*remote dir/it.*s here" ssh.log
'

test_expect_success 'a dropped connection leaves a hidden partial file only, and exit 2' '
	FAKE_SSH_CUT_AFTER=9000 test_expect_code 2 push --to hostA:cut >stdout 2>stderr &&
	grep -q "^hostA:cut: error$" stdout &&
	grep -x "replicate: hostA:cut: failed while \(sending\|storing\) archive.tar.zst: cut/archive.tar.zst: incomplete: 8993 of $(stat -c %s out/archive.tar.zst) bytes arrived; they are kept in cut/.archive.tar.zst.partial and the next push resumes there\( (.* sent)\)\?" stderr &&
	test_must_be_absent cut/archive.tar.zst &&
	test -s cut/.archive.tar.zst.partial &&
	test "$(stat -c %s cut/.archive.tar.zst.partial)" -lt "$(stat -c %s out/archive.tar.zst)"
'

test_expect_success 'the next push resumes from the kept bytes and ends with an identical copy' '
	push --to hostA:cut >stdout &&
	grep -q "^hostA:cut: pass; receipt .* (transfer resumed)$" stdout &&
	cmp out/archive.tar.zst cut/archive.tar.zst && test_must_be_absent cut/.archive.tar.zst.partial
'

test_expect_success 'a kept partial that does not match the archive is started over, not resumed' '
	FAKE_SSH_CUT_AFTER=9000 test_expect_code 2 push --to hostA:bad >/dev/null 2>&1 &&
	printf "XXXX" | dd of=bad/.archive.tar.zst.partial bs=1 seek=100 conv=notrunc 2>/dev/null &&
	push --to hostA:bad >stdout &&
	grep -q "^hostA:bad: pass; receipt .*json$" stdout &&
	cmp out/archive.tar.zst bad/archive.tar.zst
'

test_expect_success 'a host that never answers is stopped after --timeout; the other host is reported' '
	start=$(date +%s) &&
	FAKE_SSH_HANG=hostB test_expect_code 2 push --timeout 2 --to hostA:fine --to hostB:never >stdout 2>stderr &&
	elapsed=$(( $(date +%s) - start )) && test "$elapsed" -lt 30 &&
	grep -q "^hostA:fine: pass" stdout && grep -q "^hostB:never: error$" stdout &&
	grep -x "replicate: hostB:never: no progress for 2 s while offering SEAL.json; stopped it" stderr &&
	grep -q "^AGREE: 2 receipts" stdout &&
	! pgrep -f "sleep 1000" >/dev/null
'

test_expect_success 'a host whose ssh fails at once is reported with ssh'"'"'s own words' '
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir r \
		--ssh false --to nowhere:dir >stdout 2>stderr &&
	grep -q "^nowhere:dir: error$" stdout &&
	grep -x "replicate: nowhere:dir: ended while offering SEAL.json, without a word" stderr
'

test_expect_success 'four pushes at once sharing --receipt-dir: each claims its own receipt names, all pass' '
	mkdir shared &&
	for i in 1 2 3 4; do
		{ "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir shared --to "./same-$i" \
			>same-$i.out 2>same-$i.err; echo $? >same-$i.status; } &
	done &&
	wait &&
	for i in 1 2 3 4; do
		test "$(cat same-$i.status)" = 0 || { cat same-$i.err; return 1; }
	done &&
	test "$(ls shared | grep -c "^replica-.*\.json$")" = 8 &&
	for i in 1 2 3 4; do
		here=$(sed -n "s/^here: pass; receipt //p" same-$i.out) && test -f "$here" || return 1
	done &&
	test "$(for i in 1 2 3 4; do sed -n "s/^here: pass; receipt //p" same-$i.out; done | sort -u | wc -l)" = 4
'

test_expect_success 'push --json: one summary a program can read' '
	push --json --to dirJ >p.json &&
	test "$(json_get p.json "d[\"format\"], d[\"agree\"], [x[\"status\"] for x in d[\"destinations\"]]")" = \
		"evidence-push/1 True [${SQ}pass${SQ}, ${SQ}pass${SQ}]"
'

test_done
