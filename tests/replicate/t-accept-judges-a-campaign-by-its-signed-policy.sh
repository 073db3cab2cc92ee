#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate accept: one verdict on a campaign against the lab's signed
# acceptance policy, offline. The evidence of a quiet campaign (a signed
# seal and its RFC 3161 time, two hosts' signed replica receipts and
# audits with one summary, a reproduction of a published reference, a
# signed log whose checkpoints two of three replicas cosigned) passes;
# then each condition is broken on purpose, one at a time, and the verdict
# names it first: a policy expired, signed by an untrusted key or edited
# after signing; a seal signed by a key the policy does not let sign
# seals; a timestamp from another CA; too few replica hosts, and an edited
# replica receipt and a re-indented one named and not counted; too few
# audit hosts, and two whose audits disagree; a quorum of 2 of 3 witnesses
# with one cosigner; a split view (the log shows one witness another
# history), both witnesses named; a diagnostic grade where quiet is
# required; a reference not reproduced. With --bundle, the verdict and its
# evidence in one in-toto bundle: every envelope verified by PAE and
# Ed25519 in Python, every predicate by the JSON Schema of its
# specification (python3-jsonschema), each input's digest against its
# file; accept judges the bundle alone to the same verdict, and names a
# receipt edited inside it; a SIGTERM while it is synced leaves none. A
# policy that is not one, two seals, no trust list, a bundle that exists
# are refused, exit 2.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
/usr/bin/python3 -c "import cryptography" 2>/dev/null ||
	test_skip_all "python3-cryptography is not installed (Debian package python3-cryptography)"
if [ "$(id -u)" = 0 ]; then degrade=; else degrade=--degrade; fi
FAKE_SSH="$EV_SRCDIR/tests/replicate/fake-ssh"
trap tsa_stop EXIT

# policy OUT [PYTHON...]: the lab's policy for the evidence in ev/, each
# PYTHON statement editing d (the draft) first, signed with policy.key
# (SIGNER names another key).
policy () {
	out=$1 && shift &&
	/usr/bin/python3 - "$@" >draft.json <<-\PY &&
	import json, sys
	d = {"format": "evidence-acceptance/1", "name": "lab-acceptance", "version": 3,
	     "expires": "2099-01-01T00:00:00Z", "keys": {},
	     "signers": {"seal": ["lab"], "replica": ["r1", "r2"], "audit": ["r1", "r2"]},
	     "timestamp": {"tsa_ca": open("tsa/ca.pem").read()},
	     "replicas": 2, "audits": 2,
	     "checkpoints": {"origin": "lab.example/log", "log_key": "lab",
	                     "witnesses": ["w1.example/witness", "w2.example/witness", "w3.example/witness"],
	                     "quorum": 2},
	     "grade": "quiet", "reference": {"sha256": open("ref1.sha256").read().strip()}}
	for statement in sys.argv[1:]:
	    exec(statement)
	print(json.dumps(d))
	PY
	rm -f "$out" &&
	"$REPLICATE" sign-policy --sign-key "${SIGNER:-policy}.key" --key lab=lab.pub --key r1=r1.pub --key r2=r2.pub \
		--key w1.example/witness=w1.pub --key w2.example/witness=w2.pub --key w3.example/witness=w3.pub \
		-o "$out" draft.json >/dev/null
}

# far NAME: the replicate a far host NAME runs: its own configuration,
# its own key, trusting the lab's log key; cosigning as NAME.example/witness.
far () {
	printf "sign-key = %s\ntrust = %s\n" "$PWD/$1.key" "$PWD/lab.pub" >$1.conf &&
	cat >"far-$1" <<-EOF &&
	#!/bin/sh
	export EVIDENCE_CONFIG="$PWD/$1.conf"
	if [ "\$1" = keep-head ]; then shift; exec "$REPLICATE" keep-head --name $1.example/witness "\$@"; fi
	exec "$REPLICATE" "\$@"
	EOF
	chmod +x "far-$1"
}

