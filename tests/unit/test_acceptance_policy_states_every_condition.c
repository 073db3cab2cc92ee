/* SPDX-License-Identifier: Apache-2.0 */
/* acceptance: a policy reads back with every condition it states (its
 * keys, the signers each receipt kind may have, the witnesses of its
 * quorum); each way a policy can leave a reader guessing is refused
 * naming its key: a key missing, one unknown, a signer or witness not in
 * "keys", a key that is not 32 bytes of base64, a quorum above its
 * witnesses or of 0, a time not in UTC's one form, "quiet" without an
 * audit, a seal signer missing. Whether it is signed and unexpired is
 * accept's condition, not a reading error (t-accept-judges-...). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/receipt/acceptance.h"

#define KEY_A "vZmapHvEPEhpnNnLM1p/FfMqOzGlSrsqjdVpwGXLA0M="
#define KEY_B "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
#define KEY_C "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="

static const char *base =
	"{\"format\": \"evidence-acceptance/1\", \"name\": \"lab\", \"version\": 2, \"expires\": \"2030-01-01T00:00:00Z\","
	" \"keys\": {\"lab\": \"" KEY_A "\", \"w1.example/witness\": \"" KEY_B "\", \"w2\": \"" KEY_C "\"},"
	" \"signers\": {\"seal\": [\"lab\"], \"replica\": [\"lab\", \"w2\"], \"audit\": [\"lab\"]},"
	" \"timestamp\": null, \"replicas\": 2, \"audits\": 1,"
	" \"checkpoints\": {\"origin\": \"lab.example/log\", \"log_key\": \"lab\","
	"                   \"witnesses\": [\"w1.example/witness\", \"w2\"], \"quorum\": 2},"
	" \"grade\": \"quiet\", \"reference\": null}";

/* base with the first occurrence of from replaced by to, read: the
 * refusal ("" when it reads). */
static const char *read_edited(const char *from, const char *to)
{
	static char why[1024];
	char text[4096];
	const char *at = strstr(base, from);
	CHECK(at != NULL);
	snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e);
	CHECK(doc != NULL);
	struct ev_acceptance p;
	struct ev_error err;
	ev_error_clear(&err);
	why[0] = '\0';
	if (ev_acceptance_read(doc, "P", &p, &err) != EV_OK)
		snprintf(why, sizeof why, "%s", err.text);
	ev_acceptance_free(&p);
	json_decref(doc);
	return why;
}

int main(void)
{
	json_error_t e;
	json_t *doc = json_loads(base, 0, &e);
	CHECK(doc != NULL);
	struct ev_acceptance p;
	struct ev_error err;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_acceptance_read(doc, "P", &p, &err), EV_OK);
	CHECK_STR_EQ(p.name, "lab");
	CHECK(p.version == 2 && p.expires_at == 1893456000);
	CHECK(p.nkeys == 3 && p.replicas == 2 && p.audits == 1 && p.grade_quiet && !p.tsa_ca && !p.reference_sha256);
	CHECK(p.checkpoints && p.quorum == 2 && p.nwitnesses == 2);
	CHECK_STR_EQ(p.keys[p.log_key].name, "lab");
	CHECK_STR_EQ(p.keys[p.witnesses[0]].name, "w1.example/witness");
	CHECK(ev_trust_count(p.signers[EV_ACCEPT_SEAL]) == 1 && ev_trust_count(p.signers[EV_ACCEPT_REPLICA]) == 2);
	/* a key's id is the SHA-256 of its raw bytes, as receipts name signers */
	CHECK(ev_acceptance_key_by_id(&p, p.keys[1].id) == 1 && ev_acceptance_key_by_id(&p, "00") == (size_t)-1);
	ev_acceptance_free(&p);
	json_decref(doc);

	CHECK_STR_EQ(read_edited("\"replicas\": 2, ", ""),
		     "P: replicas: missing (a policy states every condition; null where it requires none)");
	CHECK_STR_EQ(read_edited("\"grade\"", "\"minimum\": 1, \"grade\""), "P: minimum: not a key of evidence-acceptance/1");
	CHECK_STR_EQ(read_edited("\"replica\": [\"lab\", \"w2\"]", "\"replica\": [\"lab\", \"w3\"]"),
		     "P: signers.replica: w3 is not a key the policy names in \"keys\"");
	CHECK_STR_EQ(read_edited("\"audit\": [", "\"capture\": [\"lab\"], \"audit\": ["),
		     "P: signers.capture: not a receipt kind a policy names signers for (seal, replica, audit)");
	CHECK_STR_EQ(read_edited("\"seal\": [\"lab\"], ", ""), "P: signers.seal: missing (the seal's receipt is always judged)");
	CHECK_STR_EQ(read_edited(KEY_C, "AQID"), "P: keys.w2: expected a key name (printable ASCII without space or '+') "
						 "and the base64 of a raw 32-byte Ed25519 public key");
	CHECK_STR_EQ(read_edited("\"w2\": \"", "\"w 2\": \""), "P: keys.w 2: expected a key name (printable ASCII without "
							      "space or '+') and the base64 of a raw 32-byte Ed25519 public key");
	CHECK_STR_EQ(read_edited("\"quorum\": 2", "\"quorum\": 3"),
		     "P: checkpoints.quorum: expected 1 to 2 (the witnesses named), found 3");
	CHECK_STR_EQ(read_edited("\"quorum\": 2", "\"quorum\": 0"),
		     "P: checkpoints.quorum: expected 1 to 2 (the witnesses named), found 0");
	CHECK_STR_EQ(read_edited("[\"w1.example/witness\", \"w2\"]", "[\"w2\", \"w2\"]"),
		     "P: checkpoints.witnesses: w2 is named twice");
	CHECK_STR_EQ(read_edited("[\"w1.example/witness\", \"w2\"]", "[\"lab\"]"),
		     "P: checkpoints.witnesses: lab is not a key the policy names in \"keys\" other than the log's");
	CHECK_STR_EQ(read_edited("2030-01-01T00:00:00Z", "2030-01-01 00:00:00"),
		     "P: expires: expected a UTC time, YYYY-MM-DDTHH:MM:SSZ");
	CHECK_STR_EQ(read_edited("\"audits\": 1", "\"audits\": 0"),
		     "P: grade: \"quiet\" needs audits: at least 1 (the grade is an audit's)");
	CHECK_STR_EQ(read_edited("\"timestamp\": null", "\"timestamp\": {\"tsa_ca\": \"ca.pem\"}"),
		     "P: timestamp: expected null or {\"tsa_ca\": the PEM certificate(s) the seal's time-stamp authority "
		     "must chain to}");
	CHECK_STR_EQ(read_edited("\"reference\": null", "\"reference\": {\"sha256\": \"abc\"}"),
		     "P: reference: expected null or {\"sha256\": the SHA-256 of the published reference "
		     "(evidence-reference/1) the campaign must reproduce}");
	CHECK_STR_EQ(read_edited("\"checkpoints\": {", "\"checkpoints\": {\"size\": 1, "),
		     "P: checkpoints.size: not a key of checkpoints (log_key, origin, quorum, witnesses)");
	CHECK_STR_EQ(read_edited("\"version\": 2", "\"version\": 0"), "P: version: expected an integer from 1");
	CHECK_STR_EQ(read_edited("\"grade\": \"quiet\"", "\"grade\": \"any\""), "");
	return check_exit("acceptance");
}
