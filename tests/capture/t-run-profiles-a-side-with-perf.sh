#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run with a side profiled: perf (pinned like any program) is
# attached by PID to the sender before it execs, only for the runs the
# plan names, writes perf.data with no build-id cache (the pinned
# binaries' ctime stays), is stopped by capture with SIGINT, and its end
# is accepted because capture asked for it; run.json records the command,
# the event used (cycles, or cpu-clock where there is no cycle counter),
# samples, lost samples and the perf.data SHA-256. A perf stopped by
# anyone else fails the run; a profiled plan without a pinned perf is
# refused before anything runs. audit profile reads perf.data cold (its
# hash against run.json, every sample the native's, no sample lost, the
# shares by object, symbol and the split; children with call graphs) and
# audit campaign keeps a profiled run out of its cell's statistics.
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
	     "--measured", "{measured}", "--rate", "20000", "--journal", "{out:journal}", "--journal-file-size", "262144",
	     "--series", "{out:series}", "--report", "{out:report}"],
	     "cpu": 1, "outputs": {"journal": "sender/journal", "series": "sender/series.bin", "report": "sender/report.json"},
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
	cpu-clock) json_words $r/run.json "[p[\"profile\"][\"fallback\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]" | contains "^cycles: no hardware counter here" ;;
	*) false ;;
	esac &&
	"$PERF" script -i $r/profile/sender/perf.data --show-task-events -F pid 2>/dev/null >script.txt &&
	/usr/bin/python3 - "$pid" script.txt <<-\PY &&
	# every sample is of the sender process, or of one it forked (a helper
	# of a sanitizer, say), as the FORK events of perf show
	import re, sys
	tree, samples = {int(sys.argv[1])}, 0
	for line in open(sys.argv[2]):
	    m = re.search(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)", line)
	    if m and int(m.group(2)) in tree:
	        tree.add(int(m.group(1)))
	    elif line.strip().isdigit():
	        assert int(line) in tree, "a sample of PID %s" % line.strip()
	        samples += 1
	assert samples > 0
	PY
	test "$(stat -c %Z "$P/fix-sender")" = "$ctime"
'

test_expect_success 'the second repeat is not profiled: it stays the measurement' '
	test "$(json_words c/runs/002-baseline-A-2/run.json "d[\"result\"], [\"profile\" in p for p in d[\"processes\"]]")" = "ok False False" &&
	test_must_be_absent c/runs/002-baseline-A-2/profile
'