# witness NAME LOG: push the sealed archive to host NAME offering LOG's head.
witness () {
	"$REPLICATE" push ev/sealed/archive.tar.zst --seal ev/sealed/SEAL.json --receipt-dir pushed --to "$1:$PWD/far/$1" \
		--log "$2" --remote-replicate "$PWD/far-$1" --ssh "$FAKE_SSH" >/dev/null
}

# verdict DIR [ARGS...]: accept's verdict on DIR, exit status to ./rc
verdict () {
	d=$1 && shift &&
	{ "$REPLICATE" accept --policy "${POLICY:-p.json}" --trust policy.pub "$@" "$d" >out 2>err; echo $? >rc; }
}

test_expect_success 'setup: a quiet campaign, its seal timestamped, verified and audited on two hosts, logged, witnessed' '
	for k in lab r1 r2 w1 w2 w3 policy stranger; do "$REPLICATE" keygen -o $k >/dev/null || return 1; done &&
	sed -e "s|@BINDIR@|$EV_BUILDDIR/capture/pair|g" -e "s|@USER@|$(id -un)|g" \
		-e "s|@PEER_CPU@|0|g" -e "s|@SENDER_CPU@|1|g" -e "s|@SHARES@|true|g" \
		-e "s|\"measured\": 20000|\"measured\": 2000|" "$EV_SRCDIR/share/demo/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	"$CAPTURE" run $degrade pinned.json -o diag >/dev/null 2>&1 &&
	cp -R diag quiet && python3 "$EV_SRCDIR/tests/audit/isolated-host.py" quiet &&
	mkdir ev pushed &&
	"$SEAL" create --sign-key lab.key quiet -o ev/sealed >/dev/null &&
	tsa_serve &&
	"$SEAL" timestamp --tsa "http://127.0.0.1:$(cat tsa/port)/good" --tsa-ca tsa/ca.pem ev/sealed/SEAL.json >/dev/null &&
	tsa_stop &&
	for h in 1 2; do
		as_host host$h "$REPLICATE" verify --sign-key r$h.key --seal ev/sealed/SEAL.json --receipt ev/replica-$h.json \
			ev/sealed/archive.tar.zst >/dev/null &&
		as_host host$h "$AUDIT" campaign --sign-key r$h.key --seal ev/sealed/SEAL.json ev/sealed/archive.tar.zst \
			-o ev/audit-$h >/dev/null 2>&1 || return 1
	done &&
	test "$(json_words ev/audit-1/summary.json "d[\"grade\"][\"grade\"]")" = quiet &&
	reference ref1 ev/audit-1 1.0 && sha256_of ref1/ref.json >ref1.sha256 &&
	reference ref2 ev/audit-1 2.0 && sha256_of ref2/ref.json >ref2.sha256 &&
	for r in 1 2; do
		"$AUDIT" compare --unregistered --sign-key r1.key --reference ref$r/ref.json --arm baseline --cell spin ev/audit-1 \
			-o ev/reproduction-$r >/dev/null 2>&1 || return 1
	done &&
	"$REPLICATE" log --log ev/log --origin lab.example/log --sign-key lab.key append ev/sealed/SEAL.json \
		ev/sealed/receipt.json ev/replica-1.json ev/replica-2.json ev/audit-1/receipt.json ev/audit-2/receipt.json \
		>/dev/null &&
	far w1 && far w2 && far w3 && witness w1 ev/log && witness w2 ev/log &&
	ls ev/log/cosignatures >got && printf "w1.example_witness\nw2.example_witness\n" >want && test_cmp want got &&
	policy p.json
'

