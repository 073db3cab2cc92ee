#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal --archive --seal: the journals are read from the sealed
# archive as it streams (nothing extracted), every member is checked
# against the seal in the same pass, and the verdicts are the directory
# audit's. A member altered in the archive is named by the seal check
# (sha256) and by the rule its bytes break; a truncated archive, a
# missing member are findings, never a crash. What one pass cannot read
# (a FileStore, an llfix journal of ten files or more, interleaved sides,
# a path the seal lacks) is refused with exit 2 before anything is read,
# and no receipt is left.
. "$EV_SRCDIR/tests/lib/lib.sh"

COUNTS="--warmups 3 --measured 20"
J=runs/A-1/journal
ARCHIVE_SURGERY="$EV_SRCDIR/tests/replicate/archive-surgery.py"

# audit_archive ARCHIVE [options]: the pair of campaign c, from ARCHIVE.
audit_archive () {
	archive=$1
	shift
	"$AUDIT" journal $COUNTS --archive "$archive" --seal out/SEAL.json \
		--sender $J/sender --receiver $J/receiver "$@"
}

# side_facts RECEIPT: records, messages and orders of each side.
side_facts () {
	json_get "$1" '[(k, p[k]["messages"], p[k]["orders"], [f["records"] for f in p[k]["files"]])
		for p in d["facts"]["pairs"] for k in ("sender", "receiver")]'
}

test_expect_success 'setup: a sealed campaign holding one pair of journals' '
	mkdir -p c/$J && "$GEN_JOURNAL" --file-size 4096 c/$J 3 20 &&
	echo notes >c/runs/notes.txt &&
	"$SEAL" create c -o out >/dev/null
'

test_expect_success 'the archive audit passes, checks every member and agrees with the directory audit' '
	audit_archive out/archive.tar.zst --receipt a.json >stdout &&
	grep -q "^OK: 2 sides, 46 orders, 0 findings" stdout &&
	test "$(json_get a.json "d[\"result\"]")" = pass &&
	json_get a.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"archive\"]" >archive_check &&
	grep -q "members against the seal, 0 findings" archive_check &&
	"$AUDIT" journal $COUNTS --sender c/$J/sender --receiver c/$J/receiver --receipt d.json >/dev/null &&
	side_facts a.json >from_archive && side_facts d.json >from_dir && test_cmp from_dir from_archive
'

test_expect_success 'the receipt names each journal file with its sealed SHA-256' '
	want=$(sha256_of c/$J/sender/2.bin) &&
	json_get a.json "[i[\"sha256\"] for i in d[\"inputs\"] if i[\"name\"] == \"pair 1 sender 2.bin\"][0]" >got &&
	echo "$want" >want && test_cmp want got &&
	json_get a.json "[i[\"name\"] for i in d[\"inputs\"]]" | contains "archive" &&
	json_get a.json "[i[\"name\"] for i in d[\"inputs\"]]" | contains "SEAL.json"
'

test_expect_success 'member paths may be given with the root in front' '
	"$AUDIT" journal $COUNTS --archive out/archive.tar.zst --seal out/SEAL.json \
		--sender c/$J/sender --receiver c/$J/receiver --receipt rooted.json >/dev/null
'

test_expect_success 'a sibling whose name extends the journal'"'"'s (sender-incoming) sorts among its files: skipped, not an end' '
	mkdir -p s/$J && "$GEN_JOURNAL" --file-size 4096 s/$J 3 20 &&
	mkdir s/$J/sender-incoming s/$J/sender.old &&
	cp s/$J/sender/1.bin s/$J/sender-incoming/1.bin && cp s/$J/sender/1.bin s/$J/sender.old/1.bin &&
	"$SEAL" create s -o sout >/dev/null &&
	"$AUDIT" journal $COUNTS --archive sout/archive.tar.zst --seal sout/SEAL.json \
		--sender $J/sender --receiver $J/receiver --receipt sib.json >stdout &&
	grep -q "^OK: 2 sides, 46 orders, 0 findings" stdout &&
	test "$(json_get sib.json "[f[\"name\"] for f in d[\"facts\"][\"pairs\"][0][\"sender\"][\"files\"]]")" = \
		"$(json_get a.json "[f[\"name\"] for f in d[\"facts\"][\"pairs\"][0][\"sender\"][\"files\"]]")"
'

test_expect_success 'a journal byte changed inside the archive: the seal check and the rule both name it' '
	# 2.bin:2 is the second record of 2.bin: its message starts at byte 274, is 232 long;
	# byte 497 is a digit of its TransactTime
	python3 "$ARCHIVE_SURGERY" out/archive.tar.zst flipped.tar.zst flip $J/sender/2.bin 497 &&
	test_expect_code 1 audit_archive flipped.tar.zst --receipt f.json >stdout 2>stderr &&
	grep -q "^audit: $J/sender/2.bin: content differs" stderr &&
	grep -q "^audit: pair 1 sender: $J/sender/2.bin: record 2 (byte [0-9]*): checksum" stderr &&
	test "$(json_get f.json "d[\"result\"]")" = fail &&
	json_get f.json "[c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"]" >failed &&
	grep -q "sha256:$J/sender/2.bin" failed && grep -q "checksum" failed && grep -q "archive" failed
