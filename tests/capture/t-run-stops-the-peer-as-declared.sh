#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run: the peer ends the way its plan declares, once the sender is
# done: by itself, by a line on its stdin (llfix's server quits on "q"),
# or by a signal, each within a grace period, then SIGKILL and a failed
# run. A death by signal passes only when capture sent that signal.
# run.json records the stop declared, when capture asked, and how the
# process ended; each side runs in a working directory of its own.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

# server OUTDIR MODE: a peer that records its PID and working directory,
# then: "quits" reads lines until "q" and exits 0; "ignores" never reads
# its stdin and shrugs off SIGTERM; "term" exits 0 on SIGTERM; "suicide"
# kills itself with SIGTERM before the sender is done.
cat >server <<'EOF'
#!/bin/sh
out=$1
mkdir -p "$out" && echo $$ >"$out/pid" && pwd >"$out/cwd"
case $2 in
quits) while read -r line; do [ "$line" = q ] && { echo "$line" >"$out/got"; exit 0; }; done; exit 3 ;;
ignores) trap '' TERM; while :; do sleep 0.05; done ;;
term) trap 'echo TERM >"$out/got"; exit 0' TERM; while :; do sleep 0.05; done ;;
suicide) sleep 0.2; kill -s TERM $$ ;;
esac
EOF
chmod 755 server && SERVER=$PWD/server

