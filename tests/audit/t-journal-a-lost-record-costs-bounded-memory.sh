#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One record lost early in a journal opens a gap that is never filled; the
# orders after it arrive above the gap, where an engine would queue them,
# and audit holds their ClOrdIDs to judge them in MsgSeqNum order. It holds
# at most 32,768 (doc/formats.md, "The session layer"): 400,000 orders
# after the gap cost no more memory than a clean journal, and the one lost
# record is named once (with the rotation its removal upsets), the orders
# judged all the same.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

# peak RSS in KiB of an audit of one side
peak_kib () {
	rm -f "$2" && /usr/bin/time -f %M -o rss "$AUDIT" journal --warmups 1000 --measured 400000 \
		--receiver "$1" --receipt "$2" >/dev/null 2>"$2.err"
	status=$?
	cat rss
	return $status
}

test_expect_success 'setup: 400,000 orders, and a copy that lost its third record' '
	"$GEN_JOURNAL" p 1000 400000 &&
	cp -R p/receiver lost &&
	python3 "$JOURNAL_SURGERY" lost delete 1.bin:3
'

test_expect_success 'the lost record is named once and the memory stays that of a clean journal' '
	clean=$(peak_kib p/receiver clean.json) &&
	test_expect_code 1 peak_kib lost lost.json >lost_kib &&
	lost=$(tail -n 1 lost_kib) &&
	echo "clean $clean KiB, lost $lost KiB" &&
	test $lost -lt $((clean + 20 * 1024)) &&
	test "$(json_get lost.json "d[\"facts\"][\"pairs\"][0][\"receiver\"][\"findings_by_rule\"]")" = \
		"{${Q}journal-rotation${Q}: 1, ${Q}order-count${Q}: 1, ${Q}owner-sequence${Q}: 1, ${Q}seq-gap${Q}: 1}"
'

test_done
