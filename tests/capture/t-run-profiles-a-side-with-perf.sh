#!/bin/sh
# capture run with a side profiled: perf (pinned like any program) is
# attached by PID to the sender before it execs, only for the runs the
# plan names, writes perf.data with no build-id cache (the pinned
# binaries' ctime stays), is stopped by capture with SIGINT, and its end
# is accepted because capture asked for it; run.json records the command,
# the event used (cycles, or cpu-clock where there is no cycle counter),
# samples, lost samples and the perf.data SHA-256. A perf stopped by
# anyone else fails the run; a profiled plan without a pinned perf is
# refused before anything runs.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "attaching perf to another user's process needs root"
[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
PERF=$(command -v perf || true)
[ -n "$PERF" ] || test_skip_all "perf (Debian's linux-perf) is not installed"
"$PERF" stat -e cpu-clock true >/dev/null 2>&1 || test_skip_all "perf cannot count here"
P=$EV_BUILDDIR/capture/pair

# plan FILE MEASURED [PROFILE_EXTRA]: the reference pair, paced at 20000
# orders a second, the sender profiled in its first repeat of two.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "profiled", "warmups": 100, "measured": $2, "repeats": 2,
	 "order": "listed", "perf": "$PERF", "namespaces": "veth",
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--journal", "{out:journal}",
	     "--journal-file-size", "262144"], "cpu": 0, "outputs": {"journal": "peer/journal"}, "ready": {"tcp_listen": 11001}},
	  "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--rate", "20000", "--journal", "{out:journal}", "--journal-file-size", "262144"],
	     "cpu": 1, "outputs": {"journal": "sender/journal"},
	     "profile": {"event": "cycles", "frequency": 2000, "runs": 1 ${3:-}}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

test_expect_success 'setup: capture pin pins perf with the programs' '
	plan p.json 10000 &&
	test "$(json_words pinned-p.json "d[\"pins\"][\"$PERF\"]")" = "$(sha256_of "$PERF")"
'

test_expect_success 'the first repeat is profiled: perf attached to the sender'"'"'s PID, stopped by capture, its end accepted' '
	ctime=$(stat -c %Z "$P/fix-sender") &&
	"$CAPTURE" run pinned-p.json -o c >out 2>err &&
	r=c/runs/001-baseline-A-1 &&
	test "$(json_words $r/run.json "d[\"result\"]")" = ok &&
	pid=$(json_words $r/run.json "[p[\"pid\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]") &&
	test "$(json_words $r/run.json "[(p[\"profile\"][\"pid\"], p[\"profile\"][\"perf_data\"], p[\"profile\"][\"lost\"], p[\"profile\"][\"samples\"] > 0, p[\"profile\"][\"stopped\"] is not None) for p in d[\"processes\"] if p[\"role\"] == \"sender\"]")" = \
		"$pid profile/sender/perf.data 0 True True" &&
	test "$(json_words $r/run.json "[p[\"profile\"][\"sha256\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]")" = "$(sha256_of $r/profile/sender/perf.data)" &&
	event=$(json_words $r/run.json "[p[\"profile\"][\"event\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]") &&
	case $event in
	cycles) test "$(json_words $r/run.json "[p[\"profile\"][\"fallback\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]")" = None ;;
	cpu-clock) json_words $r/run.json "[p[\"profile\"][\"fallback\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]" | grep -q "^cycles: no hardware counter here" ;;
	*) false ;;
	esac &&
	"$PERF" report -i $r/profile/sender/perf.data --stdio --sort pid 2>/dev/null | sed -n "s/^ *[0-9.]*% *//p" >pids &&
	echo "$pid:fix-sender" >expect && test_cmp expect pids &&
	test "$(stat -c %Z "$P/fix-sender")" = "$ctime"
'

test_expect_success 'the second repeat is not profiled: it stays the measurement' '
	test "$(json_words c/runs/002-baseline-A-2/run.json "d[\"result\"], [\"profile\" in p for p in d[\"processes\"]]")" = "ok False False" &&
	test_must_be_absent c/runs/002-baseline-A-2/profile
'

test_expect_success 'a perf stopped by anyone but capture fails the run' '
	plan long.json 60000 &&
	{ "$CAPTURE" run pinned-long.json -o k >out 2>err & } &&
	pid=$! &&
	n=0 && until perf_pid=$(pgrep -f "^$PERF record .*-o $PWD/k/runs/001-baseline-A-1/profile/sender/perf.data") &&
		test -s k/runs/001-baseline-A-1/sender/journal/1.bin 2>/dev/null; do
		n=$((n + 1)) && test $n -lt 200 || return 1; sleep 0.02
	done &&
	kill -s INT $perf_pid &&
	{ wait $pid; test $? = 1; } &&
	test "$(json_words k/runs/001-baseline-A-1/run.json "d[\"result\"], d[\"failure\"]")" = \
		"failed perf (profiling the sender) ended while the sender still ran, and capture had not stopped it"
'

test_expect_success 'a profiled plan without perf, or with perf not pinned, is refused before anything runs' '
	plan nop.json 1000 && sed "s|\"perf\": \"$PERF\", ||" nop.json >noperf.json &&
	test_expect_code 2 "$CAPTURE" run noperf.json -o n 2>err &&
	echo "capture: noperf.json: plan: a side is profiled: name perf'"'"'s absolute path (\"perf\": \"/usr/bin/perf\")" >expect &&
	test_cmp expect err &&
	sed "s|\"$PERF\":\"[0-9a-f]*\",\\?||" pinned-nop.json >unpinned.json && ! grep -q "\"$PERF\":\"" unpinned.json &&
	test_expect_code 2 "$CAPTURE" run unpinned.json -o n 2>err &&
	echo "capture: perf: $PERF: not pinned in the plan (its SHA-256 is $(sha256_of "$PERF")); '"'"'capture pin PLAN -o PINNED'"'"' pins every program and input as it is now" >expect &&
	test_cmp expect err && test_must_be_absent n
'

test_expect_success 'a profile that cannot be carried out is refused at load' '
	plan both.json 1000 ", \"period\": 1000" 2>/dev/null;
	test_expect_code 2 "$CAPTURE" run both.json -o n 2>err &&
	echo "capture: both.json: cell A sender: \"profile\": \"frequency\" or \"period\", not both" >expect && test_cmp expect err &&
	sed "s/\"event\": \"cycles\"/\"event\": \"cycles; rm -rf x\"/" p.json >bad.json &&
	test_expect_code 2 "$CAPTURE" run bad.json -o n 2>err &&
	echo "capture: bad.json: cell A sender: \"profile\": \"event\": expected a perf event name such as cycles or cpu-clock" >expect &&
	test_cmp expect err && test_must_be_absent n
'

test_done
