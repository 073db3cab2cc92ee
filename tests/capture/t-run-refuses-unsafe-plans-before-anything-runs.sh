#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture refuses, before anything runs and with the exact reason, a plan
# whose outputs leave the run directory, whose argv names an unknown
# variable or climbs out of {run_dir}, whose keys are misspelt, whose
# sides share a CPU, and any program or other pinned file (a config) that
# is not the pinned file: not pinned, changed since it was pinned (also
# between two runs), a symbolic link, a FIFO, or writable by others. Nothing is created for a refused plan, and
# a campaign directory holds one plan only.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99

# plan FILE SENDER_ARGV_TAIL [OUTPUT_PATH [EXTRA_TOP_LEVEL]]: one probe
# cell, no namespaces (so that this runs unprivileged too).
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "refusals", "warmups": 0, "measured": 1, ${4:-}
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "probe/peer"}},
	  "sender": {"argv": ["$PROBE", $2], "cpu": 1, "outputs": {"probe": "${3:-probe/sender}"}}}]}
	EOF
}

# refused FILE 'MESSAGE': capture run FILE exits 2 with exactly that
# line on stderr, and leaves no campaign directory.
refused () {
	test_expect_code 2 "$CAPTURE" run "$1" -o c >out 2>err &&
	echo "$2" >expect && test_cmp expect err && test ! -s out && test_must_be_absent c
}

test_expect_success 'an output that climbs out of the run directory is refused' '
	plan p.json "\"{out:probe}\"" "../escape" &&
	refused p.json "capture: p.json: cell A sender: output \"probe\": \"../escape\" has a '"'"'.'"'"' or '"'"'..'"'"' component (an output is a path inside the run directory)"
'

test_expect_success 'an absolute output is refused' '
	plan p.json "\"{out:probe}\"" "/tmp/escape" &&
	refused p.json "capture: p.json: cell A sender: output \"probe\": \"/tmp/escape\" is absolute (an output is a path inside the run directory)"
'

test_expect_success 'capture'"'"'s own names are not outputs' '
	plan p.json "\"{out:probe}\"" "run.json" &&
	refused p.json "capture: p.json: cell A sender: output \"probe\": \"run.json\" is capture'"'"'s own (run.json, native/, observe/)"
'

test_expect_success 'a side'"'"'s working directory is not an output; an input stays inside it, comes from an absolute path, and is no output' '
	plan p.json "\"{out:probe}\"" "sender" &&
	refused p.json "capture: p.json: cell A sender: output \"probe\": \"sender\" is a side'"'"'s working directory (write outputs inside it)" &&
	plan p.json "\"{out:probe}\"" &&
	sed "s|\"cpu\": 1,|\"cpu\": 1, \"inputs\": {\"../config.cfg\": \"/etc/hostname\"},|" p.json >q.json &&
	refused q.json "capture: q.json: cell A sender: input \"../config.cfg\": has a '"'"'.'"'"' or '"'"'..'"'"' component (an input is a path inside the side'"'"'s working directory)" &&
	sed "s|\"cpu\": 1,|\"cpu\": 1, \"inputs\": {\"config.cfg\": \"etc/hostname\"},|" p.json >q.json &&
	refused q.json "capture: q.json: cell A sender: input \"config.cfg\": expected the absolute path of the file to copy" &&
	plan p.json "\"{out:probe}\"" "sender/probe" &&
	sed "s|\"cpu\": 1,|\"cpu\": 1, \"inputs\": {\"probe\": \"/etc/hostname\"},|" p.json >q.json &&
	refused q.json "capture: q.json: cell A sender: input \"probe\" is also output \"probe\""
'

