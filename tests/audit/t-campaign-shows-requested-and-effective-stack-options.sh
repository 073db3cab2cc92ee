#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign reads what capture's onload observers kept (from a
# stand-in onload_stackdump printing Onload's documented format: there is
# no Onload here) and shows, per cell and side, the options each side
# asked for (its EF_ environment and the Onload profile among its inputs)
# against those its stack used in each run. A run whose effective options
# differ from the request, or from its cell's other runs, is flagged and
# fails the cell's check; a profile in Onload's own syntax (onload_set,
# onload_import, from its profile directory) is read; a stack the
# observer never saw fails its run unless the observer is optional; an
# observer output changed after capture is named and fails its run.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
for f in onload onload_stackdump; do
	cp "$EV_SRCDIR/tests/capture/$f" . && chmod 755 $f || exit 99
done
ONLOAD=$PWD/onload DUMP=$PWD/onload_stackdump P=$EV_BUILDDIR/capture/pair

# plan FILE REPEATS: the reference pair, the sender under the onload
# stand-in with a profile, both sides observed. DUMP_MORE (more
# arguments of the stand-in stackdump), PROFILE (the launcher's
# --profile), INPUTS (the sender's inputs) and WHEN (the observer's
# "when" and more) change one fact each.
plan () {
	when=${WHEN:-'"when": ["during", "after"]'}
	inputs=${INPUTS:-"{\"onload_profile.cfg\": \"$PWD/profile.cfg\"}"}
	profile=${PROFILE:---profile=onload_profile.cfg}
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "stack", "port": 11013, "warmups": 100, "measured": 10000, "repeats": $2,
	 "observe": {"interval_ms": 50},
	 "observers": [{"name": "stackdump", "argv": ["$DUMP", "lots", "{pid}", "{side}"${DUMP_MORE:-}],
	                $when, "format": "onload"}],
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--journal", "{out:journal}",
	     "--journal-file-size", "262144"], "cpu": 0, "outputs": {"journal": "peer/journal"},
	     "ready": {"tcp_listen": 11013}, "env": {"EF_POLL_USEC": "0"}},
	  "sender": {"launcher": ["$ONLOAD", "$profile"],
	     "argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}", "--measured",
	     "{measured}", "--rate", "20000", "--journal", "{out:journal}", "--journal-file-size", "262144",
	     "--series", "{out:series}", "--report", "{out:report}"], "cpu": 1,
	     "inputs": $inputs, "env": {"EF_TCP_RCVBUF": "262144"},
	     "outputs": {"journal": "sender/journal", "series": "sender/series.bin", "report": "sender/report.json"}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

test_expect_success 'setup: a profile, and two campaigns: one run, and two runs whose second ignores its profile' '
	printf "# the benchmark'"'"'s profile\nEF_POLL_USEC=100000\nEF_MAX_PACKETS=100000\n" >profile.cfg && chmod 644 profile.cfg &&
	plan one.json 1 && plan two.json 2 &&
	"$CAPTURE" run pinned-one.json -o c1 >/dev/null &&
	"$CAPTURE" run pinned-two.json -o c2 >/dev/null
'