test_expect_success 'every condition holds: PASSED, each named with what held, exit 0' '
	verdict ev && test "$(cat rc)" = 0 && test ! -s err &&
	grep -q "^policy lab-acceptance version 3 (p.json), seal [0-9a-f]\{16\}\.\.\. (ev/sealed/SEAL.json)$" out &&
	for c in policy seal timestamp replicas audits checkpoints grade reference; do
		grep -q "^  $c  *held  *[^ ]" out || { echo "$c not held" >&2; cat out >&2; return 1; }
	done &&
	grep -q "^  replicas  *held  *2 distinct hosts verified every member of a copy (2 required): host1 (ev/replica-1.json), host2 (ev/replica-2.json)$" out &&
	grep -q "^  checkpoints  *held  *2 of 3 witnesses (quorum 2) cosigned checkpoints of lab.example/log that include the seal and the 5 receipts counted (all within its first 6 entries): w1.example/witness (size 6), w2.example/witness (size 6)$" out &&
	grep -q "^  reference  *held  *ev/reproduction-1/receipt.json: reproduced within " out &&
	grep -q "^PASSED: every condition of lab-acceptance held$" out &&
	"$REPLICATE" accept --policy p.json --trust policy.pub --json ev >v.json &&
	test "$(json_words v.json "d[\"format\"], d[\"verdict\"], len(d[\"conditions\"])")" = "evidence-acceptance-verdict/1 PASSED 8"
'

# unmet CONDITION TEXT: the verdict failed (exit 1), CONDITION its first
# unmet condition, saying TEXT (a grep pattern) on the closing line.
unmet () {
	test "$(cat rc)" = 1 && grep -q "^FAILED: $1: $2" out ||
		{ echo "expected FAILED: $1: $2" >&2; cat out err >&2; return 1; }
}

test_expect_success 'policy: expired, signed by a key not trusted, or edited after signing: FAILED naming it' '
	POLICY=old.json && policy old.json "d[\"expires\"] = \"2020-01-01T00:00:00Z\"" && verdict ev &&
	unmet policy "lab-acceptance version 3 expired at 2020-01-01T00:00:00Z$" &&
	grep -q "^  seal  *held " out &&
	POLICY=strange.json && SIGNER=stranger policy strange.json && verdict ev &&
	unmet policy "lab-acceptance version 3 is signed by a key that is not trusted (key_sha256 [0-9a-f]*) (a policy must be signed by a key given with --trust)$" &&
	POLICY=edited.json && python3 -c "