'

test_expect_success 'a journal member missing from the archive: missing, and the rotation gap' '
	python3 "$ARCHIVE_SURGERY" out/archive.tar.zst dropped.tar.zst drop $J/receiver/1.bin &&
	test_expect_code 1 audit_archive dropped.tar.zst --receipt m.json >stdout 2>stderr &&
	grep -q "^audit: $J/receiver/1.bin: missing from the archive" stderr &&
	grep -q "pair 1 receiver:.*order-count" stderr &&
	test "$(json_get m.json "d[\"result\"]")" = fail
'

test_expect_success 'a truncated archive: the stream finding, the members never reached, no crash' '
	size=$(wc -c <out/archive.tar.zst) && head -c $((size / 2)) out/archive.tar.zst >cut.tar.zst &&
	test_expect_code 1 audit_archive cut.tar.zst --receipt t.json >stdout 2>stderr &&
	grep -q "cut.tar.zst: archive stream is damaged or truncated" stderr &&
	test "$(json_get t.json "d[\"result\"]")" = fail
'

test_expect_success 'refused before reading: a path the seal lacks (exit 2, no receipt)' '
	test_expect_code 2 "$AUDIT" journal $COUNTS --archive out/archive.tar.zst --seal out/SEAL.json \
		--sender runs/B-1/journal --receipt no1.json 2>stderr &&
	grep -q "runs/B-1/journal: no such member in out/SEAL.json (name members from its root, c/)" stderr &&
	test_must_be_absent no1.json
'

test_expect_success 'refused before reading: --archive without --seal' '
	test_expect_code 2 "$AUDIT" journal --archive out/archive.tar.zst --sender $J/sender 2>stderr &&
	grep -q "archive and --seal go together" stderr
'

test_expect_success 'refused before reading: a journal of ten files, whose 10.bin streams before 2.bin' '
	mkdir -p many/$J && "$GEN_JOURNAL" --file-size 4096 many/$J 3 200 &&
	test -f many/$J/sender/10.bin &&
	"$SEAL" create many -o many-out >/dev/null &&
	test_expect_code 2 "$AUDIT" journal --warmups 3 --measured 200 --archive many-out/archive.tar.zst \
		--seal many-out/SEAL.json --sender $J/sender --receipt no2.json 2>stderr &&
	grep -q "13.bin streams before 2.bin" stderr && grep -q "audit the directory" stderr &&
	test_must_be_absent no2.json &&
	"$AUDIT" journal --warmups 3 --measured 200 --sender many/$J/sender --receipt dir.json >/dev/null
'

test_expect_success 'refused before reading: a QuickFIX FileStore, whose .body streams before its .header' '
	mkdir -p qf/store && printf "" >qf/store/S.body && printf "" >qf/store/S.header &&
	"$SEAL" create qf -o qf-out >/dev/null &&
	test_expect_code 2 "$AUDIT" journal --archive qf-out/archive.tar.zst --seal qf-out/SEAL.json \
		--sender store/S.body --receipt no3.json 2>stderr &&
	grep -q "cannot be audited from an archive" stderr && test_must_be_absent no3.json
'

test_expect_success 'refused before reading: a pair whose sides are interleaved in the archive' '
	mkdir -p il/j/a && "$GEN_JOURNAL" --file-size 4096 il/tmp 3 20 &&
	cp il/tmp/sender/1.bin il/j/a/1.bin && cp il/tmp/sender/2.bin il/j/a/2.bin &&
	cp -R il/tmp/receiver il/j/a/1r && rm -rf il/tmp &&
	"$SEAL" create il -o il-out >/dev/null &&
	test_expect_code 2 "$AUDIT" journal $COUNTS --archive il-out/archive.tar.zst --seal il-out/SEAL.json \
		--sender j/a --receiver j/a/1r --receipt no4.json 2>stderr &&
	grep -q "interleaved" stderr && test_must_be_absent no4.json
'

test_done
