#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal, audit and replicate judge evidence a stranger produced: none of
# them runs a program the evidence names. Every place they (or the
# library) start a program says, on the lines just above it, where the
# program comes from ("program: ..."), and that is the command line, PATH,
# /proc/self/exe or a path fixed in the code (/bin/sh), never a document; no program argument is read out of
# a parsed document (json_string_value) at the call; and audit reads no
# "perf" out of a plan. capture is apart: it runs the plan's pinned
# programs by design, each checked before it runs (lib/process/pin_check),
# and only through lib/process, whose every call says so (or that its
# program is fixed in the code: chronyc and pmc, asked for the clock's
# state); the capture tool itself starts nothing. Every depth of lib/ is
# looked at.
. "$EV_SRCDIR/tests/lib/lib.sh"

cd "$EV_SRCDIR" || exit 99

EXEC='(^|[^_a-z])(execv|execvp|execvpe|execve|execl|execlp|execle|posix_spawn|posix_spawnp|system|popen)\('

# the exec family, where a program is named: the judging tools and the
# library below them, every sub-folder, lib/process apart
calls () {
	grep -nE "$EXEC" audit/*.c seal/*.c replicate/*.c $(find lib -name "*.c" ! -path "lib/process/*" | sort) "$@"
}

test_expect_success 'there are places that start programs (the check looks at something)' '
	test "$(calls | wc -l)" -ge 3
'

test_expect_success 'each names where its program comes from, and none is the evidence' '
	calls | while IFS=: read -r file line rest; do
		start=$((line > 3 ? line - 3 : 1)) &&
		said=$(sed -n "${start},${line}p" "$file" | sed -n "s/.*program: //p" | sed -n 1p) &&
		if [ -z "$said" ]; then echo "$file:$line: does not say where its program comes from"; exit 1; fi &&
		case "$said" in
		*"the command line"* | *PATH* | */proc/self/exe* | *"fixed in the code"*) ;;
		*) echo "$file:$line: its program comes from: $said"; exit 1 ;;
		esac
	done
'

test_expect_success 'the sub-folders of lib/usecase are looked at too' '
	calls | grep -q "^lib/usecase/audit/profile_side.c:" &&
	calls | grep -q "^lib/usecase/common/continuation_run.c:"
'

test_expect_success 'capture starts no program itself; lib/process says each is the plan.s, pinned, or fixed in the code' '
	! grep -nE "$EXEC" capture/*.c &&
	grep -nE "$EXEC" lib/process/*.c >"$trash/process" &&
	test "$(wc -l <"$trash/process")" -ge 3 &&
	while IFS=: read -r file line rest; do
		sed -n "$((line - 1)),${line}p" "$file" | grep -q "program: the plan.s (.*), pinned and checked by pin_check\|program: fixed in the code (.*)" ||
		{ echo "$file:$line: does not say it runs the plan.s pinned program, or one fixed in the code"; exit 1; }
	done <"$trash/process"
'

test_expect_success 'no program argument is read out of a parsed document at the call' '
	! calls | grep "json_"
'

test_expect_success 'audit reads no perf out of a plan' '
	! grep -n "json_object_get([^)]*\"perf\")" audit/*.c
'

test_done
