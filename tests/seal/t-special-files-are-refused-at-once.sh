#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every input is checked for its kind before it is read: a FIFO where a
# seal, a receipt, a series, a journal or an archive belongs, and /dev/zero
# as a series or a journal, are refused at once (exit 2, the path and what it is named,
# nothing written), never waited on and never read for ever.
. "$EV_SRCDIR/tests/lib/lib.sh"

# refused_at_once 'MESSAGE' COMMAND...: exit 2 within 5 s, exactly MESSAGE.
refused_at_once () {
	msg=$1
	shift
	test_expect_code 2 timeout 5 "$@" >stdout 2>err &&
	echo "$msg" >expect && test_cmp expect err
}

test_expect_success 'setup: a FIFO, and a sealed tree' '
	mkfifo fifo && mkdir t && echo x >t/a && "$SEAL" create t -o out >/dev/null
'

test_expect_success 'seal diff and seal verify --seal: a FIFO as the seal' '
	refused_at_once "seal: fifo: a FIFO, not a regular file: a document is read from a file, never waited on" \
		"$SEAL" diff fifo out/SEAL.json &&
	refused_at_once "seal: fifo: a FIFO, not a regular file: a document is read from a file, never waited on" \
		"$SEAL" verify --seal fifo t
'

test_expect_success 'seal verify and replicate verify: a FIFO as the archive, no receipt' '
	refused_at_once "seal: fifo: a FIFO, neither a directory nor an archive file: seal verify reads a tree or a regular file, never waits on one" \
		"$SEAL" verify --seal out/SEAL.json --receipt r.json fifo &&
	test_must_be_absent r.json &&
	refused_at_once "replicate: fifo: a FIFO, not a regular file: an archive is read from a file, never waited on" \
		"$REPLICATE" verify --seal out/SEAL.json --receipt r.json fifo &&
	test_must_be_absent r.json
'

test_expect_success 'audit journal: a FIFO, and /dev/zero, as a journal, in every format' '
	for f in raw qf-log; do
		refused_at_once "audit: fifo: a FIFO, not a regular file: a journal is read from a file, never waited on" \
			"$AUDIT" journal --format $f --warmups 0 --measured 1 --sender fifo --receipt j.json || return 1
		refused_at_once "audit: /dev/zero: a character device, not a regular file: a journal is read from a file, never waited on" \
			"$AUDIT" journal --format $f --warmups 0 --measured 1 --receiver /dev/zero --receipt j.json || return 1
	done &&
	refused_at_once "audit: fifo: a FIFO, not a directory: an llfix journal is a directory of numbered .bin files" \
		"$AUDIT" journal --format llfix --warmups 0 --measured 1 --sender fifo --receipt j.json &&
	test_must_be_absent j.json
'

test_expect_success 'replicate compare: a FIFO as a receipt' '
	refused_at_once "replicate: fifo: a FIFO, not a regular file: a document is read from a file, never waited on" \
		"$REPLICATE" compare fifo fifo
'

test_expect_success 'audit series: a FIFO, and /dev/zero, as the series' '
	refused_at_once "audit: fifo: a FIFO, not a regular file: a series is read from a file, never waited on" \
		"$AUDIT" series --receipt s.json fifo &&
	refused_at_once "audit: /dev/zero: a character device, not a regular file: a series is read from a file, never waited on" \
		"$AUDIT" series --receipt s.json /dev/zero &&
	test_must_be_absent s.json
'

test_done
