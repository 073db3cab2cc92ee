# SPDX-License-Identifier: Apache-2.0
# lib.sh: sourced by every tests/<tool>/t-*.sh end-to-end test.
#
# Each script gets a fresh trash directory (kept on failure, removed on
# success) and runs its cases with test_expect_success 'what it proves' 'body'.
# Bodies are &&-chained shell; a case passes when its body exits 0. Output
# is TAP-like; the script exits 0 when every case passed, 1 otherwise, 77
# when it cannot run here (automake's SKIP).
#
# make check starts each script through tests/lib/run-test: its own
# session, every signal at its default, stdin /dev/null, a private TMPDIR,
# and a failure naming any process it leaves running (stop servers in an
# EXIT trap: test_done runs it before the trash goes). A command a case
# starts with "&" gets SIGINT and SIGQUIT ignored (a shell without job
# control does that): a case that signals a background tool starts it
# through stopped, survives or late_signal (python, which keeps the
# defaults), or with set -m; survives starts one with a signal ignored on
# purpose, as nohup does.

# A pipeline fails when any of its commands fails, not only its last: a
# check like "cmd | contains x" must not pass when cmd failed. dash (Debian's
# /bin/sh) has no pipefail: a script started by it runs again under bash.
if ! (set -o pipefail) 2>/dev/null; then
	exec bash "$0" "$@"
fi
set -u -o pipefail
: "${EV_BUILDDIR:?run the tests through make check}"
: "${EV_SRCDIR:?run the tests through make check}"
SEAL="$EV_BUILDDIR/seal/seal"
REPLICATE="$EV_BUILDDIR/replicate/replicate"
SURGERY="$EV_SRCDIR/tests/replicate/archive-surgery.py"
AUDIT="$EV_BUILDDIR/audit/audit"
CAPTURE="$EV_BUILDDIR/capture/capture"
FIX_SENDER="$EV_BUILDDIR/capture/pair/fix-sender"
FIX_RECEIVER="$EV_BUILDDIR/capture/pair/fix-receiver"
GEN_JOURNAL="$EV_BUILDDIR/bench/gen-journal"
JOURNAL_SURGERY="$EV_SRCDIR/tests/audit/journal-surgery.py"
# A time a test promises (stop within 0.5 s of a signal) is the plain
# build's. Sanitized binaries stop several times slower (ASan unmaps its
# shadow of every large allocation, LSan scans the heap at exit), and the
# suite runs two tests at once on two CPUs: under them every such budget is
# multiplied by EV_TIME_SCALE (4 unless set), still far below a hang.
if grep -q __asan_init "$AUDIT" 2>/dev/null; then
	: "${EV_TIME_SCALE:=4}"
else
	: "${EV_TIME_SCALE:=1}"
