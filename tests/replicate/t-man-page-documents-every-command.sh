#!/bin/sh
# replicate.1 documents every command and renders without complaint.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'the man page documents every command and renders without complaint' '
	page="$EV_SRCDIR/share/man/replicate.1" &&
	for c in verify push compare keygen prune continue; do
		grep -q "^\\.SS .*replicate $c" "$page" || return 1
	done &&
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$page" 2>err >out && test ! -s err && grep -q "replicate push" out
	fi
'

test_done
