#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Evidence is never overwritten, and the outputs never land inside the tree
# they seal (directly or through a symbolic link).
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'an existing OUTDIR, even empty, is refused and left as it was' '
	make_campaign c && mkdir out && echo keep >out/note &&
	test_expect_code 2 "$SEAL" create c -o out 2>actual &&
	echo "seal: out: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect actual &&
	echo keep >expect && test_cmp expect out/note && test "$(ls -A out)" = note &&
	no_temporaries .
'

test_expect_success 'a second create into the same OUTDIR keeps the first outputs byte for byte' '
	"$SEAL" create c -o first >/dev/null &&
	sha256sum first/* >before &&
	echo changed >>c/summary/r*.txt &&
	test_expect_code 2 "$SEAL" create c -o first 2>/dev/null &&
	sha256sum first/* >after && test_cmp before after
'

test_expect_success 'OUTDIR inside the tree is refused and nothing is written there' '
	find c | sort >before &&
	test_expect_code 2 "$SEAL" create c -o c/runs/out 2>actual &&
	echo "seal: c/runs/out: output directory is inside the tree being sealed; choose an OUTDIR outside it" >expect &&
	test_cmp expect actual &&
	find c | sort >after && test_cmp before after
'

test_expect_success 'OUTDIR reached through a symbolic link into the tree is refused too' '
	ln -s c/summary via &&
	test_expect_code 2 "$SEAL" create c -o via/out 2>actual &&
	echo "seal: via/out: output directory is inside the tree being sealed; choose an OUTDIR outside it" >expect &&
	test_cmp expect actual && test_must_be_absent c/summary/out
'

test_expect_success 'OUTDIR equal to the tree is refused' '
	test_expect_code 2 "$SEAL" create c -o c 2>actual &&
	echo "seal: c: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a DIR that is not a directory, or a symlink to one, is a usage error' '
	ln -s c linked && : >plain &&
	test_expect_code 2 "$SEAL" create linked -o o1 2>actual &&
	echo "seal: linked: not a directory (symbolic links are not followed)" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 "$SEAL" create plain -o o2 2>actual &&
	echo "seal: plain: not a directory (symbolic links are not followed)" >expect &&
	test_cmp expect actual && test_must_be_absent o1 o2
'

test_done
