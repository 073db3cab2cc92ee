#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Each tool describes its commands once (TOOL/commands.c); what a user
# reads must agree with that table: every command TOOL --help lists has a
# synopsis (its --help's usage lines) that is, word for word, a line of the
# man page's SYNOPSIS, and the SYNOPSIS holds no other line; options are
# listed in the order of their names. (Each option's item in the man page:
# t-man-page-documents-every-option.sh.)
. "$EV_SRCDIR/tests/lib/lib.sh"

# man_synopsis PAGE: the SYNOPSIS section, one command per line, spaces
# collapsed.
man_synopsis () {
	{ printf '.TH X 1\n'; sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$1" | sed '$d'; } |
		nroff -man -rLL=2000n 2>/dev/null | col -b -x |
		sed 's/^ *//; s/ *$//; s/  */ /g' | grep -v '^$' | grep -v '^X(1)' | grep -v '^SYNOPSIS$'
}

# agree TOOL PROGRAM: the checks above for every command of TOOL.
agree () {
	tool=$1 program=$2 page="$EV_SRCDIR/share/man/$1.1"
	man_synopsis "$page" | sort >man-lines &&
	test -s man-lines &&
	"$program" --help >overview &&
	tool_commands "$program" >commands &&
	test -s commands &&
	: >help-lines &&
	while read -r c; do
		"$program" $c --help >help || { echo "$tool $c --help failed"; return 1; }
		sed -n '1,/^$/p' help | sed '/^$/d; s/^usage: //; s/^ *//; s/  */ /g' >>help-lines &&
		sed -n '1,/^ *-h, --help /p' help |
			sed -n 's/^ \{2,6\}\(-[a-z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' >options &&
		sed '$d' options >listed && sort listed >sorted &&
		{ test_cmp sorted listed || { echo "$tool $c: options out of order"; return 1; }; }
	done <commands &&
	sort help-lines >help-sorted &&
	test_cmp man-lines help-sorted
}

for tool in seal replicate audit capture; do
	test_expect_success "$tool: synopses, options and the man page agree" '
		agree '"$tool"' "$'"$(echo $tool | tr a-z A-Z)"'"
	'
done

test_done
