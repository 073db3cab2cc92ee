#!/bin/sh
# seal.1 has a section for every command and renders without complaint.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup

test_expect_success 'the man page documents every command' '
	man_page="$EV_SRCDIR/share/man/seal.1" &&
	for c in create verify diff select capsule integrate continue; do
		grep -q "^\.SS .*seal $c" "$man_page" || return 1
	done &&
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$man_page" 2>err >page && test ! -s err && grep -q "seal create" page
	fi
'

test_done
