#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Durability where it is claimed: the last step of publishing an output is
# the fsync of the directory that names it, after the rename. When that
# fsync fails (strace injects EIO into it, found as the last fsync a run
# without faults makes), the name may not survive a crash, so nothing that
# says pass is left behind: seal create's OUTDIR goes back under its
# temporary name and is removed, replicate verify's receipt is unlinked,
# each command exits 2 naming the directory, the error and that nothing is
# published; and the same command without the fault then passes. The same
# holds for every other fsync and rename of both commands, each failed in
# turn (the k-th call of each, for every k): exit 2, nothing at the final
# name, no temporary left, and the table of calls and faults printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "needs strace"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# last_fsync COMMAND...: how many fsync calls COMMAND makes (every thread)
last_fsync () {
	strace -f -qq -e trace=fsync -o fsyncs.txt "$@" >/dev/null 2>&1 &&
	grep -c "fsync(" fsyncs.txt
}

test_expect_success 'setup: a tree to seal' '
	mkdir -p ev/runs && printf "run 1\n" >ev/runs/log && printf "x\n" >ev/b
'

test_expect_success 'seal create: the sync of OUTDIR'"'"'s parent fails: OUTDIR taken back, exit 2 saying so; then it publishes' '
	n=$(last_fsync "$SEAL" create ev -o probe) && test "$n" -ge 2 &&
	test_expect_code 2 strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=$n \
		"$SEAL" create ev -o out >stdout 2>err &&
	grep -q "^seal: out: fsync of directory failed: Input/output error; taken back out of place: nothing is published$" err &&
	test_must_be_absent out &&
	test -z "$(find . -maxdepth 1 -name ".out*")" &&
	"$SEAL" create ev -o out >/dev/null &&
	"$SEAL" verify --seal out/SEAL.json ev >/dev/null
'

test_expect_success 'replicate verify --receipt: the sync of the receipt'"'"'s directory fails: the receipt is removed, exit 2; then it publishes' '
	n=$(last_fsync "$REPLICATE" verify --seal out/SEAL.json --receipt probe.json out/archive.tar.zst) &&
	test_expect_code 2 strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=$n \
		"$REPLICATE" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst >stdout 2>err &&
	grep -q "r.json: fsync of directory failed: Input/output error; taken back out of place: nothing is published$" err &&
	test_must_be_absent r.json &&
	test -z "$(find . -maxdepth 1 -name ".r.json*")" &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst >/dev/null &&
	test "$(json_words r.json "d[\"result\"]")" = pass
'

# sweep SYSCALL OUT_NAME COMMAND...: COMMAND (whose output is OUT_NAME)
# with the k-th SYSCALL failing with EIO, for every k it makes; each run
# exits 2, leaves nothing at OUT_NAME and no temporary beside it
sweep () {
	call=$1 name=$2
	shift 2
	strace -f -qq -e trace=$call -o calls.txt "$@" >/dev/null 2>&1 || return 1
	rm -rf "$name"
	total=$(grep -c "^[0-9]* *$call(" calls.txt)
	k=1
	while [ "$k" -le "$total" ]; do
		test_expect_code 2 strace -f -qq -o /dev/null -e trace=$call -e inject=$call:error=EIO:when=$k "$@" \
			>/dev/null 2>err || { echo "$call #$k of $total: not exit 2"; cat err; return 1; }
		grep -q "Input/output error" err || { echo "$call #$k: the error is not named"; cat err; return 1; }
		[ ! -e "$name" ] || { echo "$call #$k of $total: $name left in place"; return 1; }
		[ -z "$(find . -maxdepth 1 -name ".$name*")" ] || { echo "$call #$k of $total: a temporary left"; return 1; }
		k=$((k + 1))
	done
	echo "# $* : $call $total calls, $total faults, held" >&3
}

test_expect_success 'every fsync and rename of seal create and replicate verify, failed in turn: exit 2, nothing in place, no temporary' '
	exec 3>>sweep-table.txt &&
	sweep fsync out2 "$SEAL" create ev -o out2 &&
	sweep renameat2 out2 "$SEAL" create ev -o out2 &&
	sweep fsync r2.json "$REPLICATE" verify --seal out/SEAL.json --receipt r2.json out/archive.tar.zst &&
	sweep renameat2 r2.json "$REPLICATE" verify --seal out/SEAL.json --receipt r2.json out/archive.tar.zst &&
	cat sweep-table.txt &&
	test "$(wc -l <sweep-table.txt)" = 4
'

test_done
