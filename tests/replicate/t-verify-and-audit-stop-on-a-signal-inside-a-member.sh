#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A signal stops a verifier inside one large member, or an audit inside one
# large journal, within half a second: exit 2, one sentence, no receipt
# (never a pass), no process left behind; the same command run again to
# its end passes. SIGINT, SIGTERM and SIGHUP each, across seal verify,
# replicate verify, audit journal on a file and from a sealed archive.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'setup: a sealed tree holding one 3 GiB member (sparse), and its archive' '
	mkdir -p big/runs && truncate -s 3G big/runs/series.bin && echo ok >big/runs/note.txt &&
	"$SEAL" create big -o out >/dev/null
'

test_expect_success 'seal verify of the archive stops inside the member on SIGINT, SIGTERM and SIGHUP' '
	for s in SIGINT SIGTERM SIGHUP; do
		stopped $s r.json "$SEAL" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst || return 1
		grep -q "^seal: out/archive.tar.zst: interrupted by a signal; nothing is claimed$" stopped.err || return 1
	done
'

test_expect_success 'seal verify of the tree stops inside the member' '
	stopped SIGTERM r.json "$SEAL" verify --seal out/SEAL.json --receipt r.json big
'

test_expect_success 'replicate verify stops inside the member, no receipt anywhere' '
	for s in SIGINT SIGTERM SIGHUP; do
		stopped $s r.json "$REPLICATE" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst || return 1
	done &&
	test_must_be_absent out/replica-*.json
'

# said PATTERN: stopped.err holds a line matching PATTERN; else it is shown
# (a case that failed in CI without a word could not be told apart)
said () {
	grep -q "$1" stopped.err || { echo "expected a line matching $1 in stopped.err, found:"; cat stopped.err; false; }
}

test_expect_success 'audit journal stops inside a 2 GiB journal, and inside a sealed archive' '
	truncate -s 2G long.raw &&
	stopped SIGTERM j.json "$AUDIT" journal --format raw --warmups 0 --measured 1 --sender long.raw --receipt j.json &&
	said "^audit: long.raw: interrupted by a signal; nothing is claimed$" &&
	# one message first, so that the stop comes in the audit proper, not the first look; and
	# only once it has read 64 MiB (a loaded machine had not begun it 0.7 s after the start)
	printf "8=FIXT.1.1\0019=5\00135=0\00110=163\001" >msg.raw && truncate -s 2G msg.raw &&
	STOPPED_WHEN='"'"'p=$(pgrep -n -f "[-]-sender msg.raw") && [ "$(awk "/^rchar/ { print \$2 }" /proc/$p/io)" -gt 67108864 ]'"'"' STOPPED_AFTER=0.1 \
	stopped SIGINT j.json "$AUDIT" journal --format raw --warmups 0 --measured 1 --sender msg.raw --receipt j.json &&
	said "^audit: pair 1: msg.raw: interrupted by a signal; nothing is claimed$" &&
	stopped SIGINT j.json "$AUDIT" journal --format raw --warmups 0 --measured 1 --archive out/archive.tar.zst \
		--seal out/SEAL.json --sender runs/series.bin --receipt j.json
'

test_expect_success 'audit series stops while it reads a 32 MiB series: exit 2, no receipt; unslowed it passes' '
	command -v strace >/dev/null || { echo "strace is not installed (Debian package strace)"; return 1; } &&
	python3 -c "
import struct
n = 4 << 20   # magic, version 1, header 80, clock, ticks a second, source rate, count
h = b\"EVSERIES\" + struct.pack(\"<II\", 1, 80) + b\"CLOCK_MONOTONIC_RAW\".ljust(32, b\"\\0\") + struct.pack(\"<QQQ\", 10**9, 0, n)
open(\"s.bin\", \"wb\").write(h.ljust(80, b\"\\0\") + struct.pack(\"<%dQ\" % n, *range(1000, 1000 + n)))
" &&
	"$AUDIT" series --receipt whole.json s.bin >/dev/null &&
	# every read of the series held 0.1 s (strace -P: its 32 reads of 1 MiB, not the sanitizer'"'"'s
	# own reads at start), so that the signal lands in their middle on any machine (a read under way
	# then ends before the stop is seen: within 1 s); --seccomp-bpf stops the command at those reads
	# only, so that on a loaded machine its other calls do not each wait for strace
	STOPPED_AFTER=1.2 STOPPED_WITHIN=1 \
	stopped SIGTERM sr.json env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f --seccomp-bpf -qq -o /dev/null -P s.bin -e trace=read -e inject=read:delay_enter=100000 \
		"$AUDIT" series --receipt sr.json s.bin &&
	grep -q "^audit: s.bin: interrupted by a signal; nothing is claimed$" stopped.err
'

test_expect_success 'run to its end, the same verification passes' '
	"$REPLICATE" verify --seal out/SEAL.json --receipt done.json out/archive.tar.zst >/dev/null &&
	test "$(json_get done.json "d[\"result\"]")" = pass
'

test_done
