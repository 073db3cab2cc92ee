#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate attest: a receipt exported as an in-toto Statement v1 (its
# subjects the receipt's inputs and outputs by SHA-256, its predicate the
# receipt) in a DSSE envelope signed with replicate keygen's Ed25519
# keys, several signatures allowed. An independent check written here
# (the DSSE v1 pre-authentication encoding, the signatures verified with
# Debian's python3-cryptography) accepts it, and so does replicate check
# --trust; a changed subject digest, a changed payloadType and a foreign
# key are refused by both, each named; a statement a trusted key signed
# whose subjects are not its receipt's is refused by ours.
. "$EV_SRCDIR/tests/lib/lib.sh"

/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"

# dsse_verify ENVELOPE PUB...: the independent check; exit 0 when a
# signature by one of the keys verifies and the statement is an in-toto
# one, 1 otherwise (why on stderr).
dsse_verify () {
	/usr/bin/python3 - "$@" <<-\PY
	import base64, hashlib, json, sys
	from cryptography.exceptions import InvalidSignature
	from cryptography.hazmat.primitives import serialization
	env = json.load(open(sys.argv[1]))
	keys = {}
	for path in sys.argv[2:]:
	    k = serialization.load_pem_public_key(open(path, "rb").read())
	    raw = k.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
	    keys[hashlib.sha256(raw).hexdigest()] = k
	body = base64.b64decode(env["payload"], validate=True)
	ptype = env["payloadType"].encode()
	pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(body), body)
	ok = 0
	for s in env["signatures"]:
	    k = keys.get(s["keyid"])
	    if k is None:
	        continue
	    try:
	        k.verify(base64.b64decode(s["sig"], validate=True), pae)
	        ok += 1
	    except InvalidSignature:
	        sys.exit("signature by %s does not verify" % s["keyid"][:16])
	if not ok:
	    sys.exit("no signature by a given key")
	if env["payloadType"] != "application/vnd.in-toto+json":
	    sys.exit("payloadType " + env["payloadType"])
	st = json.loads(body)
	assert st["_type"] == "https://in-toto.io/Statement/v1", st["_type"]
	print(ok, st["predicateType"], len(st["subject"]))
	PY
}

# rewrite ENVELOPE OUT PYTHON: OUT is ENVELOPE with its statement (st) or
# the envelope (env) changed by the PYTHON statement, signatures kept.
rewrite () {
	/usr/bin/python3 - "$@" <<-\PY
	import base64, json, sys
	env = json.load(open(sys.argv[1]))
	st = json.loads(base64.b64decode(env["payload"]))
	exec(sys.argv[3])
	env["payload"] = base64.b64encode(json.dumps(st, sort_keys=True, separators=(",", ":")).encode()).decode()
	json.dump(env, open(sys.argv[2], "w"), sort_keys=True, separators=(",", ":"))
	open(sys.argv[2], "a").write("\n")
	PY
}

test_expect_success 'setup: keys, and a sealed tree whose seal receipt is signed' '
	"$REPLICATE" keygen -o lab >/dev/null && "$REPLICATE" keygen -o ci >/dev/null && "$REPLICATE" keygen -o stranger >/dev/null &&
	make_campaign c && "$SEAL" create c -o sealed --sign-key lab.key >/dev/null
'

test_expect_success 'an envelope signed twice, verified independently: PAE, both Ed25519 signatures, the statement' '
	"$REPLICATE" attest --sign-key lab.key --sign-key ci.key -o env.json sealed/receipt.json >out &&
	grep -q "^sealed/receipt.json: attested in env.json (2 signatures)$" out &&
	dsse_verify env.json lab.pub ci.pub >verified &&
	echo "2 urn:evidence:receipt:v1 2" >want && test_cmp want verified &&
	/usr/bin/python3 - <<-\PY
	import base64, json
	env = json.load(open("env.json"))
	st = json.loads(base64.b64decode(env["payload"]))
	r = json.load(open("sealed/receipt.json"))
	assert st["predicate"] == r, "the predicate is not the receipt"
	want = [{"name": o.get("path", o["name"]), "digest": {"sha256": o["sha256"]}}
	        for o in r["inputs"] + r["outputs"] if "sha256" in o]
	assert st["subject"] == want, (st["subject"], want)
	PY
'

test_expect_success 'replicate check --trust accepts it, and envelopes and receipts together' '
	"$REPLICATE" check --trust lab.pub env.json sealed/receipt.json >out &&
	grep -q "^env.json: in-toto attestation of a receipt of kind seal from .* (pass), its subjects the receipt'"'"'s, signed by trusted key [0-9a-f]\\{16\\}$" out &&
	grep -q "^OK: 2 of 2 receipts and envelopes intact and signed by a trusted key$" out
'

