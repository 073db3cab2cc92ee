#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit journal audits one side without the other, and says no agreement
# was checked.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'one side alone is audited without agreement' '
	"$AUDIT" journal --warmups 3 --measured 20 --receiver p/receiver --receipt one.json >out &&
	grep -q "^OK: 1 side, 23 orders, 0 findings" out &&
	test "$(json_get one.json "\"messages_compared\" in d[\"facts\"][\"pairs\"][0][\"receiver\"]")" = False
'

test_done
