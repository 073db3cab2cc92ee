#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal create killed with SIGKILL at random moments never leaves a SEAL.json,
# archive or receipt at a final name that fails verification, and a rerun
# into the same OUTDIR succeeds with the same bytes as an undisturbed run.
. "$EV_SRCDIR/tests/lib/lib.sh"

TRIALS=${EV_SIGKILL_TRIALS:-24}

# check_complete DIR: every output present is whole and agrees with the tree.
check_complete () {
	"$SEAL" verify --seal "$1/SEAL.json" big >/dev/null &&
	"$SEAL" verify --seal "$1/SEAL.json" "$1/archive.tar.zst" >/dev/null &&
	python3 - "$1" <<-\PY
	import hashlib, json, sys
	d = sys.argv[1]
	r = json.load(open(d + "/receipt.json"))
	assert r["result"] == "pass"
	for o in r["outputs"]:
	    assert o["sha256"] == hashlib.sha256(open(d + "/" + o["name"], "rb").read()).hexdigest()
	PY
}

test_expect_success 'setup: a tree that takes most of a second to seal' '
	make_campaign big &&
	python3 -c "
import os, random
r = random.Random(7)
block = bytes(r.getrandbits(8) % 64 + 48 for _ in range(1 << 20))
with open(\"big/runs/A-1/series/raw.bin\", \"wb\") as f:
    for i in range(200):
        f.write(block[i % 997:] + block[:i % 997])
for n in range(40):
    with open(\"big/runs/B-1/log-%02d.txt\" % n, \"wb\") as f:
        f.write(block[: (n + 1) * 9000])
" &&
	start=$(date +%s.%N) &&
	"$SEAL" create --threads 2 big -o reference >/dev/null &&
	end=$(date +%s.%N) &&
	python3 -c "print(float($end) - float($start))" >duration &&
	cat duration
'

test_expect_success "SIGKILL at $TRIALS random moments: complete outputs or none" '
	duration=$(cat duration) && interrupted=0 && i=0 &&
	while [ $i -lt $TRIALS ]; do
		i=$((i + 1))
		delay=$(python3 -c "import random; print(round(random.uniform(0.02, $duration * 1.1), 3))")
		"$SEAL" create --threads 2 big -o out >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		if [ -e out ]; then
			check_complete out || { echo "trial $i (after ${delay}s): incomplete output" >&2; return 1; }
			rm -rf out
		else
			interrupted=$((interrupted + 1))
		fi
		for f in SEAL.json archive.tar.zst receipt.json; do
			test_must_be_absent "$f" || return 1
		done
		rm -rf .out.tmp-*
	done &&
	echo "$interrupted of $TRIALS kills landed before the outputs were published" &&
	test $interrupted -ge 1
'

test_expect_success 'a rerun into the same OUTDIR succeeds and matches the undisturbed run' '
	"$SEAL" create --threads 2 big -o out >/dev/null &&
	cmp out/SEAL.json reference/SEAL.json &&
	cmp out/archive.tar.zst reference/archive.tar.zst &&
	check_complete out
'

test_expect_success 'SIGTERM: the run stops, removes its temporary directory, exits 2' '
	rm -rf out
	"$SEAL" create --threads 2 big -o out >/dev/null 2>err &
	pid=$!
	# once its temporary directory is there, seal is well into its run (a
	# fixed delay raced a warm page cache: the run was over before it)
	i=0
	while [ $i -lt 1000 ] && ! ls -d .out.tmp-* >/dev/null 2>&1; do sleep 0.005; i=$((i + 1)); done
	kill -TERM $pid && { wait $pid; status=$?; } ;
	test "$status" -eq 2 &&
	grep -q "interrupted by a signal; nothing was written" err &&
	test_must_be_absent out && no_temporaries .
'

test_done
