#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Faults survived, capture's writers: pin and run, each with every write,
# sync, rename, mkdir, create and close of its own failing in turn (EIO,
# ENOSPC, EDQUOT), SIGKILL entering each, and its writes cut short by a
# file size limit (tests/lib/fault-sweep.py): a fault exits 1 or 2 naming
# the error with nothing new in place that says pass; a crash leaves only
# whole files (a receipt's outputs with their digests); the same command
# then completes (a run resumes where the crash left it). The table of
# calls and cases is printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "needs strace"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

test_expect_success 'setup: a plan of one probe pair, pinned' '
	mkdir tpl && cat >tpl/plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "faults", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "peer/probe"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	(cd tpl && "$CAPTURE" pin plan.json -o pinned.json >/dev/null)
'

test_expect_success 'capture pin: a pinned plan in place only whole' '
	fault_sweep "capture pin" "test ! -e p2.json || python3 -c \"import json,sys; json.load(open(sys.argv[1]))\" p2.json" \
		--again-refused "p2.json: already exists" -- "$CAPTURE" pin plan.json -o p2.json
'

# A crash leaves a campaign to resume (capture run resumes a DIR it
# began); a fault inside a run is kept as that run's failure, named, and
# never retried: the campaign then fails, again and again.
test_expect_success 'capture run: a campaign whole, or resumed to whole' '
	fault_sweep "capture run" "test \$FAULT_MODE != again || python3 -c \"import json; json.load(open(\\\"c/receipt-capture.json\\\"))\"" \
		--mutable c --again-fails "FAIL: campaign " -- "$CAPTURE" run pinned.json -o c
'

test_expect_success 'the table has a row of cases for each writer' '
	test "$(grep -c "cases, every one held$" table.txt)" = 2
'
cat table.txt

test_done
