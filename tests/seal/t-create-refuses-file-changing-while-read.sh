#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A file that is still being written while it is sealed is refused by name,
# and nothing is written.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a campaign with a large member read before the live one' '
	make_campaign c &&
	head -c 150000000 /dev/zero >c/runs/A-1/aaa-first.bin &&
	head -c 1000000 /dev/zero >c/zz-live.log
'

test_expect_success 'a journal appended to during the seal is refused' '
	( while :; do printf x >>c/zz-live.log; done ) &
	writer=$!
	sleep 0.2 &&
	test_expect_code 2 "$SEAL" create c -o out 2>actual
	status=$?
	kill $writer; wait $writer 2>/dev/null
	test $status -eq 0 &&
	grep -E "^seal: zz-live.log: (changed \(size or mtime\)|grew|shrank) while it was being sealed; nothing was written" actual &&
	test "$(wc -l <actual)" -eq 1 &&
	test_must_be_absent out && no_temporaries .
'

test_expect_success 'once the writer stopped, the same tree seals' '
	"$SEAL" create c -o out >/dev/null && "$SEAL" verify --seal out/SEAL.json c >/dev/null
'

test_done
