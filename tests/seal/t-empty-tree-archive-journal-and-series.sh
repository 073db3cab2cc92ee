#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The empty cases every command meets sooner or later, run under the
# sanitizers in CI as every test is: an empty directory is sealed (a root
# and nothing else), verified as a tree and as an archive by seal and by
# replicate; an empty journal and an empty series are audited and fail
# with a finding, never pass and never crash.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'an empty tree is sealed, and verifies as a tree and as an archive' '
	mkdir empty &&
	"$SEAL" create empty -o out >created &&
	test "$(json_get out/SEAL.json "d[\"totals\"][\"files\"], d[\"totals\"][\"dirs\"], d[\"totals\"][\"bytes\"]")" = "0 0 0" &&
	"$SEAL" verify --seal out/SEAL.json empty >/dev/null &&
	"$SEAL" verify --seal out/SEAL.json out/archive.tar.zst >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst >/dev/null &&
	test "$(json_get r.json "d[\"result\"]")" = pass
'

test_expect_success 'a file added to the empty tree is named' '
	echo x >empty/new &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json empty >/dev/null 2>err &&
	grep -q "^seal: new: not in the seal (found file)$" err && rm empty/new
'

test_expect_success 'an empty journal is a finding (no orders), not a pass' '
	: >empty.fix &&
	test_expect_code 1 "$AUDIT" journal --format raw --warmups 0 --measured 1 --sender empty.fix --receipt j.json >stdout 2>err &&
	test "$(json_get j.json "d[\"result\"]")" = fail &&
	grep -q "order-count" err
'

test_expect_success 'an empty series is a finding, not a pass' '
	: >empty.csv &&
	test_expect_code 1 "$AUDIT" series --receipt s.json empty.csv >stdout 2>err &&
	grep -q "^audit: empty.csv: the series holds no sample (expected 1 or more, found 0)$" err &&
	test "$(json_get s.json "d[\"result\"]")" = fail
'

test_done
