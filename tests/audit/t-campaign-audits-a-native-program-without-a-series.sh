#!/bin/sh
# audit campaign on a campaign whose sender keeps no raw series and writes
# no report (the llfix benchmark as a cell; here the reference pair run
# without --series and --report, which prints llfix's statistics block):
# the counts come from the plan, so both journals are audited against
# warmups + measured and pass; the printed statistics are shown as printed,
# the sample count compared with the plan and the rest named not
# recomputable; a block with its P75 line removed, or a sample count that
# is not the plan's, fails the run, named.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"

test_expect_success 'setup: a captured campaign of a program that keeps no series' '
	P=$EV_BUILDDIR/capture/pair &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "native", "warmups": 50, "measured": 400, "repeats": 1, "port": 11002,
	 "cells": [
	  {"name": "plain", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin",
	     "--journal", "{out:journal}", "--journal-file-size", "262144"], "cpu": 0,
	     "outputs": {"journal": "journal/receiver"}, "ready": {"tcp_listen": 11002}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--journal-file-size", "262144"], "cpu": 1,
	     "outputs": {"journal": "journal/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null &&
	r=c/runs/001-baseline-plain-1 && test_must_be_absent $r/report.json && grep -q "Sample count" $r/native/sender.stdout
'

test_expect_success 'the journals are audited with the plan'"'"'s counts; the printed block is shown, not recomputed' '
	"$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^OK: 1 runs; summary s" out &&
	test "$(json_words s/audit-journal.json "d[\"result\"], [p[\"sender\"][\"expected_orders\"] for p in d[\"facts\"][\"pairs\"]]")" = "pass 450" &&
	json_words s/summary.json "[(x[\"name\"], x[\"verdict\"]) for x in d[\"runs\"][0][\"native\"][\"statistics\"] if x[\"name\"] in (\"count\", \"p50\", \"max\")]" >got &&
	echo "count equal max not recomputable p50 not recomputable" >expect && test_cmp expect got &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"native\"][\"coverage\"]")" = \
		"recomputed 1 of 9 printed statistics (the count, from the plan; the rest not recomputable: the run recorded no raw series)" &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-plain-1 statistics\"]")" = pass &&
	test "$(json_words s/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"]")" = \
		"1 run without a raw series: the printed statistics shown, only the sample count compared (with the plan) the files read against a seal: none was given (--seal SEAL.json)"
'

test_expect_success 'a block without its P75 line, or a sample count that is not the plan'"'"'s, fails the run, named' '
	cp -R c cut && chmod -R u+w cut &&
	grep -v "P75" c/runs/001-baseline-plain-1/native/sender.stdout >cut/runs/001-baseline-plain-1/native/sender.stdout &&
	test_expect_code 1 "$AUDIT" campaign cut -o s2 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: cut/runs/001-baseline-plain-1/native/sender.stdout: p75: missing (native absent)$" err &&
	cp -R c count && chmod -R u+w count &&
	sed "s/Sample count\(.*\) : 400/Sample count\1 : 401/" c/runs/001-baseline-plain-1/native/sender.stdout \
		>count/runs/001-baseline-plain-1/native/sender.stdout &&
	! cmp -s c/runs/001-baseline-plain-1/native/sender.stdout count/runs/001-baseline-plain-1/native/sender.stdout &&
	test_expect_code 1 "$AUDIT" campaign count -o s3 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: count/runs/001-baseline-plain-1/native/sender.stdout: count: differs (native 401, the plan${Q}s measured 400)$" err
'

test_expect_success 'a SIGTERM in the middle of audit campaign: exit 2, no outputs, no receipt' '
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; } &&
	# every read after start-up held 0.1 s (strace), so that the signal lands in its middle
	n=$(startup_reads "$AUDIT") &&
	STOPPED_WITHIN=5 stopped SIGTERM s9/receipt.json env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f --seccomp-bpf -qq -o /dev/null -e trace=read -e inject=read:delay_enter=100000:when=$((n + 5))+ \
		"$AUDIT" campaign c -o s9 &&
	grep -q "interrupted by a signal; nothing is claimed" stopped.err &&
	test_must_be_absent s9 && test -z "$(ls -a | grep "^\.s9")"
'

test_done
