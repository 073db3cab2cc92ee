#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every command that writes a receipt, stopped by SIGINT, SIGTERM or
# SIGHUP at one of its phases, exits 2 within half a second, writes no
# receipt and no output (complete or absent), leaves no process behind,
# and run again to its end it passes: seal create inside a 3 GiB member
# and while it publishes its outputs, seal integrate between the members
# it reads from git,
# replicate prune while it checks the tree (nothing removed), and a
# continuation while its rerun verifies (the rerun is stopped with it).
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "strace is not installed (Debian package strace)"
as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"
git_setup

# nothing_left DIR...: none of DIR, and no temporary beside them.
nothing_left () {
	for d in "$@"; do
		test_must_be_absent "$d" || return 1
	done
	no_entry . "\\.tmp-\\|^\\.out" || { ls -A; return 1; }
}

test_expect_success 'setup: a tree holding one 3 GiB member (sparse), sealed' '
	mkdir -p big/runs && truncate -s 3G big/runs/series.bin && echo ok >big/runs/note.txt &&
	"$SEAL" create big -o sealed >/dev/null
'

test_expect_success 'seal create stops inside the member on SIGINT, SIGTERM and SIGHUP: no output at all' '
	for s in SIGINT SIGTERM SIGHUP; do
		stopped $s out-$s "$SEAL" create big -o out-$s || return 1
		grep -qx "seal: interrupted by a signal; nothing was written" stopped.err || return 1
		nothing_left out-$s || return 1
	done
'

test_expect_success 'seal create stops while it publishes its outputs (held at its first rename)' '
	mkdir small && echo x >small/a &&
	STOPPED_AFTER=0.5 STOPPED_WITHIN=1.2 stopped SIGTERM out-pub \
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f --seccomp-bpf -qq -o /dev/null -e trace=renameat2,renameat,rename \
		-e inject=renameat2,renameat,rename:delay_enter=1000000:when=1 \
		"$SEAL" create small -o out-pub &&
	nothing_left out-pub &&
	"$SEAL" create small -o out-pub >/dev/null && test -f out-pub/SEAL.json
'

test_expect_success 'seal integrate stops between the members it reads from git: no receipt' '
	mkdir -p many/notes && for i in $(seq 1 300); do echo "note $i" >many/notes/$i.txt || return 1; done &&
	"$SEAL" create many -o sealed-many >/dev/null &&
	"$SEAL" select --seal sealed-many/SEAL.json --include "notes/*" -o sel.json >/dev/null &&
	git_init repo && cp -R many repo/ev && git -C repo add ev && git -C repo commit -q -m evidence &&
	# every read held 0.03 s (strace): the signal lands halfway through the reads
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o reads.txt -e trace=read \
		"$SEAL" integrate --selection sel.json --repo repo --prefix ev --receipt counted.json >/dev/null &&
	n=$(grep -c " read(" reads.txt) &&
	STOPPED_AFTER=$(awk "BEGIN { print $n * 0.015 }") STOPPED_WITHIN=1 \
	stopped SIGINT i.json env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f --seccomp-bpf -qq -o /dev/null -e trace=read -e inject=read:delay_enter=30000 \
		"$SEAL" integrate --selection sel.json --repo repo --prefix ev --receipt i.json &&
	grep -qx "seal: interrupted by a signal; nothing is claimed, no receipt written" stopped.err &&
	"$SEAL" integrate --selection sel.json --repo repo --prefix ev --receipt i.json >/dev/null &&
	test "$(json_get i.json "d[\"result\"]")" = pass
'

test_expect_success 'replicate prune stops while it checks the tree: nothing removed, no cleanup receipt' '
	# a 1 GiB member: the tree is read to its end three times (two hosts, then prune)
	mkdir -p mid/runs && truncate -s 1G mid/runs/series.bin && echo ok >mid/runs/note.txt &&
	"$SEAL" create mid -o sealed-mid >/dev/null &&
	as_host hA "$REPLICATE" verify --seal sealed-mid/SEAL.json --receipt hA.json sealed-mid/archive.tar.zst >/dev/null &&
	as_host hB "$REPLICATE" verify --seal sealed-mid/SEAL.json --receipt hB.json sealed-mid/archive.tar.zst >/dev/null &&
	for s in SIGINT SIGHUP; do
		STOPPED_AFTER=0.1 stopped $s c.json "$REPLICATE" prune --seal sealed-mid/SEAL.json --receipt c.json \
			--receipts hA.json hB.json mid || return 1
		test -f mid/runs/note.txt && test "$(stat -c %s mid/runs/series.bin)" = 1073741824 || return 1
		no_entry . "^\\.mid\\." || return 1
	done &&
	"$REPLICATE" prune --seal sealed-mid/SEAL.json --receipt c.json --receipts hA.json hB.json mid >/dev/null &&
	test_must_be_absent mid && test "$(json_get c.json "d[\"result\"]")" = pass
'

test_expect_success 'a continuation stops with its rerun: no receipt, the rerun does not go on' '
	mkdir -p again/runs && truncate -s 3G again/runs/series.bin && echo aaaa >again/runs/note.txt &&
	"$SEAL" create again -o sealed-again >/dev/null &&
	echo bbbb >again/runs/note.txt &&
	test_expect_code 1 "$SEAL" verify --seal sealed-again/SEAL.json --receipt failed.json again >/dev/null 2>&1 &&
	STOPPED_AFTER=1 stopped SIGTERM cont.json "$SEAL" continue --original failed.json \
		--accept "sha256=[0-9a-f]{64}" --receipt cont.json &&
	grep -qx "seal: interrupted by a signal; the rerun was stopped, nothing is claimed, no receipt written" stopped.err &&
	sleep 0.2 && test -z "$(pgrep -af "verify --seal sealed-again" | grep -v pgrep)"
'

test_done
