#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# libpq and libcurl are opened when a command first needs one (a
# postgresql:// catalog, a timestamp over HTTP), not by the dynamic loader
# at every start (lib/core/dynlib.h): no tool names them among the
# libraries it needs, every command that does not use them runs where they
# cannot be loaded, and a command that needs one that cannot be loaded
# names the library, the loader's reason, what needs it and the Debian
# package to install; exit 2, nothing written.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v readelf >/dev/null || test_skip_all "readelf is not installed (apt-get install binutils)"

# broken: a directory whose libpq.so.5 and libcurl.so.4 are not libraries,
# found first through LD_LIBRARY_PATH
broken () {
	LD_LIBRARY_PATH="$PWD/broken${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}

test_expect_success 'setup: a sealed tree, a CA, libraries that cannot be loaded' '
	mkdir -p broken t &&
	printf "not a library\n" >broken/libpq.so.5 && cp broken/libpq.so.5 broken/libcurl.so.4 &&
	echo run >t/run.log &&
	openssl req -x509 -newkey ed25519 -keyout ca.key -out ca.pem -subj /CN=ca -nodes -days 1 2>/dev/null
'

test_expect_success 'no tool needs libpq or libcurl to start' '
	for t in "$SEAL" "$REPLICATE" "$AUDIT" "$CAPTURE"; do
		readelf -d "$t" >needed || return 1
		grep -q "(NEEDED).*\[libcrypto" needed || { echo "$t: readelf shows no needed library"; return 1; }
		if grep -E "\((NEEDED)\).*\[(libpq|libcurl)" needed; then echo "$t loads them at its start"; return 1; fi
	done
'

test_expect_success 'without them: seal, verify, a SQLite catalog, status and a receipt log work' '
	broken "$SEAL" create t -o s >/dev/null &&
	broken "$SEAL" verify --seal s/SEAL.json s/archive.tar.zst >/dev/null &&
	broken "$REPLICATE" index --catalog c.sqlite s >/dev/null &&
	broken "$REPLICATE" status --catalog c.sqlite >out && grep -q "^  sealed:   on .*, pass " out &&
	broken "$REPLICATE" log --log L append s/receipt.json >/dev/null
'

test_expect_success 'a postgresql:// catalog names libpq.so.5, why it failed, and libpq5; exit 2' '
	test_expect_code 2 broken "$REPLICATE" status --catalog "postgresql://nobody@127.0.0.1:1/x" 2>err &&
	echo "replicate: catalog postgresql://...@127.0.0.1:1/x: cannot connect: libpq.so.5 could not be loaded ($PWD/broken/libpq.so.5: file too short); a PostgreSQL catalog needs it: install libpq5" >want &&
	test_cmp want err &&
	before=$(ls -A) &&
	test_expect_code 2 broken "$REPLICATE" index --catalog "postgresql://nobody@127.0.0.1:1/x" s 2>err &&
	test_cmp want err &&
	test "$(ls -A)" = "$before"
'

test_expect_success 'a timestamp over HTTP names libcurl.so.4, why it failed, and libcurl4; exit 2, no token' '
	ls -A s >before &&
	test_expect_code 2 broken "$SEAL" timestamp --tsa http://127.0.0.1:1/ --tsa-ca ca.pem s/SEAL.json 2>err &&
	echo "seal: http://127.0.0.1:1/: cannot send: libcurl.so.4 could not be loaded ($PWD/broken/libcurl.so.4: file too short); a timestamp over HTTP needs it: install libcurl4" >want &&
	test_cmp want err &&
	ls -A s >after && test_cmp before after
'

test_expect_success 'where they load, the same commands reach the network and say what it answered' '
	test_expect_code 2 "$REPLICATE" status --catalog "postgresql://nobody@127.0.0.1:1/x" 2>err &&
	grep -q "^replicate: catalog postgresql://...@127.0.0.1:1/x: cannot connect: connection to server at \"127.0.0.1\", port 1 failed: Connection refused" err &&
	test_expect_code 2 "$SEAL" timestamp --tsa http://127.0.0.1:1/ --tsa-ca ca.pem s/SEAL.json 2>err &&
	grep -q "^seal: http://127.0.0.1:1/: Failed to connect to 127.0.0.1 port 1 " err
'

test_done
