#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run with observers: a pinned program (here a stand-in for
# Onload's onload_stackdump, which prints the documented format: there is
# no Onload on this machine) runs in each side's network namespace before
# the run, during it at the sampling interval, and after it; every output
# is kept under observe/NAME/SIDE/ and hashed into run.json. An observer
# that is not pinned, or whose arguments name an unknown variable, is
# refused before anything runs.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "network namespaces need root"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99
cp "$EV_SRCDIR/tests/capture/onload_stackdump" . && chmod 755 onload_stackdump && DUMP=$PWD/onload_stackdump

# plan FILE [OBSERVER_ARGV]: one probe cell in two namespaces, the sender
# a second long with two EF_ options, the peer outliving it by far (the
# "after" observation must find it: 0.2 s was missed under load), the
# stand-in observing both sides.
plan () {
	argv=${2:-}
	[ -n "$argv" ] || argv="[\"$DUMP\", \"lots\", \"{pid}\", \"{side}\"]"
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "observed", "warmups": 0, "measured": 1,
	 "namespaces": "veth", "observe": {"interval_ms": 200},
	 "observers": [{"name": "stackdump", "argv": $argv, "format": "onload"}],
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}", "0", "3"], "cpu": 0, "outputs": {"probe": "peer/probe"},
	           "env": {"EF_POLL_USEC": "0"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}", "0", "1"], "cpu": 1, "outputs": {"probe": "sender/probe"},
	             "env": {"EF_POLL_USEC": "100000", "EF_TCP_RCVBUF": "262144"}}}]}
	EOF
}

test_expect_success 'capture pin pins the observer with the programs' '
	plan p.json &&
	"$CAPTURE" pin p.json -o pinned.json >out &&
	echo "pinned 2 programs and 0 files: pinned.json" >expect && test_cmp expect out &&
	test "$(json_words pinned.json "d[\"pins\"][\"$DUMP\"]")" = "$(sha256_of onload_stackdump)"
'

test_expect_success 'the observer runs before, during and after, in each side'"'"'s namespace; each output kept and hashed' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	r=c/runs/001-baseline-A-1 &&
	test "$(json_words $r/run.json "d[\"result\"]")" = ok &&
	test "$(json_words $r/run.json "[(o[\"name\"], o[\"side\"], o[\"format\"]) for o in d[\"observers\"]]")" = "stackdump sender onload stackdump peer onload" &&
	for side in sender peer; do
		json_words $r/run.json "[(x[\"when\"], x[\"stdout\"], x[\"sha256\"], x[\"exit\"][\"code\"]) for o in d[\"observers\"] if o[\"side\"] == \"$side\" for x in o[\"outputs\"]]" >got &&
		set -- $(cat got) &&
		test "$1 $2" = "before observe/stackdump/$side/before.txt" &&
		test "$3" = "$(sha256_of $r/$2)" && test "$4" = 0 &&
		during=$(grep -o "during observe/stackdump/$side/during-[0-9]*.txt" got | wc -l) &&
		test "$during" -ge 2 &&
		grep -q "after observe/stackdump/$side/after.txt" got &&
		json_words $r/run.json "[(x[\"stdout\"], x[\"sha256\"]) for o in d[\"observers\"] if o[\"side\"] == \"$side\" for x in o[\"outputs\"]]" |
			tr " " "\n" | paste - - | while read -r f sum; do
				test "$sum" = "$(sha256_of $r/$f)" || { echo "$f: recorded $sum" >&2; exit 1; }
			done || return 1
		grep -q "^onload_stackdump: netns $(cat $r/$side/probe/netns)$" $r/observe/stackdump/$side/before.txt &&
		grep -q "^onload_stackdump: netns $(cat $r/$side/probe/netns)$" $r/observe/stackdump/$side/during-0001.txt || return 1
	done &&
	grep -q "EF_POLL_USEC: 100000 (default: 0)" $r/observe/stackdump/sender/during-0001.txt &&
	grep -q "EF_POLL_USEC: 0 (default: 0)" $r/observe/stackdump/peer/after.txt &&
	grep -q "^no stacks$" $r/observe/stackdump/sender/before.txt
'

test_expect_success 'an observer that hangs does not hold capture: SIGINT stops it all within half a second' '
	cat >slow <<-\EOF &&
	#!/bin/sh
	echo "slow observer $$" && exec sleep 31.7
	EOF
	chmod 755 slow &&
	plan slow.json "[\"$PWD/slow\"]" &&
	sed -i "s/\"0\", \"1\"\]/\"0\", \"5\"]/" slow.json &&
	"$CAPTURE" pin slow.json -o pinned-slow.json >/dev/null &&
	STOPPED_AFTER=1.5 stopped SIGINT s/receipt-capture.json "$CAPTURE" run pinned-slow.json -o s &&
	grep -q "^capture: 001-baseline-A-1: interrupted by a signal; run capture again to resume$" stopped.err &&
	test_must_be_absent s/runs/001-baseline-A-1/run.json &&
	! pgrep -f "^sleep 31.7$" >/dev/null
'

test_expect_success 'an observer that is not pinned is refused before anything runs' '
	sed "s|\"$DUMP\":\"[0-9a-f]*\",\\?||" pinned.json >unpinned.json && ! grep -q "\"$DUMP\":" unpinned.json &&
	test_expect_code 2 "$CAPTURE" run unpinned.json -o u 2>err &&
	echo "capture: observer stackdump: $DUMP: not pinned in the plan (its SHA-256 is $(sha256_of onload_stackdump)); '"'"'capture pin PLAN -o PINNED'"'"' pins every program and input as it is now" >expect &&
	test_cmp expect err && test_must_be_absent u
'

test_expect_success 'an observer argument with an unknown variable, and a relative program, are refused at load' '
	plan v.json "[\"$DUMP\", \"{port}\"]" &&
	test_expect_code 2 "$CAPTURE" run v.json -o u 2>err &&
	echo "capture: v.json: observers[0]: \"{port}\": an observer knows {iface}, {side} and {pid} ({{ for a '"'"'{'"'"')" >expect &&
	test_cmp expect err &&
	plan rel.json "[\"onload_stackdump\", \"lots\"]" &&
	test_expect_code 2 "$CAPTURE" run rel.json -o u 2>err &&
	echo "capture: rel.json: observers[0]: \"argv\"[0]: expected an absolute path (a program is pinned by its path)" >expect &&
	test_cmp expect err && test_must_be_absent u
'

test_done
