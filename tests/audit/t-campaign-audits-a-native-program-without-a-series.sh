#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign on a campaign whose sender keeps no raw series and writes
# no report (the llfix benchmark as a cell; here the reference pair run
# without --series and --report, which prints llfix's statistics block):
# the counts come from the plan, so both journals are audited against
# warmups + measured and pass; the printed statistics are shown as printed
# (a real cell, in ns, marked printed, never called recomputed), the
# sample count compared with the plan, the block checked against itself,
# and its bytes held against the capture receipt. Each test alters one
# fact: a P99 edited within what the block allows (caught by the capture
# receipt; passed, and said unpinned, without one), a P99 below the P50,
# a mean above the maximum, an untrusted capture receipt, a cut line, a
# count that is not the plan's.
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
	r=c/runs/001-baseline-plain-1 && test_must_be_absent $r/report.json && grep -q "Sample count" $r/native/sender.stdout &&
	# capture pinned every file the run left, as it was written
	test "$(json_words c/receipt-capture.json "[o[\"sha256\"] for o in d[\"outputs\"] if o[\"name\"] == \"runs/001-baseline-plain-1/native/sender.stdout\"]")" = \
		"$(sha256sum <$r/native/sender.stdout | cut -d" " -f1)" &&
	test "$(json_words c/receipt-capture.json "[o[\"name\"] for o in d[\"outputs\"] if o[\"name\"].startswith(\"runs/\")]")" = \
		"$(cd c && find runs -type f ! -name run.json | LC_ALL=C sort | tr "\n" " " | sed "s/ $//")"
'

test_expect_success 'the journals are audited with the plan'"'"'s counts; the printed block is shown, checked, never called recomputed' '
	"$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^OK: 1 runs (1 printed, not recomputable (no series): bytes pinned by capture receipt 1); summary s$" out &&
	test "$(json_words s/audit-journal.json "d[\"result\"], [p[\"sender\"][\"expected_orders\"] for p in d[\"facts\"][\"pairs\"]]")" = "pass 450" &&
	json_words s/summary.json "[(x[\"name\"], x[\"verdict\"]) for x in d[\"runs\"][0][\"native\"][\"statistics\"] if x[\"name\"] in (\"count\", \"p50\", \"max\")]" >got &&
	echo "count equal max not recomputable p50 not recomputable" >expect && test_cmp expect got &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"native\"][\"coverage\"]")" = \
		"printed, not recomputable (no series): the count compared with the plan, the block checked against itself (consistent), the other 8 of 9 statistics shown as printed" &&
	test "$(json_words s/summary.json "d[\"runs\"][0][\"pinned_by\"], d[\"runs\"][0][\"in_cell_median\"]")" = "capture receipt True" &&
	test "$(json_words s/receipt.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-plain-1 statistics\"]")" = \
		"printed, not recomputable (no series): consistent, the count the plan${Q}s; bytes pinned by capture receipt" &&
	test "$(json_words s/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"]")" = \
		"1 run without a raw series: printed, not recomputable (no series); each block checked against itself and its sample count against the plan the files read against a seal: none was given (--seal SEAL.json)" &&
	grep -q "every file read of 1 run held against the capture receipt that recorded it when it was written" s/receipt.json
'

