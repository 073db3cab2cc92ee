#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit campaign holds a registered campaign to its registration, with a
# real TSA (tests/seal/tsa.py) and a real receipt log: registered (its
# digest the one every capture receipt, session and log entry names, its
# timestamp verified), registered before the first run (by the token's
# genTime and by the log's order), published as registered, the log
# holding and extending a head a replica kept, and every session of the
# registration the log holds accounted for. Each way a reviewer could be
# misled fails, named: runs made before the registration (a session run
# unregistered, then registered and resumed; a capture clock set back
# with faketime), a registration edited after the fact, a session kept
# off the log, a session entry removed from the log, an unregistered
# statistic published. A campaign without one is unregistered. audit
# compare compares what the registration registered (two sessions whole,
# its cells, its reference) and refuses anything else unless
# --unregistered, which every output then states.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"

trap tsa_stop EXIT

check_of () { # check_of RECEIPT NAME: "pass" or "fail", and the detail
	json_words "$1" "[c[\"result\"] + \" \" + c.get(\"detail\", \"\") for c in d[\"checks\"] if c[\"name\"] == \"$2\"]"
}

test_expect_success 'setup: a pinned plan of the reference pair, a test CA and its TSA, a key' '
	two_cell_plan plan.json small 11051 300 1 &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	tsa_serve && echo "http://127.0.0.1:$(cat tsa/port)/good" >url &&
	"$REPLICATE" keygen -o lab >/dev/null &&
	"$CAPTURE" register pinned.json -o reg.json --statistic p99 --statistic p50 --compare-cells spin,epoll \
		--sessions 2 --tsa "$(cat url)" --tsa-ca tsa/ca.pem --log log --sign-key lab.key >/dev/null &&
	sleep 1 # the token says its second; the runs begin after it
'

test_expect_success 'a registered campaign: every check holds, and the reviewer'"'"'s line says when and how many' '
	"$CAPTURE" run pinned.json -o c1 --registration reg.json --log log --sign-key lab.key >/dev/null 2>&1 &&
	test "$(sha256_of c1/registration.json)" = "$(sha256_of reg.json)" &&
	cmp c1/registration.json.tsr reg.json.tsr &&
	"$AUDIT" campaign c1 -o s1 --log log --trust lab.pub --tsa-ca tsa/ca.pem >out 2>err &&
	for check in "registered" "registered before the first run" "published as registered" "receipt log holds" \
		"sessions accounted for"; do
		check_of s1/receipt.json "$check" | grep -q "^pass " || { echo "$check: $(check_of s1/receipt.json "$check")"; return 1; }
	done &&
	origin=$(cat log/origin) &&
	grep -q "^registration: registered at [0-9T:-]*Z (log $origin, index 0), 1 of 2 sessions accounted for$" out &&
	! grep -q registration s1/summary.json &&
	test "$(json_words s1/receipt.json "[d[\"facts\"][\"registration\"][k] for k in (\"state\", \"sha256\", \"published\")]")" = \
		"registered $(sha256_of reg.json) p99 p50" &&
	grep -q "^- session $PWD/c1 (this campaign, started .*): ended ok, 2 runs made$" s1/summary.md &&
	test "$(json_words s1/receipt.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"registration\"]")" = "$(sha256_of reg.json)"
'

test_expect_success 'a second session logged and never sealed is named; a third is one more than planned and fails' '
	"$CAPTURE" run pinned.json -o c2 --registration reg.json --log log --sign-key lab.key >/dev/null 2>&1 &&
	"$AUDIT" campaign c2 -o s2b --log log --trust lab.pub --tsa-ca tsa/ca.pem >/dev/null 2>&1 &&
	"$AUDIT" campaign c1 -o s2 --log log --trust lab.pub --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s2/receipt.json "sessions accounted for" >got &&
	grep -q "^pass 2 of 2 sessions of this registration on the record: $PWD/c1 (this campaign, .*): ended ok, 2 runs made; $PWD/c2 (not in this audit, started .*): ended ok, 2 runs made$" got &&
	"$CAPTURE" run pinned.json -o c3 --registration reg.json --log log --sign-key lab.key >/dev/null 2>&1 &&
	test_expect_code 1 "$AUDIT" campaign c1 -o s3 --log log --trust lab.pub --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s3/receipt.json "sessions accounted for" >got &&
	grep -q "^fail 3 sessions of this registration are on the record; it planned 2$" got &&
	grep -q "^registration: registration FAILED: registered at" out
'