test_expect_success 'one run: requested and effective side by side, every check passes' '
	"$AUDIT" campaign c1 -o s1 >out 2>err &&
	test "$(json_words s1/summary.json "sorted(d[\"stack_options\"][\"A\"][\"sender\"][\"requested\"].items())")" = \
		"EF_MAX_PACKETS 100000 EF_POLL_USEC 100000 EF_TCP_RCVBUF 262144" &&
	test "$(json_words s1/summary.json "sorted(d[\"stack_options\"][\"A\"][\"sender\"][\"runs\"][\"001-baseline-A-1\"].items())")" = \
		"EF_MAX_PACKETS 100000 EF_POLL_USEC 100000 EF_TCP_RCVBUF 262144" &&
	test "$(json_words s1/summary.json "sorted(d[\"stack_options\"][\"A\"][\"peer\"][\"requested\"].items()), sorted(d[\"stack_options\"][\"A\"][\"peer\"][\"runs\"][\"001-baseline-A-1\"].items())")" = \
		"EF_POLL_USEC 0 EF_POLL_USEC 0" &&
	grep -q "^| EF_POLL_USEC | 100000 | 100000 |$" s1/summary.md &&
	grep -q "^| live_observers | fail | observer stackdump sampled the \(sender\|peer\) [1-9][0-9]* times\? during the run (run 001)[;| ]" s1/summary.md &&
	test "$(json_words s1/receipt.json "d[\"result\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"] in (\"cell A sender effective options\", \"cell A peer effective options\", \"run 001-baseline-A-1 observers\")]")" = "pass pass pass pass"
'

test_expect_success 'two runs: the one whose stack ignored its profile is flagged, and the cell'"'"'s check fails' '
	test_expect_code 1 "$AUDIT" campaign c2 -o s2 >out 2>err &&
	grep -q "^audit: 002-baseline-A-2: sender EF_POLL_USEC: effective 0, where the cell'"'"'s other runs have 100000$" err &&
	grep -q "^| EF_POLL_USEC | 100000 | 100000 | 0 DIFFERS |$" s2/summary.md &&
	test "$(json_words s2/receipt.json "[(c[\"result\"], c[\"detail\"]) for c in d[\"checks\"] if c[\"name\"] == \"cell A sender effective options\"]")" = \
		"fail 1 option value differs from the cell'"'"'s other runs (first: 002-baseline-A-2 EF_POLL_USEC)" &&
	test "$(json_words s2/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"cell A peer effective options\"]")" = pass &&
	grep -q "<td class=\"differs\">0 DIFFERS</td>" s2/report.html
'

test_expect_success 'an observer output edited after capture is named, and fails its run'"'"'s check' '
	cp -a c1 c3 &&
	f=$(ls c3/runs/001-baseline-A-1/observe/stackdump/sender/during-*.txt | sed -n 1p) &&
	was=$(sha256_of "$f") && sed -i "s/EF_POLL_USEC: 100000/EF_POLL_USEC: 5/" "$f" &&
	test_expect_code 1 "$AUDIT" campaign c3 -o s3 >out 2>err &&
	rel=${f#c3/runs/001-baseline-A-1/} &&
	grep -q "^audit: 001-baseline-A-1: $rel: an observer'"'"'s output changed since capture (expected $was, found $(sha256_of "$f"))$" err &&
	test "$(json_words s3/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-A-1 observers\"]")" = fail
'

test_expect_success 'the coverage names what was compared' '
	json_words s1/receipt.json "d[\"facts\"][\"coverage\"][\"recomputed\"]" | contains "the stack options of 1 cell: every onload observer"
'

test_expect_success 'one run whose stack ignored its profile: requested against effective, the run named, the check fails' '
	DUMP_MORE=", \"ignore-profile\"" plan ignored.json 1 && "$CAPTURE" run pinned-ignored.json -o c4 >/dev/null &&
	test_expect_code 1 "$AUDIT" campaign c4 -o s4 >out 2>err &&
	grep -q "^audit: 001-baseline-A-1: sender EF_POLL_USEC: requested 100000, effective 0$" err &&
	test "$(json_words s4/receipt.json "[(c[\"result\"], c[\"detail\"]) for c in d[\"checks\"] if c[\"name\"] == \"cell A sender requested options\"]")" = \
		"fail 1 effective value differs from the request (first: 001-baseline-A-1 EF_POLL_USEC: requested 100000, effective 0)" &&
	test "$(json_words s4/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] in (\"cell A sender effective options\", \"cell A peer requested options\")]")" = "pass pass" &&
	grep -q "^| EF_POLL_USEC | 100000 | 0 DIFFERS |$" s4/summary.md
'

test_expect_success 'a profile in Onload'"'"'s own syntax, named and imported from its profile directory: every option requested' '
	mkdir profiles &&
	printf "# base\nonload_set EF_MAX_PACKETS 100000\nonload_set EF_POLL_USEC=5\n" >profiles/base.opf &&
	printf "# latency\nonload_import base\nonload_set EF_POLL_USEC \"100000\"\nset -e\n" >profiles/latency.opf &&
	PROFILE=--profile=latency plan opf.json 1 && "$CAPTURE" run pinned-opf.json -o c5 >/dev/null &&
	"$AUDIT" campaign c5 -o s5 --onload-profiles "$PWD/profiles" >out 2>err &&
	test "$(json_words s5/summary.json "sorted(d[\"stack_options\"][\"A\"][\"sender\"][\"requested\"].items())")" = \
		"EF_MAX_PACKETS 100000 EF_POLL_USEC 100000 EF_TCP_RCVBUF 262144" &&
	test "$(json_words s5/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"cell A sender requested options\"]")" = pass &&
	test "$(json_words s5/receipt.json "[i[\"name\"] for i in d[\"inputs\"] if i[\"name\"].startswith(\"onload profile\")]")" = \
		"onload profile latency onload profile base" &&
	grep -q "cell A sender: profile latency line 4: set -e: not understood, not counted as requested" s5/receipt.json &&
	# without the profile directory the request cannot be read, and the coverage says so
	"$AUDIT" campaign c5 -o s6 --onload-profiles "$PWD/none" >out 2>err &&
	grep -q "cell A sender: profile latency is neither among the side.s inputs nor readable in Onload.s profile directory $PWD/none" s6/receipt.json
'

test_expect_success 'a profile run.json names with "..", as an absolute path or as a link is never read, and said so' '
	for bad in "../../../../etc/passwd" "/etc/passwd" "evil"; do
		rm -rf c9 s9 && cp -a c5 c9 && rm c9/receipt-capture.json &&
		ln -s /etc/passwd profiles/evil.opf &&
		python3 - c9/runs/001-baseline-A-1/run.json "$bad" <<-\PY &&
		import json, sys
		d = json.load(open(sys.argv[1]))
		for p in d["processes"]:
		    p["argv"] = [("--profile=" + sys.argv[2]) if a.startswith("--profile=") else a for a in p["argv"]]
		open(sys.argv[1], "w").write(json.dumps(d))
		PY
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat -o opened.txt \
			"$AUDIT" campaign c9 -o s9 --onload-profiles "$PWD/profiles" >out 2>err; rm -f profiles/evil.opf
		# looked at without following (O_PATH|O_NOFOLLOW), never opened to read
		! grep "etc/passwd\|evil.opf" opened.txt | contains -v O_PATH || { echo "$bad: opened"; return 1; }
		grep -q "cell A sender: profile $bad is neither among the side.s inputs nor readable in Onload.s profile directory" s9/receipt.json ||
			{ echo "$bad: not named"; return 1; }
	done
'

test_expect_success 'a stack its observer never saw fails the run; an optional observer makes it a named gap' '
	WHEN="\"when\": [\"after\"]" plan late.json 1 && "$CAPTURE" run pinned-late.json -o c7 >/dev/null &&
	test_expect_code 1 "$AUDIT" campaign c7 -o s7 >out 2>err &&
	grep -q "^audit: 001-baseline-A-1: sender: the sender.s stack was never observed: observer stackdump showed no option" err &&
	test "$(json_words s7/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-A-1 observers\"]")" = fail &&
	WHEN="\"when\": [\"after\"], \"optional\": true" plan optional.json 1 && "$CAPTURE" run pinned-optional.json -o c8 >/dev/null &&
	"$AUDIT" campaign c8 -o s8 >out 2>err &&
	grep -q "cell A sender: run 001-baseline-A-1: its stack was not observed (observer stackdump is optional)" s8/receipt.json &&
	! WHEN="\"when\": [\"after\"], \"optional\": \"yes\"" plan bad.json 1 2>err &&
	grep -q "observers\[0\].*\"optional\": expected true or false" err
'

test_done
