#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Durability where it is claimed: the last step of publishing an output is
# the fsync of the directory that names it, after the rename. When that
# fsync fails (strace injects EIO into it, found as the last fsync a run
# without faults makes), the name may not survive a crash, so nothing that
# says pass is left behind: seal create's OUTDIR goes back under its
# temporary name and is removed, replicate verify's receipt is unlinked,
# each command exits 2 naming the directory, the error and that nothing is
# published; and the same command without the fault then passes. (Every
# other call of both, failed and crashed in turn: the fault sweeps,
# tests/*/t-every-write-of-*-failed-and-crashed-in-turn.sh.)
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

test_done
