#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign reads a campaign someone else produced, as root: every
# path, program name and count in it is a stranger's input. A plan that
# names a perf never gets it run; a plan edited after sealing fails the
# seal check; a run.json whose output climbs out with "..", or reaches
# out through a symbolic link, is refused before anything is read (exit
# 2, the document, field and value named, no OUTDIR); a journal that is
# not there fails its run; every run's journals are audited with its own
# counts, however many runs there are; the receipts list exactly the
# files opened under the campaign.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"

# edit_run RUN EXPR: run EXPR (Python, over d) on RUN's run.json, in place.
edit_run () {
	python3 - "c/runs/$1/run.json" "$2" <<-\PY
	import json, sys
	p = sys.argv[1]
	d = json.load(open(p))
	exec(sys.argv[2])
	open(p, "w").write(json.dumps(d))
	PY
}

test_expect_success 'setup: a captured campaign of the reference pair, one cell, two repeats' '
	P=$EV_BUILDDIR/capture/pair &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "hostile", "port": 11012, "warmups": 10, "measured": 400, "repeats": 2,
	 "cells": [
	  {"name": "spin", "peer": {"argv": ["$P/fix-receiver", "--listen", "{peer_addr}:{port}", "--mode", "spin",
	     "--journal", "{out:journal}", "--journal-file-size", "65536"], "cpu": 0,
	     "outputs": {"journal": "journal/receiver"}, "ready": {"tcp_listen": 11012}},
	   "sender": {"argv": ["$P/fix-sender", "--connect", "{peer_addr}:{port}", "--warmups", "{warmups}",
	     "--measured", "{measured}", "--journal", "{out:journal}", "--journal-file-size", "65536",
	     "--series", "{out:series}", "--report", "{out:report}"], "cpu": 1,
	     "outputs": {"journal": "journal/sender", "series": "series/send.bin", "report": "report.json"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o pristine >/dev/null &&
	"$AUDIT" campaign pristine -o s0 >out 2>err && grep -q "^OK: 2 runs" out &&
	echo TOPSECRET >secret
'

fresh () { rm -rf c s && cp -a pristine c; }

test_expect_success 'the receipts list exactly the files opened under the campaign (strace), plan.json too' '
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; } &&
	fresh && "$SEAL" create c -o sealed-c >/dev/null &&
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,open -o opened.txt \
		"$AUDIT" campaign --seal sealed-c/SEAL.json c -o s >out 2>err &&
	python3 - <<-\PY
	import json, os, re
	opened = set()
	for line in open("opened.txt"):
	    m = re.search(r"open(?:at)?\((?:AT_FDCWD, )?\"(c/[^\"]+)\", ([A-Z_|]+)", line)
	    if m and "= -1" not in line and "O_DIRECTORY" not in m.group(2) and "O_PATH" not in m.group(2) \
	            and os.path.isfile(m.group(1)):
	        opened.add(os.path.normpath(m.group(1)))
	listed = set()
	for receipt in ("s/receipt.json", "s/audit-journal.json"):
	    listed |= {os.path.normpath(i["path"]) for i in json.load(open(receipt))["inputs"]
	               if i.get("path", "").startswith("c/")}
	assert "c/plan.json" in listed, "plan.json not listed"
	assert opened == listed, ("opened, not listed", sorted(opened - listed), "listed, not opened", sorted(listed - opened))
	# in the runs' order, not the directory's: the comparable digest is
	# the same wherever the campaign is read
	runs = [i["name"] for i in json.load(open("s/receipt.json"))["inputs"] if i["name"].startswith("run ")]
	assert runs == sorted(runs) and len(runs) == 2, runs
	PY
	rm -rf sealed-c
'

test_expect_success 'a plan that names a perf: the perf of the command line runs, never the plan'"'"'s' '
	fresh && mkdir -p c/tools &&
	printf "#!/bin/sh\nid >\"%s/PWNED\"\n" "$PWD" >c/tools/perf && chmod 755 c/tools/perf &&
	python3 -c "import json; p=json.load(open(\"c/plan.json\")); p[\"perf\"]=\"c/tools/perf\"; open(\"c/plan.json\",\"w\").write(json.dumps(p))" &&
	head -c 100 /dev/urandom >c/runs/001-baseline-spin-1/perf.data &&
	sum=$(sha256sum c/runs/001-baseline-spin-1/perf.data | cut -c1-64) &&
	edit_run 001-baseline-spin-1 "d[\"processes\"][1][\"profile\"] = {\"perf_data\": \"perf.data\", \"sha256\": \"$sum\", \"event\": \"cycles\"}" &&
	printf "#!/bin/sh\necho called >\"%s/MINE\"\nexit 3\n" "$PWD" >myperf && chmod 755 myperf &&
	test_expect_code 1 "$AUDIT" campaign --perf "$PWD/myperf" c -o s >out 2>err &&
	test_must_be_absent PWNED && test -f MINE &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 001-baseline-spin-1 sender profile\"]")" = fail &&
	grep -q "perf report failed (status 3)" s/receipt.json
'

test_expect_success 'a plan edited after sealing fails "inputs against the seal", named' '
	fresh && "$SEAL" create c -o sealed >/dev/null &&
	sed -i "s/\"hostile\"/\"forged\"/" c/plan.json &&
	test_expect_code 1 "$AUDIT" campaign --seal sealed/SEAL.json c -o s >out 2>err &&
	grep -q "c/plan.json: its SHA-256 is not the seal" err &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"inputs against the seal\"]")" = fail &&
	test "$(json_words s/receipt.json "[i[\"name\"] for i in d[\"inputs\"] if i[\"path\"] == \"c/plan.json\"]")" = plan
'

test_expect_success 'an output path with ".." is refused before it is opened: exit 2, named, nothing written' '
	fresh &&
	edit_run 002-baseline-spin-2 "d[\"processes\"][1][\"outputs\"][\"series\"] = \"../../../secret\"" &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^audit: c/runs/002-baseline-spin-2/run.json: processes\[1\].outputs.series: .\.\./\.\./\.\./secret. has a .\.. or .\.\.. component; refused" err &&
	! grep -q TOPSECRET err out && test_must_be_absent s && no_temporaries .
'

test_expect_success 'an absolute output path is refused the same way' '
	fresh &&
	edit_run 001-baseline-spin-1 "d[\"processes\"][0][\"outputs\"][\"journal\"] = \"$PWD/secret\"" &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "processes\[0\].outputs.journal: .$PWD/secret. is absolute; refused" err && test_must_be_absent s
'

test_expect_success 'an output reached through a symbolic link is refused, the link named' '
	fresh && rm c/runs/001-baseline-spin-1/series/send.bin &&
	ln -s "$PWD/secret" c/runs/001-baseline-spin-1/series/send.bin &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "processes\[1\].outputs.series: .series/send.bin. is a symbolic link; refused" err &&
	! grep -q TOPSECRET err out && test_must_be_absent s &&
	fresh && mv c/runs/001-baseline-spin-1/series elsewhere && ln -s "$PWD/elsewhere" c/runs/001-baseline-spin-1/series &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "outputs.series: .series. is a symbolic link" err && rm -rf elsewhere
'

test_expect_success 'a run directory, runs/ or plan.json that is a link is refused' '
	fresh && mv c/runs/002-baseline-spin-2 outside && ln -s "$PWD/outside" c/runs/002-baseline-spin-2 &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^audit: c: .runs/002-baseline-spin-2. is a symbolic link; refused" err && rm -rf outside &&
	fresh && mv c/plan.json plan-outside.json && ln -s "$PWD/plan-outside.json" c/plan.json &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^audit: c: .plan.json. is a symbolic link; refused" err && test_must_be_absent s
'

test_expect_success 'a journal file inside a journal directory that is a link is refused' '
	fresh && j=c/runs/001-baseline-spin-1/journal/receiver && f=$(ls $j | sed -n 1p) &&
	mv "$j/$f" moved.bin && ln -s "$PWD/moved.bin" "$j/$f" &&
	test_expect_code 2 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "processes\[0\].outputs.journal: .journal/receiver/$f. is a symbolic link" err
'

test_expect_success 'a peer journal deleted: its run fails "journals", the other run is still audited' '
	fresh && rm -r c/runs/002-baseline-spin-2/journal/receiver &&
	test_expect_code 1 "$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^audit: 002-baseline-spin-2: the peer.s journal .*journal/receiver: missing" err &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"run 002-baseline-spin-2 journals\"]")" = fail &&
	test "$(json_words s/audit-journal.json "len(d[\"facts\"][\"pairs\"]), sorted(d[\"facts\"][\"pairs\"][1])")" = "2 sender" &&
	grep -q "declared, not there" s/receipt.json
'

test_expect_success 'a run that declares its sender'"'"'s journal only: audited alone, no false finding, named' '
	fresh && edit_run 002-baseline-spin-2 "del d[\"processes\"][0][\"outputs\"][\"journal\"]" &&
	# run.json edited by hand is no longer what capture pinned: that alone fails
	test_expect_code 1 "$AUDIT" campaign c -o s-pinned >out 2>err &&
	grep -q "^audit: 002-baseline-spin-2: runs/002-baseline-spin-2/run.json: its SHA-256 is not the one receipt-capture.json recorded (changed after capture)$" err &&
	rm c/receipt-capture.json &&
	"$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/audit-journal.json "sorted(d[\"facts\"][\"pairs\"][1])")" = sender &&
	grep -q "one side.s journal of 1 run: run.json declares the other side.s only" s/receipt.json
'

test_expect_success 'one run.json with other counts: that run is audited with its own counts, and fails' '
	fresh && edit_run 002-baseline-spin-2 "d[\"counts\"][\"measured\"] = 399" &&
	test_expect_code 1 "$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/audit-journal.json "[p[\"sender\"][\"expected_orders\"] for p in d[\"facts\"][\"pairs\"]]")" = "410 409" &&
	test "$(json_words s/summary.json "[r[\"journal_pair\"] for r in d[\"runs\"]]")" = "1 2" &&
	test "$(json_words s/receipt.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"journals\"]")" = fail &&
	grep -q "pair 2 sender: expected 409 orders" err
'

test_expect_success 'three hundred runs: an edited journal in run 290 fails like one in run 1' '
	fresh && for i in $(seq 3 300); do
		n=$(printf "%03d-baseline-spin-%d" "$i" "$i") && cp -al c/runs/002-baseline-spin-2 "c/runs/$n" || return 1
	done &&
	n=290-baseline-spin-290 && j=c/runs/$n/journal/sender &&
	cp -r "$j" own && rm -r "$j" && mv own "$j" &&
	python3 "$JOURNAL_SURGERY" "$j" flip 1.bin:5 12 &&
	test_expect_code 1 "$AUDIT" campaign c -o s >out 2>err &&
	test "$(json_words s/audit-journal.json "len(d[\"facts\"][\"pairs\"])")" = 300 &&
	test "$(json_words s/summary.json "[r[\"journal_pair\"] for r in d[\"runs\"] if r[\"name\"] == \"$n\"]")" = 290 &&
	grep -q "^audit: pair 290 sender" err
'

test_done
