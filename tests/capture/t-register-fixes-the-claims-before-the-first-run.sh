#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture register: a pinned plan's claims (its SHA-256, the grade it
# requires, the statistics and comparisons to publish, the sessions
# planned, a hypothesis) written once as evidence-registration/1, given a
# trusted time by a real RFC 3161 TSA (tests/seal/tsa.py) and appended to
# the host's receipt log before any run; every claim it cannot hold is
# refused with nothing written; capture run holds the plan to its
# registration, and with --require-registration refuses a plan run without
# one, before anything runs. Every session of a registered plan run with
# --log is on the record: its start (evidence-session/1) written and
# logged before the first pair, its end whatever ends it (every run held,
# a run failed, a signal), with the runs it made.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"
probe_install || exit 99

trap tsa_stop EXIT

# plan FILE NAME [SECONDS [B_EXIT]]: two cells of the probe, one arm,
# pinned as PINNED-FILE; cell B's sender sleeps SECONDS and exits B_EXIT.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "$2", "warmups": 0, "measured": 1, "order": "listed",
	 "cells": [
	  {"name": "A", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "0", "0"], "cpu": 1, "outputs": {"probe": "p/sender"}}},
	  {"name": "B", "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "p/peer"}},
	   "sender": {"argv": ["$PROBE", "{out:probe}", "${4:-0}", "${3:-0}"], "cpu": 1, "outputs": {"probe": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

test_expect_success 'setup: two pinned plans, a test CA and its TSA serving' '
	plan p.json lab && plan other.json other &&
	tsa_serve && echo "http://127.0.0.1:$(cat tsa/port)/good" >url
'

test_expect_success 'a registration names the pinned plan by its bytes and every claim, timestamped and logged' '
	echo "{\"format\": \"evidence-reproduction/1\"}" >vendor.json &&
	"$CAPTURE" register pinned-p.json -o reg.json --statistic p99 --statistic p50 --compare-cells A,B \
		--reference vendor.json --gate 1.1 --sessions 3 --require quiet --hypothesis "B is no slower than A" \
		--tsa "$(cat url)" --tsa-ca tsa/ca.pem --log log >out &&
	grep -q "^registered lab: reg.json (sha256 $(sha256_of reg.json))$" out &&
	grep -q "^  trusted time [0-9T:-]*Z by /CN=evidence test TSA good (reg.json.tsr)$" out &&
	grep -q "^  logged in log, entry 0$" out &&
	test "$(json_words reg.json "d[\"format\"], d[\"plan\"][\"name\"], d[\"plan\"][\"sha256\"]")" = \
		"evidence-registration/1 lab $(sha256_of pinned-p.json)" &&
	test "$(json_words reg.json "d[\"statistics\"], d[\"sessions\"], d[\"grades\"][\"require\"], d[\"hypothesis\"]")" = \
		"p99 p50 3 quiet B is no slower than A" &&
	test "$(json_words reg.json "[(c[\"kind\"], c.get(\"a\"), c.get(\"b\"), c.get(\"sha256\"), c.get(\"ratio\")) for c in d[\"comparisons\"]]")" = \
		"cells A B None None reference None None $(sha256_of vendor.json) None gate None None None 1.1" &&
	openssl ts -verify -queryfile reg.json.tsq -in reg.json.tsr -CAfile tsa/ca.pem -untrusted tsa/good.pem >verified 2>/dev/null &&
	grep -q "^Verification: OK$" verified &&
	"$REPLICATE" log --log log verify >out && grep -q "^OK: log log: 1 entries" out &&
	grep -q "\"kind\":\"registration\"" log/entries.jsonl &&
	grep -q "\"sha256\":\"$(sha256_of reg.json)\"" log/entries.jsonl
'

test_expect_success 'each claim it cannot hold is refused, naming it, and nothing is written' '
	refused () { # refused MESSAGE ARGS...: capture register ARGS exits 2 saying MESSAGE, writes nothing
		refusal=$1 && shift &&
		test_expect_code 2 "$CAPTURE" register "$@" 2>err && head -n 1 err >actual &&
		echo "$refusal" >expect && test_cmp expect actual && test_must_be_absent bad.json bad.json.tsq
	}
	refused "capture: lab: the plan pins no file: register the pinned plan (capture pin PLAN -o PINNED), so that its SHA-256 fixes every program it runs" \
		p.json -o bad.json --statistic p99 &&
	refused "capture: --statistic: no statistic registered: name each the campaign will publish (p50 p95 p99 p99.9 mean max)" \
		pinned-p.json -o bad.json &&
	refused "capture: option --statistic: expected p50, p95, p99, p99.9, mean or max, found '\''p42'\''" \
		pinned-p.json -o bad.json --statistic p42 &&
	refused "capture: --statistic: p99 registered twice" pinned-p.json -o bad.json --statistic p99 --statistic p99 &&
	refused "capture: --compare-arms: lab: the plan has no arm onload" \
		pinned-p.json -o bad.json --statistic p99 --compare-arms baseline,onload &&
	refused "capture: option --compare-cells: expected two names, A,B, found '\''A'\''" \
		pinned-p.json -o bad.json --statistic p99 --compare-cells A &&
	refused "capture: --gate: expected a ratio above 1 such as 1.1, found '\''0.9'\''" \
		pinned-p.json -o bad.json --statistic p99 --gate 0.9 &&
	refused "capture: option --sessions: expected 1-1000, found '\''0'\''" \
		pinned-p.json -o bad.json --statistic p99 --sessions 0 &&
	refused "capture: --tsa and --tsa-ca go together" pinned-p.json -o bad.json --statistic p99 --tsa "$(cat url)" &&
	mkdir adir && test_expect_code 2 "$CAPTURE" register pinned-p.json -o bad.json --statistic p99 --reference adir 2>err &&
	grep -q "adir.*directory" err && test_must_be_absent bad.json &&
	before=$(sha256_of reg.json) &&
	test_expect_code 2 "$CAPTURE" register pinned-p.json -o reg.json --statistic p99 2>err &&
	grep -q "reg.json" err && test "$(sha256_of reg.json)" = "$before"
'

test_expect_success 'a log that no longer matches its head: the registration is written, not logged, and says so' '
	cp -r log badlog && printf "x" >>badlog/entries.jsonl &&
	test_expect_code 2 "$CAPTURE" register pinned-p.json -o late.json --statistic p99 --log badlog 2>err &&
	grep -q "(the registration is written, not logged)$" err &&
	test -s late.json && test "$("$REPLICATE" log --log log verify >/dev/null; echo $?)" = 0
'

test_expect_success 'a signal while the registration is written: exit 2, nothing published, no temporary' '
	late_signal sig.json 1 "$CAPTURE" register pinned-p.json -o sig.json --statistic p99 &&
	grep -q "interrupted by a signal" late.err
'

test_expect_success 'capture run: with --require-registration and none, or with another plan'"'"'s, refused before anything runs' '
	test_expect_code 2 "$CAPTURE" run pinned-p.json -o c1 --require-registration 2>err &&
	grep -q "^capture: pinned-p.json: no registration given (--registration REG.json); --require-registration refuses a plan run without one" err &&
	test_must_be_absent c1 &&
	"$CAPTURE" register pinned-other.json -o other-reg.json --statistic p99 >/dev/null &&
	test_expect_code 2 "$CAPTURE" run pinned-p.json -o c1 --registration other-reg.json 2>err &&
	grep -q "^capture: other-reg.json: registers the plan whose bytes hash to $(sha256_of pinned-other.json); pinned-p.json hashes to $(sha256_of pinned-p.json)" err &&
	test_must_be_absent c1 &&
	echo "{\"format\":\"evidence-registration/1\"}" >hollow.json &&
	test_expect_code 2 "$CAPTURE" run pinned-p.json -o c1 --registration hollow.json 2>err &&
	grep -q "^capture: hollow.json: not a registration as capture register writes one: plan: expected {name, sha256 (64 hex digits), arms, cells}$" err &&
	test_must_be_absent c1
'

test_expect_success 'capture run with its registration: it requires what was registered, and the receipt names it' '
	"$CAPTURE" register pinned-p.json -o any.json --statistic p99 >/dev/null &&
	"$CAPTURE" run pinned-p.json -o c2 --registration any.json --require-registration >out 2>err &&
	test "$(json_words c2/receipt-capture.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"registration\"]")" = \
		"$(sha256_of any.json)" &&
	# reg.json requires quiet: a plan that cannot be graded quiet here is refused, naming the registration
	if grep -q "^capture: grade: at best quiet" out; then echo "this host grades quiet"; else
		test_expect_code 2 "$CAPTURE" run pinned-p.json -o c3 --registration reg.json >out 2>err &&
		grep -q "its registration requires quiet" err && test_must_be_absent c3/runs
	fi
'

test_expect_success 'a session on the record: its start logged before the first pair, its end with the runs it made' '
	"$CAPTURE" run pinned-p.json -o c4 --registration any.json --log slog >out 2>err &&
	reg=$(sha256_of any.json) && start=$(sha256_of c4/session-start.json) &&
	test "$(json_words c4/session-start.json "d[\"format\"], d[\"event\"], d[\"registration\"], d[\"plan\"], d[\"campaign\"]")" = \
		"evidence-session/1 start $reg $(sha256_of pinned-p.json) $PWD/c4" &&
	test "$(json_words c4/session-end.json "d[\"event\"], d[\"start\"], d[\"result\"], d[\"runs\"][\"made\"], d[\"receipt\"]")" = \
		"end $start ok 2 $(sha256_of c4/receipt-capture.json)" &&
	python3 -c "
import os, sys
started = int(open(\"c4/runs/001-baseline-A-1/p/peer/started\").read())
sys.exit(not os.stat(\"c4/session-start.json\").st_mtime_ns < started)" &&
	"$REPLICATE" log --log slog verify >out && grep -q "^OK: log slog: 2 entries" out &&
	python3 -c "
import json, sys
e = [json.loads(l) for l in open(\"slog/entries.jsonl\")]
sys.exit(not ([x[\"kind\"] for x in e] == [\"session\", \"session\"] and e[0][\"sha256\"] == sys.argv[1] and e[1][\"file\"].endswith(\"/c4/session-end.json\")))
" "$start"
'

test_expect_success 'a session cut short by a signal ends on the record as interrupted; the next is a session of its own' '
	plan slow.json lab 3 && "$CAPTURE" register pinned-slow.json -o slow-reg.json --statistic p99 --sessions 2 >/dev/null &&
	{ env --default-signal "$CAPTURE" run pinned-slow.json -o c5 --registration slow-reg.json --log slog >c5.out 2>c5.err & } &&
	pid=$! && wait_for c5/runs/002-baseline-B-1/p/sender/started && kill -INT $pid &&
	{ wait $pid; st=$?; } && test $st = 2 &&
	test "$(json_words c5/session-end.json "d[\"result\"], d[\"runs\"][\"made\"], d.get(\"receipt\")")" = "interrupted 1 None" &&
	test_must_be_absent c5/receipt-capture.json &&
	"$CAPTURE" run pinned-slow.json -o c5 --registration slow-reg.json --log slog >out 2>err &&
	test "$(json_words c5/session-end-2.json "d[\"result\"], d[\"runs\"][\"made\"], d[\"runs\"][\"earlier\"]")" = "ok 1 1" &&
	test "$(json_words c5/session-start-2.json "d[\"registration\"]")" = "$(sha256_of slow-reg.json)" &&
	"$REPLICATE" log --log slog verify >out && grep -q "^OK: log slog: 6 entries" out
'

test_expect_success 'a session whose run fails ends as failed; --log without --registration is refused' '
	plan fails.json lab 0 3 && "$CAPTURE" register pinned-fails.json -o fails-reg.json --statistic p99 >/dev/null &&
	test_expect_code 1 "$CAPTURE" run pinned-fails.json -o c6 --registration fails-reg.json --log slog >out 2>err &&
	test "$(json_words c6/session-end.json "d[\"result\"], d[\"runs\"][\"made\"], d[\"runs\"][\"failed\"]")" = "failed 2 1" &&
	misuse "$CAPTURE" "capture: --log needs --registration; none given" run pinned-p.json -o c7 --log slog &&
	test_must_be_absent c7
'

test_expect_success 'a signed log stays signed: the registration and both ends of its session are appended under the key' '
	"$REPLICATE" keygen -o lab >/dev/null &&
	"$CAPTURE" register pinned-p.json -o signed-reg.json --statistic p99 --log signed --sign-key lab.key >/dev/null &&
	"$CAPTURE" run pinned-p.json -o c8 --registration signed-reg.json --log signed --sign-key lab.key >out 2>err &&
	"$REPLICATE" log --log signed --trust lab.pub verify >out &&
	grep -q "^OK: log signed: 3 entries, 3 tree heads, 3 checkpoints" out
'

test_expect_success 'under nohup a session keeps SIGHUP ignored: the logout'"'"'s hangup does not end it, its end is ok' '
	{ nohup "$CAPTURE" run pinned-slow.json -o c9 --registration slow-reg.json --log slog >c9.out 2>c9.err & } &&
	pid=$! && wait_for c9/runs/002-baseline-B-1/p/sender/started && kill -HUP $pid &&
	{ wait $pid; st=$?; } && test $st = 0 &&
	test "$(json_words c9/session-end.json "d[\"result\"], d[\"runs\"][\"made\"]")" = "ok 2" &&
	test -s c9/receipt-capture.json
'

test_done
