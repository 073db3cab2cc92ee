#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A shared catalog is every host's word, so a column is an index, never the
# truth. Each judged column of a receipt, a seal's root and members, and
# each column and statistic of a summary edited in turn (one statement
# each): status --catalog and audit history name the row ("row-edited:
# TABLE.COLUMN says X, its document says Y"), show what the document says
# (status: the walk's inventory, line for line, before the names; history:
# the same JSON, gate included), and exit 1, with --recheck too. A document
# whose bytes do not hash to its digest is named (document-corrupt) and not
# used. replicate index --check holds the whole catalog so, with SQLite's
# own integrity check: clean, exit 0; each fault named by table and key,
# exit 1; random damage to the file's pages named, never answered around.
. "$EV_SRCDIR/tests/lib/lib.sh"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

# sql CATALOG STATEMENT: one statement through an independent client
sql () {
	/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
c.commit()' "$1" "$2"
}

# edited STATEMENT: a fresh copy of the clean catalog, edited, as e.sqlite
edited () {
	cp clean.sqlite e.sqlite && sql e.sqlite "$1" >/dev/null
}

# walk_then_names OUT: OUT is the walk's inventory, line for line, then
# only the catalog's own findings
walk_then_names () {
	head -n "$(wc -l <walk.txt)" "$1" >shown.txt && test_cmp walk.txt shown.txt &&
	tail -n +"$(($(wc -l <walk.txt) + 1))" "$1" >names.txt &&
	! grep -v "^row not believed: \|^FAIL: " names.txt
}

# names_row STATEMENT LINE: after STATEMENT on a fresh copy, status
# --catalog exits 1, shows the walk's inventory, and names the row in LINE
names_row () {
	edited "$1" &&
	test_expect_code 1 "$REPLICATE" status --catalog e.sqlite "$PWD/all" >out &&
	walk_then_names out &&
	grep -qx "row not believed: $2" out || { echo "after: $1"; cat out; return 1; }
}

GEN="/usr/bin/python3 $EV_SRCDIR/tests/audit/history-campaigns.py"
# a single quote, for SQL literals inside the cases' own single quotes
Q="'"

test_expect_success 'setup: a campaign sealed, verified on two hosts and failed once, eight audited campaigns; indexed' '
	mkdir all && cd all &&
	make_campaign c && "$SEAL" create c -o sealed >/dev/null &&
	as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt replica-h1.json sealed/archive.tar.zst >/dev/null &&
	as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt replica-h2.json sealed/archive.tar.zst >/dev/null &&
	echo changed >>c/runs/A-1/journal/1.bin &&
	test_expect_code 1 "$SEAL" verify --seal sealed/SEAL.json --receipt failed.json c >/dev/null 2>&1 &&
	cd .. &&
	$GEN synth "{\"plan\": \"synth\", \"campaigns\": 8, \"seed\": 5}" >/dev/null &&
	"$REPLICATE" index --catalog clean.sqlite all synth >/dev/null &&
	"$REPLICATE" status --catalog clean.sqlite "$PWD/all" >walk.txt &&
	"$REPLICATE" status "$PWD/all" >walk-files.txt && test_cmp walk-files.txt walk.txt &&
	grep -q "^  checked:  seal verify, fail" walk.txt &&
	"$AUDIT" history --catalog clean.sqlite --plan synth --gate 1.2 --json >history.json
'

