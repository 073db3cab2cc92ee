#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate push ends what it started. Stopped by SIGINT, SIGTERM or
# SIGHUP while it copies or while the copies are verified, it stops its
# local verifiers and its ssh sessions within half a second, exits 2 and
# writes no receipt, here or at a destination; killed outright (SIGKILL),
# its helpers notice (parent-death signal) and end without writing. It
# checks what it can before it copies a byte: an archive with another
# seal inside, an unusable --sign-key. Run again to its end, it passes.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

FAKE_SSH="$EV_SRCDIR/tests/replicate/fake-ssh"

# Every helper's command line holds the trash directory's path: what is
# still running of this test is what names it.
helpers_left () {
	pgrep -af "$trash/" | grep -v "pgrep" || true
}

no_helper_left_within () {
	for i in $(seq 1 $(($1 * 10 * EV_TIME_SCALE))); do
		[ -z "$(helpers_left)" ] && return 0
		sleep 0.1
	done
	echo "still running:" && helpers_left
	return 1
}

no_receipt_anywhere () {
	test -z "$(find r dest-* -name "replica-*.json" 2>/dev/null)" || {
		find r dest-* -name "replica-*.json"
		return 1
	}
}

push () {
	"$REPLICATE" push "$trash/out/archive.tar.zst" --seal "$trash/out/SEAL.json" --receipt-dir r \
		--remote-replicate "$REPLICATE" --ssh "$FAKE_SSH" "$@"
}

# stopped_push SIGNAL ARGS...: push ARGS stopped by SIGNAL (see stopped).
stopped_push () {
	sig=$1
	shift
	stopped $sig r/none "$REPLICATE" push "$trash/out/archive.tar.zst" --seal "$trash/out/SEAL.json" \
		--receipt-dir r --remote-replicate "$REPLICATE" --ssh "$FAKE_SSH" "$@"
}

test_expect_success 'setup: a sealed tree with one 3 GiB member (sparse: verifying takes seconds)' '
	mkdir -p big/runs && truncate -s 3G big/runs/series.bin &&
	head -c 3000000 /dev/urandom >big/runs/noise.bin && echo ok >big/runs/note.txt &&
	"$SEAL" create big -o out >/dev/null && mkdir r
'

test_expect_success 'a signal while the copies are verified: exit 2 at once, no verifier left, no receipt' '
	for s in SIGINT SIGTERM SIGHUP; do
		STOPPED_AFTER=1 stopped_push $s --to "$trash/dest-local-$s" --to "hostA:$trash/dest-ssh-$s" ||
			return 1
		# a verifier stopped before it said it wrote a receipt (the far one
		# with its ssh; on a loaded machine the local copy or the check
		# here too): whether it published just then cannot be known, and
		# push names each and where to look (when the signal came before
		# any started, there is nothing to look for)
		{
			if grep -q "no receipt is known to exist" stopped.err; then
				grep "its verifier was stopped before it said it wrote a receipt" stopped.err >named &&
				test -s named &&
				! grep -v -e "^replicate: hostA:$trash/dest-ssh-$s: its verifier was stopped before it said it wrote a receipt; look for replica-\*.json in $trash/dest-ssh-$s" \
					-e "^replicate: $trash/dest-local-$s: its verifier was stopped before it said it wrote a receipt; look for replica-\*.json in $trash/dest-local-$s in case it published one just then$" \
					-e "^replicate: here: its verifier was stopped before it said it wrote a receipt; look for replica-\*.json in r in case it published one just then$" named
			else
				! grep -q "its verifier was stopped" stopped.err
			fi &&
			grep -Eq "^replicate: interrupted by a signal; every helper was stopped, (no receipt written|no receipt is known to exist), nothing is claimed \(what was stored stays; a new push resumes it\)$" stopped.err
		} || { echo "after $s, push said:"; cat stopped.err; return 1; }
		no_helper_left_within 1 && no_receipt_anywhere || { echo "after $s"; return 1; }
	done
'