test_expect_success 'audit profile reads it cold: the native'"'"'s PID, no sample lost, self shares without call graphs' '
	r=c/runs/001-baseline-A-1 &&
	"$AUDIT" profile --perf "$PERF" --receipt prof.json $r >out 2>err &&
	pid=$(json_words $r/run.json "[p[\"pid\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]") &&
	test "$(json_words prof.json "d[\"result\"], d[\"facts\"][\"profile\"][\"sender\"][\"pid\"], d[\"facts\"][\"profile\"][\"sender\"][\"lost\"], d[\"facts\"][\"profile\"][\"sender\"][\"call_graphs\"]")" = "pass $pid 0 False" &&
	test "$(json_words prof.json "d[\"facts\"][\"profile\"][\"sender\"][\"samples\"]")" = \
		"$(json_words $r/run.json "[p[\"profile\"][\"samples\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]")" &&
	test "$(json_words prof.json "round(sum(float(v) for v in d[\"facts\"][\"profile\"][\"sender\"][\"split\"].values()), 2)")" = 1.0 &&
	test "$(json_words prof.json "all(float(s[\"share\"]) > 0 and \"children\" not in s for s in d[\"facts\"][\"profile\"][\"sender\"][\"symbols\"])")" = True &&
	grep -q "^sender: pid $pid, [0-9]* samples of [a-z-]*, 0 lost$" out &&
	grep -q "^OK: 1 profiled side, 0 findings; receipt prof.json$" out
'

test_expect_success 'an edited perf.data is refused by its hash and not read' '
	cp -a c/runs/001-baseline-A-1 edited &&
	flip_byte edited/profile/sender/perf.data 300 &&
	test_expect_code 1 "$AUDIT" profile --perf "$PERF" --receipt edited.json edited >out 2>err &&
	was=$(json_words edited/run.json "[p[\"profile\"][\"sha256\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]") &&
	grep -q "^audit: edited: profile/sender/perf.data: SHA-256 differs from run.json (expected $was, found $(sha256_of edited/profile/sender/perf.data))$" err &&
	test "$(json_words edited.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"sender perf.data\"]")" = fail
'

test_expect_success 'samples of a process that is not the native fail the check that names it' '
	cp -a c/runs/001-baseline-A-1 other &&
	pid=$(json_words other/run.json "[p[\"pid\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]") &&
	/usr/bin/python3 -c "import json; d = json.load(open(\"other/run.json\")); [p.update(pid=1) for p in d[\"processes\"] if p[\"role\"] == \"sender\"]; json.dump(d, open(\"other/run.json\", \"w\"))" &&
	test_expect_code 1 "$AUDIT" profile --perf "$PERF" --receipt other.json other >out 2>err &&
	grep -q "^audit: other: profile/sender/perf.data: [0-9]* samples of PID [0-9]*, not the sender'"'"'s 1$" err && test "$pid" != 1 &&
	test "$(json_words other.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"sender samples are the run'"'"'s native\"]")" = fail
'

test_expect_success 'a run without a profile is refused by audit profile' '
	test_expect_code 2 "$AUDIT" profile --perf "$PERF" c/runs/002-baseline-A-2 2>err &&
	echo "audit: c/runs/002-baseline-A-2/run.json: no side of this run was profiled (run.json has no \"profile\")" >expect &&
	test_cmp expect err
'

test_expect_success 'audit campaign shows the profiled run apart and keeps it out of the cell'"'"'s statistics' '
	"$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/summary.json "[(c[\"cell\"], c[\"runs\"]) for c in d[\"cells\"]]")" = "A 1" &&
	grep -q "^| 001-baseline-A-1 | A | ok, profiled |" s/summary.md &&
	grep -q "^| 001-baseline-A-1 | A | sender | [0-9]* | 0 |" s/summary.md &&
	test "$(json_words s/summary.json "sorted(d[\"profiles\"][\"runs\"])")" = 001-baseline-A-1 &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"].startswith(\"run 001-baseline-A-1 sender \")]")" = "pass pass pass" &&
	grep -q "<svg class=\"profile\"" s/report.html &&
	grep -q "^| profiler | fail | perf attached to the sender (event \(cycles\|cpu-clock\)) (run 001) |$" s/summary.md &&
	test "$(json_words s/summary.json "[(r[\"name\"], \"profiler\" in r[\"grade_conditions\"]) for r in d[\"runs\"]]")" = "001-baseline-A-1 True 002-baseline-A-2 False"
'

test_expect_success 'from a sealed archive: checked against its seal as it streams, the same profile read' '
	"$SEAL" create c -o sealed >/dev/null &&
	pin=$(sha256_of sealed/SEAL.json) &&
	"$AUDIT" profile --seal sealed/SEAL.json --seal-sha256 $pin --run runs/001-baseline-A-1 --perf "$PERF" \
		--receipt arch.json sealed/archive.tar.zst >out 2>err &&
	test "$(json_words arch.json "d[\"result\"], d[\"facts\"][\"profile\"][\"sender\"][\"samples\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"archive against its seal\"]")" = \
		"pass $(json_words prof.json "d[\"facts\"][\"profile\"][\"sender\"][\"samples\"]") pass" &&
	test "$(json_words arch.json "sorted(d[\"facts\"][\"profile\"][\"sender\"][\"split\"].items())")" = \
		"$(json_words prof.json "sorted(d[\"facts\"][\"profile\"][\"sender\"][\"split\"].items())")" &&
	no_entry "${TMPDIR:-/tmp}" "^audit-profile\."
'

test_expect_success 'an archive whose perf.data was altered is named, and its profile left unread' '
	python3 "$EV_SRCDIR/tests/replicate/archive-surgery.py" sealed/archive.tar.zst flipped.tar.zst \
		flip runs/001-baseline-A-1/profile/sender/perf.data 300 &&
	test_expect_code 1 "$AUDIT" profile --seal sealed/SEAL.json --run runs/001-baseline-A-1 --perf "$PERF" \
		--receipt flipped.json flipped.tar.zst >out 2>err &&
	grep -q "^audit: runs/001-baseline-A-1/profile/sender/perf.data: content differs (SHA-256) (expected " err &&
	grep -q "^audit: flipped.tar.zst: the archive'"'"'s copy of runs/001-baseline-A-1 does not match its seal: its profile is not read; receipt flipped.json$" err &&
	test "$(json_words flipped.json "d[\"result\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"archive against its seal\"], \"profile\" in d[\"facts\"]")" = "fail fail False" &&
	no_entry "${TMPDIR:-/tmp}" "^audit-profile\."
'

test_expect_success 'audit profile from an archive killed (SIGTERM, SIGKILL) while its copies exist: nothing left in TMPDIR' '
	killed_while_copying audit-profile killed.json "$AUDIT" profile --seal sealed/SEAL.json --run runs/001-baseline-A-1 \
		--perf "$PERF" --receipt killed.json sealed/archive.tar.zst
'

test_expect_success 'audit campaign from the archive of a profiled campaign: the tree audit'"'"'s outputs, its profiles read from the copies' '
	"$AUDIT" campaign --perf "$PERF" --seal sealed/SEAL.json c -o ptree >ptree.out 2>ptree.err &&
	rm -rf private && mkdir private &&
	TMPDIR=$PWD/private "$AUDIT" campaign --perf "$PERF" --seal sealed/SEAL.json sealed/archive.tar.zst -o parch \
		>parch.out 2>parch.err &&
	dir_empty private && test_cmp ptree.err parch.err &&
	for f in summary.json summary.md report.html runs.csv run-001-baseline-A-1.hgrm cell-baseline-A.hgrm; do
		cmp ptree/$f parch/$f || return 1
	done &&
	test "$(json_words parch/summary.json "sorted(d[\"profiles\"][\"runs\"])")" = 001-baseline-A-1 &&
	json_get ptree/receipt.json "d[\"checks\"], d[\"facts\"]" >ptree.facts &&
	json_get parch/receipt.json "d[\"checks\"], d[\"facts\"]" >parch.facts &&
	test_cmp ptree.facts parch.facts
'

test_expect_success 'audit profile: SIGTERM while its receipt is synced: no receipt, exit 2; then it passes' '
	late_signal late-prof 1 "$AUDIT" profile --perf "$PERF" --receipt late-prof.json c/runs/001-baseline-A-1 &&
	grep -q "interrupted by a signal" late.err &&
	"$AUDIT" profile --perf "$PERF" --receipt late-prof.json c/runs/001-baseline-A-1 >/dev/null &&
	test "$(json_get late-prof.json "d[\"result\"]")" = pass
'

test_expect_success 'audit profile stopped by SIGTERM while perf report reads: exit 2, no receipt, no perf left' '
	command -v strace >/dev/null || { echo "strace missing" >&2; return 1; }
	data=$PWD/c/runs/001-baseline-A-1/profile/sender/perf.data &&
	STOPPED_AFTER=1 stopped SIGTERM stopped.json env ASAN_OPTIONS=detect_leaks=0 \
		strace -f -qq -o /dev/null -P "$data" -e trace=read -e inject=read:delay_enter=300000 \
		"$AUDIT" profile --perf "$PERF" --receipt stopped.json c/runs/001-baseline-A-1 &&
	! pgrep -f "^$PERF report .*$data" >/dev/null
'

test_expect_success 'with call graphs, the children shares are read too' '
	plan cg.json 10000 ", \"call_graph\": true" &&
	"$CAPTURE" run pinned-cg.json -o cg >out 2>err &&
	"$AUDIT" profile --perf "$PERF" --receipt cg-prof.json cg/runs/001-baseline-A-1 >out 2>err &&
	test "$(json_words cg-prof.json "d[\"facts\"][\"profile\"][\"sender\"][\"call_graphs\"], any(\"children\" in s for s in d[\"facts\"][\"profile\"][\"sender\"][\"symbols\"])")" = "True True" &&
	json_words cg/runs/001-baseline-A-1/run.json "[p[\"profile\"][\"argv\"] for p in d[\"processes\"] if p[\"role\"] == \"sender\"]" | contains " -g "
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
	/usr/bin/python3 -c "import json, sys; d = json.load(open(\"pinned-nop.json\")); del d[\"pins\"][sys.argv[1]]; json.dump(d, open(\"unpinned.json\", \"w\"))" "$PERF" &&
	! grep -q "\"$PERF\": \"[0-9a-f]" unpinned.json &&
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