fi
export EV_TIME_SCALE
# LeakSanitizer scans every sanitized process as it exits: 45 ms each here,
# about a third of the sanitized suite, which starts tools thousands of
# times. The unit tests (the library's own allocations, every path they
# test) and the fuzz run keep it on; a shell test keeps it on only when it
# exports EV_LEAK_CHECK=1 before sourcing this file (the demo's test runs
# every command end to end with it, and the public library's test its
# example program).
if [ "${EV_LEAK_CHECK:-0}" != 1 ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
fi
export LC_ALL=C.UTF-8
umask 022

test_name=$(basename "$0" .sh)
trash=$(mktemp -d "${TMPDIR:-/tmp}/evidence-$test_name.XXXXXX") || exit 99
cd "$trash" || exit 99
# The python3 first on PATH may be a pyenv shim, ten times slower to start
# than the interpreter (0.3 s a call against 0.03 s), and the tests call it
# thousands of times: they use Debian's /usr/bin/python3 (the one with
# numpy and cryptography) when it is there.
if [ -x /usr/bin/python3 ]; then
	mkdir "$trash/.bin" && ln -s /usr/bin/python3 "$trash/.bin/python3" && PATH="$trash/.bin:$PATH" || exit 99
fi
# Each test has a CPU lease registry of its own (lib/core/lease.h), so that
# tests run side by side never wait for each other's CPUs; the host's
# pools and a user's default pool do not reach them.
export EVIDENCE_LEASE_DIR="$trash/.leases"
unset EVIDENCE_POOL EVIDENCE_PRIORITY EVIDENCE_POOLS
test_n=0
test_failed=0
# now_us: set now to the time in microseconds; from bash's EPOCHREALTIME
# where there is one, so that timing a case starts no process (the suite
# runs about two thousand cases, and a process costs milliseconds here)
now_us () {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		now=${EPOCHREALTIME/[.,]/}
	else
		now=$(date +%s%6N)
	fi
}
now_us && test_started=$now

# no_entry DIR PATTERN: DIR lists (ls -A) and none of its entries matches
# the grep pattern. A listing that fails fails the check, so that a
# missing DIR never passes for an empty one.
no_entry () {
	_entries=$(ls -A "$1") || return 1
	! contains -- "$2" <<EOF
$_entries
EOF
}

# only_entries DIR PATTERN: every entry of DIR matches the pattern.
only_entries () {
	_entries=$(ls -A "$1") || return 1
	! contains -v -- "$2" <<EOF
$_entries
EOF
}

# cmd | contains [GREP_OPTION...] PATTERN: what grep -q says of stdin, but
# only after reading all of it. grep -q leaves at the first match, and the
# writer then dies of SIGPIPE: under pipefail that fails a check that held
# (and passes a negated one that did not).
contains () {
	_in=$(cat) || return 1
	grep -q "$@" <<EOF
$_in
EOF
}

# dir_empty DIR: DIR is a directory and holds nothing.
dir_empty () {
	test -d "$1" && _entries=$(ls -A "$1") && test -z "$_entries"
}

# test_skip_case REASON, inside a case: this host cannot run it. The case
# is reported "ok N - NAME # skip REASON" (TAP's directive), never as a
# case that held.
test_skip_case () {
	printf '%s\n' "$1" >"$trash/.case-skip"
	exit 77
}

# tool_commands PROGRAM: the commands PROGRAM --help lists, one a line:
# what "every command" tests walk, so that a new command is never missed.
tool_commands () {
	"$1" --help | sed -n "/^commands:/,/^\$/p" | sed -n "s/^  \([a-z][a-z-]*\) .*/\1/p"
}

test_expect_success () {
	test_n=$((test_n + 1))
	now_us && case_started=$now
	rm -f "$trash/.case-skip"
	(eval "$2") >"$trash/.case-$test_n.log" 2>&1
	_status=$?
	if [ "$_status" = 77 ] && [ -f "$trash/.case-skip" ]; then
		echo "ok $test_n - $1 # skip $(cat "$trash/.case-skip")"
		rm -f "$trash/.case-skip"
	elif [ "$_status" = 0 ]; then
		echo "ok $test_n - $1"
	else
		echo "not ok $test_n - $1"
		sed 's/^/#   /' "$trash/.case-$test_n.log"
		test_failed=$((test_failed + 1))
	fi
	# the slow cases, for making them faster: grep -h "^# case" build/*/tests/*/*.log
	now_us && _took=$((now - case_started))
	if [ "$_took" -ge 2000000 ]; then
		printf '# case %d took %d.%d s: %s\n' "$test_n" $((_took / 1000000)) $((_took / 100000 % 10)) "$test_name"
	fi
}

# The test's EXIT trap (a server it stops, a link it gives back) runs here,
# in the trash, before the trash goes: run later, it would find its pid
# files and data directories removed, and leave the server running (which
# tests/lib/run-test then names and fails).
run_exit_trap () {
	_trap=$(trap -p EXIT)
	[ -n "$_trap" ] || return 0
	eval "set -- $_trap"
	trap - EXIT
	cd "$trash" && eval "$3"
}

test_skip_all () {
	echo "1..0 # SKIP $1"
	run_exit_trap
	cd / && rm -rf "$trash"
	exit 77
}

test_done () {
	echo "1..$test_n"
	# for finding the slow ones: grep -h "^# took" build/*/tests/*/*.log | sort -k3 -n
	now_us && _took=$((now - test_started))
	printf '# took %d.%d s: %s\n' $((_took / 1000000)) $((_took / 100000 % 10)) "$test_name"
	run_exit_trap
	if [ "$test_failed" -eq 0 ]; then
		cd / && rm -rf "$trash"
		exit 0
	fi
	echo "# $test_failed of $test_n failed; trash kept in $trash"
	exit 1
}

# test_expect_code N command...: the command exits with exactly N.
test_expect_code () {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "expected exit $want, found $got: $*" >&2
		return 1
	fi
}

# test_cmp expected actual: identical, else show the difference.
test_cmp () {
	diff -u "$1" "$2"
}

# test_must_be_absent PATH...: none of them exists.
test_must_be_absent () {
	for p in "$@"; do
		if [ -e "$p" ] || [ -L "$p" ]; then
			echo "should not exist: $p" >&2
			return 1
		fi
	done
}

# no_temporaries DIR: no temporary output (".NAME.tmp-XXXXXX") was left in DIR.
no_temporaries () {
	left=$(find "$1" -maxdepth 1 -name '.*.tmp-*' | sed -n 1p)
	if [ -n "$left" ]; then
		echo "temporary output left behind: $left" >&2
		return 1
	fi
}

sha256_of () {
	sha256sum "$1" | cut -d' ' -f1
}

# flip_byte FILE OFFSET: invert every bit of one byte in place, so the file
# always changes. Writing a fixed byte does not: captured data holds it at
# that offset by chance (a series sample's low byte is 0xff once in 256 runs).
flip_byte () {
	flipped=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d " ") &&
	test -n "$flipped" &&
	printf "\\$(printf %03o $((flipped ^ 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# make_campaign DIR: a small campaign-shaped tree with varied modes, an empty
# file, an empty directory, a UTF-8 name and a name longer than 100 bytes
# (which tar stores in a pax header). Same content every time.
make_campaign () {
	mkdir -p "$1/runs/A-1/journal" "$1/runs/A-1/native" "$1/runs/A-1/series" \
		"$1/runs/B-1/journal" "$1/summary" "$1/observe/empty" &&
	cp "$EV_SRCDIR/share/demo/campaign/runs/A-1/journal/sender/1.bin" "$1/runs/A-1/journal/1.bin" &&
	cp "$EV_SRCDIR/share/demo/campaign/runs/B-1/journal/sender/1.bin" "$1/runs/B-1/journal/1.bin" &&
	chmod 600 "$1/runs/A-1/journal/1.bin" "$1/runs/B-1/journal/1.bin" &&
	cp "$EV_SRCDIR/share/demo/campaign/runs/A-1/native/sender.stdout" "$1/runs/A-1/native/" &&
	seq 1 5000 > "$1/runs/A-1/series/send.csv" &&
	printf '#!/bin/sh\necho run\n' > "$1/runs/run.sh" && chmod 755 "$1/runs/run.sh" &&
	: > "$1/runs/B-1/empty.log" &&
	echo 'p99 1943' > "$1/summary/$(printf 'r\303\251sum\303\251.txt')" &&
	echo long > "$1/summary/$(printf 'n%.0s' $(seq 1 120)).txt" &&
	head -c 300000 /dev/zero | tr '\0' 'x' > "$1/observe/before.txt" &&
	chmod 750 "$1/observe"
}

# as_host NAME COMMAND...: run COMMAND with the host name NAME (a UTS
# namespace: as root, or in a user namespace where the kernel allows it).
as_host () {
	name=$1
	shift
	if [ "$(id -u)" = 0 ]; then
		unshare --uts sh -c "hostname $name && exec \"\$@\"" sh "$@"
	else
		unshare --user --map-root-user --uts sh -c "hostname $name && exec \"\$@\"" sh "$@"
	fi
}

# fault_sweep LABEL CHECK [OPTION...] -- COMMAND...: every file-system
# call of COMMAND failed and crashed in turn, each in a fresh copy of
# ./tpl (tests/lib/fault-sweep.py says what is held); its table appended
# to ./table.txt. A writer's leaks on a path strace failed are not what
# the sweep is for: the other tests check leaks.
fault_sweep () {
	label=$1 check=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		python3 "$EV_SRCDIR/tests/lib/fault-sweep.py" --label "$label" --template tpl --check "$check" "$@" >>table.txt
}

# receipt_dated DAYS FILE: the receipt FILE as if made DAYS days from now
# ("-20", "+30"): its "started" and "finished" moved, in place. They are
# outside its comparable digest (a receipt's time is its own word unless
# signed, as its host is), so it stays intact. For the sanitized builds,
# which hang under libfaketime (its LD_PRELOAD comes before the sanitizer
# runtime); elsewhere tests age receipts with faketime itself.
receipt_dated () {
	python3 - "$1" "$2" <<-\PY
	import datetime, json, sys
	days, path = int(sys.argv[1]), sys.argv[2]
	d = json.load(open(path))
	for key in ("started", "finished"):
	    t = datetime.datetime.strptime(d[key], "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(days=days)
	    d[key] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
	open(path, "w").write(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
	PY
}

# json_get FILE EXPR: print a value of a JSON file, EXPR a Python expression
# over d (the document), e.g. 'd["result"]'.
json_get () {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# PLAN_USER: what a test plan's top level says so that its sides may run
# as root when the tests do (capture refuses a plan that would run a side
# as root without saying so); empty when they run as anyone else.
if [ "$(id -u)" = 0 ]; then PLAN_USER='"user": "root",'; else PLAN_USER=''; fi
# On a machine of two CPUs the sides take both, and capture's controller
# can only share one: a test plan says so, as capture requires
# ("controller_shares": true; recorded in run.json and the receipt).
# PLAN_USER carries it, so that every test plan says both.
PLAN_USER="$PLAN_USER \"controller_shares\": true,"

# two_cell_plan FILE NAME PORT MEASURED REPEATS: a plan of the reference
# pair in two cells (the receiver spinning, and in epoll), 100 warmups, the
# sender keeping its journal, a raw series and its report, the receiver
# its journal; listening on PORT.
two_cell_plan () {
	P=$EV_BUILDDIR/capture/pair
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "$2", "port": $3, "warmups": 100, "measured": $4, "repeats": $5,
	 "cells": [
	  {"name": "spin", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin",
	     "--journal", "{out:journal}", "--journal-file-size", "262144"], "cpu": 0,
	     "outputs": {"journal": "journal/receiver"}, "ready": {"tcp_listen": $3}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--journal-file-size", "262144",
	     "--series", "{out:series}", "--report", "{out:report}"], "cpu": 1,
	     "outputs": {"journal": "journal/sender", "series": "series/send.bin", "report": "report.json"}}},
	  {"name": "epoll", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "epoll",
	     "--journal", "{out:journal}", "--journal-file-size", "262144"], "cpu": 0,
	     "outputs": {"journal": "journal/receiver"}, "ready": {"tcp_listen": $3}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--journal-file-size", "262144",
	     "--series", "{out:series}", "--report", "{out:report}"], "cpu": 1,
	     "outputs": {"journal": "journal/sender", "series": "series/send.bin", "report": "report.json"}}}]}
	EOF
}

