#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What a user reads on the spot: every tool's and every command's --help
# ends with its exit status, fix-sender and fix-receiver included, and
# both answer --version; no man page, at any width from 40 to 120
# columns, ends a line with a hyphen (an option cut in two reads as two
# words); and the formats and design documents install under
# share/doc/evidence beside the man pages.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'every --help states the exit status' '
	: >missing &&
	for tool in seal replicate audit capture; do
		program=$EV_BUILDDIR/$tool/$tool &&
		"$program" --help >help.txt && { grep -q "Exit status" help.txt || echo "$tool --help" >>missing; } &&
		for c in $(tool_commands "$program"); do
			"$program" $c --help >help.txt && { grep -q "^Exit status: 0 " help.txt || echo "$tool $c --help" >>missing; } || return 1
		done || return 1
	done &&
	for pair in fix-sender fix-receiver; do
		"$EV_BUILDDIR/capture/pair/$pair" --help >help.txt &&
		{ grep -q "^Exit status: 0 " help.txt || echo "$pair --help" >>missing; } || return 1
	done &&
	test_cmp /dev/null missing
'

test_expect_success 'fix-sender and fix-receiver answer --version, exit 0' '
	version=$("$SEAL" --version | sed "s/^seal (evidence) //") &&
	test -n "$version" &&
	test "$("$FIX_SENDER" --version)" = "fix-sender (evidence) $version" &&
	test "$("$FIX_RECEIVER" --version)" = "fix-receiver (evidence) $version"
'

test_expect_success 'no man page ends a line with a hyphen, at any width' '
	: >cut &&
	for page in "$EV_SRCDIR"/share/man/*.1; do
		for width in 40 50 60 70 80 90 100 120; do
			MANWIDTH=$width man -l "$page" 2>/dev/null | col -b >rendered &&
			test -s rendered &&
			grep -n "[-‐−]\$" rendered | sed "s|^|${page##*/} at $width: |" >>cut || :
		done
	done &&
	test_cmp /dev/null cut
'

test_expect_success 'formats.md and design.md install under share/doc/evidence' '
	make -s -C "$EV_BUILDDIR" install-dist_docDATA DESTDIR="$PWD/root" >/dev/null &&
	formats=$(find root -path "*/share/doc/evidence/formats.md") &&
	design=$(find root -path "*/share/doc/evidence/design.md") &&
	cmp "$formats" "$EV_SRCDIR/doc/formats.md" && cmp "$design" "$EV_SRCDIR/doc/design.md"
'

test_done
