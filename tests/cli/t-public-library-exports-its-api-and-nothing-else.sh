#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# libevidence.so.0, evidence.h and evidence.pc, laid out as installed: the
# example in doc/examples builds with pkg-config --cflags --libs evidence
# and verifies a sealed archive (0), names a flipped byte (1) and an edited
# receipt; a program of the whole API seals a tree, verifies it, finds a
# changed file, reads a receipt and refuses a bad pin, each with its
# status. The library exports evidence_* and nothing else, under the SONAME
# libevidence.so.0.
# LeakSanitizer on for every program this test runs (tests/lib/lib.sh)
export EV_LEAK_CHECK=1
. "$EV_SRCDIR/tests/lib/lib.sh"

LIBDIR=$EV_BUILDDIR/lib/api/.libs
test -f "$LIBDIR/libevidence.so.0" || test_skip_all "the shared library was not built"
command -v pkg-config >/dev/null || test_skip_all "pkg-config is not installed"
# a library built with the sanitizers needs them in the program too
SAN=
if nm -D --undefined-only "$LIBDIR/libevidence.so.0" | grep -c __asan >/dev/null; then SAN="-fsanitize=address,undefined"; fi
PKG_CONFIG_PATH=$PWD/stage/lib/pkgconfig
export PKG_CONFIG_PATH

test_expect_success 'setup: the library, its header and evidence.pc as installed under a prefix' '
	mkdir -p stage/lib/pkgconfig stage/include/evidence &&
	cp -P "$LIBDIR"/libevidence.so* stage/lib/ &&
	cp "$EV_SRCDIR/lib/api/evidence.h" stage/include/evidence/ &&
	sed "s|^prefix=.*|prefix=$PWD/stage|" "$EV_BUILDDIR/evidence.pc" >stage/lib/pkgconfig/evidence.pc &&
	test "$(PKG_CONFIG_PATH=$PWD/stage/lib/pkgconfig pkg-config --modversion evidence)" = "$("$SEAL" --version | sed "s/.* //")"
'

test_expect_success 'exported: evidence_* only, versioned, SONAME libevidence.so.0' '
	nm -D --defined-only stage/lib/libevidence.so.0 | awk "{ print \$3 }" | grep -v "^EVIDENCE_0$" | sort >exported &&
	printf "%s\n" evidence_archive_verify@@EVIDENCE_0 evidence_audit_journal_pair@@EVIDENCE_0 evidence_receipt_read@@EVIDENCE_0 \
		evidence_seal_create@@EVIDENCE_0 evidence_seal_verify@@EVIDENCE_0 evidence_version@@EVIDENCE_0 >want &&
	test_cmp want exported &&
	objdump -p stage/lib/libevidence.so.0 | grep -c "SONAME *libevidence.so.0$" >/dev/null
'

test_expect_success 'the example builds with pkg-config and verifies an archive, a flipped byte, an edited receipt' '
	cc $SAN -Wall -Werror -o verify-archive "$EV_SRCDIR/doc/examples/verify-archive.c" $(pkg-config --cflags --libs evidence) &&
	mkdir t && printf "series\n" >t/a && printf "journal\n" >t/b && "$SEAL" create t -o sealed >/dev/null &&
	LD_LIBRARY_PATH=$PWD/stage/lib ./verify-archive sealed/SEAL.json sealed/archive.tar.zst sealed/receipt.json >out &&
	grep -q "^sealed/archive.tar.zst: 0 findings against sealed/SEAL.json (libevidence " out &&
	grep -q "^sealed/receipt.json: kind seal, result pass, on .*, intact$" out &&
	python3 "$EV_SRCDIR/tests/replicate/archive-surgery.py" sealed/archive.tar.zst flipped.tar.zst flip a 0 &&
	sed "s/\"result\":\"pass\"/\"result\":\"fail\"/" sealed/receipt.json >edited.json &&
	test_expect_code 1 env LD_LIBRARY_PATH=$PWD/stage/lib ./verify-archive sealed/SEAL.json flipped.tar.zst >out &&
	grep -q "^finding: a: sha256: content differs (SHA-256) (expected [0-9a-f]*, found [0-9a-f]*)$" out &&
	test_expect_code 1 env LD_LIBRARY_PATH=$PWD/stage/lib ./verify-archive sealed/SEAL.json sealed/archive.tar.zst edited.json >out &&
	grep -q "EDITED after it was written$" out
'

test_expect_success 'the whole API: seal, verify, a changed file, a receipt, a bad pin, a missing tree' '
	cat >api.c <<-\C &&
	#include <stdio.h>
	#include <string.h>
	#include <evidence.h>
	static void count(void *ctx, const struct evidence_finding *f) { (void)f; ++*(int *)ctx; }
	int main(void)
	{
		struct evidence_outcome o;
		struct evidence_receipt r;
		int seen = 0, code;
		code = evidence_seal_create("tree", "api-out", count, &seen, &o);
		printf("create %d\n", code);
		code = evidence_seal_verify("api-out/SEAL.json", NULL, "tree", count, &seen, &o);
		printf("verify %d %llu\n", code, o.findings);
		FILE *f = fopen("tree/f", "a"); fputs("more\n", f); fclose(f);
		code = evidence_seal_verify("api-out/SEAL.json", NULL, "tree", count, &seen, &o);
		printf("changed %d %llu %d\n", code, o.findings, seen);
		code = evidence_receipt_read("api-out/receipt.json", NULL, &r, &o);
		printf("receipt %d %s %s %d\n", code, r.kind, r.result, r.intact);
		code = evidence_archive_verify("api-out/SEAL.json", "xyz", "api-out/archive.tar.zst", NULL, NULL, &o);
		printf("pin %d %s\n", code, o.error);
		code = evidence_seal_create("nowhere", "out2", NULL, NULL, &o);
		printf("missing %d %d\n", code, o.error[0] != 0);
		printf("version %s\n", evidence_version());
		return 0;
	}
	C
	cc $SAN -Wall -Werror -o api api.c $(pkg-config --cflags --libs evidence) &&
	mkdir tree && printf "data\n" >tree/f &&
	LD_LIBRARY_PATH=$PWD/stage/lib ./api >out &&
	grep -q "^create 0$" out && grep -q "^verify 0 0$" out && grep -q "^changed 1 1 1$" out &&
	grep -q "^receipt 0 seal pass 1$" out &&
	grep -q "^pin 2 seal_sha256: expected 64 lower-case hex digits, found .xyz.$" out &&
	grep -q "^missing 2 1$" out && test_must_be_absent out2
'

test_done
