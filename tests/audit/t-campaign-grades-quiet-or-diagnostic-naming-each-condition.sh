#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Grades: the demo campaign captured on this machine (no isolation, the
# controller beside the peer) grades diagnostic, each failed condition
# named with its evidence and runs, in summary.md, summary.json, runs.csv,
# the report, the receipt and on stdout. The same campaign with the
# snapshots of an isolated host grades quiet; one condition flipped makes
# it diagnostic naming that condition alone; a recorded field removed
# makes it unknown, never quiet. Rules pinned in the plan are used and
# named; rules that require quiet fail the check; broken rules are
# refused. audit compare refuses a quiet side against a diagnostic one
# unless --mixed-grades, and then says so in every output. capture run
# --require quiet refuses before anything runs, naming each condition,
# and runs a plan whose rules this host meets. The shipped default is the
# one doc/formats.md shows.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
Q="'"
if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi

# isolate DIR: the campaign as an isolated host would have recorded it
isolate () {
	python3 "$EV_SRCDIR/tests/audit/isolated-host.py" "$1"
}

# edit FILE EXPR...: run Python statements over d, the JSON of FILE
edit () {
	f=$1
	shift
	python3 - "$f" "$@" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	for statement in sys.argv[2:]:
	    exec(statement)
	json.dump(d, open(sys.argv[1], "w"))
	PY
}

# off SUMMARY_DIR: the conditions not passed, "NAME:VERDICT ..."
off () {
	json_words "$1/summary.json" "[c[\"condition\"] + \":\" + c[\"verdict\"] for c in d[\"grade\"][\"conditions\"] if c[\"verdict\"] not in (\"pass\", \"not graded\")]"
}

test_expect_success 'setup: the demo campaign, captured on this machine and audited' '
	sed -e "s|@BINDIR@|$EV_BUILDDIR/capture/pair|g" -e "s|@USER@|$(id -un)|g" \
		-e "s|@PEER_CPU@|0|g" -e "s|@SENDER_CPU@|1|g" -e "s|@SHARES@|true|g" \
		-e "s|\"measured\": 20000|\"measured\": 2000|" "$EV_SRCDIR/share/demo/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run $degrade pinned.json -o c >capture.out 2>&1 &&
	"$AUDIT" campaign c -o s >out 2>err
'

