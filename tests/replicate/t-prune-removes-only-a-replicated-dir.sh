#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate prune removes a runtime directory only when enough distinct
# hosts hold passing, agreeing receipts for its exact seal, the directory
# still matches the seal, and no process its run.json files record still
# runs; otherwise it removes nothing and says every reason, in a cleanup
# receipt too. It never follows a link and never touches anything outside
# the directory.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

# record_process ROLE PID: a process object as capture writes it.
record_process () {
	printf '{"role":"%s","pid":%s,"start_ticks":%s}' "$1" "$2" "$(cut -d")" -f2- /proc/$2/stat | cut -d" " -f21)"
}

# run_json FILE PROCESS...: a run.json naming these processes.
run_json () {
	file=$1
	shift
	list=$(printf "%s," "$@")
	printf '{"boot_id":"%s","format":"evidence-run/1","processes":[%s]}\n' \
		"$(cat /proc/sys/kernel/random/boot_id)" "${list%,}" >"$file"
}

# receipt NAME HOST: a replica receipt of out/archive.tar.zst made on HOST.
receipt () {
	as_host "$2" "$REPLICATE" verify --seal out/SEAL.json --receipt "$1" out/archive.tar.zst >/dev/null
}

prune () {
	"$REPLICATE" prune --seal out/SEAL.json "$@"
}

# refused 'expected reason lines...' -- ARGS: prune exits 1 with these lines
# (each after "replicate: refused: "), then the REFUSED line; DIR is intact.
refused () {
	: >expect
	while [ "$1" != -- ]; do echo "replicate: refused: $1" >>expect; shift; done
	shift
	rm -f cleanup.json &&
	snapshot run >before &&
	test_expect_code 1 prune --receipt cleanup.json "$@" >stdout 2>actual &&
	test_cmp expect actual &&
	grep -q "^REFUSED: run was not removed: [0-9]* reasons\\? above; receipt cleanup.json$" stdout &&
	test "$(json_get cleanup.json "d[\"kind\"], d[\"result\"], d[\"facts\"][\"removed\"]")" = "cleanup fail []" &&
	snapshot run >after && test_cmp before after
}

snapshot () { (cd "$1" && find . -printf "%p %y %s %m\n" | sort && find . -type f -exec sha256sum {} + | sort); }

test_expect_success 'setup: a finished run, sealed; receipts from hostA and hostB' '
	make_campaign run && mkdir -p run/runs/A-1 &&
	sender=$(sh -c "sleep 0.5 >/dev/null 2>&1 & echo \$!") &&
	peer=$(sh -c "sleep 0.5 >/dev/null 2>&1 & echo \$!") &&
	run_json run/runs/A-1/run.json "$(record_process sender $sender)" "$(record_process peer $peer)" &&
	run_json run/runs/B-1/run.json "$(record_process sender $sender)" &&
	while kill -0 $sender 2>/dev/null || kill -0 $peer 2>/dev/null; do sleep 0.1; done &&
	"$SEAL" create run -o out >/dev/null &&
	receipt a.json hostA && receipt b.json hostB && receipt a2.json hostA &&
	test "$(json_get a.json "d[\"host\"]")" = hostA && test "$(json_get b.json "d[\"host\"]")" = hostB &&
	mkdir neighbour && echo keep >neighbour/file && echo keep >run-sibling.txt
'

test_expect_success 'one host is not enough (two receipts from the same host are one host)' '
	refused "receipts: too few distinct hosts hold a verified copy (expected 2, found 1)" \
		-- --receipts a.json a2.json run
'

test_expect_success '--min-hosts 3 asks for more than there are' '
	refused "receipts: too few distinct hosts hold a verified copy (expected 3, found 2)" \
		-- --min-hosts 3 --receipts a.json b.json run
'