test_expect_success 'a real cell: the medians of the printed figures, in ns, marked printed, in every table' '
	test "$(json_words s/summary.json "[(c[\"cell\"], c[\"runs\"], c[\"unit\"], c[\"source\"]) for c in d[\"cells\"]]")" = \
		"plain 1 ns printed, not recomputable (no series)" &&
	p50=$(sed -n "s/.*P50.* : \([0-9]*\)\.0*  *nanoseconds.*/\1/p" c/runs/001-baseline-plain-1/native/sender.stdout) &&
	test -n "$p50" &&
	test "$(json_words s/summary.json "d[\"cells\"][0][\"median_of_runs\"][\"p50\"], d[\"cells\"][0][\"median_of_runs\"][\"p99.9\"]")" = "$p50.000000000 None" &&
	grep -q "^| plain | 1 | floor-index, printed | $p50 | [0-9.]* | [0-9.]* | — | [0-9.]* | [0-9]* |$" s/summary.md &&
	grep -q "^| 001-baseline-plain-1 | plain | ok | $p50 | .* | printed | none | capture receipt |$" s/summary.md &&
	! grep -q "no run held\|Values in ticks\|recomputed from the runs" s/summary.md s/report.html &&
	grep -q "<th>p50 (ns)</th>" s/report.html && grep -q "<td>floor-index, printed</td>" s/report.html
'

# edit_p99 DIR VALUE: the first run's printed P99 becomes VALUE (its line otherwise as printed)
edit_p99 () {
	f=$1/runs/001-baseline-plain-1/native/sender.stdout &&
	sed "s/\(P99.* : \)[0-9]*\(\.0* nanoseconds\)/\1$2\2/" c/runs/001-baseline-plain-1/native/sender.stdout >$f.new &&
	! cmp -s $f $f.new && mv $f.new $f
}

test_expect_success 'a P99 edited to a value the block allows: the capture receipt names the file, the run fails' '
	rm -rf p && cp -R c p && chmod -R u+w p &&
	p95=$(sed -n "s/.*P95.* : \([0-9]*\)\.0*  *nanoseconds.*/\1/p" c/runs/001-baseline-plain-1/native/sender.stdout) &&
	edit_p99 p $((p95 + 1)) &&
	test_expect_code 1 "$AUDIT" campaign p -o s2 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: runs/001-baseline-plain-1/native/sender.stdout: its SHA-256 is not the one receipt-capture.json recorded (changed after capture)$" err &&
	! grep -q inconsistent err &&
	test "$(json_words s2/receipt.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]")" = \
		"run 001-baseline-plain-1 against the capture receipt" &&
	test "$(json_words s2/summary.json "d[\"runs\"][0][\"in_cell_median\"], d[\"cells\"]")" = "False" &&
	grep -q "^FAIL: 1 runs" out
'

test_expect_success 'the same edit with no capture receipt: passes, and says that nothing pinned the bytes' '
	rm -rf q && cp -R p q && rm q/receipt-capture.json &&
	"$AUDIT" campaign q -o s3 >out 2>err &&
	grep -q "^OK: 1 runs (1 printed, not recomputable (no series): bytes pinned by nothing 1); summary s3$" out &&
	test "$(json_words s3/summary.json "d[\"runs\"][0][\"pinned_by\"]")" = nothing &&
	grep -q "the bytes of 1 run as they were written: no seal, and no capture receipt records every file read of it" s3/receipt.json &&
	grep -q "^| 001-baseline-plain-1 | plain | ok | .* | printed | none | nothing |$" s3/summary.md
'

test_expect_success 'a P99 below the P50 and the minimum, no capture receipt: the block contradicts itself, named' '
	rm -rf b && cp -R q b && edit_p99 b 1 &&
	test_expect_code 1 "$AUDIT" campaign b -o s4 >out 2>err &&
	f=b/runs/001-baseline-plain-1/native/sender.stdout &&
	grep -q "^audit: 001-baseline-plain-1: $f: p99: inconsistent: p99 1.000000 is below p95 [0-9]*.000000 (a percentile never decreases as p rises)$" err &&
	grep -q "^audit: 001-baseline-plain-1: $f: p99: inconsistent: p99 1.000000 is below min [0-9.e+]* (no percentile lies below the smallest value)$" err &&
	test "$(json_words s4/receipt.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-plain-1 statistics\"]")" = \
		"printed, not recomputable (no series): the block contradicts itself; bytes pinned by nothing" &&
	test "$(json_words s4/summary.json "len(d[\"runs\"][0][\"native\"][\"consistency\"])")" = 2 &&
	grep -q "| printed, INCONSISTENT | none | nothing |$" s4/summary.md
'

test_expect_success 'a mean above the maximum: named; a maximum printed %g is allowed its rounding' '
	rm -rf m && cp -R q m && f=m/runs/001-baseline-plain-1/native/sender.stdout &&
	sed "s/\(Average.* : \)[0-9.]*/\199999999.000000/" q/runs/001-baseline-plain-1/native/sender.stdout >$f &&
	test_expect_code 1 "$AUDIT" campaign m -o s5 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: $f: mean: inconsistent: mean 99999999.000000 is above max [0-9.e+]* (a mean lies between the smallest and the largest value)$" err
'

test_expect_success '--trust: a capture receipt signed by a trusted key pins; an unsigned one is refused, named' '
	"$REPLICATE" keygen -o k >/dev/null && "$REPLICATE" keygen -o other >/dev/null &&
	"$CAPTURE" run pinned.json -o signed --sign-key k.key >/dev/null &&
	"$AUDIT" campaign signed --trust k.pub -o s6 >out 2>err &&
	grep -q "bytes pinned by capture receipt 1" out &&
	test_expect_code 1 "$AUDIT" campaign signed --trust other.pub -o s7 >out 2>err &&
	grep -q "^audit: signed/receipt-capture.json: .*; what it pins is not used$" err &&
	test "$(json_words s7/receipt.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]")" = "capture receipt receipt-capture.json" &&
	test "$(json_words s7/summary.json "d[\"runs\"][0][\"pinned_by\"]")" = nothing &&
	test_expect_code 1 "$AUDIT" campaign c --trust k.pub -o s8 >out 2>err &&
	grep -q "^audit: c/receipt-capture.json: is not signed; what it pins is not used$" err
'

test_expect_success 'a block without its P75 line, or a sample count that is not the plan'"'"'s, fails the run, named' '
	cp -R c cut && chmod -R u+w cut &&
	grep -v "P75" c/runs/001-baseline-plain-1/native/sender.stdout >cut/runs/001-baseline-plain-1/native/sender.stdout &&
	test_expect_code 1 "$AUDIT" campaign cut -o s11 >out 2>err &&
	grep -q "^audit: 001-baseline-plain-1: cut/runs/001-baseline-plain-1/native/sender.stdout: p75: missing (native absent)$" err &&
	cp -R c count && chmod -R u+w count &&
	sed "s/Sample count\(.*\) : 400/Sample count\1 : 401/" c/runs/001-baseline-plain-1/native/sender.stdout \
		>count/runs/001-baseline-plain-1/native/sender.stdout &&
	! cmp -s c/runs/001-baseline-plain-1/native/sender.stdout count/runs/001-baseline-plain-1/native/sender.stdout &&
	test_expect_code 1 "$AUDIT" campaign count -o s12 >out 2>err &&
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
	test_must_be_absent s9 && no_entry . "^\.s9"
'

test_done