test_expect_success 'a changed subject digest: refused by the independent check and by ours' '
	rewrite env.json subject.json "st[\"subject\"][0][\"digest\"][\"sha256\"] = \"0\" * 64" &&
	test_expect_code 1 dsse_verify subject.json lab.pub ci.pub 2>why &&
	grep -q "does not verify" why &&
	test_expect_code 1 "$REPLICATE" check --trust lab.pub subject.json 2>err >/dev/null &&
	grep -q "^replicate: subject.json: signatures\\[0\\]: does not verify under key [0-9a-f]*: the envelope was altered after it was signed" err
'

test_expect_success 'a changed payloadType: refused by both' '
	/usr/bin/python3 -c "
import json; e = json.load(open(\"env.json\")); e[\"payloadType\"] = \"application/json\"
json.dump(e, open(\"ptype.json\", \"w\"), sort_keys=True, separators=(\",\", \":\")); open(\"ptype.json\", \"a\").write(\"\\n\")" &&
	test_expect_code 1 dsse_verify ptype.json lab.pub 2>why && grep -q "does not verify" why &&
	test_expect_code 1 "$REPLICATE" check --trust lab.pub ptype.json 2>err >/dev/null &&
	grep -q "^replicate: ptype.json: payloadType: expected application/vnd.in-toto+json, found application/json$" err
'

test_expect_success 'a foreign key: refused by both' '
	"$REPLICATE" attest --sign-key stranger.key -o foreign.json sealed/receipt.json >/dev/null &&
	test_expect_code 1 dsse_verify foreign.json lab.pub 2>why && grep -q "no signature by a given key" why &&
	test_expect_code 1 "$REPLICATE" check --trust lab.pub foreign.json 2>err >/dev/null &&
	grep -q "^replicate: foreign.json: signatures: none by a trusted key$" err
'

test_expect_success 'a statement a trusted key signed whose subjects are not its receipt'"'"'s: refused by ours' '
	/usr/bin/python3 - <<-\PY &&
	import base64, json, hashlib
	from cryptography.hazmat.primitives import serialization
	env = json.load(open("env.json"))
	st = json.loads(base64.b64decode(env["payload"]))
	st["subject"][0]["digest"]["sha256"] = "1" * 64
	body = json.dumps(st, sort_keys=True, separators=(",", ":")).encode()
	key = serialization.load_pem_private_key(open("lab.key", "rb").read(), None)
	raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
	t = env["payloadType"].encode()
	sig = key.sign(b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))
	env = {"payload": base64.b64encode(body).decode(), "payloadType": env["payloadType"],
	       "signatures": [{"keyid": hashlib.sha256(raw).hexdigest(), "sig": base64.b64encode(sig).decode()}]}
	json.dump(env, open("resigned.json", "w"), sort_keys=True, separators=(",", ":"))
	PY
	dsse_verify resigned.json lab.pub >/dev/null &&
	test_expect_code 1 "$REPLICATE" check --trust lab.pub resigned.json 2>err >/dev/null &&
	grep -q "^replicate: resigned.json: subject\\[0\\].digest.sha256: \"1111111111111111111111111111111111111111111111111111111111111111\", but the receipt'"'"'s inputs and outputs give \"[0-9a-f]*\"$" err
'

test_expect_success 'misuse and refusals: no key, -o with two receipts, an envelope that exists, an edited receipt' '
	test_expect_code 2 "$REPLICATE" attest sealed/receipt.json 2>err &&
	grep -q "^replicate: no key given (--sign-key KEY): an envelope is signed$" err &&
	test_expect_code 2 "$REPLICATE" attest --sign-key lab.key -o x.json sealed/receipt.json sealed/receipt.json 2>err &&
	grep -q "^replicate: -o names one envelope" err &&
	test_expect_code 2 "$REPLICATE" attest --sign-key lab.key -o env.json sealed/receipt.json 2>err &&
	grep -q "env.json" err && dsse_verify env.json lab.pub ci.pub >/dev/null &&
	sed "s/\"result\":\"pass\"/\"result\":\"fail\"/" sealed/receipt.json >edited.json &&
	test_expect_code 1 "$REPLICATE" attest --sign-key lab.key edited.json 2>err &&
	grep -q "^replicate: edited.json: its comparable digest does not match its content: it was edited after it was written; not attested$" err &&
	test_must_be_absent edited.intoto.json &&
	"$REPLICATE" attest --sign-key lab.key sealed/receipt.json >out && test -s sealed/receipt.intoto.json
'

test_expect_success 'a signal while the envelope is written: exit 2, no envelope' '
	late_signal late-env 1 "$REPLICATE" attest --sign-key lab.key -o late-env.json sealed/receipt.json &&
	grep -q "interrupted by a signal" late.err
'

test_done
