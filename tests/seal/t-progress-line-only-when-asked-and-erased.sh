#!/bin/sh
# seal create draws a progress line only when asked (a terminal, or
# EVIDENCE_PROGRESS=always), and erases it at the end.
. "$EV_SRCDIR/tests/lib/lib.sh"
git_setup

test_expect_success 'a progress line appears only when asked for (terminal), and is erased' '
	mkdir -p p && truncate -s 1G p/sparse &&
	EVIDENCE_PROGRESS=always "$SEAL" create p -o pout >/dev/null 2>err &&
	grep -q "seal: sealing: .* of 1.0 GiB, [01]/1 members, .*/s" err &&
	test "$(tail -c 4 err | od -An -c | tr -d " ")" = "\\r033[K" &&
	EVIDENCE_PROGRESS=never "$SEAL" create p -o pout2 >/dev/null 2>err &&
	test ! -s err
'

test_done
