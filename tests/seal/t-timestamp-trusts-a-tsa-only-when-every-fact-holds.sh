#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal timestamp: a seal (or any receipt) given a trusted time by a real
# RFC 3161 time-stamp authority, started here (`openssl ts -reply` with a
# test CA made here, behind a small HTTP server, tests/seal/tsa.py). The
# reply is stored only once verified, and openssl ts -verify agrees with
# it; a token signed by a certificate that had expired, one chaining to a
# CA not given, one whose certificate lacks the timeStamping EKU (made by
# swapping the certificate inside a real token: no TSA signs so), one for
# another digest, one answering another request (nonce) are each
# refused, the fact named, and nothing is stored; a
# token outlives its certificate (checked at its own time); the request
# and the reply split for a host that cannot reach a TSA. replicate check
# and status show the trusted time; prune --require-timestamp holds the
# seal's timestamp to a CA before removing anything.
. "$EV_SRCDIR/tests/lib/lib.sh"

/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"

# post URL QUERY REPLY: a request posted to the TSA as any client would.
post () {
	/usr/bin/python3 -c "
import sys, urllib.request
r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], open(sys.argv[2], 'rb').read(),
    {'Content-Type': 'application/timestamp-query'}))
open(sys.argv[3], 'wb').write(r.read())" "$@"
}

trap tsa_stop EXIT

test_expect_success 'setup: a test CA, TSA certificates, the TSA serving, a sealed tree' '
	tsa_serve && URL=http://127.0.0.1:$(cat tsa/port) && echo "$URL" >url &&
	make_campaign c && "$SEAL" create c -o sealed >/dev/null
'

test_expect_success 'a seal timestamped: verified before stored, and openssl ts -verify agrees' '
	URL=$(cat url) &&
	"$SEAL" timestamp --tsa "$URL/good" --tsa-ca tsa/ca.pem sealed/SEAL.json >out &&
	grep -q "^sealed/SEAL.json: trusted time [0-9T:-]*Z by /CN=evidence test TSA good (serial [0-9A-F]*); sealed/SEAL.json.tsr$" out &&
	openssl ts -verify -queryfile sealed/SEAL.json.tsq -in sealed/SEAL.json.tsr -CAfile tsa/ca.pem \
		-untrusted tsa/good.pem >verified 2>/dev/null && grep -q "^Verification: OK$" verified &&
	"$SEAL" timestamp --verify --tsa-ca tsa/ca.pem sealed/SEAL.json >out &&
	grep -q "^sealed/SEAL.json: trusted time " out
'

# refused NAME TSA CA FACT: a fresh file timestamped by TSA against CA is
# refused with exit 1, FACT named, and neither FILE.tsq nor FILE.tsr left.
refused () {
	echo "{\"format\":\"$1\"}" >$1.json &&
	test_expect_code 1 "$SEAL" timestamp --tsa "$(cat url)/$2" --tsa-ca $3 $1.json 2>err &&
	grep -q "^seal: $1.json: $4: " err && grep -q "; nothing stored$" err &&
	test_must_be_absent $1.json.tsr && test_must_be_absent $1.json.tsq
}

test_expect_success 'a TSA certificate expired when the token was made: refused (chain, at the token'"'"'s time)' '
	refused expired expired tsa/ca.pem chain && grep -q "certificate has expired" err
'

test_expect_success 'a TSA chaining to a CA not given: refused (chain)' '
	refused untrusted good tsa/other-ca.pem chain && grep -q "unable to get local issuer certificate" err
'

test_expect_success 'a token outlives its certificate: checked at its own time' '
	/usr/bin/python3 "$TSA_PY" tsa short 3 && echo "{\"format\":\"short\"}" >short.json &&
	"$SEAL" timestamp --tsa "$(cat url)/short" --tsa-ca tsa/ca.pem short.json >/dev/null &&
	sleep 4 &&
	! openssl verify -CAfile tsa/ca.pem tsa/short.pem >/dev/null 2>&1 &&
	"$SEAL" timestamp --verify --tsa-ca tsa/ca.pem short.json >out && grep -q "^short.json: trusted time " out
'

test_expect_success 'air-gapped: the request written, the reply carried back and verified; another request'"'"'s reply refused (nonce)' '
	echo "{\"format\":\"gap\"}" >gap.json &&
	"$SEAL" timestamp --request gap.json >out && test -s gap.json.tsq && test_must_be_absent gap.json.tsr &&
	grep -q "^gap.json: request gap.json.tsq (carry it to a TSA" out &&
	openssl ts -query -data gap.json -sha256 -cert -out other.tsq 2>/dev/null &&
	post "$(cat url)/good" other.tsq other.tsr &&
	test_expect_code 1 "$SEAL" timestamp --reply other.tsr --tsa-ca tsa/ca.pem gap.json 2>err &&
	grep -q "^seal: gap.json: nonce: the token.s nonce is not the request.s (a reply to another request); nothing stored$" err &&
	test_must_be_absent gap.json.tsr &&
	post "$(cat url)/good" gap.json.tsq gap.tsr &&
	"$SEAL" timestamp --reply gap.tsr --tsa-ca tsa/ca.pem gap.json >out && test -s gap.json.tsr &&
	grep -q "^gap.json: trusted time " out
'