# reference DIR SUMMARY FACTOR [PYTHON...]: DIR/ref.json and its llfix
# block, each published value FACTOR times the median of arm baseline
# cell spin's runs in SUMMARY, naming the hardware and stack SUMMARY
# recorded; each PYTHON statement then edits d, the descriptor.
reference () {
	mkdir -p "$1" && python3 - "$@" <<-\PY
	import hashlib, json, statistics, sys
	out, summary, factor, edits = sys.argv[1], json.load(open(sys.argv[2] + "/summary.json")), float(sys.argv[3]), sys.argv[4:]
	runs = [r for r in summary["runs"] if r["arm"] == "baseline" and r["cell"] == "spin" and r["in_cell_median"]]
	def med(name):
	    vals = [float(r["recomputed"]["quantiles"][name] if name.startswith("p") else r["recomputed"][name]) for r in runs]
	    return statistics.median(vals) * factor
	p50, p95, p99, mean, top = med("p50"), med("p95"), med("p99"), med("mean"), med("max")
	low = min(float(r["recomputed"]["min"]) for r in runs) * factor
	block = ("\x1b[0;34mCPU frequency\x1b[0m 2096000000 hertz\n\x1b[0;34mCPU isolation config\x1b[0m : \n"
	         "\x1b[0;34mPinned to CPU core\x1b[0m 3\n\n\x1b[0;34mTitle\x1b[0m : New order\n"
	         "\x1b[0;34mSample count\x1b[0m : 2000\n\x1b[0;34mMinimum\x1b[0m : %g nanoseconds\n"
	         "\x1b[0;34mMaximum\x1b[0m : %g nanoseconds\n\x1b[0;34mAverage\x1b[0m : %f nanoseconds\n"
	         "\x1b[0;34mP50\x1b[0m : %f nanoseconds\n\x1b[0;34mP75\x1b[0m : %f nanoseconds\n"
	         "\x1b[0;34mP90\x1b[0m : %f nanoseconds\n\x1b[0;34mP95\x1b[0m : %f nanoseconds\n"
	         "\x1b[0;34mP99\x1b[0m : %f nanoseconds\n") % (
	    round(low), round(top), mean, round(p50), round(p50), round(p95), round(p95), round(p99))
	open(out + "/llfix-tx.txt", "w").write(block)
	prov = summary["provenance"]
	d = {"format": "evidence-reference/1", "name": "llfix-1.0.5-tx-kernel",
	     "published": {"where": "https://example.org/llfix/benchmarks/README.md", "when": "2026-06-01"},
	     "statistics": {"path": "llfix-tx.txt", "sha256": hashlib.sha256(block.encode()).hexdigest()},
	     "hardware": {"cpu_model": prov["cpu_model"]},
	     "stack": {"kernel_release": prov["kernel"]["release"], "network": "kernel",
	               "program_sha256": [p["sha256"] for p in prov["programs"] if p["side"] == "sender"][0]},
	     "tolerance_percent": 10}
	for statement in edits:
	    exec(statement)
	json.dump(d, open(out + "/ref.json", "w"))
	PY
}

