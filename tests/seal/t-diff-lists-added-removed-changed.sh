#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal diff lists exactly the members added, removed and changed between two
# seals, and exits 1 when there is any difference, 0 when there is none.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: two seals of a tree before and after some changes' '
	make_campaign c && "$SEAL" create c -o a >/dev/null &&
	echo more >>c/runs/A-1/series/send.csv && chmod 640 c/runs/run.sh &&
	printf "\\377" | dd of=c/runs/B-1/journal/1.bin bs=1 seek=9 conv=notrunc 2>/dev/null &&
	rm c/runs/B-1/empty.log && mkdir c/new && echo n >c/new/file &&
	"$SEAL" create c -o b >/dev/null
'

test_expect_success 'the same seal twice: no output, exit 0' '
	"$SEAL" diff a/SEAL.json a/SEAL.json >actual && test ! -s actual
'

test_expect_success 'every difference, one line each, in path order; exit 1' '
	test_expect_code 1 "$SEAL" diff a/SEAL.json b/SEAL.json >actual &&
	old=$(python3 -c "import json; print([m for m in json.load(open(\"a/SEAL.json\"))[\"members\"] if m[\"path\"]==\"runs/B-1/journal/1.bin\"][0][\"sha256\"])") &&
	printf "%s\n" "added: new (dir)" "added: new/file (file)" \
		"changed: runs/A-1/series/send.csv: size (A: 23893, B: 23898)" \
		"removed: runs/B-1/empty.log (file)" \
		"changed: runs/B-1/journal/1.bin: sha256 (A: $old, B: $(sha256_of c/runs/B-1/journal/1.bin))" \
		"changed: runs/run.sh: mode (A: 0755, B: 0640)" >expect &&
	test_cmp expect actual
'

test_expect_success '--json gives the same differences as data' '
	test_expect_code 1 "$SEAL" diff --json a/SEAL.json b/SEAL.json >d.json &&
	python3 -c "
import json
d = json.load(open(\"d.json\"))
assert [x[\"path\"] for x in d[\"added\"]] == [\"new\", \"new/file\"], d
assert [x[\"path\"] for x in d[\"removed\"]] == [\"runs/B-1/empty.log\"], d
assert sorted((x[\"path\"], x[\"field\"]) for x in d[\"changed\"]) == [(\"runs/A-1/series/send.csv\", \"size\"), (\"runs/B-1/journal/1.bin\", \"sha256\"), (\"runs/run.sh\", \"mode\")], d
"
'

test_expect_success 'a file that is not a seal is an error (exit 2), not a difference' '
	echo "{}" >bogus.json &&
	test_expect_code 2 "$SEAL" diff a/SEAL.json bogus.json 2>actual &&
	echo "seal: bogus.json: no \"format\" tag (expected \"evidence-seal/1\")" >expect &&
	test_cmp expect actual
'

test_done
