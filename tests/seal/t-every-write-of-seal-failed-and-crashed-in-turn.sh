#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Faults survived, seal's writers: seal create, seal verify --receipt and
# seal timestamp, each with every write, sync, rename, mkdir, create and
# close of its own failing in turn (EIO, ENOSPC, EDQUOT), SIGKILL entering
# each, and its writes cut short by a file size limit
# (tests/lib/fault-sweep.py): a fault exits 1 or 2 naming the error with
# nothing new in place; a crash leaves only whole, verifying files; the
# same command then completes. The table of calls and cases is printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "needs strace"
/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"
trap tsa_stop EXIT

test_expect_success 'setup: a campaign tree, a key, its seal, a time-stamp authority' '
	mkdir tpl && make_campaign tpl/ev && "$REPLICATE" keygen -o tpl/k >/dev/null &&
	(cd tpl && "$SEAL" create ev -o sealed >/dev/null) &&
	tsa_serve && echo "http://127.0.0.1:$(cat tsa/port)/good" >url && cp tsa/ca.pem tpl/
'

test_expect_success 'seal create: every fault refused with nothing in place, every crash leaves a seal that verifies or none' '
	fault_sweep "seal create" "test ! -e out || \"$SEAL\" verify --seal out/SEAL.json ev >/dev/null" \
		--again-refused "out: already exists" -- "$SEAL" create ev -o out --sign-key k.key &&
	grep -q "^# seal create  *fsync  *[0-9]* calls .*held" table.txt &&
	grep -q "^# seal create  *renameat2 .*held" table.txt &&
	grep -q "^# seal create  *short write .*held" table.txt
'

test_expect_success 'seal verify --receipt: a receipt in place only whole, and saying pass only for the archive it read' '
	fault_sweep "seal verify --receipt" "test ! -e r.json || grep -q \"\\\"result\\\":\\\"pass\\\"\" r.json" \
		--again-refused "r.json: already exists" -- \
		"$SEAL" verify --seal sealed/SEAL.json --receipt r.json --sign-key k.key sealed/archive.tar.zst &&
	grep -q "^# seal verify --receipt  *fsync .*held" table.txt
'

test_expect_success 'seal timestamp: a token stored only whole and verified' '
	fault_sweep "seal timestamp" "test ! -e sealed/SEAL.json.tsr || \"$SEAL\" timestamp --verify --tsa-ca ca.pem sealed/SEAL.json >/dev/null" \
		--again-refused "already" -- "$SEAL" timestamp --tsa "$(cat url)" --tsa-ca ca.pem sealed/SEAL.json &&
	grep -q "^# seal timestamp  *fsync .*held" table.txt
'

test_expect_success 'the table has a row of cases for each writer' '
	test "$(grep -c "cases, every one held$" table.txt)" = 3
'
cat table.txt

test_done