# killed_while_copying PREFIX OUT COMMAND...: start COMMAND with TMPDIR a
# new ./private, and as soon as its private directory (PREFIX.*) appears
# there, send it SIGTERM (exit 2 required), then again with SIGKILL; each
# time, once its watcher is done, nothing may be left in ./private, no OUT
# and no temporary here.
killed_while_copying () {
	for sig in SIGTERM SIGKILL; do
		rm -rf private && mkdir private &&
		TMPDIR=$PWD/private python3 - $sig "$@" <<-\PY || return 1
		import os, signal, subprocess, sys, time
		sig, prefix, out, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
		p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
		start = time.monotonic()
		while not [e for e in os.listdir("private") if e.startswith(prefix + ".")]:
		    assert p.poll() is None, "ended (%s) before its copies were made" % p.returncode
		    assert time.monotonic() - start < 60, "no copy was ever made"
		    time.sleep(0.002)
		p.send_signal(sig)
		code = p.wait(timeout=30)
		assert code == (2 if sig == signal.SIGTERM else -signal.SIGKILL), "exit %d after %s" % (code, sig)
		for _ in range(200):  # the watcher removes it once the command is gone
		    if not os.listdir("private"):
		        break
		    time.sleep(0.01)
		assert not os.listdir("private"), "left in TMPDIR: %s" % os.listdir("private")
		assert not os.path.exists(out), "written after %s: %s" % (sys.argv[1], out)
		PY
		no_temporaries . || return 1
	done
}

