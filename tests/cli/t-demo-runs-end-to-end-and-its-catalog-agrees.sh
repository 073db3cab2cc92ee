#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The quick start's demo runs end to end from the build (capture, seal,
# audit, replicate, the catalog, the summary) and says it is done; in it,
# replicate status from the catalog it indexed is the file walk's output
# byte for byte (held here again, text and JSON), and audit history
# compares its two captures of the plan. It stops the test TSA it started
# (and tests/lib/run-test fails it if anything else is left running).
# every command end to end, LeakSanitizer on (tests/lib/lib.sh)
export EV_LEAK_CHECK=1
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"

test_expect_success 'the demo runs to its end' '
	EVIDENCE_DEMO_DIR=$PWD/demo "$EV_SRCDIR/scripts/demo.sh" "$EV_BUILDDIR" >demo.out 2>demo.err &&
	grep -q "^demo: done; outputs are in $PWD/demo$" demo.out &&
	grep -q "^(replicate status --catalog: the file walk.s inventory, line for line, without reading a receipt)$" demo.out &&
	test "$(grep -c "^PASSED: every condition of demo-lab held$" demo.out)" = 2 &&
	/usr/bin/python3 "$EV_SRCDIR/tests/replicate/bundle-check.py" demo/campaign.intoto.jsonl demo/lab.pub | grep -q "^bundle: [0-9]* lines verified$"
'

test_expect_success 'the demo stopped the TSA it started, and says so' '
	pid=$(sed -n "s/^demo: stopped the test TSA (pid \([0-9]*\))$/\1/p" demo.out) &&
	test -n "$pid" && ! kill -0 "$pid" 2>/dev/null
'

test_expect_success 'status from the demo'"'"'s catalog is the walk of the demo, text and JSON' '
	cd demo &&
	"$REPLICATE" status "$PWD" >../walk.txt && "$REPLICATE" status --catalog catalog.sqlite "$PWD" >../catalog.txt &&
	"$REPLICATE" status --json "$PWD" >../walk.json && "$REPLICATE" status --json --catalog catalog.sqlite >../catalog.json &&
	cd .. && test_cmp walk.txt catalog.txt && test_cmp walk.json catalog.json &&
	grep -q "^campaign campaign  seal " catalog.txt
'

test_expect_success 'the history of the demo plan compares its two captures' '
	grep -q "^history of plan demo (plan [0-9a-f]\{16\}), 2 campaigns compared, 0 listed apart;" demo.out &&
	test -s demo/history.html
'

test_done
