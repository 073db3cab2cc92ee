#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal verify of a tree hashes its files on every core it may use, yet
# reports in seal order, the same lines and the same receipt facts as on
# one core: a large first member still being hashed never lets the
# findings of the small ones after it come first.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v taskset >/dev/null || test_skip_all "taskset is not installed (Debian package util-linux)"

test_expect_success 'setup: a 384 MiB first member and 40 small ones, sealed, then every one changed' '
	mkdir -p t/a t/b && truncate -s 384M t/a/big.bin &&
	for i in $(seq -w 1 40); do echo "sample $i" >t/b/$i.txt || return 1; done &&
	"$SEAL" create t -o out >/dev/null &&
	printf "\\001" | dd of=t/a/big.bin bs=1 seek=402653183 conv=notrunc 2>/dev/null &&
	for i in $(seq -w 1 40); do echo "SAMPLE $i" >t/b/$i.txt || return 1; done
'

test_expect_success 'the findings come in seal order, the big member first' '
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json --receipt all.json t >stdout 2>all.err &&
	test $(wc -l <all.err) = 41 &&
	sed -n 1p all.err | contains "^seal: a/big.bin: content differs (SHA-256)" &&
	sed -e "s/^seal: \\([^:]*\\):.*/\\1/" all.err >order &&
	{ echo a/big.bin; for i in $(seq -w 1 40); do echo b/$i.txt; done; } >expect &&
	test_cmp expect order
'

test_expect_success 'on one core: the same lines and the same findings in the receipt' '
	test_expect_code 1 taskset -c 0 "$SEAL" verify --seal out/SEAL.json --receipt one.json t >stdout 2>one.err &&
	test_cmp all.err one.err &&
	json_get all.json "d[\"checks\"]" >all.findings &&
	json_get one.json "d[\"checks\"]" >one.findings &&
	test_cmp all.findings one.findings
'

test_expect_success 'with more than one core, more than one thread reads the files' '
	test "$(nproc)" -ge 2 || test_skip_case "one CPU"
	"$SEAL" create t -o out2 >/dev/null &&
	truncate -s 2G t/a/big.bin && truncate -s 2G t/a/big2.bin &&
	"$SEAL" create t -o out3 >/dev/null &&
	{ "$SEAL" verify --seal out3/SEAL.json --receipt three.json t >/dev/null & } &&
	pid=$! &&
	most=0 &&
	for n in $(seq 1 100); do
		tasks=$(ls /proc/$pid/task 2>/dev/null | wc -l) &&
		if [ "$tasks" -gt "$most" ]; then most=$tasks; fi &&
		if [ "$most" -ge 3 ] || [ "$tasks" = 0 ]; then break; fi &&
		sleep 0.02
	done &&
	wait $pid &&
	echo "most threads seen: $most" &&
	test "$most" -ge 3
'

test_done
