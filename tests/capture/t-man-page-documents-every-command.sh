#!/bin/sh
# capture.1 documents the commands, the plan and the exit status.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'the man page documents the commands, the plan and the exit status' '
	man -l "$EV_SRCDIR/share/man/capture.1" 2>/dev/null | col -b >page.txt &&
	for w in "capture run" "capture pin" "--degrade" "cpu_dma_latency" "namespaces" "balanced" \
		"interrupted/" "EXIT STATUS" "doc/formats.md" "fix-sender" "fix-receiver"; do
		grep -q -- "$w" page.txt || { echo "man page lacks: $w"; return 1; }
	done
'

test_done