# probe_install: ./probe, a copy of tests/capture/probe owned by whoever
# runs the test (capture refuses programs others could replace), and
# PROBE, its absolute path.
probe_install () {
	cp "$EV_SRCDIR/tests/capture/probe" probe && chmod 755 probe && PROBE=$PWD/probe
}

# ticks_now: clock ticks since boot, the unit of a process's start time
# (field 22 of /proc/PID/stat).
ticks_now () {
	awk -v hz="$(getconf CLK_TCK)" '{printf "%d\n", $1 * hz}' /proc/uptime
}

# netns_in_use INODE TICKS: a process that started before TICKS is in the
# network namespace INODE. (An inode number is reused once its namespace is
# gone: a process that started later is in another namespace.)
netns_in_use () {
	python3 - "$1" "$2" <<-\PY
	import os, sys
	inode, ticks = sys.argv[1], int(sys.argv[2])
	for pid in filter(str.isdigit, os.listdir("/proc")):
	    try:
	        if "".join(c for c in os.readlink("/proc/%s/ns/net" % pid) if c.isdigit()) != inode:
	            continue
	        start = int(open("/proc/%s/stat" % pid).read().rsplit(") ", 1)[1].split()[19])
	    except (OSError, IndexError, ValueError):
	        continue  # gone meanwhile
	    if start <= ticks:
	        sys.exit(print("%s is in namespace %s" % (pid, inode), file=sys.stderr))
	sys.exit(1)
	PY
}

# json_words FILE EXPR: the values of a Python expression over d (the
# document), lists and tuples flattened, separated by spaces:
# json_words run.json 'd["result"], [p["cpu"] for p in d["processes"]]'
# prints "ok 0 1".
json_words () {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
def flat(v):
    if isinstance(v, (list, tuple)):
        return [w for i in v for w in flat(i)]
    return [str(v)]
print(" ".join(flat(eval(sys.argv[2]))))' "$1" "$2"
}

# wait_for PATH [SECONDS]: until PATH exists (at most SECONDS, default 20).
wait_for () {
	n=0
	while [ ! -e "$1" ]; do
		[ $n -ge $((${2:-20} * 20)) ] && { echo "wait_for: $1 did not appear" >&2; return 1; }
		sleep 0.05
		n=$((n + 1))
	done
}

# git_setup: git that reads no user or system configuration and needs no
# identity; commits made at fixed times, so that their ids are the same on
# every machine. `git` must be installed (scripts/quickstart installs it).
# The test CA and its RFC 3161 time-stamp authority (tests/seal/tsa.py):
# tsa_serve makes both in ./tsa and serves (its port in tsa/port) until
# tsa_stop, which a test that serves calls from its EXIT trap (trap
# tsa_stop EXIT) or sooner.
TSA_PY="$EV_SRCDIR/tests/seal/tsa.py"
tsa_serve () {
	mkdir tsa && /usr/bin/python3 "$TSA_PY" tsa certs &&
	{ /usr/bin/python3 "$TSA_PY" tsa serve & echo $! >tsa.pid; } && wait_for tsa/port
}
tsa_stop () {
	[ -f "$trash/tsa.pid" ] && kill "$(cat "$trash/tsa.pid")" 2>/dev/null
	return 0
}

