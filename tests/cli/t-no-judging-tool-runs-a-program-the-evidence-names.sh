#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal, audit and replicate judge evidence a stranger produced: none of
# them runs a program the evidence names. Every place they (or the
# library) start a program says, on the lines just above it, where the
# program comes from ("program: ..."), and that is the command line, PATH,
# /proc/self/exe or a path fixed in the code (/bin/sh), never a document; no program argument is read out of
# a parsed document (json_string_value) at the call; and audit reads no
# "perf" out of a plan. capture is apart: it runs the plan's pinned
# programs by design, each checked before it runs (capture/pin_check).
. "$EV_SRCDIR/tests/lib/lib.sh"

cd "$EV_SRCDIR" || exit 99

# the exec family, where a program is named
calls () {
	grep -nE '(^|[^_a-z])(execv|execvp|execvpe|execve|execl|execlp|execle|posix_spawn|posix_spawnp|system|popen)\(' \
		audit/*.c seal/*.c replicate/*.c lib/*/*.c "$@"
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

test_expect_success 'no program argument is read out of a parsed document at the call' '
	! calls | grep "json_"
'

test_expect_success 'audit reads no perf out of a plan' '
	! grep -n "json_object_get([^)]*\"perf\")" audit/*.c
'

test_done