test_expect_success 'without the log or the CA: what could not be judged is named, and the registration is unproven, not passed' '
	"$AUDIT" campaign c1 -o s4 >out 2>err &&
	grep -q "registration.json.tsr: its trusted time is not judged without --tsa-ca FILE" err &&
	grep -q "^registration: UNPROVEN: registered (no trusted time), sessions not counted (no --log), its order before the runs not judged (no --tsa-ca, no --log)$" out &&
	test "$(json_words s4/receipt.json "d[\"facts\"][\"registration\"][\"state\"]")" = unproven &&
	test -z "$(check_of s4/receipt.json "sessions accounted for")" &&
	test -z "$(check_of s4/receipt.json "registered before the first run")" &&
	json_words s4/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"]" >not &&
	grep -q "the sessions of the registration: no receipt log given (--log DIR), so none was counted" not &&
	grep -q "that the registration came before the first run: neither a trusted time (--tsa-ca FILE) nor the log" not &&
	test_expect_code 2 "$AUDIT" compare --resamples 100 --cell spin --cell epoll s4 -o k0 2>err &&
	grep -q "^audit: this comparison was not registered: A (s4) is unproven;" err
'

test_expect_success 'a registration edited after the fact fails: its digest is not the one the receipts, sessions and log name' '
	cp -r c1 edited && chmod u+w edited/registration.json &&
	sed "s/\"p99\",\"p50\"/\"p50\",\"p99\"/" reg.json >edited/registration.json &&
	! cmp -s reg.json edited/registration.json &&
	test_expect_code 1 "$AUDIT" campaign edited -o s5 --log log --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s5/receipt.json "registered" >got &&
	grep -q "^fail receipt-capture.json names the registration $(sha256_of reg.json); registration.json hashes to $(sha256_of edited/registration.json): edited after the capture" got &&
	grep -q "not in the log log (no entry has SHA-256 $(sha256_of edited/registration.json))" got &&
	grep -q "its timestamp edited/registration.json.tsr does not hold: imprint" got
'

test_expect_success 'a summary that publishes an unregistered statistic, or drops a registered one, names each' '
	test_expect_code 1 "$AUDIT" campaign c1 -o s6 --log log --publish p99,p99.9 >out 2>err &&
	test "$(check_of s6/receipt.json "published as registered")" = \
		"fail p99.9 is published, not registered; p50 is registered, not published" &&
	misuse "$AUDIT" "audit: option --publish: expected statistics of p50 p95 p99 p99.9 mean max, comma-separated, found '"'"'p42'"'"'" \
		campaign c1 -o s7 --publish p99,p42 &&
	test_must_be_absent s7 &&
	misuse "$AUDIT" "audit: --log-head needs --log; none given" campaign c1 -o s7 --log-head x.json
'

