#!/bin/sh
# audit.1 documents audit journal and its exit status.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'the man page documents audit journal and its exit status' '
	man -l "$EV_SRCDIR/share/man/audit.1" 2>/dev/null | col -b >page.txt &&
	for w in "audit journal" "--archive" "--max-findings" "audit continue" "--accept-value" "EXIT STATUS" "doc/formats.md"; do
		grep -q -- "$w" page.txt || { echo "man page lacks $w"; return 1; }
	done
'

test_done