test_expect_success 'an input that is not pinned is refused before anything runs' '
	plan p.json "\"{out:probe}\"" &&
	echo "primary_port=5001" >cfg && chmod 644 cfg &&
	"$CAPTURE" pin p.json -o p-pinned.json >/dev/null &&
	sed "s|\"cpu\":1,|\"cpu\":1,\"inputs\":{\"config.cfg\":\"$PWD/cfg\"},|" p-pinned.json >q.json &&
	grep -q inputs q.json &&
	refused q.json "capture: cell A sender input config.cfg: $PWD/cfg: not pinned in the plan (its SHA-256 is $(sha256_of cfg)); '"'"'capture pin PLAN -o PINNED'"'"' pins every program and input as it is now"
'

test_expect_success 'an argument that leaves {run_dir} is refused' '
	plan p.json "\"{run_dir}/../x\"" &&
	refused p.json "capture: p.json: cell A sender: \"{run_dir}/../x\": a path that leaves the run directory"
'

test_expect_success 'an unknown variable, and an {out:NAME} the side does not declare, are refused' '
	plan p.json "\"--to={outdir}\"" &&
	refused p.json "capture: p.json: cell A sender: \"--to={outdir}\": unknown variable {outdir} (known: peer_addr, sender_addr, port, warmups, measured, run_dir, cell, arm, repeat, out:NAME)" &&
	plan p.json "\"{out:log}\"" &&
	refused p.json "capture: p.json: cell A sender: \"{out:log}\": {out:log} names no output of this side"
'

test_expect_success 'a misspelt key is refused and the known ones are listed' '
	plan p.json "\"{out:probe}\"" "" "\"repeat\": 2," &&
	refused p.json "capture: p.json: plan: unknown key \"repeat\" (expected one of: format, name, description, warmups, measured, repeats, order, namespaces, port, timeout_seconds, on_failure, controller_cpus, controller_shares, observe, pins, sources, user, group, link, observers, perf, arms, cells, grades)"
'

test_expect_success 'sender and peer on one CPU are refused' '
	plan p.json "\"{out:probe}\"" &&
	sed "s/\"cpu\": 1/\"cpu\": 0/" p.json >same.json &&
	refused same.json "capture: same.json: cells[0]: sender and peer are both on CPU 0; each needs its own"
'

test_expect_success 'a controller on a side'"'"'s CPU is refused unless the plan says it shares; then run.json and the receipt say so' '
	plan p.json "\"{out:probe}\"" &&
	sed "s/\"controller_shares\": true,/\"controller_cpus\": [1],/" p.json >ctl.json &&
	refused ctl.json "capture: ctl.json: plan: the controller${Q}s CPU 1 is also cell A${Q}s sender CPU: capture and its observers would run beside a measured side (\"controller_cpus\"); give \"controller_cpus\" that no side uses, or say \"controller_shares\": true to run so and have it recorded" &&
	sed "s/\"controller_shares\": true,//" p.json >dflt.json &&
	if [ "$(nproc)" = 2 ]; then
		refused dflt.json "capture: dflt.json: plan: the controller${Q}s CPU 0 is also cell A${Q}s peer CPU: capture and its observers would run beside a measured side (every CPU is a side${Q}s, and none is left for it); give \"controller_cpus\" that no side uses, or say \"controller_shares\": true to run so and have it recorded"
	fi &&
	sed "s/\"controller_shares\": true,/\"controller_shares\": \"yes\",/" p.json >yes.json &&
	refused yes.json "capture: yes.json: plan: \"controller_shares\": expected true or false" &&
	"$CAPTURE" pin p.json -o pp.json >/dev/null && "$CAPTURE" run pp.json -o shared >/dev/null 2>&1 &&
	test "$(json_words shared/runs/001-baseline-A-1/run.json "d[\"controller\"][\"shared_with_sides\"]")" = 0 &&
	test "$(json_words shared/receipt-capture.json "d[\"facts\"][\"controller\"][\"shared_with_sides\"]")" = 0 &&
	grep -q "the controller shared CPU 0 with a measured side" shared/receipt-capture.json
'