test_expect_success 'a clean catalog: index --check finds no fault, exit 0' '
	"$REPLICATE" index --check --catalog clean.sqlite >out &&
	grep -q "^ok: catalog clean.sqlite: [0-9]* file rows held to their documents, 0 faults$" out &&
	"$REPLICATE" index --check --json --catalog clean.sqlite >out.json &&
	test "$(json_get out.json "len(d[\"findings\"])")" = 0
'

test_expect_success 'receipts.result edited to pass: named with both words, the failure still shown, exit 1 (and with --recheck)' '
	edited "UPDATE receipts SET result = ${Q}pass${Q} WHERE result != ${Q}pass${Q}" &&
	test_expect_code 1 "$REPLICATE" status --catalog e.sqlite "$PWD/all" >out &&
	walk_then_names out &&
	grep -qx "row not believed: $PWD/all/failed.json: row-edited: receipts.result says pass, its document says fail" out &&
	grep -q "^FAIL: 1 catalog row not believed: " out &&
	test_expect_code 1 "$REPLICATE" status --catalog e.sqlite --recheck "$PWD/all" >out &&
	grep -qx "row not believed: $PWD/all/failed.json: row-edited: receipts.result says pass, its document says fail" out &&
	grep -q "^recheck: [0-9]* files on this host, each the bytes the catalog indexed$" out &&
	test_expect_code 1 "$REPLICATE" status --json --catalog e.sqlite "$PWD/all" >out.json &&
	test "$(json_get out.json "d[\"not_believed\"][0][\"why\"]")" = "row-edited: receipts.result says pass, its document says fail"
'

test_expect_success 'every other judged column of a receipt, edited in turn: each named, the walk still shown, exit 1' '
	R=$(sql clean.sqlite "SELECT f.sha256 FROM files f WHERE f.path LIKE ${Q}%/replica-h1.json${Q}") &&
	for col in kind command host finished comparable seal root; do
		was=$(sql clean.sqlite "SELECT $col FROM receipts WHERE sha256 = ${Q}$R${Q}") &&
		names_row "UPDATE receipts SET $col = ${Q}edited${Q} WHERE sha256 = ${Q}$R${Q}" \
			"$PWD/all/replica-h1.json: row-edited: receipts.$col says edited, its document says ${was:-nothing}" ||
			return 1
	done &&
	for col in intact from_archive; do
		was=$(sql clean.sqlite "SELECT $col FROM receipts WHERE sha256 = ${Q}$R${Q}") &&
		names_row "UPDATE receipts SET $col = 1 - $col WHERE sha256 = ${Q}$R${Q}" \
			"$PWD/all/replica-h1.json: row-edited: receipts.$col says $((1 - was)), its document says $was" || return 1
	done &&
	names_row "UPDATE receipts SET inputs = ${Q}${Q} WHERE sha256 = ${Q}$R${Q}" \
		"$PWD/all/replica-h1.json: row-edited: receipts.inputs says other digests, its document says these"
'

test_expect_success 'the root and members of a seal edited: named; the members its document holds still judge its copies' '
	names_row "UPDATE seals SET root = ${Q}other${Q}" \
		"$PWD/all/sealed/SEAL.json: row-edited: seals.root says other, its document says c" &&
	n=$(sql clean.sqlite "SELECT count(*) FROM seal_members") &&
	names_row "DELETE FROM seal_members WHERE rowid = (SELECT min(rowid) FROM seal_members)" \
		"$PWD/all/sealed/SEAL.json: row-edited: seal_members says $((n - 1)) member digests, its document says $n"
'

test_expect_success 'a document whose bytes do not hash to its digest: document-corrupt, not used, exit 1' '
	R=$(sql clean.sqlite "SELECT f.sha256 FROM files f WHERE f.path LIKE ${Q}%/replica-h2.json${Q}") &&
	edited "UPDATE documents SET body = replace(body, ${Q}\"pass\"${Q}, ${Q}\"PASS\"${Q}) WHERE sha256 = ${Q}$R${Q}" &&
	test_expect_code 1 "$REPLICATE" status --catalog e.sqlite "$PWD/all" >out &&
	grep -q "^row not believed: $PWD/all/replica-h2.json: document-corrupt: its bytes in documents hash to [0-9a-f]\{16\}\.\.\., not the row.s ${R%${R#????????????????}}\.\.\.$" out &&
	! grep -q "^  copy:     h2" out && grep -q "^  copy:     h1" out &&
	edited "DELETE FROM documents WHERE sha256 = ${Q}$R${Q}" &&
	test_expect_code 1 "$REPLICATE" status --catalog e.sqlite "$PWD/all" >out &&
	grep -qx "row not believed: $PWD/all/replica-h2.json: document-missing: documents holds no bytes for SHA-256 ${R%${R#????????????????}}..." out
'

test_expect_success 'a statistic edited ten-fold: history names it and is the documents'"'"' word, gate and all; exit 1' '
	edited "UPDATE cell_statistics SET value = value * 10" &&
	test_expect_code 1 "$AUDIT" history --catalog e.sqlite --plan synth --gate 1.2 --json >edited.json &&
	/usr/bin/python3 - <<-\PY &&
	import json
	a, b = json.load(open("history.json")), json.load(open("edited.json"))
	named = b.pop("not_believed")
	a.pop("catalog"), b.pop("catalog")
	assert a == b, "the history changed"
	assert len(named) == 8, named
	assert all(n["why"].startswith("row-edited: cell_statistics (") and "and " in n["why"] for n in named), named
	PY
	test_expect_code 1 "$AUDIT" history --catalog e.sqlite --plan synth >out &&
	grep -q "^  row not believed: $PWD/synth/c00/summary.json: row-edited: cell_statistics (.* of a/x) says [0-9.]*, its document says" out &&
	grep -q "^FAIL: the catalog.s rows of 8 summaries not believed: " out
'

test_expect_success 'each column of a summary edited in turn: named, the history unchanged; another plan'"'"'s summary never joins' '
	S=$(sql clean.sqlite "SELECT sha256 FROM summaries ORDER BY captured LIMIT 1") &&
	for edit in "plan_sha256 = ${Q}$(printf %064d 0)${Q}" "captured = ${Q}2000-01-01T00:00:00Z${Q}" "seal = ${Q}x${Q}" "runs = 99"; do
		edited "UPDATE summaries SET $edit WHERE sha256 = ${Q}$S${Q}" &&
		test_expect_code 1 "$AUDIT" history --catalog e.sqlite --plan synth --gate 1.2 --json >edited.json &&
		/usr/bin/python3 -c "
import json
a, b = json.load(open(\"history.json\")), json.load(open(\"edited.json\"))
named = b.pop(\"not_believed\")
a.pop(\"catalog\"), b.pop(\"catalog\")
assert a == b, \"the history changed\"
col = \"$edit\".split(\" \")[0]
assert [n[\"why\"].split(\" says \")[0] for n in named] == [\"row-edited: summaries.\" + col], named
" || { echo "edit $edit"; return 1; }
	done &&
	edited "UPDATE summaries SET plan = ${Q}other${Q} WHERE sha256 = ${Q}$S${Q}" &&
	test_expect_code 2 "$AUDIT" history --catalog e.sqlite --plan other 2>err &&
	grep -q "^audit: catalog e.sqlite: no summary of plan .other. is believed: the rows of 1 contradict their documents (the first, $PWD/synth/c00/summary.json: row-edited: summaries.plan says other, its document says synth); replicate index --check names each$" err
'

test_expect_success 'history --trust compares only summaries a trusted audit receipt names, and says how many it left out' '
	"$REPLICATE" keygen -o lab >/dev/null && "$REPLICATE" keygen -o stranger >/dev/null &&
	$GEN signed "{\"plan\": \"signed\", \"campaigns\": 6, \"seed\": 5, \"sign\": {\"key\": \"lab.key\", \"campaigns\": [0, 1, 3, 4]}}" >/dev/null &&
	"$REPLICATE" index --catalog t.sqlite signed >/dev/null &&
	"$AUDIT" history --catalog t.sqlite --plan signed --trust lab.pub --min-segment 1 --json >t.json &&
	test "$(json_get t.json "len(d[\"campaigns\"]), len(d[\"untrusted\"])")" = "4 2" &&
	test "$(json_get t.json "sorted(u[\"where\"].split(\"/\")[-2] for u in d[\"untrusted\"])")" = "[${Q}c02${Q}, ${Q}c05${Q}]" &&
	"$AUDIT" history --catalog t.sqlite --plan signed --trust lab.pub --min-segment 1 >out &&
	grep -qx "  left out: $PWD/signed/c02/summary.json: no audit receipt beside it that names it is signed by a trusted key" out &&
	grep -qx "  2 summaries left out: not named by an audit receipt signed by a trusted key" out &&
	test_expect_code 2 "$AUDIT" history --catalog t.sqlite --plan signed --trust stranger.pub 2>err &&
	grep -q "^audit: catalog t.sqlite: no summary of plan .signed. is named by an audit receipt signed by a trusted key (6 left out)$" err &&
	"$AUDIT" history --catalog t.sqlite --plan signed --min-segment 1 --json >all.json &&
	test "$(json_get all.json "len(d[\"campaigns\"]), \"untrusted\" in d")" = "6 False" &&
	# a receipt'"'"'s bytes edited in the catalog trust nothing: they no longer hash to its digest
	cp t.sqlite te.sqlite && sql te.sqlite "UPDATE documents SET body = replace(body, ${Q}\"lab1\"${Q}, ${Q}\"lab2\"${Q}) WHERE sha256 IN (SELECT sha256 FROM receipts)" &&
	test_expect_code 2 "$AUDIT" history --catalog te.sqlite --plan signed --trust lab.pub 2>err &&
	grep -q "^audit: catalog te.sqlite: no summary of plan .signed. is named by an audit receipt signed by a trusted key (6 left out)$" err
'

test_expect_success 'more rows than a batch (606, read and believed on two threads): the walk line for line; rows edited in the first, the second and the short last batch each named, in the walk'"'"'s order' '
	/usr/bin/python3 "$EV_SRCDIR/bench/gen-receipts.py" many 6 100 &&
	"$REPLICATE" index --catalog many.sqlite "$PWD/many" >/dev/null &&
	test "$(sql many.sqlite "SELECT count(*) FROM files")" = 606 &&
	"$REPLICATE" status "$PWD/many" >many-walk.txt &&
	"$REPLICATE" status --catalog many.sqlite "$PWD/many" >many-catalog.txt &&
	test_cmp many-walk.txt many-catalog.txt &&
	"$REPLICATE" status --json "$PWD/many" >many-walk.json &&
	"$REPLICATE" status --json --catalog many.sqlite "$PWD/many" >many-catalog.json &&
	test_cmp many-walk.json many-catalog.json &&
	for r in c0000/r001 c0002/r070 c0005/r098; do
		test "$(sql many.sqlite "SELECT rowid FROM files WHERE path = ${Q}$PWD/many/$r.json${Q}")" -gt 0 || return 1
	done &&
	sql many.sqlite "SELECT rowid FROM files WHERE path LIKE ${Q}%/c0002/r070.json${Q}" >rowid &&
	test "$(cat rowid)" -gt 256 && test "$(cat rowid)" -le 512 &&
	cp many.sqlite many-edited.sqlite &&
	sql many-edited.sqlite "UPDATE receipts SET result = ${Q}fail${Q} WHERE sha256 IN (SELECT sha256 FROM files WHERE path LIKE ${Q}%/c0000/r001.json${Q} OR path LIKE ${Q}%/c0002/r070.json${Q} OR path LIKE ${Q}%/c0005/r098.json${Q})" >/dev/null &&
	test_expect_code 1 "$REPLICATE" status --catalog many-edited.sqlite "$PWD/many" >out &&
	head -n "$(wc -l <many-walk.txt)" out >shown.txt && test_cmp many-walk.txt shown.txt &&
	for r in c0000/r001 c0002/r070 c0005/r098; do
		echo "row not believed: $PWD/many/$r.json: row-edited: receipts.result says fail, its document says pass" || return 1
	done >expected &&
	grep "^row not believed: " out >names &&
	test_cmp expected names
'

test_expect_success 'index --check names every fault by table and key, exit 1' '
	R=$(sql clean.sqlite "SELECT f.sha256 FROM files f WHERE f.path LIKE ${Q}%/replica-h2.json${Q}") &&
	edited "UPDATE receipts SET result = ${Q}pass${Q} WHERE result != ${Q}pass${Q}" &&
	sql e.sqlite "UPDATE seals SET root = ${Q}other${Q}" &&
	sql e.sqlite "UPDATE documents SET body = body || ${Q} ${Q} WHERE sha256 = ${Q}$R${Q}" &&
	sql e.sqlite "UPDATE cell_statistics SET value = ${Q}1${Q} WHERE rowid = (SELECT min(rowid) FROM cell_statistics)" &&
	sql e.sqlite "DELETE FROM receipt_inputs WHERE rowid = (SELECT min(rowid) FROM receipt_inputs)" &&
	test_expect_code 1 "$REPLICATE" index --check --catalog e.sqlite >out &&
	grep -q "^receipts: [^:]*:$PWD/all/failed.json: row-edited: receipts.result says pass, its document says fail$" out &&
	grep -q "^seals: [^:]*:$PWD/all/sealed/SEAL.json: row-edited: seals.root says other, its document says c$" out &&
	grep -q "^documents: $R: document-corrupt: " out &&
	grep -q "^receipts: [^:]*:$PWD/all/replica-h2.json: document-corrupt: " out &&
	grep -q "^summaries: [^:]*:$PWD/synth/c[0-9]*/summary.json: row-edited: cell_statistics (" out &&
	grep -q "^receipt_inputs: [^:]*:$PWD/.*: row-edited: receipt_inputs holds [0-9]* rows for it, its document names [0-9]* inputs$" out &&
	grep -q "^FAIL: catalog e.sqlite: [0-9]* file rows held to their documents, 6 faults$" out
'

test_expect_success 'random damage to the file'"'"'s pages: named by index --check and by status, never an inventory with exit 0' '
	cp clean.sqlite d.sqlite &&
	/usr/bin/python3 -c "
import random, sys
data = bytearray(open(\"d.sqlite\", \"rb\").read())
r = random.Random(11)
for _ in range(200):
    i = r.randrange(4096, len(data))   # past the first page: the file still opens
    data[i] ^= 0xff
open(\"d.sqlite\", \"wb\").write(data)
" &&
	test_expect_code 1 "$REPLICATE" index --check --catalog d.sqlite >out 2>err &&
	grep -q "^(the database): -: " out && grep -q "^FAIL: " out &&
	{ "$REPLICATE" status --catalog d.sqlite "$PWD/all" >out 2>err; code=$?; } &&
	test "$code" = 1 &&
	{ grep -q "^row not believed: " out || grep -q "^replicate: catalog d.sqlite: damaged: " err; }
'

test_expect_success 'every page but the first made unreadable: status, index --check and history name the damage, exit 1, print no answer and change nothing' '
	cp clean.sqlite p.sqlite &&
	/usr/bin/python3 -c "
data = bytearray(open(\"p.sqlite\", \"rb\").read())
size = int.from_bytes(data[16:18], \"big\")
for page in range(size, len(data), size):
    data[page] = 0x6b   # no b-tree page has this type
open(\"p.sqlite\", \"wb\").write(data)
" &&
	cp p.sqlite p-as-damaged.sqlite &&
	test_expect_code 1 "$REPLICATE" status --catalog p.sqlite >out 2>err &&
	! test -s out &&
	grep -q "^replicate: catalog p.sqlite: damaged: .*malformed.*; replicate index --check names what is damaged" err &&
	test_expect_code 1 "$REPLICATE" index --check --catalog p.sqlite >out 2>err &&
	grep -q "^replicate: catalog p.sqlite: damaged: " err &&
	test_expect_code 1 "$AUDIT" history --catalog p.sqlite --plan synth >out 2>err &&
	! test -s out &&
	grep -q "^audit: catalog p.sqlite: damaged: " err &&
	cmp p.sqlite p-as-damaged.sqlite
'

test_done