test_expect_success 'a session kept off the log fails, named' '
	cp -r c1 hidden && cp c2/session-start.json hidden/session-start-2.json &&
	python3 - <<-\PY &&
	import json
	d = json.load(open("hidden/session-start-2.json"))
	d["nonce"] = "0" * 32
	open("hidden/session-start-2.json", "w").write(json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n")
	PY
	test_expect_code 1 "$AUDIT" campaign hidden -o s8 --log log --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s8/receipt.json "sessions accounted for" | grep -q "^fail session-start-2.json (.*) is not in the log: a session kept off the record"
'

test_expect_success 'a session entry removed from the log fails its consistency with the head a replica kept' '
	mkdir replica && cp "log/heads/$(ls log/heads | grep "^head-" | tail -n 1)" replica/ &&
	kept=replica/$(ls replica) && cp -r log rewritten &&
	python3 - <<-\PY &&
	import json
	lines = open("rewritten/entries.jsonl").read().splitlines(True)
	keep = [l for l in lines if not ("\"kind\":\"session\"" in l and "/c2/session-end.json" in l)]
	assert len(keep) == len(lines) - 1
	open("rewritten/entries.jsonl", "w").write("".join(keep))
	PY
	rm -r rewritten/heads && "$REPLICATE" log --log rewritten append s1/receipt.json >/dev/null &&
	test_expect_code 1 "$AUDIT" campaign c1 -o s9 --log rewritten --log-head "$kept" --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s9/receipt.json "receipt log extends the kept head" | grep -q "^fail $kept: .*: the log was rewritten after a replica kept that head$"
'

test_expect_success 'a session document edited inside its log line is named by replicate log verify' '
	cp -r log doctored &&
	python3 - <<-\PY &&
	lines = open("doctored/entries.jsonl").read().splitlines(True)
	i = next(k for k, l in enumerate(lines) if "/c2/session-end.json" in l)
	assert "\"result\":\"ok\"" in lines[i]
	lines[i] = lines[i].replace("\"result\":\"ok\"", "\"result\":\"no\"")
	open("doctored/entries.jsonl", "w").write("".join(lines))
	PY
	test_expect_code 1 "$REPLICATE" log --log doctored verify >out 2>err &&
	grep -q "its session as carried hashes to [0-9a-f]*, the entry names $(sha256_of c2/session-end.json): the document in the line was edited" err
'

test_expect_success 'runs made before the registration fail: an unregistered session, registered, then resumed' '
	"$CAPTURE" run pinned.json -o early >/dev/null 2>&1 && sleep 1 &&
	"$CAPTURE" register pinned.json -o late.json --statistic p99 --tsa "$(cat url)" --tsa-ca tsa/ca.pem --log log2 >/dev/null &&
	"$CAPTURE" run pinned.json -o early --registration late.json --log log2 >/dev/null 2>&1 &&
	test_expect_code 1 "$AUDIT" campaign early -o s10 --log log2 --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s10/receipt.json "registered before the first run" >got &&
	grep -q "^fail its trusted time [0-9T:-]*Z (to the second) is not before the first run'"'"'s start .* (run 00[12]-baseline-[a-z]*-1, by that host'"'"'s clock): the registration came after results existed; run 00[12]-.* started at .*, before the campaign'"'"'s first session on the record began" got
'

test_expect_success 'a capture clock set back (faketime): its runs look older than the registration, and fail' '
	if ! command -v faketime >/dev/null; then echo "faketime is not installed (Debian package faketime)"; false; fi &&
	if grep -q __asan_init "$CAPTURE"; then
		test_skip_case "a sanitized capture hangs under libfaketime (its LD_PRELOAD comes before the sanitizer runtime)"
	fi &&
	"$CAPTURE" register pinned.json -o fake.json --statistic p99 --tsa "$(cat url)" --tsa-ca tsa/ca.pem >/dev/null &&
	FAKETIME_DONT_FAKE_MONOTONIC=1 timeout 120 faketime -f "-1d" "$CAPTURE" run pinned.json -o faked \
		--registration fake.json >/dev/null 2>&1 &&
	test_expect_code 1 "$AUDIT" campaign faked -o s11 --tsa-ca tsa/ca.pem >out 2>err &&
	check_of s11/receipt.json "registered before the first run" | grep -q "^fail its trusted time .* (to the second) is not before the first run"
'

test_expect_success 'a campaign without a registration is graded unregistered, never quietly passed' '
	"$CAPTURE" run pinned.json -o plain >/dev/null 2>&1 &&
	"$AUDIT" campaign plain -o s12 >out 2>err &&
	grep -q "^registration: unregistered: nothing shows the set-up, the statistics or the comparisons were chosen before the results$" out &&
	test "$(json_words s12/receipt.json "d[\"facts\"][\"registration\"][\"state\"]")" = unregistered &&
	grep -q "^Registration: unregistered" s12/summary.md &&
	cp -r c1 removed && rm removed/registration.json removed/registration.json.ts* &&
	test_expect_code 1 "$AUDIT" campaign removed -o s13 >out 2>err &&
	check_of s13/receipt.json "registered" | grep -q "^fail receipt-capture.json names the registration $(sha256_of reg.json), but the campaign holds no registration.json: it was removed$"
'

test_expect_success 'audit compare: two sessions of one registration, and its registered cells, compare as registered' '
	"$AUDIT" compare --resamples 100 s1 s2b -o k1 >out 2>err &&
	grep -q "^registration: A registered, B registered; the comparison was registered$" out &&
	test "$(json_words k1/comparison.json "d[\"registration\"][\"registered\"]")" = True &&
	grep -q "^registration: A registered, B registered; the comparison was registered$" k1/comparison.md &&
	"$AUDIT" compare --resamples 100 --cell epoll --cell spin s1 -o k2 >out 2>err &&
	test "$(json_words k2/receipt.json "d[\"facts\"][\"registration\"][\"registered\"]")" = True
'

test_expect_success 'audit compare refuses what was not registered, nothing written, unless --unregistered says so' '
	test_expect_code 2 "$AUDIT" compare --resamples 100 --arm baseline --arm baseline s1 -o k3 >out 2>err &&
	grep -q "^audit: this comparison was not registered: arms baseline,baseline are not a registered comparison (the registration registers: cells spin,epoll); a comparison chosen after the results is refused unless --unregistered is given" err &&
	test_must_be_absent k3 &&
	test_expect_code 2 "$AUDIT" compare --resamples 100 s12 s1 -o k3 >out 2>err &&
	grep -q "^audit: this comparison was not registered: A (s12) is unregistered;" err && test_must_be_absent k3 &&
	"$AUDIT" compare --unregistered --resamples 100 s12 s1 -o k3 >out 2>err &&
	grep -q "^registration: A unregistered, B registered; the comparison was NOT registered (A (s12) is unregistered): compared under --unregistered$" out &&
	test "$(json_words k3/comparison.json "d[\"registration\"][\"a\"], d[\"registration\"][\"registered\"]")" = "unregistered False"
'

test_expect_success 'audit compare --reference: a reference the registration named is registered; another is refused' '
	reference ref s1 1.0 && reference other s1 1.1 &&
	"$CAPTURE" register pinned.json -o refreg.json --statistic p99 --reference ref/ref.json \
		--tsa "$(cat url)" --tsa-ca tsa/ca.pem --log log3 >/dev/null && sleep 1 &&
	"$CAPTURE" run pinned.json -o c4 --registration refreg.json --log log3 >/dev/null 2>&1 &&
	"$AUDIT" campaign c4 -o s14 --log log3 --tsa-ca tsa/ca.pem >/dev/null 2>&1 &&
	"$AUDIT" compare --reference ref/ref.json --arm baseline --cell spin s14 -o r1 >out 2>err &&
	grep -q "^registration: A registered, B registered; the comparison was registered$" out &&
	test_expect_code 2 "$AUDIT" compare --reference other/ref.json --arm baseline --cell spin s14 -o r2 >out 2>err &&
	grep -q "^audit: this comparison was not registered: its registration registers no reproduction of the reference $(sha256_of other/ref.json) (it registers: reference $(sha256_of ref/ref.json))" err &&
	test_must_be_absent r2
'

test_expect_success 'replicate status shows the reviewer'"'"'s line under each audit, from the files and from the catalog alike' '
	mkdir st && cp -r c1 st/c1 && (cd st && "$SEAL" create c1 -o sealed >/dev/null && test_expect_code 1 "$AUDIT" campaign c1 -o s \
		--log ../log --tsa-ca ../tsa/ca.pem >/dev/null 2>&1) &&
	"$REPLICATE" status "$PWD/st" >walk.txt &&
	grep -q "^            registration FAILED: registered at [0-9T:-]*Z (log $(cat log/origin), index 0), 3 of 2 sessions accounted for$" walk.txt &&
	"$REPLICATE" index --catalog st.sqlite st >/dev/null && "$REPLICATE" status --catalog st.sqlite "$PWD/st" >cat.txt &&
	test_cmp walk.txt cat.txt &&
	python3 - <<-\PY &&
	import json
	p = "st/s/receipt.json"
	d = json.load(open(p))
	d["facts"]["registration"]["line"] = "registered, trust me"
	open(p, "w").write(json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n")
	PY
	"$REPLICATE" status st >edited.txt && ! grep -q "trust me" edited.txt && grep -q "(edited)" edited.txt
'

test_expect_success 'the catalog keeps the sessions: audit history names those never published beside the others' '
	"$REPLICATE" index --catalog h.sqlite "$PWD" >out &&
	grep -q ", [1-9][0-9]* registration or session records;" out &&
	"$AUDIT" history --catalog h.sqlite --plan small >out 2>err &&
	grep -q "^  sessions of this plan on the record: [0-9]*, [0-9]* published (an audit names it), 1 never$" out &&
	grep -q "^  never published: $PWD/c3 (started [0-9T:-]*Z): ok, 2 runs made ([^:]*:$PWD/c3/session-start.json)$" out &&
	! grep -q "never published: $PWD/c1 " out &&
	"$AUDIT" history --catalog h.sqlite --plan small --json >h.json 2>/dev/null &&
	test "$(json_words h.json "sorted(set((s[\"campaign\"].rsplit(\"/\", 1)[1], s[\"published\"]) for s in d[\"sessions\"] if s[\"campaign\"].rsplit(\"/\", 1)[1] in (\"c1\", \"c2\", \"c3\")))")" = \
		"c1 True c2 True c3 False"
'

test_expect_success 'a registered campaign run without its registration is refused before anything runs' '
	test_expect_code 2 "$CAPTURE" run pinned.json -o c1 >out 2>err &&
	grep -q "^capture: $PWD/c1: the campaign is registered (its registration.json has SHA-256 $(sha256_of reg.json)): run it with --registration and --log" err
'

test_done
