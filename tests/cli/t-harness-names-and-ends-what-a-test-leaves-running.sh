#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lib/run-test, which make check puts in front of every test: the test
# runs with default signals, stdin /dev/null, its own session and a private
# TMPDIR however the suite was started, and a process it leaves behind is
# named, killed and fails it. The cases run run-test themselves, under the
# dispositions nohup and a script's background give. test_skip_case reports
# a case the host cannot run as "# skip REASON", never as one that held.
. "$EV_SRCDIR/tests/lib/lib.sh"
RUN_TEST="$EV_BUILDDIR/tests/lib/run-test"

test_expect_success 'a child left running is named with its pid and command line, killed, and fails the test' '
	cat >leaky.sh <<-\EOF &&
	sleep 300 &
	echo $! >leaked.pid
	exit 0
	EOF
	test_expect_code 1 "$RUN_TEST" sh leaky.sh 2>err &&
	leaked=$(cat leaked.pid) &&
	grep -q "^run-test: leaky.sh left 1 process running after it ended; killed:$" err &&
	grep -q "^  pid $leaked: sleep 300$" err &&
	! kill -0 "$leaked" 2>/dev/null
'

test_expect_success 'a daemon that left its session and its parent is caught as well' '
	cat >daemon.sh <<-\EOF &&
	setsid sh -c "sleep 301 & echo \$! >daemon.pid; exit 0" &
	wait
	EOF
	test_expect_code 1 "$RUN_TEST" sh daemon.sh 2>err &&
	leaked=$(cat daemon.pid) &&
	grep -q "^  pid $leaked: sleep 301$" err &&
	! kill -0 "$leaked" 2>/dev/null
'

test_expect_success 'an orphan that ends is reaped at once, as init would: a test polling for its end sees it' '
	cat >orphan.sh <<-\EOF &&
	sh -c "sleep 0.3 >/dev/null 2>&1 & echo \$! >orphan.pid"
	n=0
	while kill -0 "$(cat orphan.pid)" 2>/dev/null; do
		n=$((n + 1)); [ $n -lt 50 ] || exit 1; sleep 0.1
	done
	EOF
	"$RUN_TEST" sh orphan.sh
'

test_expect_success 'a test that stops what it started passes, and its private TMPDIR goes' '
	cat >tidy.sh <<-\EOF &&
	echo "$TMPDIR" >tmpdir
	touch "$TMPDIR/left-by-the-test"
	sleep 300 & pid=$!
	kill $pid; wait $pid
	exit 0
	EOF
	"$RUN_TEST" sh tidy.sh 2>err &&
	! contains "^run-test:" <err &&
	tmp=$(cat tmpdir) &&
	case "$tmp" in "${TMPDIR:-/tmp}"/ev-test.*) ;; *) false ;; esac &&
	test ! -e "$tmp"
'

test_expect_success 'a failing test keeps its TMPDIR and says where' '
	test_expect_code 3 "$RUN_TEST" sh -c "touch \"\$TMPDIR/kept\"; exit 3" 2>err &&
	kept=$(sed -n "s/^run-test: .* failed (status 3); its TMPDIR is kept in //p" err) &&
	test -e "$kept/kept" &&
	rm -rf "$kept"
'

test_expect_success 'under nohup and a background job, the test still gets default signals, no stdin, its own session' '
	cat >look.sh <<-\EOF &&
	# the standard signals: glibc keeps two real-time ones of its own
	for f in SigIgn SigBlk; do
		printf "%s %x\n" $f $(( 0x$(sed -n "s/^$f:\t//p" /proc/$$/status) & 0x7fffffff ))
	done
	readlink /proc/$$/fd/0
	test "$(ps -o sid= -p $$ | tr -d " ")" = $$ && echo own-session
	echo "LC_ALL=$LC_ALL"
	EOF
	(trap "" INT QUIT HUP && exec nohup "$RUN_TEST" sh look.sh >out 2>/dev/null </dev/zero) &&
	cat >want <<-\EOF &&
	SigIgn 0
	SigBlk 0
	/dev/null
	own-session
	LC_ALL=C.UTF-8
	EOF
	test_cmp want out
'

test_expect_success 'SIGTERM to run-test reaches the test, whose status it returns' '
	# (the script is written first: "a && b &" would put both in the background)
	printf "echo started >started\nexec sleep 300\n" >slow.sh || return 1
	"$RUN_TEST" sh slow.sh 2>err & runner=$!
	test -n "$runner" &&
	for i in $(seq 100); do test -s started && break; sleep 0.05; done &&
	kill -TERM $runner &&
	{ wait $runner; test $? = 143; }
'

test_expect_success 'a case this host cannot run is reported as a TAP skip with its reason; a bare exit 77 is still a failure' '
	cat >skips.sh <<-\EOF &&
	. "$EV_SRCDIR/tests/lib/lib.sh"
	test_expect_success "needs a thing" "false || test_skip_case \"no thing here\"; false"
	test_expect_success "runs" "true"
	test_expect_success "exits 77 itself" "exit 77"
	test_done
	EOF
	test_expect_code 1 sh skips.sh >out &&
	grep -qx "ok 1 - needs a thing # skip no thing here" out &&
	grep -qx "ok 2 - runs" out &&
	grep -qx "not ok 3 - exits 77 itself" out &&
	grep -qx "# 1 of 3 failed; trash kept in .*" out
'

test_done
