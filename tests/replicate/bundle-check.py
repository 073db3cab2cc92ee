#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bundle-check.py BUNDLE PUBLIC_KEY.pem: an in-toto bundle checked by
tools that are not evidence's, line by line, as a reviewer would:

- each line a DSSE envelope (exactly payload, payloadType, signatures),
  every signature Ed25519 over the pre-authentication encoding (DSSE v1),
  verified with python3-cryptography against PUBLIC_KEY;
- each payload an in-toto Statement v1, held to its JSON Schema;
- each predicate whose type a specification defines held to that
  specification's fields, written down here as JSON Schemas (Draft 2020-12)
  and checked with python3-jsonschema: the SLSA verification summary
  (slsa.dev/spec/v1.0/verification_summary) and the in-toto test result
  (in-toto/attestation spec/predicates/test-result.md), their
  ResourceDescriptors (spec/v1/resource_descriptor.md);
- the bundle as in-toto's spec/v1/bundle.md asks: JSON Lines, one
  envelope a line.
Prints one line per predicate type, "TYPE: N", then "bundle: N lines
verified"; exits 1 naming the line and what failed."""
import base64
import json
import sys

import jsonschema
from cryptography.hazmat.primitives.serialization import load_pem_public_key

DIGEST_SET = {"type": "object", "minProperties": 1,
              "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]+$"}}
# spec/v1/resource_descriptor.md: at least one of uri, digest, content
RESOURCE_DESCRIPTOR = {
    "type": "object",
    "properties": {"uri": {"type": "string", "minLength": 1}, "digest": DIGEST_SET,
                   "name": {"type": "string"}, "downloadLocation": {"type": "string"},
                   "mediaType": {"type": "string"}, "content": {"type": "string"},
                   "annotations": {"type": "object"}},
    "anyOf": [{"required": ["uri"]}, {"required": ["digest"]}, {"required": ["content"]}],
}
TIMESTAMP = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"}
# spec/v1/statement.md
STATEMENT = {
    "type": "object",
    "required": ["_type", "subject", "predicateType"],
    "properties": {
        "_type": {"const": "https://in-toto.io/Statement/v1"},
        "subject": {"type": "array", "minItems": 1, "items": {
            "allOf": [RESOURCE_DESCRIPTOR, {"required": ["digest"]}]}},
        "predicateType": {"type": "string", "minLength": 1},
        "predicate": {"type": "object"},
    },
}
# slsa.dev/spec/v1.0/verification_summary: "Required" and the types of each field
VSA = {
    "type": "object",
    "required": ["verifier", "timeVerified", "resourceUri", "policy", "verificationResult", "verifiedLevels"],
    "properties": {
        "verifier": {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string", "minLength": 1},
            "version": {"type": "object", "additionalProperties": {"type": "string"}}}},
        "timeVerified": TIMESTAMP,
        "resourceUri": {"type": "string", "minLength": 1},
        "policy": {"allOf": [RESOURCE_DESCRIPTOR, {"required": ["uri"]}]},
        "inputAttestations": {"type": "array", "items": {"allOf": [RESOURCE_DESCRIPTOR, {"required": ["digest"]}]}},
        "verificationResult": {"enum": ["PASSED", "FAILED"]},
        "verifiedLevels": {"type": "array", "items": {"type": "string", "not": {"pattern": "^SLSA_(?!BUILD_LEVEL_[0-3]$)"}}},
        "dependencyLevels": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        "slsaVersion": {"type": "string", "pattern": r"^\d+\.\d+$"},
    },
}
# in-toto/attestation spec/predicates/test-result.md
TEST_RESULT = {
    "type": "object",
    "required": ["result", "configuration"],
    "properties": {
        "result": {"enum": ["PASSED", "WARNED", "FAILED"]},
        "configuration": {"type": "array", "items": RESOURCE_DESCRIPTOR},
        "url": {"type": "string"},
        "passedTests": {"type": "array", "items": {"type": "string"}},
        "warnedTests": {"type": "array", "items": {"type": "string"}},
        "failedTests": {"type": "array", "items": {"type": "string"}},
    },
}
PREDICATES = {"https://slsa.dev/verification_summary/v1": VSA,
              "https://in-toto.io/attestation/test-result/v0.1": TEST_RESULT}


def fail(line, what):
    print("bundle-check: line %d: %s" % (line, what), file=sys.stderr)
    sys.exit(1)


def main():
    bundle, pem = sys.argv[1], sys.argv[2]
    key = load_pem_public_key(open(pem, "rb").read())
    raw = key.public_bytes_raw() if hasattr(key, "public_bytes_raw") else None
    import hashlib
    from cryptography.hazmat.primitives import serialization
    raw = raw or key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    keyid = hashlib.sha256(raw).hexdigest()
    for schema in [STATEMENT] + list(PREDICATES.values()):
        jsonschema.Draft202012Validator.check_schema(schema)
    counts = {}
    text = open(bundle, "rb").read()
    if not text.endswith(b"\n"):
        fail(text.count(b"\n") + 1, "the last line has no newline (JSON Lines)")
    lines = text.split(b"\n")[:-1]
    for n, line in enumerate(lines, 1):
        env = json.loads(line)
        if sorted(env) != ["payload", "payloadType", "signatures"]:
            fail(n, "not a DSSE envelope: %s" % sorted(env))
        ptype = env["payloadType"].encode()
        body = base64.b64decode(env["payload"], validate=True)
        pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(body), body)
        mine = [s for s in env["signatures"] if s["keyid"] == keyid]
        if not mine:
            fail(n, "no signature by key %s" % keyid)
        for s in mine:
            try:
                key.verify(base64.b64decode(s["sig"], validate=True), pae)
            except Exception:
                fail(n, "the signature by %s does not verify over the PAE" % keyid)
        if env["payloadType"] != "application/vnd.in-toto+json":
            fail(n, "payloadType %s" % env["payloadType"])
        statement = json.loads(body)
        try:
            jsonschema.validate(statement, STATEMENT, cls=jsonschema.Draft202012Validator)
            schema = PREDICATES.get(statement["predicateType"])
            if schema:
                jsonschema.validate(statement["predicate"], schema, cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as e:
            fail(n, "%s: %s at %s" % (statement.get("predicateType"), e.message, "/".join(map(str, e.path))))
        counts[statement["predicateType"]] = counts.get(statement["predicateType"], 0) + 1
    for t in sorted(counts):
        print("%s: %d" % (t, counts[t]))
    print("bundle: %d lines verified" % len(lines))


main()
