#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run: a campaign cut short (SIGINT, or SIGKILL) resumes without
# repeating or losing a completed run: its run.json is untouched, the run
# that was cut short is kept under interrupted/ and run again, and the
# receipt says which runs this session made. A run whose sender exits
# nonzero is recorded as failed and never retried; the campaign goes on,
# or stops when the plan says so.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

# plan FILE ON_FAILURE B_EXIT: three probe cells run in the listed order,
# the senders a second long; cell B's sender exits with B_EXIT.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "resume", "warmups": 0, "measured": 1,
	 "order": "listed", "on_failure": "$2",
	 "cells": [
	  {"name": "A", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "1"], "cpu": 1, "outputs": {"probe": "p/sender"}}},
	  {"name": "B", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "$3", "1"], "cpu": 1, "outputs": {"probe": "p/sender"}}},
	  {"name": "C", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

# cut_short DIR SIGNAL: start the campaign of pinned-ok.json in DIR, and send
# SIGNAL to capture while run 2's sender runs.
cut_short () {
	# env --default-signal: a "&" job gets SIGINT ignored, which capture keeps
	{ env --default-signal "$CAPTURE" run pinned-ok.json -o "$1" >"$1.out" 2>"$1.err" & } &&
	pid=$! &&
	wait_for "$1/runs/002-baseline-B-1/p/sender/started" &&
	kill -s "$2" $pid &&
	{ wait $pid; st=$?; } &&
	echo $st >"$1.status"
}

test_expect_success 'setup' '
	plan ok.json continue 0 && plan fails.json continue 3 && plan stops.json stop 3
'

test_expect_success 'SIGINT: capture stops at once, exit 2, run 1 recorded, run 2 not, no receipt' '
	cut_short i INT &&
	test "$(cat i.status)" = 2 &&
	test "$(json_words i/runs/001-baseline-A-1/run.json "d[\"result\"]")" = ok &&
	test_must_be_absent i/runs/002-baseline-B-1/run.json i/runs/003-baseline-C-1 i/receipt-capture.json &&
	grep -q "^capture: 002-baseline-B-1: interrupted by a signal; run capture again to resume" i.err &&
	pid=$(cat i/runs/002-baseline-B-1/p/sender/pid) &&
	! kill -0 "$pid" 2>/dev/null
'

test_expect_success 'SIGTERM and SIGHUP stop it the same way: exit 2, the cut run unrecorded, no receipt, no side left' '
	for sig in TERM HUP; do
		cut_short $sig $sig || return 1
		test "$(cat $sig.status)" = 2 &&
		test "$(json_words $sig/runs/001-baseline-A-1/run.json "d[\"result\"]")" = ok &&
		test_must_be_absent $sig/runs/002-baseline-B-1/run.json $sig/receipt-capture.json &&
		grep -q "^capture: 002-baseline-B-1: interrupted by a signal; run capture again to resume" $sig.err &&
		! kill -0 "$(cat $sig/runs/002-baseline-B-1/p/sender/pid)" 2>/dev/null &&
		! kill -0 "$(cat $sig/runs/002-baseline-B-1/p/peer/pid)" 2>/dev/null || return 1
	done
'

test_expect_success 'resumed: the completed run is kept as it was, the cut one is set aside and run again' '
	before=$(sha256_of i/runs/001-baseline-A-1/run.json) &&
	started=$(cat i/runs/001-baseline-A-1/p/sender/started) &&
	"$CAPTURE" run pinned-ok.json -o i >out 2>err &&
	grep -q "^resuming the campaign in $PWD/i" out &&
	grep -q "^capture: 002-baseline-B-1 was cut short in an earlier session: kept as interrupted/002-baseline-B-1.1, run again" err &&
	! grep -q "001-baseline-A-1: ok" out &&
	test "$(sha256_of i/runs/001-baseline-A-1/run.json)" = "$before" &&
	test "$(cat i/runs/001-baseline-A-1/p/sender/started)" = "$started" &&
	test -e i/interrupted/002-baseline-B-1.1/p/sender/started &&
	test_must_be_absent i/interrupted/002-baseline-B-1.1/run.json &&
	test "$(json_words i/runs/002-baseline-B-1/run.json "d[\"result\"]")" = ok &&
	json_words i/receipt-capture.json "[(r[\"name\"], r[\"session\"], r[\"result\"]) for r in d[\"facts\"][\"runs\"]]" >got &&
	echo "001-baseline-A-1 earlier ok 002-baseline-B-1 this ok 003-baseline-C-1 this ok" >expect &&
	test_cmp expect got &&
	test "$(json_words i/receipt-capture.json "d[\"result\"]")" = pass &&
	test -e i/policy.json && test -e i/policy-2.json
'

# Resumed with a progress line asked for (as on a terminal): the runs
# accounted for, the earlier one included, and the run being made, each
# drawn as it starts; erased before each line and at the end.
test_expect_success 'SIGKILL: the pair dies with capture, and the campaign resumes the same way' '
	cut_short k KILL &&
	test "$(cat k.status)" = 137 &&
	pid=$(cat k/runs/002-baseline-B-1/p/sender/pid) &&
	n=0 && while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done &&
	! kill -0 "$pid" 2>/dev/null &&
	EVIDENCE_PROGRESS=always "$CAPTURE" run pinned-ok.json -o k >out 2>err &&
	test "$(json_words k/receipt-capture.json "[r[\"session\"] for r in d[\"facts\"][\"runs\"]]")" = "earlier this this" &&
	test -d k/interrupted/002-baseline-B-1.1 &&
	grep -q "capture: running: 1/3 runs: 002-baseline-B-1" err &&
	grep -q "capture: running: 2/3 runs: 003-baseline-C-1" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=never "$CAPTURE" run pinned-ok.json -o k >out 2>err &&
	! grep -q "running" err
'

test_expect_success 'a sender that exits nonzero: failed, recorded with its status, the others run, exit 1' '
	test_expect_code 1 "$CAPTURE" run pinned-fails.json -o f >out 2>err &&
	grep -q "^\[2/3\] 002-baseline-B-1: FAILED (.*): sender exited with status 3 (its stderr: native/sender.stderr)" out &&
	test "$(json_words f/runs/002-baseline-B-1/run.json "d[\"result\"], [(p[\"role\"], p[\"exit\"][\"code\"]) for p in d[\"processes\"]]")" = \
		"failed peer 0 sender 3" &&
	test "$(json_words f/runs/003-baseline-C-1/run.json "d[\"result\"]")" = ok &&
	test "$(json_words f/receipt-capture.json "d[\"result\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"].startswith(\"run \")]")" = \
		"fail pass fail pass"
'

test_expect_success 'a failed run is kept, never retried, when the campaign is run again' '
	before=$(sha256_of f/runs/002-baseline-B-1/run.json) &&
	test_expect_code 1 "$CAPTURE" run pinned-fails.json -o f >out 2>err &&
	test "$(sha256_of f/runs/002-baseline-B-1/run.json)" = "$before" &&
	! grep -q "^\[" out &&
	test "$(json_words f/receipt-capture-2.json "[(r[\"session\"], r[\"result\"]) for r in d[\"facts\"][\"runs\"]]")" = \
		"earlier ok earlier failed earlier ok"
'

test_expect_success 'on_failure stop: the runs after the failed one are not made, and say so' '
	test_expect_code 1 "$CAPTURE" run pinned-stops.json -o s >out 2>err &&
	test_must_be_absent s/runs/003-baseline-C-1 &&
	test "$(json_words s/receipt-capture.json "[r[\"result\"] for r in d[\"facts\"][\"runs\"]]")" = "ok failed not-run" &&
	test "$(json_words s/receipt-capture.json "d[\"facts\"][\"counts\"][\"not_run\"]")" = 1
'

test_expect_success 'another program listening on the peer'"'"'s port does not make the peer ready' '
	port=$(free_port) &&
	cat >listen.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "foreign", "warmups": 0, "measured": 1, "port": $port,
	 "cells": [
	  {"name": "A", "peer": {"argv": ["$PROBE", "{out:probe}", "0", "1"], "cpu": 0, "outputs": {"probe": "p/peer"},
	     "ready": {"tcp_listen": $port}},
	   "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin listen.json -o pinned-listen.json >/dev/null || return 1
	python3 -c "
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"127.0.0.1\", int(sys.argv[1]))); s.listen(); open(\"listening\", \"w\").close(); time.sleep(30)
" $port &
	foreign=$!
	wait_for listening && test_expect_code 1 "$CAPTURE" run pinned-listen.json -o l >out 2>err; st=$?
	kill $foreign; test $st = 0 &&
	test "$(json_words l/runs/001-baseline-A-1/run.json "d[\"result\"]")" = failed &&
	grep -q "^\[1/1\] 001-baseline-A-1: FAILED (.*): peer exited before it listened on port $port" out
'

test_expect_success 'resume never follows a linked runs/, interrupted/ or run directory: refused, nothing made there' '
	cut_short lk INT && test "$(cat lk.status)" = 2 &&
	mkdir elsewhere && mv lk/runs lk-runs && ln -s "$PWD/elsewhere" lk/runs &&
	test_expect_code 2 "$CAPTURE" run pinned-ok.json -o lk >out 2>err &&
	grep -q "^capture: .*lk/runs: a symbolic link, not a directory; refused: capture never follows a link" err &&
	dir_empty elsewhere &&
	rm lk/runs && mv lk-runs lk/runs && mv lk/interrupted lk-int && ln -s "$PWD/elsewhere" lk/interrupted &&
	test_expect_code 2 "$CAPTURE" run pinned-ok.json -o lk >out 2>err &&
	grep -q "lk/interrupted: a symbolic link, not a directory" err && dir_empty elsewhere &&
	rm lk/interrupted && mv lk-int lk/interrupted &&
	mv lk/runs/002-baseline-B-1 elsewhere/ && ln -s "$PWD/elsewhere/002-baseline-B-1" lk/runs/002-baseline-B-1 &&
	test_expect_code 2 "$CAPTURE" run pinned-ok.json -o lk >out 2>err &&
	grep -q "lk/runs/002-baseline-B-1: a symbolic link, not a directory" err &&
	test_must_be_absent elsewhere/002-baseline-B-1/run.json &&
	rm lk/runs/002-baseline-B-1 && "$CAPTURE" run pinned-ok.json -o lk >out 2>err &&
	test "$(json_words lk/runs/002-baseline-B-1/run.json "d[\"result\"]")" = ok
'

test_done