test_expect_success 'this machine: diagnostic, every failed condition named with its evidence and runs, everywhere' '
	grep -q "^## Grade: diagnostic$" s/summary.md &&
	grep -q "^| controller | fail | CPU 0 is the peer${Q}s and the controller${Q}s: capture, its observers and perf ran beside a measured side (all 8 runs) |$" s/summary.md &&
	if ! grep -q "isolcpus=" /proc/cmdline; then
		grep -q "^| isolcpus | fail | the kernel command line has no isolcpus (policy.json) (all 8 runs) |$" s/summary.md
	fi &&
	grep -q "^| involuntary_switches | \(pass\|fail\) | " s/summary.md &&
	grep -q "^grade: diagnostic by the rules evidence-default version 2 (the shipped default): [1-9][0-9]* conditions\? failed, [0-9]* unknown (each named under Grade)$" out &&
	grep -q "^OK: 8 runs; summary s$" out &&
	test "$(json_words s/summary.json "d[\"grade\"][\"grade\"], d[\"grade\"][\"rules\"][\"name\"], d[\"grade\"][\"rules\"][\"from\"]")" = "diagnostic evidence-default the shipped default" &&
	test "$(json_words s/summary.json "sorted(set(r[\"grade\"] for r in d[\"runs\"])), \"controller\" in d[\"runs\"][0][\"grade_conditions\"]")" = "diagnostic True" &&
	head -n 1 s/runs.csv | contains ",series_findings,grade,smi,thermal_throttle,effective_frequency_pct,steal_ms,swapped_pages,psi_cpu_per_mille,psi_memory_per_mille,psi_io_per_mille,marked.$" &&
	test "$(awk -F, "NR > 1 { print \$19 }" s/runs.csv | tr -d "\r" | sort | uniq -c | tr -s " ")" = " 8 diagnostic" &&
	test "$(json_words s/receipt.json "[(c[\"result\"], c[\"detail\"].split(\";\")[0]) for c in d[\"checks\"] if c[\"name\"] == \"grade\"], d[\"facts\"][\"grade\"][\"grade\"]")" = \
		"pass diagnostic by the rules evidence-default version 2 (the shipped default) diagnostic" &&
	json_words s/receipt.json "d[\"facts\"][\"grade\"][\"rules\"][\"sha256\"]" | contains "^[0-9a-f]\{64\}$" &&
	grep -q "<th scope=\"row\">grade</th><td>diagnostic by the rules evidence-default version 2" s/report.html &&
	grep -q "<section id=\"grade\"><h2>Grade: diagnostic</h2>" s/report.html &&
	grep -q "^capture: grade: at best diagnostic by the rules evidence-default version 2 (the shipped default): .*controller" capture.out
'

test_expect_success 'the snapshots of an isolated host: quiet, every condition met' '
	cp -R c q && isolate q &&
	"$AUDIT" campaign q -o sq >out 2>err &&
	grep -q "^## Grade: quiet$" sq/summary.md &&
	grep -q "^grade: quiet by the rules evidence-default version 2 (the shipped default): 0 conditions failed, 0 unknown$" out &&
	test -z "$(off sq)" &&
	test "$(json_words sq/summary.json "sorted(set(r[\"grade\"] for r in d[\"runs\"])), [c[\"verdict\"] for c in d[\"grade\"][\"conditions\"]].count(\"pass\")")" = "quiet 25" &&
	test "$(awk -F, "NR > 1 { print \$19 }" sq/runs.csv | tr -d "\r" | sort | uniq -c | tr -s " ")" = " 8 quiet"
'

test_expect_success 'one condition flipped alone: diagnostic, that condition named, with its runs' '
	cp -R q f1 && edit f1/policy.json "d[\"cpus\"][\"2\"][\"governor\"] = \"powersave\"" &&
	"$AUDIT" campaign f1 -o sf1 >out 2>err &&
	test "$(off sf1)" = governor:fail &&
	grep -q "^| governor | fail | CPU 2 (the peer${Q}s) has governor powersave (the rules allow performance) (policy.json) (all 8 runs) |$" sf1/summary.md &&
	cp -R q f2 && edit f2/runs/003-baseline-epoll-2/run.json "d[\"cpus\"][\"after\"][\"interrupts\"][\"LOC\"][\"3\"] += 1204" &&
	"$AUDIT" campaign f2 -o sf2 >out 2>err &&
	test "$(off sf2)" = interrupts:fail &&
	grep -q "^| interrupts | fail | CPU 3 (the sender${Q}s) took 1,204 LOC interrupts during the run (bound 0) (run 003) |$" sf2/summary.md &&
	test "$(json_words sf2/summary.json "[(r[\"name\"], r[\"grade\"]) for r in d[\"runs\"] if r[\"grade\"] != \"quiet\"]")" = "003-baseline-epoll-2 diagnostic" &&
	grep -q "^003-baseline-epoll-2,.*,diagnostic" sf2/runs.csv
'

test_expect_success 'a recorded field removed: unknown, never quiet' '
	cp -R q u && edit u/policy.json "del d[\"isolation\"][\"nohz_full\"]" &&
	"$AUDIT" campaign u -o su >out 2>err &&
	test "$(off su)" = nohz_full:unknown &&
	grep -q "^## Grade: diagnostic$" su/summary.md &&
	grep -q "^| nohz_full | unknown | policy.json records no isolation.nohz_full (the kernel command line${Q}s nohz_full) (all 8 runs) |$" su/summary.md &&
	grep -q "^grade: diagnostic by the rules evidence-default version 2 (the shipped default): 0 conditions failed, 1 unknown (each named under Grade)$" out
'

test_expect_success 'rules pinned in the plan: used and named; require quiet fails the check; broken rules are refused' '
	cp -R c r1 && edit r1/plan.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"d[\"grades\"].update(name=\"lab-strict\", version=3, require=\"quiet\")" &&
	test_expect_code 1 "$AUDIT" campaign r1 -o sr1 >out 2>err &&
	grep -q "^FAIL: 8 runs; summary sr1$" out &&
	test "$(json_words sr1/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"grade\"], d[\"facts\"][\"grade\"][\"rules\"][\"from\"]")" = "fail the plan" &&
	json_words sr1/receipt.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"grade\"]" | contains "^diagnostic by the rules lab-strict version 3 (the plan); failed: .*; the rules require quiet$" &&
	cp -R c r2 && edit r2/plan.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"del d[\"grades\"][\"turbo\"]" &&
	test_expect_code 2 "$AUDIT" campaign r2 -o sr2 >out 2>err &&
	grep -q "^audit: r2/plan.json: \"grades\": \"turbo\": missing (every condition is stated, null when not graded)$" err &&
	test_must_be_absent sr2
'

test_expect_success 'audit compare: quiet against diagnostic is refused; --mixed-grades compares and says so in every output' '
	test_expect_code 2 "$AUDIT" compare --unregistered sq s -o mixed >out 2>err &&
	grep -q "^audit: arm baseline cell spin of A is quiet, arm baseline cell spin of B is diagnostic: a timing-grade figure against a diagnostic one says little of either" err &&
	test_must_be_absent mixed &&
	"$AUDIT" compare --unregistered --mixed-grades --resamples 200 sq s -o mixed >out 2>err &&
	grep -q "; MIXED GRADES: A quiet, B diagnostic (--mixed-grades)$" out &&
	grep -q "^## .*; MIXED GRADES: A quiet, B diagnostic (--mixed-grades)$" mixed/comparison.md &&
	grep -q "MIXED GRADES: A quiet, B diagnostic" mixed/comparison.html &&
	test "$(json_words mixed/comparison.json "sorted(set((p[\"a\"][\"grade\"], p[\"b\"][\"grade\"], p[\"mixed_grades\"]) for p in d[\"pairs\"]))")" = "quiet diagnostic True" &&
	test "$(json_words mixed/receipt.json "d[\"facts\"][\"mixed_grades\"]")" = 4 &&
	"$AUDIT" compare --unregistered --resamples 200 sf1 s -o notmixed >out 2>err &&
	! grep -q "MIXED" out notmixed/comparison.md &&
	test "$(json_words notmixed/receipt.json "d[\"facts\"][\"mixed_grades\"]")" = 0
'

test_expect_success 'capture run --require quiet: refused before anything runs, each condition named; a plan with live observers and a profiler names both' '
	test_expect_code 2 "$CAPTURE" run $degrade --require quiet pinned.json -o never >out 2>err &&
	test ! -s out && test_must_be_absent never &&
	grep -q "^  fail: controller: CPU 0 is a peer${Q}s and the controller${Q}s (controller_shares)$" err &&
	tail -n 1 err | contains "^capture: pinned.json: --require quiet: this plan on this host can reach only diagnostic (the conditions above); nothing was run$" &&
	edit plan.json "d[\"observers\"] = [{\"name\": \"ss\", \"argv\": [\"/bin/true\"]}]" \
		"d[\"perf\"] = \"/usr/bin/perf\"" "d[\"cells\"][0][\"sender\"][\"profile\"] = {\"event\": \"cpu-clock\"}" &&
	"$CAPTURE" pin plan.json -o loud.json >/dev/null &&
	test_expect_code 2 "$CAPTURE" run $degrade --require quiet loud.json -o never >out 2>err &&
	grep -q "^  fail: profiler: cell spin profiles the sender (perf attached)$" err &&
	grep -q "^  fail: live_observers: observer ss samples during the run (its \"when\" is the default, with \"during\")$" err &&
	test_must_be_absent never &&
	edit loud.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"d[\"grades\"].update(require=\"quiet\")" &&
	test_expect_code 2 "$CAPTURE" run $degrade loud.json -o never >out 2>err &&
	tail -n 1 err | contains "^capture: loud.json: its grading rules require quiet: this plan on this host can reach only diagnostic (the conditions above); nothing was run$" &&
	test_must_be_absent never
'

test_expect_success 'capture run --require quiet runs a plan whose rules this host meets; audit campaign grades it quiet by them' '
	edit pinned.json "d[\"grades\"] = json.loads(open(\"s/summary.json\").read())[\"grade\"][\"rules\"][\"declared\"]" \
		"d[\"grades\"].update(name=\"vm-lab\", version=2)" \
		"[d[\"grades\"].update({k: None}) for k in (\"isolcpus\", \"smt_siblings\", \"controller\", \"governor\", \"energy_performance_preference\", \"turbo\", \"transparent_hugepage\", \"numa_balancing\", \"clocksource\", \"device_irqs\", \"interrupts\", \"involuntary_switches\", \"pm_qos\", \"smi\", \"thermal_throttle\", \"effective_frequency\", \"steal\", \"swapping\", \"pressure\")]" \
		"d[\"grades\"].update(nohz_full=False, rcu_nocbs=False, watchdog=None)" \
		"d[\"arms\"] = d[\"arms\"][:1]" "d[\"repeats\"] = 1" "d[\"cells\"] = d[\"cells\"][:1]" &&
	if [ -z "$degrade" ]; then
		"$CAPTURE" run --require quiet pinned.json -o lax >out 2>err &&
		grep -q "^capture: grade: at best quiet by the rules vm-lab version 2 (the plan${Q}s); audit campaign judges what only a run shows$" out &&
		"$AUDIT" campaign lax -o slax >out 2>err &&
		grep -q "^grade: quiet by the rules vm-lab version 2 (the plan): 0 conditions failed, 0 unknown$" out &&
		test "$(json_words slax/summary.json "[c[\"condition\"] for c in d[\"grade\"][\"conditions\"] if c[\"verdict\"] == \"pass\"]")" = "lease profiler live_observers"
	fi
'

test_expect_success 'the shipped default is the one doc/formats.md shows' '
	python3 - "$EV_SRCDIR/doc/formats.md" <<-\PY
	import json, sys
	text = open(sys.argv[1]).read()
	start = text.index("```json\n{\"format\": \"evidence-grades/1\"") + len("```json\n")
	shown = json.loads(text[start:text.index("```", start)])
	used = json.load(open("s/summary.json"))["grade"]["rules"]["declared"]
	assert shown == used, (shown, used)
	PY
'

test_done
