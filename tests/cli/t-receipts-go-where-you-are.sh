#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One rule for where a receipt goes (doc/design.md principle 10): into the
# output directory a command makes, else into the current directory, never
# into the evidence it judges; --receipt FILE and --receipt-dir DIR choose
# otherwise. And one meaning for --receipts: the receipts prune judges.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a sealed campaign, and a place to stand' '
	make_campaign c && "$SEAL" create c -o out >/dev/null && mkdir here
'

test_expect_success 'seal verify writes its receipt where it runs, for a tree and for an archive' '
	(cd here && "$SEAL" verify --seal ../out/SEAL.json ../c >../tree.out &&
	 "$SEAL" verify --seal ../out/SEAL.json ../out/archive.tar.zst >../archive.out) &&
	test "$(ls here/verify-*.json | wc -l)" = 2 &&
	grep -q "^OK: ../c: .*; receipt ./verify-.*\.json$" tree.out &&
	grep -q "^OK: ../out/archive.tar.zst: .*; receipt ./verify-.*\.json$" archive.out &&
	only_entries c "^runs$\|^summary$\|^observe$" &&
	test "$(ls out)" = "SEAL.json
archive.tar.zst
receipt.json"
'

test_expect_success 'replicate verify writes its receipt where it runs, not beside the archive; --receipt-dir chooses' '
	(cd here && "$REPLICATE" verify --seal ../out/SEAL.json ../out/archive.tar.zst >/dev/null) &&
	test "$(ls here/replica-*.json | wc -l)" = 1 && no_entry out "^replica-" &&
	mkdir kept && "$REPLICATE" verify --seal out/SEAL.json --receipt-dir kept out/archive.tar.zst >/dev/null &&
	test "$(ls kept/replica-*.json | wc -l)" = 1
'

test_expect_success 'a continuation goes where continue runs, named after the original' '
	mode=$(stat -c %a c/runs/A-1/journal/1.bin) && chmod 640 c/runs/A-1/journal/1.bin &&
	(cd here && test_expect_code 1 "$SEAL" verify --receipt failed.json --seal ../out/SEAL.json ../c \
		2>/dev/null >/dev/null) &&
	mkdir there && (cd there && "$SEAL" continue --original ../here/failed.json --accept-value mode=0640 >out) &&
	grep -q "receipt ./failed-continuation.json$" there/out && test -f there/failed-continuation.json &&
	test_must_be_absent here/failed-continuation.json &&
	chmod "$mode" c/runs/A-1/journal/1.bin
'

test_expect_success 'push refuses --receipts, which names the receipts prune judges, and says what to give' '
	test_expect_code 2 "$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipts here \
		--to dest 2>err &&
	head -n 1 err >first &&
	echo "replicate: --receipts names the receipts prune judges; push keeps its receipts in --receipt-dir DIR" >expect &&
	test_cmp expect first && test_must_be_absent dest
'

test_done
