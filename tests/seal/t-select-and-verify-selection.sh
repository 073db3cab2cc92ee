#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal select names an exact subset of a seal (with digests and the seal's
# own SHA-256); seal verify --selection checks a copy of just those files.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

test_expect_success 'setup: a sealed campaign' '
	make_campaign c && "$SEAL" create c -o out >/dev/null
'

test_expect_success 'select a directory and a glob; the manifest lists exactly those' '
	"$SEAL" select --seal out/SEAL.json --include summary --include "runs/*/journal/*.bin" -o sel.json >stdout &&
	echo "selected 5 of 19 members (4 files, $(( $(stat -c %s c/summary/* | paste -sd+) + $(stat -c %s c/runs/A-1/journal/1.bin) + $(stat -c %s c/runs/B-1/journal/1.bin) )) bytes) from out/SEAL.json into sel.json" >expect &&
	test_cmp expect stdout &&
	python3 -c "
import hashlib, json
s = json.load(open(\"sel.json\"))
assert s[\"format\"] == \"evidence-selection/1\"
assert s[\"seal_sha256\"] == hashlib.sha256(open(\"out/SEAL.json\", \"rb\").read()).hexdigest()
paths = [m[\"path\"] for m in s[\"members\"]]
assert paths == [\"runs/A-1/journal/1.bin\", \"runs/B-1/journal/1.bin\", \"summary\", sorted(paths)[3], sorted(paths)[4]], paths
assert all(p.startswith(\"summary/\") for p in paths[3:]), paths
"
'

test_expect_success 'a copy of just the selected files, modes kept, verifies; the receipt goes where seal ran' '
	mkdir copy &&
	(cd c && cp -p --parents runs/A-1/journal/1.bin runs/B-1/journal/1.bin summary/* ../copy/) &&
	chmod 755 copy/summary &&
	mkdir -p here && (cd here && "$SEAL" verify --selection ../sel.json --seal ../out/SEAL.json ../copy >../stdout) &&
	receipt=$(sed -n "s/^OK: ..\/copy: 5 members, 0 findings against ..\/sel.json; receipt //p" stdout) &&
	case "$receipt" in ./verify-*T*Z.json) ;; *) false ;; esac &&
	test "$(ls here)" = "${receipt#./}" &&
	test "$(json_get "here/$receipt" "d[\"kind\"], d[\"result\"]")" = "verify pass" &&
	printf "%s\n" "checked every selected member${Q}s content, size, mode and type; not checked: owners and times (not sealed); SEAL.json not pinned; entries outside the selection" \
		"OK: ../copy: 5 members, 0 findings against ../sel.json; receipt $receipt" >expect && test_cmp expect stdout
'

test_expect_success 'a changed copy, an extra file and a missing file are each named' '
	cp -a copy bad && echo x >>bad/runs/B-1/journal/1.bin && echo e >bad/summary/extra &&
	rm bad/runs/A-1/journal/1.bin &&
	test_expect_code 1 "$SEAL" verify --selection sel.json bad 2>actual >/dev/null &&
	size=$(stat -c %s c/runs/B-1/journal/1.bin) &&
	printf "%s\n" "seal: runs/A-1/journal/1.bin: missing (expected file, found nothing)" \
		"seal: runs/B-1/journal/1.bin: size differs (expected $size, found $((size + 2)))" \
		"seal: summary/extra: not in the seal (found file)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a selection checked against another seal is a finding' '
	echo x >c/x && "$SEAL" create c -o other >/dev/null &&
	test_expect_code 1 "$SEAL" verify --selection sel.json --seal other/SEAL.json copy 2>actual >/dev/null &&
	grep -q "^seal: sel.json: the selection was not made from this seal" actual
'

test_expect_success 'a selection edited to match an edited copy is held to its seal, member by member' '
	cp -a copy edited && echo x >>edited/runs/B-1/journal/1.bin &&
	python3 -c "
import hashlib, json
s = json.load(open(\"sel.json\"))
data = open(\"edited/runs/B-1/journal/1.bin\", \"rb\").read()
for m in s[\"members\"]:
    if m[\"path\"] == \"runs/B-1/journal/1.bin\":
        s[\"totals\"][\"bytes\"] += len(data) - m[\"size\"]
        m[\"size\"], m[\"sha256\"] = len(data), hashlib.sha256(data).hexdigest()
open(\"edited-sel.json\", \"w\").write(json.dumps(s, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\")
" &&
	"$SEAL" verify --selection edited-sel.json edited >/dev/null &&
	test_expect_code 1 "$SEAL" verify --selection edited-sel.json --seal out/SEAL.json --receipt ev.json edited \
		2>actual >/dev/null &&
	size=$(stat -c %s c/runs/B-1/journal/1.bin) &&
	echo "seal: runs/B-1/journal/1.bin: size differs (expected $size, found $((size + 2)))" >expect &&
	test_cmp expect actual &&
	test "$(json_get ev.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] != \"pass\"]")" = \
		"[${Q}size:runs/B-1/journal/1.bin${Q}, ${Q}selection-from-seal${Q}, ${Q}members${Q}]"
'

test_expect_success 'a pattern that selects nothing is refused; nothing is written' '
	test_expect_code 2 "$SEAL" select --seal out/SEAL.json --include summary --include "nope/*" -o none.json 2>actual &&
	echo "seal: --include '\''nope/*'\'' matched no member of out/SEAL.json; nothing was written" >expect &&
	test_cmp expect actual && test_must_be_absent none.json && no_temporaries .
'

test_expect_success 'an existing selection file is never overwritten' '
	test_expect_code 2 "$SEAL" select --seal out/SEAL.json --include summary -o sel.json 2>actual &&
	echo "seal: sel.json: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect actual
'

test_done