test_expect_success 'a program that is not pinned is refused, naming its digest and the way to pin it' '
	plan p.json "\"{out:probe}\"" &&
	refused p.json "capture: cell A sender: $PROBE: not pinned in the plan (its SHA-256 is $(sha256_of probe)); '"'"'capture pin PLAN -o PINNED'"'"' pins every program and input as it is now"
'

test_expect_success 'a program changed after it was pinned is refused with both digests' '
	plan p.json "\"{out:probe}\"" &&
	"$CAPTURE" pin p.json -o pinned.json >/dev/null &&
	pinned=$(sha256_of probe) &&
	cp probe probe.orig && echo "# changed" >>probe &&
	refused pinned.json "capture: cell A sender: $PROBE: SHA-256 differs from the plan'"'"'s pin (expected $pinned, found $(sha256_of probe)): the file changed since it was pinned" &&
	cp probe.orig probe
'

test_expect_success 'a symbolic link is refused, by pin and by run, naming its target' '
	ln -s probe link && L=$PWD/link &&
	sed "s|\"$PROBE\", \"{out:probe}\"\], \"cpu\": 1|\"$L\", \"{out:probe}\"], \"cpu\": 1|" p.json >l.json &&
	grep -q "$L" l.json &&
	test_expect_code 2 "$CAPTURE" pin l.json -o l-pinned.json 2>err &&
	echo "capture: cell A sender: $L: a symbolic link (to probe); a program is pinned as the file itself: name the file it points to in the plan" >expect &&
	test_cmp expect err && test_must_be_absent l-pinned.json &&
	"$CAPTURE" pin p.json -o p2.json >/dev/null &&
	python3 -c "import json,sys; d=json.load(open(\"p2.json\")); d[\"pins\"][sys.argv[1]] = d[\"pins\"][sys.argv[2]]; json.dump(d, open(\"l2.json\", \"w\"))" "$L" "$PROBE" &&
	sed -i "s|\"$PROBE\", \"{out:probe}\"\], \"cpu\": 1|\"$L\", \"{out:probe}\"], \"cpu\": 1|" l2.json &&
	refused l2.json "capture: cell A sender: $L: a symbolic link (to probe); a program is pinned as the file itself: name the file it points to in the plan"
'

test_expect_success 'a program others may write is refused' '
	chmod g+w probe &&
	test_expect_code 2 "$CAPTURE" run pinned.json -o c 2>err;
	st=$?; chmod g-w probe && test $st = 0 &&
	echo "capture: cell A sender: $PROBE: group- or world-writable (mode 0775; expected no write bit but the owner'"'"'s): chmod go-w it, then pin it again" >expect &&
	test_cmp expect err && test_must_be_absent c
'

test_expect_success 'a program changed between two runs: that run is refused and recorded, the others run' '
	cp probe probe2 && P2=$PWD/probe2 &&
	cat >two.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "swap", "warmups": 0, "measured": 1, "order": "listed",
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "probe/peer"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}", "0", "1.5"], "cpu": 1, "outputs": {"probe": "probe/sender"}}},
	  {"name": "B",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "probe/peer"}},
	  "sender": {"argv": ["$P2", "{out:probe}"], "cpu": 1, "outputs": {"probe": "probe/sender"}}}]}
	EOF
	"$CAPTURE" pin two.json -o two-pinned.json >/dev/null &&
	pinned=$(sha256_of probe2) &&
	{ "$CAPTURE" run two-pinned.json -o s >out 2>err & } &&
	wait_for s/runs/001-baseline-A-1/probe/sender/started &&
	echo "# swapped" >>probe2 &&
	{ wait $!; st=$?; } && test $st = 1 &&
	test "$(json_words s/runs/001-baseline-A-1/run.json "d[\"result\"]")" = ok &&
	test "$(json_words s/runs/002-baseline-B-1/run.json "d[\"result\"], d[\"failure\"]")" = \
		"failed refused before launch: $P2: SHA-256 differs from the plan'"'"'s pin (expected $pinned, found $(sha256_of probe2)): the file changed since it was pinned" &&
	test_must_be_absent s/runs/002-baseline-B-1/probe/sender s/runs/002-baseline-B-1/probe/peer &&
	test "$(json_words s/receipt-capture.json "d[\"result\"]")" = fail