import json; d = json.load(open(\"p.json\")); d[\"replicas\"] = 1
open(\"edited.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\\n\")" &&
	verdict ev && unmet policy "lab-acceptance version 3 does not match its signature: it was altered after it was signed"
'

test_expect_success 'seal: its receipt signed by a key the policy does not let sign seals' '
	POLICY=s.json && policy s.json "d[\"signers\"][\"seal\"] = [\"r1\"]" && verdict ev &&
	unmet seal "no passing seal receipt of seal [0-9a-f]\{16\}\.\.\. signed by a seal signer; not counted: ev/sealed/receipt.json: signed by lab, a key the policy does not let sign seal receipts$"
'

test_expect_success 'timestamp: the seal s time from a TSA that does not chain to the policy s CA' '
	POLICY=t.json && policy t.json "d[\"timestamp\"] = {\"tsa_ca\": open(\"tsa/other-ca.pem\").read()}" &&
	verdict ev && unmet timestamp "ev/sealed/SEAL.json.tsr: chain: the signing certificate (/CN=evidence test TSA good) does not chain to the CA the policy names"
'

test_expect_success 'replicas: three hosts required, two verified; an edited receipt and one not canonical are named, not counted' '
	POLICY=r.json && policy r.json "d[\"replicas\"] = 3" && verdict ev &&
	unmet replicas "2 distinct hosts verified every member of a copy, 3 required: host1 (ev/replica-1.json), host2 (ev/replica-2.json)$" &&
	rm -rf ev2 && cp -R ev ev2 && sed -i "s/\"archive_bytes\":[0-9]*/\"archive_bytes\":1/" ev2/replica-2.json &&
	POLICY=p.json verdict ev2 &&
	unmet replicas "1 distinct host verified every member of a copy, 2 required: host1 (ev2/replica-1.json); not counted: ev2/replica-2.json: its comparable digest does not match its content (it was edited after it was written)$" &&
	python3 -m json.tool ev2/replica-1.json >pretty.json && mv pretty.json ev2/replica-1.json &&
	POLICY=p.json verdict ev2 &&
	unmet replicas "0 distinct hosts verified every member of a copy, 2 required; not counted: ev2/replica-1.json: .*canonical.*; not counted: ev2/replica-2.json: its comparable digest"
'

test_expect_success 'audits: three hosts required, two audited' '
	POLICY=a.json && policy a.json "d[\"audits\"] = 3" && verdict ev &&
	unmet audits "2 distinct hosts audited the campaign to one summary, 3 required: host1 (ev/audit-1/receipt.json), host2 (ev/audit-2/receipt.json)$"
'

# The receipt format written again in Python (comparable digest, Ed25519
# signature over the canonical bytes): a host whose audit computed another
# summary.json, its receipt intact and signed by its own key.
test_expect_success 'audits: two hosts whose audits disagree, both named' '
	rm -rf ev2 && cp -R ev ev2 &&
	/usr/bin/python3 - ev2/audit-2/receipt.json r2.key <<-\PY &&
	import hashlib, json, sys
	from cryptography.hazmat.primitives import serialization
	canon = lambda x: json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
	def names(items):
	    out = []
	    for i in items:
	        o = {"name": i["name"]}
	        if "comparable" in i:
	            o["comparable"] = i["comparable"]
	        elif "sha256" in i:
	            o["sha256"] = i["sha256"]
	        out.append(o)
	    return out
	def comparable(r):
	    part = {"kind": r["kind"], "tool": {"name": r["tool"]["name"], "version": r["tool"]["version"]},
	            "inputs": names(r["inputs"]), "outputs": names(r["outputs"]), "facts": r["facts"],
	            "checks": r["checks"], "result": r["result"]}
	    return hashlib.sha256((canon(part) + "\n").encode()).hexdigest()
	r = json.load(open(sys.argv[1]))
	assert comparable(r) == r["comparable"], "the comparable digest written again is not the one audit wrote"
	[o for o in r["outputs"] if o["name"] == "summary.json"][0]["sha256"] = "0" * 64
	r["comparable"] = comparable(r)
	key = serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None)
	raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
	del r["signature"]
	r["signature"] = {"algorithm": "ed25519", "key_sha256": hashlib.sha256(raw).hexdigest(),
	                  "value": key.sign((canon(r) + "\n").encode()).hex()}
	open(sys.argv[1], "w").write(canon(r) + "\n")
	PY
	"$REPLICATE" check --trust r2.pub ev2/audit-2/receipt.json >/dev/null &&
	verdict ev2 &&
	unmet audits "the audits disagree: ev2/audit-1/receipt.json (on host1) computed summary.json [0-9a-f]\{16\}\.\.\., ev2/audit-2/receipt.json (on host2) 0000000000000000\.\.\.$"
'

test_expect_success 'checkpoints: a quorum of 2 of 3 witnesses with one cosigner; 3 of 3 with two' '
	rm -rf ev2 && cp -R ev ev2 && rm -r ev2/log/cosignatures/w2.example_witness &&
	verdict ev2 &&
	unmet checkpoints "1 of 3 witnesses cosigned a checkpoint of lab.example/log that includes the seal and the 5 receipts counted (its first 6 entries), a quorum of 2 required: w1.example/witness (size 6)$" &&
	POLICY=q.json && policy q.json "d[\"checkpoints\"][\"quorum\"] = 3" && verdict ev &&
	unmet checkpoints "2 of 3 witnesses .* a quorum of 3 required"
'

test_expect_success 'checkpoints: a split view, the log showing w3 another history of the same size, names both' '
	rm -rf fork && mkdir fork && cp ev/log/origin fork/ &&
	cp ev/sealed/SEAL.json ev/sealed/receipt.json ev/replica-1.json ev/replica-2.json fork/ &&
	cp ev/reproduction-1/receipt.json fork/other.json && cp ev/audit-1/receipt.json fork/audit-1.json &&
	"$REPLICATE" log --log fork/log --origin lab.example/log --sign-key lab.key append fork/SEAL.json fork/receipt.json \
		fork/replica-1.json fork/replica-2.json fork/audit-1.json fork/other.json >/dev/null &&
	witness w3 fork/log &&
	rm -rf ev2 && cp -R ev ev2 && cp -R fork/log/cosignatures/w3.example_witness ev2/log/cosignatures/ &&
	verdict ev2 &&
	unmet checkpoints "split view: w[0-9].example/witness cosigned size 6, root [0-9a-f]\{16\}\.\.\. (ev2/log/cosignatures/w[0-9].example_witness/checkpoint-0000000006), and w[0-9].example/witness cosigned size 6, root [0-9a-f]\{16\}\.\.\. (ev2/log/cosignatures/w[0-9].example_witness/checkpoint-0000000006): the log lab.example/log showed its witnesses different histories$" &&
	grep "^FAILED" out | grep -q w3.example/witness
'

test_expect_success 'grade: a diagnostic campaign where the policy requires quiet' '
	rm -rf evd && mkdir evd &&
	"$SEAL" create --sign-key lab.key diag -o evd/sealed >/dev/null &&
	as_host host1 "$AUDIT" campaign --sign-key r1.key --seal evd/sealed/SEAL.json evd/sealed/archive.tar.zst \
		-o evd/audit-1 >/dev/null 2>&1 &&
	POLICY=g.json && policy g.json "d.update(timestamp=None, replicas=0, audits=1, checkpoints=None, reference=None)" &&
	verdict evd && unmet grade "graded diagnostic, quiet required" &&
	grep -q "^  audits  *held " out &&
	POLICY=g2.json && policy g2.json "d.update(timestamp=None, replicas=0, audits=1, checkpoints=None, reference=None, grade=\"any\")" &&
	verdict evd && test "$(cat rc)" = 0 && grep -q "^  grade  *not required  *the policy accepts any grade (the audits graded it diagnostic)$" out
'

test_expect_success 'reference: the published statistics not reproduced' '
	POLICY=ref.json && policy ref.json "d[\"reference\"] = {\"sha256\": open(\"ref2.sha256\").read().strip()}" &&
	verdict ev && unmet reference "ev/reproduction-2/receipt.json: not reproduced: "
'

test_expect_success 'with --sign-key: one bundle, each line verified by PAE and Ed25519 in Python, each predicate by its schema' '
	"$REPLICATE" accept --policy p.json --trust policy.pub --sign-key lab.key --bundle quiet.intoto.jsonl ev >out &&
	grep -q "^PASSED: " out && grep -q "^bundle: quiet.intoto.jsonl (the verdict as a SLSA verification summary" out &&
	/usr/bin/python3 "$EV_SRCDIR/tests/replicate/bundle-check.py" quiet.intoto.jsonl lab.pub >got &&
	cat >want <<-\EOF &&
	https://in-toto.io/attestation/test-result/v0.1: 3
	https://slsa.dev/verification_summary/v1: 1
	urn:evidence:cosigned-checkpoint:v1: 2
	urn:evidence:receipt-log:v1: 1
	urn:evidence:receipt:v1: 6
	urn:evidence:rfc3161-timestamp:v1: 1
	urn:evidence:seal:v1: 1
	bundle: 15 lines verified
	EOF
	test_cmp want got &&
	/usr/bin/python3 - quiet.intoto.jsonl p.json ev/sealed/SEAL.json <<-\PY
	import base64, hashlib, json, sys
	lines = [json.loads(base64.b64decode(json.loads(l)["payload"])) for l in open(sys.argv[1])]
	sha = lambda path: hashlib.sha256(open(path, "rb").read()).hexdigest()
	vsa = [s for s in lines if s["predicateType"] == "https://slsa.dev/verification_summary/v1"][0]
	p = vsa["predicate"]
	assert vsa["subject"] == [{"name": "SEAL.json", "digest": {"sha256": sha(sys.argv[3])}}], vsa["subject"]
	assert p["verificationResult"] == "PASSED" and p["verifiedLevels"] == ["EVIDENCE_ACCEPTED_lab-acceptance_V3"], p
	assert p["policy"] == {"uri": "urn:evidence:acceptance:lab-acceptance:3", "digest": {"sha256": sha(sys.argv[2])}}
	for i in p["inputAttestations"]:  # every document read, by the digest of its bytes
	    assert i["digest"]["sha256"] == sha(i["uri"]), i
	assert len(p["inputAttestations"]) == 11, len(p["inputAttestations"])
	assert [c["state"] for c in p["urn:evidence:conditions"]] == ["held"] * 8
	for t in (s for s in lines if s["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1"):
	    r = [s["predicate"] for s in lines if s["predicateType"] == "urn:evidence:receipt:v1" and
	         hashlib.sha256((json.dumps(s["predicate"], sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
	                        .encode()).hexdigest() == t["predicate"]["urn:evidence:receipt"]["sha256"]][0]
	    assert t["predicate"]["passedTests"] == [c["name"] for c in r["checks"] if c["result"] == "pass"], t
	    assert t["predicate"]["failedTests"] == [] and t["predicate"]["result"] == "PASSED"
	    assert {"name": "plan", "digest": {"sha256": r["inputs"][0]["sha256"]}} in t["predicate"]["configuration"] or \
	        t["predicate"]["urn:evidence:receipt"]["command"] == "audit compare", t
	PY
'

test_expect_success 'accept judges the bundle alone as it judges the directory: the same verdict' '
	"$REPLICATE" accept --policy p.json --trust policy.pub ev | awk "{print \$1, \$2}" >dir.states &&
	mkdir -p away && cp quiet.intoto.jsonl p.json policy.pub away/ &&
	(cd away && "$REPLICATE" accept --policy p.json --trust policy.pub quiet.intoto.jsonl) >out &&
	awk "{print \$1, \$2}" out >bundle.states && test_cmp dir.states bundle.states &&
	grep -q "^  seal  *held  *seal [0-9a-f]\{16\}\.\.\. (quiet), sealed on [^ ]*, its receipt quiet.intoto.jsonl:sealed/receipt.json signed by lab$" out &&
	grep -q "^PASSED: every condition of lab-acceptance held$" out
'

test_expect_success 'a bundle edited: Python refuses the envelope, accept names the receipt edited inside it' '
	/usr/bin/python3 - quiet.intoto.jsonl edited.intoto.jsonl <<-\PY &&
	import base64, json, sys
	out = []
	for line in open(sys.argv[1]):
	    env = json.loads(line)
	    s = json.loads(base64.b64decode(env["payload"]))
	    if s["predicateType"] == "urn:evidence:receipt:v1" and s["predicate"]["kind"] == "replica" and not out.count("done"):
	        s["predicate"]["facts"]["archive_bytes"] += 1
	        env["payload"] = base64.b64encode(json.dumps(s, sort_keys=True, separators=(",", ":")).encode()).decode()
	        out.append("done")
	    out.append(json.dumps(env, sort_keys=True, separators=(",", ":")) + "\n")
	open(sys.argv[2], "w").write("".join(l for l in out if l != "done"))
	PY
	test_expect_code 1 /usr/bin/python3 "$EV_SRCDIR/tests/replicate/bundle-check.py" edited.intoto.jsonl lab.pub 2>err &&
	grep -q "^bundle-check: line [0-9]*: the signature by [0-9a-f]* does not verify over the PAE$" err &&
	verdict edited.intoto.jsonl &&
	unmet replicas "1 distinct host verified every member of a copy, 2 required: host[12] (edited.intoto.jsonl:receipts/00[0-9].json); not counted: edited.intoto.jsonl:receipts/00[0-9].json: its comparable digest does not match its content (it was edited after it was written)$"
'

test_expect_success 'a bundle is a stranger'"'"'s input: a receipt whose kind climbs out of the directory stays in it' '
	/usr/bin/python3 - quiet.intoto.jsonl climb.intoto.jsonl <<-\PY &&
	import base64, json, sys
	out = []
	for line in open(sys.argv[1]):
	    env = json.loads(line)
	    s = json.loads(base64.b64decode(env["payload"]))
	    if s["predicateType"] == "urn:evidence:receipt:v1" and s["predicate"]["kind"] == "replica":
	        s["predicate"]["kind"] = "../../../../../../climbed"
	        env["payload"] = base64.b64encode(json.dumps(s, sort_keys=True, separators=(",", ":")).encode()).decode()
	    out.append(json.dumps(env, sort_keys=True, separators=(",", ":")) + "\n")
	open(sys.argv[2], "w").write("".join(out))
	PY
	mkdir -p private && TMPDIR=$PWD/private verdict climb.intoto.jsonl &&
	test "$(cat rc)" = 1 && unmet replicas "0 distinct hosts" &&
	test -z "$(find / -xdev -name "climbed*" 2>/dev/null)" && dir_empty private
'

test_expect_success 'a FAILED verdict is a FAILED summary; a field the specification requires, missing, is caught by its schema' '
	POLICY=r.json && test_expect_code 1 "$REPLICATE" accept --policy r.json --trust policy.pub --sign-key lab.key \
		--bundle failed.jsonl ev >out &&
	/usr/bin/python3 "$EV_SRCDIR/tests/replicate/bundle-check.py" failed.jsonl lab.pub >/dev/null &&
	/usr/bin/python3 - failed.jsonl lab.key <<-\PY &&
	import base64, json, sys
	from cryptography.hazmat.primitives.serialization import load_pem_private_key
	key = load_pem_private_key(open(sys.argv[2], "rb").read(), None)
	out = []
	for line in open(sys.argv[1]):
	    env = json.loads(line)
	    s = json.loads(base64.b64decode(env["payload"]))
	    if s["predicateType"] == "https://slsa.dev/verification_summary/v1":
	        p = s["predicate"]
	        assert p["verificationResult"] == "FAILED" and p["verifiedLevels"] == ["FAILED"], p
	        assert [c["condition"] for c in p["urn:evidence:conditions"] if c["state"] == "unmet"] == ["replicas"]
	        del p["policy"]["uri"]  # the one field the VSA says a policy MUST carry
	        body = json.dumps(s, sort_keys=True, separators=(",", ":")).encode()
	        pae = b"DSSEv1 %d %s %d %s" % (len(env["payloadType"]), env["payloadType"].encode(), len(body), body)
	        env["payload"] = base64.b64encode(body).decode()
	        env["signatures"][0]["sig"] = base64.b64encode(key.sign(pae)).decode()
	    out.append(json.dumps(env, sort_keys=True, separators=(",", ":")) + "\n")
	open("noruri.jsonl", "w").write("".join(out))
	PY
	test_expect_code 1 /usr/bin/python3 "$EV_SRCDIR/tests/replicate/bundle-check.py" noruri.jsonl lab.pub 2>err &&
	grep -q "^bundle-check: line [0-9]*: https://slsa.dev/verification_summary/v1: .uri. is a required property at policy$" err
'

test_expect_success 'the bundle is never replaced; --bundle needs a key; a bundle is judged, not bundled again' '
	cp quiet.intoto.jsonl before.jsonl &&
	test_expect_code 2 "$REPLICATE" accept --policy p.json --trust policy.pub --sign-key lab.key \
		--bundle quiet.intoto.jsonl ev >out 2>err &&
	grep -q "^replicate: quiet.intoto.jsonl: already exists" err && test_cmp before.jsonl quiet.intoto.jsonl &&
	test_expect_code 2 "$REPLICATE" accept --policy p.json --trust policy.pub --bundle x.jsonl ev 2>err &&
	grep -q "^replicate: --bundle is signed: give --sign-key KEY" err && test_must_be_absent x.jsonl &&
	test_expect_code 2 "$REPLICATE" accept --policy p.json --trust policy.pub --sign-key lab.key --bundle y.jsonl \
		quiet.intoto.jsonl 2>err &&
	grep -q "quiet.intoto.jsonl is a bundle already" err && test_must_be_absent y.jsonl &&
	"$REPLICATE" accept --policy p.json --trust policy.pub --sign-key lab.key quiet.intoto.jsonl >out &&
	! grep -q "^bundle:" out
'

test_expect_success 'SIGTERM while the bundle, or a policy, is being synced: exit 2, nothing published, no temporary' '
	late_signal late.intoto 1 "$REPLICATE" accept --policy p.json --trust policy.pub --sign-key lab.key \
		--bundle late.intoto.jsonl ev &&
	policy unused.json &&
	late_signal late-policy 1 "$REPLICATE" sign-policy --sign-key policy.key --key lab=lab.pub --key r1=r1.pub \
		--key r2=r2.pub --key w1.example/witness=w1.pub --key w2.example/witness=w2.pub \
		--key w3.example/witness=w3.pub -o late-policy.json draft.json
'

test_expect_success 'refused, exit 2: a policy that is not one, two seals, no trust list, a policy that exists' '
	python3 -c "
import json; d = json.load(open(\"p.json\")); del d[\"replicas\"]
open(\"bad.json\", \"w\").write(json.dumps(d, sort_keys=True, separators=(\",\", \":\")) + \"\\n\")" &&
	POLICY=bad.json verdict ev && test "$(cat rc)" = 2 &&
	grep -q "^replicate: bad.json: replicas: missing (a policy states every condition; null where it requires none)$" err &&
	test ! -s out &&
	/usr/bin/python3 -c "import json; d = json.load(open(\"draft.json\")); d[\"quorum\"] = 2; json.dump(d, open(\"draft2.json\", \"w\"))" &&
	test_expect_code 2 "$REPLICATE" sign-policy --sign-key policy.key -o never.json draft2.json 2>err &&
	grep -q "^replicate: draft2.json: quorum: not a key of evidence-acceptance/1$" err && test_must_be_absent never.json &&
	cp p.json kept.json &&
	test_expect_code 2 "$REPLICATE" sign-policy --sign-key policy.key -o kept.json draft.json 2>err &&
	test_cmp p.json kept.json &&
	rm -rf ev3 && mkdir ev3 && cp -R ev/sealed ev3/ && "$SEAL" create diag -o ev3/other >/dev/null &&
	POLICY=p.json verdict ev3 && test "$(cat rc)" = 2 &&
	grep -q "^replicate: ev3 holds more than one seal (ev3/other/SEAL.json, ev3/sealed/SEAL.json): name the one to judge with --seal SEAL.json$" err &&
	verdict ev3 --seal ev3/sealed/SEAL.json && test "$(cat rc)" = 1 &&
	test_expect_code 2 "$REPLICATE" accept --policy p.json ev 2>err &&
	grep -q "no trust list given (--trust FILE: the keys a policy may be signed by)" err
'

test_done
