#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Faults survived, audit's writers: journal, series, campaign, compare and
# history --html, each with every write, sync, rename, mkdir, create and
# close of its own failing in turn (EIO, ENOSPC, EDQUOT), SIGKILL entering
# each, and its writes cut short by a file size limit
# (tests/lib/fault-sweep.py): a fault exits 1 or 2 naming the error with
# nothing new in place; a crash leaves only whole files (a receipt's
# outputs with their digests); the same command then completes. The table
# of calls and cases is printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v strace >/dev/null || test_skip_all "needs strace"
R=runs/001-baseline-spin-1

test_expect_success 'setup: a captured campaign of the reference pair, its summary, a catalog of it' '
	mkdir tpl && two_cell_plan plan.json small 11071 300 1 &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o tpl/c >/dev/null &&
	(cd tpl && "$AUDIT" campaign c -o summary >/dev/null && "$REPLICATE" index --catalog h.sqlite . >/dev/null)
'

test_expect_success 'audit journal --receipt: a receipt in place only whole' '
	fault_sweep "audit journal" "test ! -e j.json || grep -q \"\\\"result\\\":\\\"pass\\\"\" j.json" \
		--again-refused "j.json: already exists" -- "$AUDIT" journal --warmups 100 --measured 300 --receipt j.json \
		--sender c/$R/journal/sender --receiver c/$R/journal/receiver
'

test_expect_success 'audit series --receipt: a receipt in place only whole' '
	fault_sweep "audit series" "test ! -e s.json || grep -q \"\\\"result\\\":\\\"pass\\\"\" s.json" \
		--again-refused "s.json: already exists" -- "$AUDIT" series --native c/$R/report.json \
		--journal c/$R/journal/sender --warmups 100 --receipt s.json c/$R/series/send.bin
'

test_expect_success 'audit campaign -o: a summary in place only whole, every output with its digest' '
	fault_sweep "audit campaign" "" --again-refused "s2: already exists" -- "$AUDIT" campaign c -o s2
'

test_expect_success 'audit compare -o: a comparison in place only whole' '
	fault_sweep "audit compare" "" --again-refused "cmp: already exists" -- "$AUDIT" compare --unregistered summary summary -o cmp
'

# history only reads the catalog: SQLite's own files (its shared memory,
# the directory it syncs) may fail under it without a page being lost
test_expect_success 'audit history --html: a page in place only whole' '
	fault_sweep "audit history --html" "test ! -e h.html || grep -q \"</html>\" h.html" \
		--also-names "unable to open database file" --also-names "disk I/O error" \
		--mutable "h.sqlite*" --may-survive "h\.sqlite-(shm|wal)\)|[(]AT_FDCWD|/fault-work\)" \
		--again-refused "h.html: already exists" -- "$AUDIT" history --catalog h.sqlite --plan small --html h.html
'

test_expect_success 'the table has a row of cases for each writer' '
	test "$(grep -c "cases, every one held$" table.txt)" = 5
'
cat table.txt

test_done