test_expect_success 'a token whose signing certificate lacks the timeStamping EKU: refused (eku)' '
	echo "{\"format\":\"eku\"}" >eku.json && "$SEAL" timestamp --request eku.json >/dev/null &&
	post "$(cat url)/good" eku.json.tsq eku-good.tsr &&
	/usr/bin/python3 "$TSA_PY" tsa swap-eku eku-good.tsr eku-twin.tsr &&
	test_expect_code 1 "$SEAL" timestamp --reply eku-twin.tsr --tsa-ca tsa/ca.pem eku.json 2>err &&
	grep -q "^seal: eku.json: eku: the signing certificate (/CN=evidence test TSA good) lacks the timeStamping extended key usage; nothing stored$" err &&
	test_must_be_absent eku.json.tsr &&
	"$SEAL" timestamp --reply eku-good.tsr --tsa-ca tsa/ca.pem eku.json >/dev/null
'

test_expect_success 'a token for another digest: refused (imprint)' '
	echo "{\"format\":\"other\"}" >other.json && "$SEAL" timestamp --request other.json >/dev/null &&
	test_expect_code 1 "$SEAL" timestamp --reply sealed/SEAL.json.tsr --tsa-ca tsa/ca.pem other.json 2>err &&
	grep -q "^seal: other.json: imprint: the token is for another digest than this file.s SHA-256; nothing stored$" err
'

test_expect_success 'replicate check and status show the trusted time; a timestamp that does not verify is named' '
	"$REPLICATE" keygen -o lab >/dev/null &&
	make_campaign s && "$SEAL" create s -o signed --sign-key lab.key >/dev/null &&
	"$SEAL" timestamp --tsa "$(cat url)/good" --tsa-ca tsa/ca.pem signed/receipt.json >/dev/null &&
	"$REPLICATE" check --trust lab.pub --tsa-ca tsa/ca.pem signed/receipt.json >out &&
	grep -q "^signed/receipt.json: seal receipt from .* signed by trusted key [0-9a-f]*; trusted time [0-9T:-]*Z by /CN=evidence test TSA good$" out &&
	"$REPLICATE" check --trust lab.pub signed/receipt.json >out &&
	grep -q "; timestamped (give --tsa-ca to verify it)$" out &&
	test_expect_code 1 "$REPLICATE" check --trust lab.pub --tsa-ca tsa/other-ca.pem signed/receipt.json 2>err >/dev/null &&
	grep -q "^replicate: signed/receipt.json: timestamp: chain: " err &&
	"$REPLICATE" status --tsa-ca tsa/ca.pem sealed >out &&
	grep -q "^  timestamp: trusted time [0-9T:-]*Z by /CN=evidence test TSA good (sealed/SEAL.json.tsr)$" out &&
	"$REPLICATE" status sealed >out && grep -q "^  timestamp: present, not verified (give --tsa-ca)" out
'

test_expect_success 'prune --require-timestamp: refused for a seal without one, or one the CA does not vouch for; then removes' '
	"$REPLICATE" verify --seal sealed/SEAL.json --receipt rv.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" verify --seal signed/SEAL.json --receipt sv.json signed/archive.tar.zst >/dev/null &&
	test_expect_code 1 "$REPLICATE" prune --seal signed/SEAL.json --min-hosts 1 --receipts sv.json \
		--require-timestamp tsa/ca.pem --receipt p1.json s 2>err >/dev/null &&
	grep -q "^replicate: refused: signed/SEAL.json: has no trusted time (seal timestamp makes SEAL.json.tsr)" err && test -d s &&
	test_expect_code 1 "$REPLICATE" prune --seal sealed/SEAL.json --min-hosts 1 --receipts rv.json \
		--require-timestamp tsa/other-ca.pem --receipt p2.json c 2>err >/dev/null &&
	grep -q "^replicate: refused: sealed/SEAL.json: chain: " err && test -d c &&
	"$REPLICATE" prune --seal sealed/SEAL.json --min-hosts 1 --receipts rv.json --require-timestamp tsa/ca.pem \
		--receipt p3.json c >/dev/null &&
	test_must_be_absent c &&
	test "$(json_get p3.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"timestamp\"]")" = "['"'"'pass'"'"']"
'

test_expect_success 'a signal while the reply is stored: exit 2, neither the reply nor the request left' '
	echo "{\"format\":\"sig\"}" >sig.json &&
	late_signal sig.json.tsr 3 "$SEAL" timestamp --tsa "$(cat url)/good" --tsa-ca tsa/ca.pem sig.json &&
	grep -q "interrupted by a signal" late.err && test_must_be_absent sig.json.tsq
'

test_expect_success 'misuse and refusals: no CA, two ways at once, a timestamp that exists, a TSA unreachable' '
	test_expect_code 2 "$SEAL" timestamp --tsa "$(cat url)/good" sealed/SEAL.json 2>err &&
	grep -q "no CA given (--tsa-ca FILE)" err &&
	test_expect_code 2 "$SEAL" timestamp --request --verify --tsa-ca tsa/ca.pem sealed/SEAL.json 2>err &&
	grep -q "^seal: --request and --verify both given; choose one$" err &&
	test_expect_code 2 "$SEAL" timestamp --tsa "$(cat url)/good" --tsa-ca tsa/ca.pem sealed/SEAL.json 2>err &&
	grep -q "sealed/SEAL.json.tsr: already exists; a timestamp is never replaced" err &&
	echo "{\"format\":\"down\"}" >down.json &&
	test_expect_code 2 "$SEAL" timestamp --tsa http://127.0.0.1:1/good --tsa-ca tsa/ca.pem down.json 2>err &&
	grep -q "^seal: http://127.0.0.1:1/good: .*connect" err &&
	test_must_be_absent down.json.tsq
'

test_done