git_setup () {
	command -v git >/dev/null || test_skip_all "git missing (apt-get install git)"
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_NAME=evidence GIT_AUTHOR_EMAIL=evidence@example.org
	export GIT_COMMITTER_NAME=evidence GIT_COMMITTER_EMAIL=evidence@example.org
	export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
}

# git_init DIR: a new repository whose first branch is main.
git_init () {
	git init -q -b main "$1"
}

# require_go_sumdb: skip the whole test unless Go and Debian's
# golang-golang-x-mod-dev (Go's sumdb note and tlog packages) are here.
require_go_sumdb () {
	command -v go >/dev/null || test_skip_all "go is not installed (apt-get install golang-go golang-golang-x-mod-dev)"
	[ -d /usr/share/gocode/src/golang.org/x/mod/sumdb/note ] ||
		test_skip_all "Go's sumdb packages are not installed (apt-get install golang-golang-x-mod-dev)"
}

# build_c2sp_verify: tests/replicate/c2sp-verify.go built as ./c2sp-verify,
# offline, against Debian's x/mod (GOPATH mode: no module download).
build_c2sp_verify () {
	mkdir -p gosrc && cp "$EV_SRCDIR/tests/replicate/c2sp-verify.go" gosrc/main.go &&
		GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$PWD/gocache" GOFLAGS= GOTOOLCHAIN=local \
			go build -o c2sp-verify ./gosrc 2>go-build.err || { cat go-build.err; return 1; }
}

# late_signal STEM WHEN COMMAND...: run COMMAND under strace with its
# WHEN-th fsync (of its main thread) held 1.5 s; once a temporary of a file
# whose name starts with STEM appears here (or in $LATE_DIR), send SIGTERM
# to the command; require exit 2 and that no file named STEM* appeared, nor
# a temporary.
late_signal () {
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; }
	python3 - "$@" <<-\PY
	import glob, os, signal, subprocess, sys, time
	stem, when, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
	where = os.environ.get("LATE_DIR", ".")
	before = set(glob.glob(os.path.join(where, stem + "*")))
	noleak = "ASAN_OPTIONS=" + (os.environ["ASAN_OPTIONS"] + ":" if os.environ.get("ASAN_OPTIONS") else "") + "detect_leaks=0"
	trace = ["env", noleak, "strace", "-qq", "-o", "/dev/null", "-e", "trace=fsync",
	         "-e", "inject=fsync:delay_enter=1500000:when=" + when]
	p = subprocess.Popen(trace + cmd, stdout=subprocess.DEVNULL, stderr=open("late.err", "w"))
	start = time.monotonic()
	while not glob.glob(os.path.join(where, "." + stem + "*.tmp-*")):
	    assert p.poll() is None, "ended (%s) before its receipt was synced" % p.returncode
	    assert time.monotonic() - start < 60, "no temporary receipt appeared"
	    time.sleep(0.01)
	time.sleep(0.3)  # inside the held fsync
	kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
	os.kill(int(kids[0]), signal.SIGTERM)
	code = p.wait(timeout=30)
	assert code == 2, "exit %d after a SIGTERM during the receipt's fsync" % code
	after = set(glob.glob(os.path.join(where, stem + "*")))
	assert after == before, "published after the signal: %s" % sorted(after - before)
	left = glob.glob(os.path.join(where, ".*.tmp-*"))
	assert not left, "temporaries left: %s" % left
	PY
}

