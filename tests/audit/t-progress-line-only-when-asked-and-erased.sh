#!/bin/sh
# audit journal draws a progress line only when asked, while it reads, and
# erases it before the first finding is printed.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a small pair' '
	"$GEN_JOURNAL" --file-size 4096 p 3 20
'

test_expect_success 'a progress line only when asked for, and erased at the end' '
	python3 -c "
import struct
d = open(\"p/sender/1.bin\", \"rb\").read()
n, = struct.unpack_from(\"<Q\", d, 0)
p, out = 8, []
for _ in range(n):
    ts, ok, ln = struct.unpack_from(\"<QBQ\", d, p)
    out.append(d[p + 17:p + 17 + ln])
    p += 17 + ln
open(\"slow.fix\", \"wb\").write(b\"\".join(out))
" &&
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; }
	"$AUDIT" journal --warmups 3 --measured 20 --format raw --sender slow.fix --receipt fast.json \
		>/dev/null 2>fast.err; fast=$? &&
	# every read of the journal held 0.6 s (strace -P): the line is drawn
	# while it is read
	{ EVIDENCE_PROGRESS=always env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o /dev/null -P slow.fix -e trace=read -e inject=read:delay_enter=600000 \
		"$AUDIT" journal --warmups 3 --measured 20 --format raw \
		--sender slow.fix --receipt slow.json >/dev/null 2>err; st=$?; } &&
	test $st = $fast && test $st = 1 &&
	grep -q "audit: auditing: [0-9.]* [KMG]*i*B of 3.7 KiB, 0/1 files, .*B/s" err &&
	# erased before the first finding is printed, and not drawn again
	python3 -c "
import sys
e = open(\"err\", \"rb\").read()
line, rest = e.split(b\"audit: pair 1\", 1)
sys.exit(not (line.endswith(b\"\\r\\033[K\") and b\"auditing\" not in rest))
" &&
	EVIDENCE_PROGRESS=never "$AUDIT" journal --warmups 3 --measured 20 --sender p/sender \
		--receipt quiet.json >/dev/null 2>err && test ! -s err
'

test_done
