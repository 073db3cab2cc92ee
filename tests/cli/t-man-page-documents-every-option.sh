#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What a command takes is written once, in its tool's table (TOOL/commands.c);
# the man page is held to it: each command has a section, each option its
# --help shows an item there (.TP, the option and its value as --help names
# them), and the page has no item for an option the command does not take
# (tests/cli/man-options.py says each disagreement). And the check can fail:
# a page with an item dropped, a value renamed or an option invented is
# named for each.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'every command of every tool: an item for each option its --help shows, none for another' '
	python3 "$EV_SRCDIR/tests/cli/man-options.py" "$EV_BUILDDIR" "$EV_SRCDIR" >problems || { cat problems; return 1; }
	test ! -s problems
'

test_expect_success 'a page that drifts from the table is named, item by item' '
	mkdir -p src/share/man &&
	cp "$EV_SRCDIR"/share/man/*.1 src/share/man/ &&
	python3 - src/share/man/seal.1 <<-\EOF &&
	import sys
	path = sys.argv[1]
	lines = open(path).read().split("\n")
	at = lines.index(".B \\-\\-refuse\\-writable")
	del lines[at - 1:at + 2]                      # create: an item dropped
	at = lines.index(".BI \\-\\-tsa\\-ca \" FILE\"")
	lines[at] = ".BI \\-\\-tsa\\-ca \" PEM\""     # timestamp: a value renamed
	at = next(i for i, l in enumerate(lines) if l.startswith(".SS \"seal diff"))
	lines[at + 1:at + 1] = [".TP", ".B \\-\\-bogus", "nothing."]  # diff: an option invented
	lines += [".SH SEE ALSO", "again."]
	open(path, "w").write("\n".join(lines))
	EOF
	test_expect_code 1 python3 "$EV_SRCDIR/tests/cli/man-options.py" "$EV_BUILDDIR" "$PWD/src" >problems &&
	cat problems &&
	grep -q "^seal create: no item for --refuse-writable\$" problems &&
	grep -q "^seal timestamp: value differs: --tsa-ca FILE in --help, \"--tsa-ca  PEM\" in the page\$" problems &&
	grep -q "^seal diff: not an option: --bogus in the item \"--bogus\"\$" problems &&
	grep -q "^seal.1: section twice: SEE ALSO\$" problems &&
	test "$(wc -l <problems)" -eq 4
'

test_done