# signal_while_outdir_receipt OUTDIR COMMAND...: run COMMAND (which makes
# OUTDIR with a receipt.json in it) once to count its fsyncs (OUTDIR then
# removed), then again with its last three fsyncs (the receipt's, its
# directory's, OUTDIR's parent's) held 0.6 s by strace; once the receipt is
# being written in OUTDIR's hidden temporary, SIGTERM it; require exit 2,
# no OUTDIR and no temporary left. Its stderr is in late.err.
signal_while_outdir_receipt () {
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; }
	python3 - "$@" <<-\PY
	import glob, os, shutil, signal, subprocess, sys, time
	out, cmd = sys.argv[1], sys.argv[2:]
	strace = ["env", "ASAN_OPTIONS=detect_leaks=0", "strace", "-qq", "-e", "trace=fsync"]
	subprocess.run(strace + ["-o", "fsyncs.txt"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
	n = sum(1 for line in open("fsyncs.txt") if line.startswith("fsync("))
	assert os.path.isdir(out) and n >= 1, "the counting run made no %s (%d fsyncs)" % (out, n)
	shutil.rmtree(out)
	trace = strace + ["-o", "/dev/null", "-e", "inject=fsync:delay_enter=600000:when=%d+" % max(1, n - 2)]
	p = subprocess.Popen(trace + cmd, stdout=subprocess.DEVNULL, stderr=open("late.err", "w"))
	start = time.monotonic()
	hidden = "." + out + ".tmp-*"
	while not glob.glob(hidden + "/.receipt.json.tmp-*") and not glob.glob(hidden + "/receipt.json"):
	    assert p.poll() is None, "ended (%s) before its receipt was written" % p.returncode
	    assert time.monotonic() - start < 60, "no receipt was being written"
	    time.sleep(0.01)
	time.sleep(0.2)  # inside a held fsync
	os.kill(int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0]), signal.SIGTERM)
	assert p.wait(timeout=30) == 2, "not exit 2 after a SIGTERM while the receipt was written"
	assert not os.path.exists(out), "published after the signal"
	assert not glob.glob("." + out + ".tmp-*"), "a temporary left: %s" % glob.glob("." + out + ".tmp-*")
	PY
}

# stopped SIGNAL RECEIPT COMMAND...: start COMMAND, send SIGNAL 0.7 s
# (STOPPED_AFTER seconds when set) after it has begun to catch it (its
# handler in /proc/PID/status, so a slow startup under a sanitizer on a
# loaded machine is not mistaken for work), and require exit 2 within
# 0.5 s of the signal (STOPPED_WITHIN seconds when set; both times
# EV_TIME_SCALE), no RECEIPT,
# and no process of the command left (its stderr in stopped.err). With
# STOPPED_WHEN set, the wait starts only once that shell command succeeds
# (polled): the signal then comes at a moment the test names, such as
# "its far helpers are running", not at a time that a loaded machine can
# make come too late. A command
# that would finish sooner can run under strace with its reads delayed (see
# startup_reads; the sanitizers' leak check cannot run under ptrace: give
# env ASAN_OPTIONS=...detect_leaks=0 first); the signal then goes to the
# traced command, not to strace, which would only detach.
stopped () {
	python3 - "$@" <<-\PY
	import os, signal, subprocess, sys, time
	sig, receipt, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
	within = float(os.environ.get("STOPPED_WITHIN", "0.5")) * float(os.environ["EV_TIME_SCALE"])
	after = float(os.environ.get("STOPPED_AFTER", "0.7"))
	when = os.environ.get("STOPPED_WHEN")
	traced = "strace" in [os.path.basename(c) for c in cmd[:3]]
	def target_of(p):
	    # under strace (slowed down on purpose) the signal goes to the traced
	    # command: strace itself would only detach
	    if not traced:
	        return p.pid
	    kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
	    return int(kids[0]) if kids else None
	def catches(pid):
	    # SigCgt: the signal's handler is installed, so the command is past
	    # its startup (a sanitizer's can take seconds on a loaded machine)
	    try:
	        for line in open("/proc/%d/status" % pid):
	            if line.startswith("SigCgt:"):
	                return int(line.split()[1], 16) >> (sig - 1) & 1
	    except OSError:
	        pass
	    return 0
	def trial():
	    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open("stopped.err", "w"))
	    start = time.monotonic()
	    while True:
	        assert p.poll() is None, "ended (%s) before it caught %s" % (p.returncode, sys.argv[1])
	        assert time.monotonic() - start < 60, "never caught %s%s" % (sys.argv[1], ", or STOPPED_WHEN never held" if when else "")
	        target = target_of(p)
	        if target and catches(target) and (not when or subprocess.run(["sh", "-c", when]).returncode == 0):
	            break
	        time.sleep(0.005)
	    time.sleep(after)
	    assert p.poll() is None, "finished before the signal: the test needs a longer input"
	    t = time.monotonic()
	    os.kill(target, sig)
	    try:
	        code = p.wait(timeout=within + 5)
	    except subprocess.TimeoutExpired:
	        p.kill()
	        sys.exit("still running %g s after %s" % (within + 5, sys.argv[1]))
	    return p, code, time.monotonic() - t
	p, code, took = trial()
	if code == 2 and took > within:
	    # a loaded VM stalls a process this long now and then; a slow stop
	    # is slow twice
	    print("stopped: took %.2f s, over %.2f s: measured once more" % (took, within), file=sys.stderr)
	    p, code, took = trial()
	assert code == 2, "exit %d after %s" % (code, sys.argv[1])
	assert took <= within, "took %.2f s to stop" % took
	assert not os.path.exists(receipt), "a receipt was written: " + receipt
	left = subprocess.run(["pgrep", "-f", cmd[0] + " "], capture_output=True, text=True).stdout.split()
	assert str(p.pid) not in left, left
	PY
}