test_expect_success 'a failing receipt: it fails, disagrees, and does not count' '
	J=runs/A-1/journal/1.bin &&
	python3 "$SURGERY" out/archive.tar.zst bad.tar.zst flip $J 100 &&
	as_host hostC "$REPLICATE" verify --seal out/SEAL.json --receipt c.json bad.tar.zst >/dev/null 2>&1;
	test -f c.json &&
	rm -f cleanup.json &&
	test_expect_code 1 prune --receipt cleanup.json --receipts a.json c.json run >/dev/null 2>actual &&
	grep -x "replicate: refused: c.json: records a failed verification (expected pass, found fail)" actual &&
	grep -q "^replicate: refused: c.json: check sha256:$J: only in this receipt" actual &&
	grep -x "replicate: refused: a.json: the receipts do not agree (differences above)" actual &&
	grep -x "replicate: refused: receipts: too few distinct hosts hold a verified copy (expected 2, found 1)" actual &&
	test -d run
'

test_expect_success 'receipts for another seal do not count' '
	"$SEAL" create --name run make-believe -o other 2>/dev/null || { mkdir make-believe && echo x >make-believe/x && "$SEAL" create --name run make-believe -o other >/dev/null; } &&
	as_host hostD "$REPLICATE" verify --seal other/SEAL.json --receipt d.json other/archive.tar.zst >/dev/null &&
	rm -f cleanup.json &&
	test_expect_code 1 prune --receipt cleanup.json --receipts a.json d.json run >/dev/null 2>actual &&
	grep -x "replicate: refused: d.json: was made against another seal (expected $(sha256_of out/SEAL.json), found $(sha256_of other/SEAL.json))" actual
'

test_expect_success 'a directory changed since it was sealed is not removed, and the change is named' '
	size=$(stat -c %s run/runs/A-1/series/send.csv) && cp run/runs/A-1/series/send.csv saved.csv &&
	echo "late line" >>run/runs/A-1/series/send.csv &&
	rm -f cleanup.json &&
	test_expect_code 1 prune --receipt cleanup.json --receipts a.json b.json run >/dev/null 2>actual;
	status=$?; cp saved.csv run/runs/A-1/series/send.csv; test $status = 0 &&
	echo "replicate: refused: runs/A-1/series/send.csv: size differs (expected $size, found $((size + 10)))" >expect &&
	test_cmp expect actual
'

test_expect_success 'a selection edited to match an edited copy is held to its seal, member by member: nothing removed' '
	"$SEAL" select --seal out/SEAL.json --include runs/A-1/series/send.csv -o edited-sel.json >/dev/null &&
	mkdir selcopy && (cd run && cp -p --parents runs/A-1/series/send.csv ../selcopy/) &&
	size=$(stat -c %s selcopy/runs/A-1/series/send.csv) &&
	echo "late line" >>selcopy/runs/A-1/series/send.csv &&
	python3 -c "
