#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Keys are made with safe modes and never overwritten; a receipt signed with
# verify --sign-key verifies under openssl's own Ed25519 check; compare
# --trust accepts receipts signed by a trusted key and refuses, each with
# its reason, an unsigned receipt, one signed by another key, and one
# edited after signing.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

# canonical_without_signature RECEIPT OUT: the bytes the signature covers.
canonical_without_signature () {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sig = d.pop(\"signature\")
open(sys.argv[2], \"wb\").write((json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\").encode())
open(sys.argv[2] + \".sig\", \"wb\").write(bytes.fromhex(sig[\"value\"]))
" "$1" "$2"
}

# edit RECEIPT OUT 'python statement on d': the receipt changed, written
# back canonically (so only the signature or the digest can tell).
edit () {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$3
open(sys.argv[2], \"wb\").write((json.dumps(d, sort_keys=True, separators=(\",\", \":\"), ensure_ascii=False) + \"\\n\").encode())
" "$1" "$2"
}

test_expect_success 'keygen: NAME.key 0600 and NAME.pub 0644, the id is the SHA-256 of the raw public key' '
	umask 000 &&
	"$REPLICATE" keygen -o hostA >keygen.out &&
	test "$(stat -c %a hostA.key)" = 600 && test "$(stat -c %a hostA.pub)" = 644 &&
	id=$(sed -n "s/^key_sha256 //p" keygen.out) &&
	test "$id" = "$(openssl pkey -pubin -in hostA.pub -outform DER | tail -c 32 | sha256sum | cut -c1-64)" &&
	grep -q "BEGIN PRIVATE KEY" hostA.key && grep -q "BEGIN PUBLIC KEY" hostA.pub
'

test_expect_success 'keygen never overwrites either file, and writes nothing when one exists' '
	cp hostA.key keep.key && cp hostA.pub keep.pub &&
	test_expect_code 2 "$REPLICATE" keygen -o hostA 2>actual &&
	echo "replicate: hostA.key: already exists; keys are never overwritten (choose a new name)" >expect &&
	test_cmp expect actual && cmp hostA.key keep.key && cmp hostA.pub keep.pub &&
	: >half.pub &&
	test_expect_code 2 "$REPLICATE" keygen -o half 2>/dev/null &&
	test_must_be_absent half.key && test ! -s half.pub
'

test_expect_success 'keygen says the modes it created, under umask 077 too; a directory as NAME is refused' '
	(umask 077 && "$REPLICATE" keygen -o tight >tight.out) &&
	test "$(stat -c %a tight.key) $(stat -c %a tight.pub)" = "600 600" &&
	grep -q "^tight.key: private key (0600)$" tight.out && grep -q "^tight.pub: public key (0600)$" tight.out &&
	mkdir keys &&
	test_expect_code 2 "$REPLICATE" keygen -o keys/ 2>err &&
	grep -q "^replicate: -o keys/ names a directory; give the pair${Q}s name in it, e.g. -o keys/host$" err &&
	test_expect_code 2 "$REPLICATE" keygen -o keys 2>err &&
	grep -q "^replicate: -o keys names a directory; give the pair${Q}s name in it, e.g. -o keys/host$" err &&
	dir_empty keys
'

test_expect_success 'setup: a second key, a sealed archive, receipts signed by A, by B, and unsigned' '
	"$REPLICATE" keygen -o hostB >/dev/null &&
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --sign-key hostA.key --receipt a.json out/archive.tar.zst >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --sign-key hostA.key --receipt a2.json out/archive.tar.zst >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --sign-key hostB.key --receipt b.json out/archive.tar.zst >/dev/null &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt plain.json out/archive.tar.zst >/dev/null &&
	test "$(json_get a.json "d[\"signature\"][\"algorithm\"]")" = ed25519 &&
	test "$(json_get a.json "d[\"signature\"][\"key_sha256\"]")" = "$(openssl pkey -pubin -in hostA.pub -outform DER | tail -c 32 | sha256sum | cut -c1-64)"
'

test_expect_success 'a signing key that is a FIFO is refused at once; one another user owns is refused' '
	mkfifo fifo.key &&
	test_expect_code 2 timeout 10 "$REPLICATE" verify --seal out/SEAL.json --sign-key fifo.key --receipt f.json out/archive.tar.zst 2>err &&
	test_must_be_absent f.json &&
	grep -q "fifo.key: a private key must be a regular file (this is a FIFO)" err &&
	if [ "$(id -u)" = 0 ]; then
		cp hostA.key other.key && chown nobody other.key && chmod 600 other.key &&
		test_expect_code 2 "$REPLICATE" verify --seal out/SEAL.json --sign-key other.key --receipt o.json out/archive.tar.zst 2>err &&
		grep -q "other.key: owned by uid [0-9]*, not by uid 0 who signs with it: a private key signs for its owner only" err &&
		test_must_be_absent o.json
	fi
'

test_expect_success 'openssl verifies the signature over the canonical receipt without its signature' '
	canonical_without_signature a.json signed.bytes &&
	openssl pkeyutl -verify -pubin -inkey hostA.pub -rawin -in signed.bytes -sigfile signed.bytes.sig >ossl &&
	grep -q "Signature Verified Successfully" ossl &&
	test_expect_code 1 openssl pkeyutl -verify -pubin -inkey hostB.pub -rawin -in signed.bytes -sigfile signed.bytes.sig >/dev/null
'

test_expect_success 'signing changes nothing that receipts are compared by' '
	"$REPLICATE" compare a.json b.json plain.json >stdout &&
	grep -q "^AGREE: 3 receipts" stdout
'

test_expect_success 'compare --trust: receipts signed by trusted keys agree' '
	cat hostA.pub hostB.pub >both.pub &&
	"$REPLICATE" compare --trust both.pub a.json b.json >stdout &&
	grep -q "^a.json: replica on .*, signed by [0-9a-f]\{64\}$" stdout &&
	grep -q "^AGREE: 2 receipts" stdout &&
	"$REPLICATE" compare --trust hostA.pub --trust hostB.pub a.json b.json >/dev/null
'

test_expect_success 'compare --trust refuses an unsigned receipt' '
	test_expect_code 1 "$REPLICATE" compare --trust hostA.pub a.json plain.json >stdout 2>actual &&
	echo "replicate: plain.json: is not signed" >expect && test_cmp expect actual &&
	grep -q "^DIFFER: " stdout
'

test_expect_success 'compare --trust refuses a receipt signed by a key it was not given' '
	test_expect_code 1 "$REPLICATE" compare --trust hostA.pub a.json b.json >/dev/null 2>actual &&
	echo "replicate: b.json: is signed by a key that is not trusted (key_sha256 $(json_get b.json "d[\"signature\"][\"key_sha256\"]"))" >expect &&
	test_cmp expect actual
'

test_expect_success 'compare --trust refuses a receipt edited after signing, even where comparable does not look' '
	edit a.json moved.json "d[\"host\"] = \"somewhere-else\"" &&
	test_expect_code 1 "$REPLICATE" compare --trust hostA.pub a.json moved.json >/dev/null 2>actual &&
	echo "replicate: moved.json: does not match its signature: it was altered after it was signed" >expect &&
	test_cmp expect actual
'

test_expect_success 'compare --trust refuses a field added to the signature object, which the signature cannot cover' '
	edit a.json note.json "d[\"signature\"][\"note\"] = \"approved by the lab lead\"" &&
	test_expect_code 1 "$REPLICATE" compare --trust hostA.pub a.json note.json >/dev/null 2>actual &&
	echo "replicate: note.json: has a signature object with a field the signature does not cover (\"note\"; expected only algorithm, key_sha256 and value)" >expect &&
	test_cmp expect actual
'

test_expect_success 'an edited result is caught twice: by its digest without --trust, by its signature with it' '
	edit a.json forged.json "d[\"checks\"][0][\"detail\"] = \"19 members expected, 0 findings (really)\"" &&
	test_expect_code 1 "$REPLICATE" compare a.json forged.json >/dev/null 2>actual &&
	grep -x "replicate: forged.json: its comparable digest does not match its content: it was edited after it was written" actual &&
	test_expect_code 1 "$REPLICATE" compare --trust hostA.pub a.json forged.json >/dev/null 2>actual &&
	grep -x "replicate: forged.json: does not match its signature: it was altered after it was signed" actual
'

test_expect_success 'a receipt that is not in canonical form is not read at all' '
	python3 -m json.tool a.json >pretty.json &&
	test_expect_code 2 "$REPLICATE" compare --trust hostA.pub a.json pretty.json 2>actual &&
	grep -q "^replicate: pretty.json: .*canonical" actual
'

test_expect_success 'a private key others can read is refused before anything is verified' '
	cp hostA.key loose.key && chmod 644 loose.key &&
	test_expect_code 2 "$REPLICATE" verify --seal out/SEAL.json --sign-key loose.key --receipt never.json out/archive.tar.zst 2>actual &&
	echo "replicate: loose.key: a private key must be a regular file that only its owner can read (expected mode 0600, found 0644); chmod 600 it" >expect &&
	test_cmp expect actual && test_must_be_absent never.json
'

test_done