test_expect_success 'a signal after one host verified: every receipt that exists is named, here and there' '
	# a hang of its own length: t-push-copies-... looks for its "sleep 1000"
	{ FAKE_SSH_HANG=hostB FAKE_SSH_HANG_SECONDS=999 "$REPLICATE" push "$trash/out/archive.tar.zst" --seal "$trash/out/SEAL.json" \
		--receipt-dir r --remote-replicate "$REPLICATE" --ssh "$FAKE_SSH" --timeout 60 \
		--to "hostA:$trash/dest-done" --to "hostB:$trash/dest-hung" >/dev/null 2>named.err & } &&
	pid=$! && n=0 &&
	# both hostA and the local check have written their receipts (the
	# local one may finish last on a loaded machine)
	until ls r | contains "^replica-hostA" && ls r | contains "^replica-$(hostname)"; do
		sleep 0.1; n=$((n + 1)); test $n -lt 300 || return 1
	done &&
	kill -TERM $pid && { wait $pid; test $? = 2; } &&
	mine=$(ls r/replica-hostA*) && theirs=$(ls dest-done/replica-*.json) &&
	grep -q "^replicate: hostA:$trash/dest-done: verified before the signal; its receipt stays: $mine$" named.err &&
	grep -q "^replicate: hostA:$trash/dest-done: its verifier.s receipt stays there: hostA:$trash/$theirs$" named.err &&
	grep -q "^replicate: here: .* stays: r/replica-$(hostname)" named.err &&
	grep -q "every receipt that exists is named above" named.err &&
	rm -f r/replica-* && rm -rf dest-done dest-hung && no_helper_left_within 1
'

test_expect_success 'a signal while a copy is under way: the ssh session ends, nothing is published' '
	FAKE_SSH_HOLD_INPUT=30 stopped_push SIGTERM --to "hostA:$trash/dest-held" &&
	no_helper_left_within 1 && no_receipt_anywhere &&
	test_must_be_absent dest-held/archive.tar.zst
'

test_expect_success 'push killed outright: its verifiers notice and end without writing' '
	"$REPLICATE" push "$trash/out/archive.tar.zst" --seal "$trash/out/SEAL.json" --receipt-dir r \
		--remote-replicate "$REPLICATE" --ssh "$FAKE_SSH" \
		--to "$trash/dest-killed" --to "hostA:$trash/dest-killed-ssh" >/dev/null 2>&1 &
	pid=$!
	sleep 1 && test -n "$(helpers_left)" && kill -KILL $pid && { wait $pid; true; } &&
	no_helper_left_within 2 && no_receipt_anywhere
'

test_expect_success 'run again to its end, the same push passes where it was stopped' '
	push --to "$trash/dest-local-SIGINT" --to "hostA:$trash/dest-killed-ssh" >stdout &&
	grep -q "^AGREE: 3 receipts" stdout &&
	test "$(ls dest-local-SIGINT/replica-*.json | wc -l)" = 1
'

test_expect_success 'an archive with another seal inside is refused before a byte is copied' '
	make_campaign other && "$SEAL" create other -o out-other >/dev/null &&
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out-other/SEAL.json --receipt-dir r \
		--to dest-wrong 2>stderr &&
	echo "replicate: out-other/SEAL.json: is not the seal out/archive.tar.zst was made with (its embedded SEAL.json has SHA-256 $(sha256_of out/SEAL.json), out-other/SEAL.json has $(sha256_of out-other/SEAL.json)); give the archive${Q}s own seal; nothing was copied" >expect &&
	test_cmp expect stderr && test_must_be_absent dest-wrong &&
	"$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir r --to dest-wrong >/dev/null
'

test_expect_success 'a file that is not an archive, or an unusable --sign-key: refused before copying' '
	cp out/SEAL.json not-an-archive.tar.zst &&
	test_expect_code 2 "$REPLICATE" push not-an-archive.tar.zst --seal out/SEAL.json --receipt-dir r --to dest-x 2>stderr &&
	grep -q "^replicate: not-an-archive.tar.zst: not a readable compressed tar archive (.*); nothing was copied$" stderr &&
	echo "not a key" >bad.key && chmod 600 bad.key &&
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir r \
		--sign-key bad.key --to dest-x 2>stderr &&
	grep -q "^replicate: --sign-key .*bad.key.*; nothing was copied$" stderr &&
	test_must_be_absent dest-x
'

test_done