'

test_expect_success 'a pinned config is checked before every run as programs are: edited, it is refused and named' '
	echo "EF_POLL_USEC=-1" >profile.cfg && chmod 644 profile.cfg && CFG=$PWD/profile.cfg &&
	plan cfg.json "\"{out:probe}\"" &&
	"$CAPTURE" pin --file "$CFG" cfg.json -o cfg-pinned.json >out &&
	grep -q "^pinned 1 program and 1 file: cfg-pinned.json$" out &&
	test "$(json_words cfg-pinned.json "d[\"pins\"][\"$CFG\"]")" = "$(sha256_of profile.cfg)" &&
	"$CAPTURE" run cfg-pinned.json -o cfg-ok >/dev/null 2>&1 &&
	test "$(json_words cfg-ok/runs/001-baseline-A-1/run.json "[f[\"path\"] for f in d[\"pinned_files\"]]")" = "$CFG" &&
	test "$(json_words cfg-ok/receipt-capture.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"pinned file $CFG\"]")" = "$(sha256_of profile.cfg)" &&
	pinned=$(sha256_of profile.cfg) && echo "EF_POLL_USEC=0" >profile.cfg &&
	refused cfg-pinned.json "capture: pinned file: $CFG: SHA-256 differs from the plan'"'"'s pin (expected $pinned, found $(sha256_of profile.cfg)): the file changed since it was pinned"
'

test_expect_success 'capture pin keeps the plan'"'"'s file pins and refuses one capture run would refuse, a FIFO without opening it' '
	CFG=$PWD/profile.cfg &&
	"$CAPTURE" pin cfg-pinned.json -o repinned.json >out &&
	grep -q "^pinned 1 program and 1 file: repinned.json$" out &&
	test "$(json_words repinned.json "d[\"pins\"][\"$CFG\"]")" = "$(sha256_of profile.cfg)" &&
	chmod 666 profile.cfg &&
	test_expect_code 2 "$CAPTURE" pin cfg-pinned.json -o no.json 2>err &&
	echo "capture: pinned file $CFG: group- or world-writable (mode 0666; expected no write bit but the owner'"'"'s): chmod go-w it, then pin it again (capture run checks it before every run and would refuse it)" >expect &&
	test_cmp expect err && test_must_be_absent no.json && chmod 644 profile.cfg &&
	mkfifo fifo.cfg &&
	test_expect_code 2 timeout 10 "$CAPTURE" pin --file "$PWD/fifo.cfg" cfg.json -o no.json 2>err &&
	echo "capture: pinned file $PWD/fifo.cfg: not a regular file (capture run checks it before every run and would refuse it)" >expect &&
	test_cmp expect err && test_must_be_absent no.json
'

test_expect_success 'a campaign directory holds one plan: another plan, or a directory that is no campaign, is refused' '
	"$CAPTURE" run pinned.json -o one >/dev/null 2>&1 &&
	"$CAPTURE" pin two.json -o other.json >/dev/null &&
	test_expect_code 2 "$CAPTURE" run other.json -o one 2>err &&
	echo "capture: $PWD/one: holds the campaign of another plan (its plan.json has SHA-256 $(sha256_of one/plan.json), other.json has $(sha256_of other.json)); a campaign'"'"'s plan cannot change: choose a new directory" >expect &&
	test_cmp expect err &&
	mkdir plain && test_expect_code 2 "$CAPTURE" run pinned.json -o plain 2>err &&
	echo "capture: $PWD/plain: exists and holds no plan.json: not a campaign to resume; choose a new directory" >expect &&
	test_cmp expect err && dir_empty plain
'

test_done