# plan FILE MODE STOP: one cell; the sender sleeps half a second.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "stops", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$SERVER", "{out:probe}", "$2"], "cpu": 0, "outputs": {"probe": "peer/probe"} $3},
	  "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0.5"], "cpu": 1, "outputs": {"probe": "sender/probe"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

# stop_of DIR: the peer's recorded stop and end, as words.
stop_of () {
	json_words "$1/runs/001-baseline-A-1/run.json" \
		'd["result"], [(p["stop"]["how"], p["stop"]["ended"], p["stop"]["requested"] is not None, sorted(p["exit"].items())) for p in d["processes"] if p["role"] == "peer"]'
}

test_expect_success 'stdin: a server that quits on "q" gets "q" once the sender is done, and the run passes' '
	plan q.json quits ", \"stop\": {\"how\": \"stdin\", \"line\": \"q\", \"grace_ms\": 3000}" &&
	"$CAPTURE" run pinned-q.json -o q >out 2>err &&
	test "$(stop_of q)" = "ok stdin stopped True code 0" &&
	test "$(cat q/runs/001-baseline-A-1/peer/probe/got)" = q &&
	test "$(json_words q/runs/001-baseline-A-1/run.json "[p[\"stop\"][\"line\"] for p in d[\"processes\"] if p[\"role\"] == \"peer\"]")" = q
'

test_expect_success 'each side ran in its own working directory inside the run directory, recorded as its cwd' '
	r=$PWD/q/runs/001-baseline-A-1 &&
	test "$(cat $r/peer/probe/cwd)" = "$r/peer" &&
	test "$(cat $r/sender/probe/cwd)" = "$r/sender" &&
	test "$(json_words $r/run.json "[p[\"cwd\"] for p in d[\"processes\"]]")" = "$r/peer $r/sender"
'

test_expect_success 'stdin: a server that ignores its stop is killed after its grace period and the run fails' '
	plan ign.json ignores ", \"stop\": {\"how\": \"stdin\", \"line\": \"q\", \"grace_ms\": 300}" &&
	test_expect_code 1 "$CAPTURE" run pinned-ign.json -o ign >out 2>err &&
	test "$(stop_of ign)" = "failed stdin killed True name Killed signal 9" &&
	test "$(json_words ign/runs/001-baseline-A-1/run.json "d[\"failure\"]")" = "peer still running 0.3 s after its stop (\"q\" on stdin); killed" &&
	! kill -0 "$(cat ign/runs/001-baseline-A-1/peer/probe/pid)" 2>/dev/null
'

test_expect_success 'signal: a peer stopped by the SIGTERM capture sends passes, and its exit is recorded' '
	plan t.json term ", \"stop\": {\"how\": \"signal\", \"signal\": \"TERM\", \"grace_ms\": 3000}" &&
	"$CAPTURE" run pinned-t.json -o t >out 2>err &&
	test "$(stop_of t)" = "ok signal stopped True code 0" &&
	test "$(cat t/runs/001-baseline-A-1/peer/probe/got)" = TERM
'

test_expect_success 'signal: "after_sender": "terminate" is a SIGTERM stop; death by it passes' '
	plan old.json ignores ", \"after_sender\": \"terminate\"" &&
	sed "s/trap .. TERM; //" server >plain && chmod 755 plain &&
	sed "s|$SERVER|$PWD/plain|" pinned-old.json >old2.json && "$CAPTURE" pin old2.json -o pinned-old2.json >/dev/null &&
	"$CAPTURE" run pinned-old2.json -o old >out 2>err &&
	test "$(stop_of old)" = "ok signal stopped True name Terminated signal 15"
'

test_expect_success 'a death by a signal capture did not send fails the run, even one the plan would accept' '
	plan s.json suicide ", \"stop\": {\"how\": \"signal\", \"signal\": \"TERM\"}" &&
	test_expect_code 1 "$CAPTURE" run pinned-s.json -o s >out 2>err &&
	test "$(stop_of s)" = "failed signal exited False name Terminated signal 15" &&
	test "$(json_words s/runs/001-baseline-A-1/run.json "d[\"failure\"]")" = "peer was killed by signal 15 (Terminated), which capture had not sent"
'

test_expect_success 'exit: a peer that must exit by itself and does not is killed after its grace' '
	plan e.json ignores ", \"stop\": {\"how\": \"exit\", \"grace_ms\": 200}" &&
	test_expect_code 1 "$CAPTURE" run pinned-e.json -o e >out 2>err &&
	test "$(stop_of e)" = "failed exit killed False name Killed signal 9" &&
	test "$(json_words e/runs/001-baseline-A-1/run.json "d[\"failure\"]")" = "peer still running 0.2 s after the sender ended (it was to exit by itself); killed"
'

# refused PLAN_TAIL MESSAGE: a plan whose peer ends with PLAN_TAIL is refused at load.
refused () {
	plan bad.json quits "$1" 2>/dev/null
	test_expect_code 2 "$CAPTURE" run bad.json -o c >out 2>err &&
	echo "capture: bad.json: cell A peer: $2" >expect && test_cmp expect err && test_must_be_absent c
}

test_expect_success 'stops that cannot be carried out are refused before anything runs' '
	refused ", \"stop\": {\"how\": \"stdin\"}" "\"stop\": \"line\": expected the line to write, without its newline, at most 256 bytes" &&
	refused ", \"stop\": {\"how\": \"stdin\", \"line\": \"q\\n\"}" "\"stop\": \"line\": expected the line to write, without its newline, at most 256 bytes" &&
	refused ", \"stop\": {\"how\": \"signal\", \"signal\": \"KILL\"}" "\"stop\": \"signal\": expected one of TERM, INT, HUP, QUIT, USR1, USR2" &&
	refused ", \"stop\": {\"how\": \"wait\"}" "\"stop\": \"how\": expected \"exit\", \"stdin\" or \"signal\"" &&
	refused ", \"stop\": {\"how\": \"exit\", \"line\": \"q\"}" "\"stop\": \"line\" is for \"how\": \"stdin\"" &&
	refused ", \"stop\": {\"how\": \"exit\"}, \"after_sender\": \"wait\"" "\"after_sender\" and \"stop\" both given: keep \"stop\"" &&
	refused ", \"stop\": {\"how\": \"exit\", \"grace_ms\": 0}" "\"grace_ms\": expected an integer from 1 to 600000"
'

test_expect_success 'the sender has no stop: it ends the run by exiting' '
	plan snd.json quits "" &&
	sed "s|\"cpu\": 1,|\"cpu\": 1, \"stop\": {\"how\": \"exit\"},|" snd.json >snd2.json &&
	test_expect_code 2 "$CAPTURE" run snd2.json -o c 2>err &&
	echo "capture: snd2.json: cell A sender: \"stop\": only for the peer (the sender ends the run by exiting, within timeout_seconds)" >expect &&
	test_cmp expect err
'

test_done