# survives SIGNAL RECEIPT COMMAND...: start COMMAND with SIGNAL ignored,
# as nohup leaves SIGHUP and a script's background job SIGINT; once it is
# past its startup (it catches SIGTERM, which every receipt writer always
# does) and STOPPED_AFTER seconds (0.7) into its work, send SIGNAL; require
# that it kept SIGNAL ignored, ran on to exit SURVIVES_EXIT (0 unless set)
# and wrote RECEIPT (its stderr in survived.err). The tests themselves run
# with every signal at its default (tests/lib/run-test), so that each case
# chooses the dispositions it starts a command with.
survives () {
	python3 - "$@" <<-\PY
	import os, signal, subprocess, sys, time
	sig, receipt, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
	after = float(os.environ.get("STOPPED_AFTER", "0.7"))
	want = int(os.environ.get("SURVIVES_EXIT", "0"))
	def mask(pid, field):
	    for line in open("/proc/%d/status" % pid):
	        if line.startswith(field + ":"):
	            return int(line.split()[1], 16)
	    return 0
	p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open("survived.err", "w"),
	                     preexec_fn=lambda: signal.signal(sig, signal.SIG_IGN))
	start = time.monotonic()
	while True:
	    assert p.poll() is None, "ended (%s) before it caught SIGTERM" % p.returncode
	    assert time.monotonic() - start < 60, "never caught SIGTERM"
	    try:
	        if mask(p.pid, "SigCgt") >> (signal.SIGTERM - 1) & 1:
	            break
	    except OSError:
	        pass
	    time.sleep(0.005)
	time.sleep(after)
	assert p.poll() is None, "finished before the signal: the test needs a longer input"
	assert mask(p.pid, "SigIgn") >> (sig - 1) & 1, "%s inherited as ignored is no longer ignored" % sys.argv[1]
	os.kill(p.pid, sig)
	code = p.wait(timeout=600)
	assert code == want, "exit %d, not %d, after an ignored %s" % (code, want, sys.argv[1])
	assert os.path.exists(receipt), "no receipt " + receipt
	PY
}

# startup_reads PROGRAM: how many read(2) calls PROGRAM makes to start
# (the loader, a sanitizer's own), counted from PROGRAM --help: a command
# slowed with strace -e inject=read:delay_enter=... is signalled once they
# are past (strace's when=N+ counts each thread apart, so it cannot skip
# them for a thread started later).
startup_reads () {
	env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o startup-reads.txt -e trace=read "$1" --help >/dev/null &&
	grep -c " read(" startup-reads.txt
}

# free_port: a loopback TCP port nobody holds now, from below the kernel's
# ephemeral range (32768-60999 here): a port there can be taken at any time
# by the local end of some other test's connection, which made a listener
# die with "Address already in use" and its peer wait in vain.
free_port () {
	python3 -c 'import random, socket
for _ in range(200):
    port = random.randint(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    print(port)
    break'
}

# paced_pair_run: a paced run of the reference pair in the trash
# directory: its series (s.bin), delays (d.bin), journals (sj, rj), report
# (report.json) and what the sender printed (stdout.txt).
paced_pair_run () {
	port=$(free_port) &&
	{ "$FIX_RECEIVER" --listen 127.0.0.1:$port --journal rj >/dev/null 2>receiver.err & } &&
	"$FIX_SENDER" --connect 127.0.0.1:$port --warmups 50 --measured 4000 --rate 20000 --journal sj \
		--series s.bin --delay-series d.bin --report report.json >stdout.txt &&
	wait
}

# misuse PROGRAM 'expected first line' ARGS...: PROGRAM ARGS exits 2 with
# that reason first on stderr, then the usage of the command ARGS name
# (PROGRAM's own when they name no command it has).
misuse () {
	misuse_program=$1
	echo "$2" >expect
	shift 2
	misuse_usage="usage: $(basename "$misuse_program")"
	case "${1-}" in
	[a-z]*) if "$misuse_program" "$1" --help >/dev/null 2>&1; then misuse_usage="$misuse_usage $1"; fi ;;
	esac
	test_expect_code 2 "$misuse_program" "$@" 2>err &&
	head -n 1 err >actual && test_cmp expect actual &&
	sed -n 2p err | contains "^$misuse_usage"
}
