#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A receipt writer started the way lab users start long work, under nohup
# (SIGHUP ignored) or in a script's background (SIGINT ignored), keeps that
# signal ignored: the logout's SIGHUP or a stray SIGINT does not stop it, it
# ends with its receipt and a pass. SIGTERM stops it however it was started,
# and started with default dispositions it still stops on each signal (exit
# 2, nothing published): doc/formats.md "Signals".
. "$EV_SRCDIR/tests/lib/lib.sh"

# A writer that survives runs to its end, so its input is 1 GiB (most of a
# second to hash) and the signal comes 0.1 s into the work (SURVIVE_AFTER);
# one that stops gets a 3 GiB member, never read to its end.
SURVIVE_AFTER=0.1

test_expect_success 'setup: trees holding one 1 GiB and one 3 GiB member (sparse), the first sealed' '
	mkdir -p big/runs && truncate -s 1G big/runs/series.bin && echo ok >big/runs/note.txt &&
	mkdir -p huge/runs && truncate -s 3G huge/runs/series.bin && echo ok >huge/runs/note.txt &&
	"$SEAL" create big -o sealed >/dev/null
'

test_expect_success 'nohup seal create lives through the SIGHUP of a logout and ends with its seal' '
	STOPPED_AFTER=$SURVIVE_AFTER survives SIGHUP out-hup/SEAL.json nohup "$SEAL" create big -o out-hup &&
	"$SEAL" verify --seal out-hup/SEAL.json out-hup/archive.tar.zst >/dev/null
'

test_expect_success 'seal create with SIGINT ignored (a background job of a script) ends with its seal' '
	STOPPED_AFTER=$SURVIVE_AFTER survives SIGINT out-int/SEAL.json "$SEAL" create big -o out-int
'

test_expect_success 'seal verify and replicate verify keep an ignored SIGHUP or SIGINT ignored and pass' '
	STOPPED_AFTER=$SURVIVE_AFTER survives SIGHUP sv.json nohup "$SEAL" verify --seal sealed/SEAL.json --receipt sv.json sealed/archive.tar.zst &&
	test "$(json_get sv.json "d[\"result\"]")" = pass &&
	STOPPED_AFTER=$SURVIVE_AFTER survives SIGINT rv.json "$REPLICATE" verify --seal sealed/SEAL.json --receipt rv.json sealed/archive.tar.zst &&
	test "$(json_get rv.json "d[\"result\"]")" = pass
'

test_expect_success 'audit journal under nohup keeps SIGHUP ignored and writes its receipt' '
	truncate -s 1G long.raw &&
	STOPPED_AFTER=$SURVIVE_AFTER SURVIVES_EXIT=1 survives SIGHUP j.json nohup "$AUDIT" journal --format raw --warmups 0 --measured 1 \
		--sender long.raw --receipt j.json &&
	test -s j.json
'

test_expect_success 'SIGTERM stops a writer even when it was inherited as ignored: exit 2, nothing written' '
	(trap "" TERM && exec "$SEAL" create huge -o out-term) 2>err & pid=$! &&
	# past its startup once it catches SIGTERM (bit 15 - 1 of SigCgt)
	for i in $(seq 600); do cgt=$(sed -n "s/^SigCgt:\t//p" /proc/$pid/status 2>/dev/null) &&
		test $(( 0x${cgt:-0} >> 14 & 1 )) = 1 && break; sleep 0.01; done &&
	sleep 0.5 && kill -TERM $pid &&
	{ wait $pid; test $? = 2; } &&
	grep -qx "seal: interrupted by a signal; nothing was written" err &&
	test_must_be_absent out-term
'

test_expect_success 'started with default dispositions, the same writers still stop on SIGHUP and SIGINT' '
	stopped SIGHUP out-dfl "$SEAL" create huge -o out-dfl &&
	test_must_be_absent out-dfl &&
	STOPPED_AFTER=$SURVIVE_AFTER stopped SIGINT rv2.json "$REPLICATE" verify --seal sealed/SEAL.json --receipt rv2.json sealed/archive.tar.zst
'

test_done