import hashlib, json, sys
path, member = sys.argv[1], sys.argv[2]
s = json.load(open(path))
data = open(\"selcopy/\" + member, \"rb\").read()
for m in s[\"members\"]:
    if m[\"path\"] == member:
        s[\"totals\"][\"bytes\"] += len(data) - m[\"size\"]
        m[\"size\"], m[\"sha256\"] = len(data), hashlib.sha256(data).hexdigest()
open(path, \"w\").write(json.dumps(s, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\")
" edited-sel.json runs/A-1/series/send.csv &&
	snapshot selcopy >before &&
	test_expect_code 1 prune --receipt cleanup-sel.json --selection edited-sel.json --receipts a.json b.json selcopy \
		>stdout 2>actual &&
	echo "replicate: refused: runs/A-1/series/send.csv: size differs (expected $size, found $((size + 10)))" >expect &&
	test_cmp expect actual &&
	grep -q "^REFUSED: selcopy was not removed: 1 reason above" stdout &&
	snapshot selcopy >after && test_cmp before after &&
	test "$(json_get cleanup-sel.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] != \"pass\"]")" = "[${Q}size:runs/A-1/series/send.csv${Q}, ${Q}selection-from-seal${Q}, ${Q}removed${Q}]"
'

test_expect_success 'a recorded process that still runs keeps the directory' '
	sleep 300 & live=$! &&
	cp run/runs/B-1/run.json saved-run.json &&
	run_json run/runs/B-1/run.json "$(record_process sender $live)" &&
	"$SEAL" create run -o out-live >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal out-live/SEAL.json --receipt la.json out-live/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out-live/SEAL.json --receipt lb.json out-live/archive.tar.zst >/dev/null &&
	rm -f cleanup.json &&
	test_expect_code 1 "$REPLICATE" prune --seal out-live/SEAL.json --receipt cleanup.json --receipts la.json lb.json run >/dev/null 2>actual;
	status=$?; kill $live; wait $live 2>/dev/null; cp saved-run.json run/runs/B-1/run.json; test $status = 0 &&
	echo "replicate: refused: runs/B-1/run.json: records a process that is still running (same PID and start time); wait for it to end (found sender pid $live)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a run.json that names no processes cannot show its run ended' '
	cp run/runs/B-1/run.json saved-run.json &&
	echo "{\"format\":\"evidence-run/1\"}" >run/runs/B-1/run.json &&
	"$SEAL" create run -o out-np >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal out-np/SEAL.json --receipt na.json out-np/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out-np/SEAL.json --receipt nb.json out-np/archive.tar.zst >/dev/null &&
	rm -f cleanup.json &&
	test_expect_code 1 "$REPLICATE" prune --seal out-np/SEAL.json --receipt cleanup.json --receipts na.json nb.json run >/dev/null 2>actual;
	status=$?; cp saved-run.json run/runs/B-1/run.json; test $status = 0 &&
	echo "replicate: refused: runs/B-1/run.json: records no processes (processes[] with pid and start_ticks), so it cannot show that its run has ended" >expect &&
	test_cmp expect actual
'

# guarded_by 'RUN.JSON' 'EXPECTED STDERR': prune of run, with B-1's run.json
# replaced, refuses with exactly that line; nothing removed.
guarded_by () {
	cp run/runs/B-1/run.json saved-run.json &&
	printf "%s\n" "$1" >run/runs/B-1/run.json &&
	rm -rf out-g && "$SEAL" create run -o out-g >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal out-g/SEAL.json --receipt ga.json out-g/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out-g/SEAL.json --receipt gb.json out-g/archive.tar.zst >/dev/null &&
	rm -f cleanup.json &&
	test_expect_code 1 "$REPLICATE" prune --seal out-g/SEAL.json --receipt cleanup.json --receipts ga.json gb.json run >/dev/null 2>actual;
	status=$?; cp saved-run.json run/runs/B-1/run.json; rm -f ga.json gb.json; test $status = 0 &&
	echo "$2" >expect && test_cmp expect actual && test -d run/runs/B-1
}

test_expect_success 'the process guard fails closed: a boot id that is not one, a pid outside pid_t' '
	for boot in "unavailable: /proc/sys/kernel/random/boot_id: No such file or directory" \
		"$(tr a-f A-F </proc/sys/kernel/random/boot_id)" "not-a-boot-id"; do
		guarded_by "{\"boot_id\":\"$boot\",\"format\":\"evidence-run/1\",\"processes\":[{\"role\":\"sender\",\"pid\":1,\"start_ticks\":1}]}" \
			"replicate: refused: runs/B-1/run.json: records a boot id that is not a well-formed one, so whether its processes have ended cannot be told (expected 36 lower-case hex digits and dashes, as /proc/sys/kernel/random/boot_id, found boot_id \"$boot\")" || return 1
	done &&
	guarded_by "{\"boot_id\":\"$(cat /proc/sys/kernel/random/boot_id)\",\"format\":\"evidence-run/1\",\"processes\":[{\"role\":\"sender\",\"pid\":4294967297,\"start_ticks\":1}]}" \
		"replicate: refused: runs/B-1/run.json: records a process without a pid a process can have (1 to 2147483647) and an integer start_ticks (found sender pid 4294967297)"
'

test_expect_success 'a symbolic link inside the directory, pointing outside: refused, and its target survives' '
	ln -s "$(pwd)/neighbour" run/runs/escape &&
	rm -f cleanup.json &&
	test_expect_code 1 prune --receipt cleanup.json --receipts a.json b.json run >/dev/null 2>actual;
	status=$?; rm run/runs/escape; test $status = 0 &&
	echo "replicate: refused: runs/escape: not in the seal (found symlink)" >expect && test_cmp expect actual &&
	echo keep >expect && test_cmp expect neighbour/file
'

test_expect_success 'the seal or a receipt inside the directory would be removed with it: refused' '
	cp b.json run/summary/b.json &&
	rm -f cleanup.json &&
	test_expect_code 1 prune --receipt cleanup.json --receipts a.json run/summary/b.json run >/dev/null 2>actual;
	status=$?; rm run/summary/b.json; test $status = 0 &&
	grep -x "replicate: refused: run/summary/b.json: lies inside DIR, which prune would remove" actual
'

test_expect_success 'DIR itself a symbolic link, or /: usage errors, nothing touched' '
	ln -s run run-link &&
	test_expect_code 2 prune --receipts a.json b.json run-link 2>actual &&
	echo "replicate: run-link: is a symbolic link; prune never follows one (name the directory itself)" >expect &&
	test_cmp expect actual && test -d run &&
	test_expect_code 2 prune --receipts a.json b.json / 2>actual &&
	echo "replicate: /: prune never removes the root directory" >expect && test_cmp expect actual
'

test_expect_success 'with --trust, unsigned receipts are refused; hosts are counted by key' '
	"$REPLICATE" keygen -o keyA >/dev/null && "$REPLICATE" keygen -o keyB >/dev/null &&
	refused "a.json: is not signed" "b.json: is not signed" \
		"receipts: too few distinct signing hosts hold a verified copy (expected 2, found 0)" \
		-- --trust keyA.pub --trust keyB.pub --receipts a.json b.json run &&
	as_host hostA "$REPLICATE" verify --seal out/SEAL.json --sign-key keyA.key --receipt sa.json out/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out/SEAL.json --sign-key keyA.key --receipt sb.json out/archive.tar.zst >/dev/null &&
	refused "receipts: too few distinct signing hosts hold a verified copy (expected 2, found 1)" \
		-- --trust keyA.pub --trust keyB.pub --receipts sa.json sb.json run &&
	as_host hostB "$REPLICATE" verify --seal out/SEAL.json --sign-key keyB.key --receipt sb2.json out/archive.tar.zst >/dev/null
'

test_expect_success 'all conditions hold: DIR goes, with every member listed; nothing else is touched' '
	snapshot neighbour >n-before &&
	prune --trust keyA.pub --trust keyB.pub --receipts sa.json sb2.json --receipt done.json run >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^removed run: 11 files, [0-9]* dirs, [0-9.]* KiB; receipt done.json$" stdout &&
	test_must_be_absent run && no_entry . "^\\.run\\." &&
	snapshot neighbour >n-after && test_cmp n-before n-after && test -f run-sibling.txt &&
	test "$(json_get done.json "d[\"kind\"], d[\"result\"]")" = "cleanup pass" &&
	json_get done.json "\"\\n\".join(d[\"facts\"][\"removed\"])" >removed &&
	json_get out/SEAL.json "\"\\n\".join(m[\"path\"] for m in d[\"members\"])" >sealed &&
	test_cmp sealed removed &&
	test "$(json_get done.json "len(d[\"facts\"][\"hosts_by_key\"])")" = 2
'

test_expect_success 'without --receipt the cleanup receipt lands where prune ran, named after DIR; never inside DIR' '
	mkdir -p staging && make_campaign staging/run2 &&
	"$SEAL" create staging/run2 -o out2 >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal out2/SEAL.json --receipt x.json out2/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out2/SEAL.json --receipt y.json out2/archive.tar.zst >/dev/null &&
	"$REPLICATE" prune --seal out2/SEAL.json --receipts x.json y.json staging/run2 >stdout &&
	receipt=$(sed -n "s/^removed staging\/run2: .*; receipt //p" stdout) &&
	case "$receipt" in ./cleanup-run2-*T*Z.json) ;; *) false ;; esac &&
	test "$(json_get "$receipt" "d[\"result\"]")" = pass &&
	test_must_be_absent staging/run2 && dir_empty staging &&
	make_campaign staging/run3 && "$SEAL" create staging/run3 -o out3 >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal out3/SEAL.json --receipt x3.json out3/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal out3/SEAL.json --receipt y3.json out3/archive.tar.zst >/dev/null &&
	(cd staging/run3/runs && test_expect_code 2 "$REPLICATE" prune --seal ../../../out3/SEAL.json \
		--receipts ../../../x3.json ../../../y3.json ../.. 2>../../../err) &&
	echo "replicate: the current directory: the cleanup receipt would be removed with DIR; put it elsewhere (--receipt FILE, or run prune from outside DIR)" >expect &&
	test_cmp expect err && test -d staging/run3/runs && no_entry staging/run3/runs "^cleanup-"
'

test_expect_success 'a signal once the files are gone never loses their record: taken before it, the record fails "signal"; during it, the record stands; exit 2 both times' '
	command -v strace >/dev/null || { echo "strace missing" >&2; return 1; }
	make_campaign late && "$SEAL" create late -o outl >/dev/null &&
	as_host hostA "$REPLICATE" verify --seal outl/SEAL.json --receipt xl.json outl/archive.tar.zst >/dev/null &&
	as_host hostB "$REPLICATE" verify --seal outl/SEAL.json --receipt yl.json outl/archive.tar.zst >/dev/null &&
	cp -a late late.copy &&
	for when in 1 2; do
		rm -rf late && cp -a late.copy late && rm -f late.json &&
		python3 - "$REPLICATE" $when <<-\PY || return 1
		import glob, os, signal, subprocess, sys, time
		replicate, when = sys.argv[1], sys.argv[2]
		# fsync 1: the parent directory once DIR is gone; fsync 2: the record
		trace = ["env", "ASAN_OPTIONS=detect_leaks=0", "strace", "-qq", "-o", "/dev/null", "-e", "trace=fsync",
		         "-e", "inject=fsync:delay_enter=1500000:when=" + when]
		p = subprocess.Popen(trace + [replicate, "prune", "--seal", "outl/SEAL.json", "--receipt", "late.json",
		                              "--receipts", "xl.json", "yl.json", "late"],
		                     stdout=open("late.out", "w"), stderr=open("late.err", "w"))
		start = time.monotonic()
		while os.path.exists("late") if when == "1" else not glob.glob(".late.json.tmp-*"):
		    assert p.poll() is None, "ended (%s) before the moment" % p.returncode
		    assert time.monotonic() - start < 60, "the moment never came"
		    time.sleep(0.005)
		time.sleep(0.3)  # inside the held fsync
		os.kill(int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0]), signal.SIGTERM)
		assert p.wait(timeout=30) == 2, "not exit 2 after the signal"
		PY
		test_must_be_absent late && no_entry . "^\\.late" &&
		grep -qx "replicate: late: interrupted by a signal once the removal was done; its record stands: late.json" late.err &&
		grep -q "^removed late: .*; receipt late.json$" late.out || return 1
		if test $when = 1; then
			test "$(json_get late.json "d[\"result\"]")" = fail &&
			test "$(json_get late.json "\" \".join(c[\"name\"] for c in d[\"checks\"] if c[\"result\"] != \"pass\")")" = signal || return 1
		else
			test "$(json_get late.json "d[\"result\"]")" = pass || return 1
		fi
		test "$(json_get late.json "len(d[\"facts\"][\"removed\"])")" -gt 5 || return 1
	done
'

test_done
