#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every tool's man page has a section for every command the tool lists in
# its --help (a .SS heading, or an item of its COMMANDS list), and renders
# without a warning; audit's and capture's name what a reader
# looks up (its options, its exit status, where the formats are).
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'every tool: a section for every command its --help lists' '
	for tool in seal replicate audit capture; do
		page="$EV_SRCDIR/share/man/$tool.1" &&
		"$EV_BUILDDIR/$tool/$tool" --help >help.txt &&
		commands=$(tool_commands "$EV_BUILDDIR/$tool/$tool") &&
		test -n "$commands" || { echo "$tool --help lists no command"; return 1; }
		for c in $commands; do
			awk -v want="$tool $c" "prev == \".TP\" && /^\.BI? / && index(\$0, want) { found = 1 }
				/^\.SS / && index(\$0, want) { found = 1 } { prev = \$0 } END { exit !found }" "$page" ||
				{ echo "$tool.1 has no section (.SS, or a .TP item) for $tool $c"; return 1; }
		done
	done
'

test_expect_success 'every tool: its man page renders without a warning' '
	command -v man >/dev/null || { echo "man missing (apt-get install man-db)"; return 1; }
	for tool in seal replicate audit capture; do
		MANWIDTH=80 man -l "$EV_SRCDIR/share/man/$tool.1" 2>err >page.txt && test ! -s err &&
		grep -q "$tool" page.txt || { cat err; return 1; }
	done
'

test_expect_success 'audit.1 names its options, its exit status and where the formats are' '
	man -l "$EV_SRCDIR/share/man/audit.1" 2>/dev/null | col -b >page.txt &&
	for w in "audit journal" "--archive" "--max-findings" "audit continue" "--accept-value" "EXIT STATUS" "doc/formats.md"; do
		grep -q -- "$w" page.txt || { echo "man page lacks $w"; return 1; }
	done
'

test_expect_success 'capture.1 names the commands, the plan and the exit status' '
	man -l "$EV_SRCDIR/share/man/capture.1" 2>/dev/null | col -b >page.txt &&
	for w in "capture run" "capture pin" "--degrade" "cpu_dma_latency" "namespaces" "balanced" \
		"interrupted/" "EXIT STATUS" "doc/formats.md" "fix-sender" "fix-receiver"; do
		grep -q -- "$w" page.txt || { echo "man page lacks: $w"; return 1; }
	done
'

test_done
