/* SPDX-License-Identifier: Apache-2.0 */
/* An Ed25519-signed receipt verifies under its own public key only; any
 * edit after signing, a key that is not trusted, and a missing signature
 * are each told apart. Keys are written 0600/0644, never overwritten, and
 * a private key others can read is refused. */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"

static char dir[] = "/tmp/evidence-test-signature.XXXXXX";

static const char *in_dir(const char *name)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

static unsigned mode_of(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (unsigned)sb.st_mode & 07777 : 0xffff;
}

static json_t *sample_receipt(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	json_t *r = ev_receipt_new("replica", "replicate", NULL, &err);
	ev_receipt_add_input(r, "archive", NULL, "ab", &err);
	ev_receipt_add_check(r, "members", 1, "3 members expected, 0 findings", &err);
	ev_receipt_finish(r, &err);
	CHECK_INT_EQ(err.status, EV_OK);
	return r;
}

static ev_status judge(const json_t *r, const struct ev_trust *t, char *why, size_t cap)
{
	struct ev_error err;
	ev_error_clear(&err);
	why[0] = '\0';
	return ev_receipt_check_signature(r, t, NULL, why, cap, &err);
}

int main(void)
{
	struct ev_error err;
	char why[256], id[EV_SHA256_HEX_LEN + 1];
	ev_error_clear(&err);
	umask(022);
	CHECK(mkdtemp(dir) != NULL);

	CHECK_INT_EQ(ev_signature_keygen(in_dir("a.key"), in_dir("a.pub"), id, &err), EV_OK);
	CHECK_INT_EQ(mode_of(in_dir("a.key")), 0600);
	CHECK_INT_EQ(mode_of(in_dir("a.pub")), 0644);
	CHECK(ev_sha256_hex_valid(id));
	CHECK_INT_EQ(ev_signature_keygen(in_dir("b.key"), in_dir("b.pub"), NULL, &err), EV_OK);

	ev_error_clear(&err);
	CHECK_INT_EQ(ev_signature_keygen(in_dir("a.key"), in_dir("c.pub"), NULL, &err), EV_REFUSED);
	CHECK(access(in_dir("c.pub"), F_OK) != 0);

	struct ev_signing_key *a = NULL, *b = NULL;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_signing_key_load(in_dir("a.key"), &a, &err), EV_OK);
	CHECK_INT_EQ(ev_signing_key_load(in_dir("b.key"), &b, &err), EV_OK);

	struct ev_trust *trust = ev_trust_new();
	CHECK_INT_EQ(ev_trust_add_file(trust, in_dir("a.pub"), &err), EV_OK);
	CHECK_INT_EQ(ev_trust_count(trust), 1);

	json_t *r = sample_receipt();
	CHECK_INT_EQ(judge(r, trust, why, sizeof why), EV_MISMATCH);
	CHECK_STR_EQ(why, "is not signed");

	CHECK_INT_EQ(ev_receipt_sign(r, a, &err), EV_OK);
	CHECK_INT_EQ(judge(r, trust, why, sizeof why), EV_OK);
	CHECK_STR_EQ(json_string_value(json_object_get(json_object_get(r, "signature"), "key_sha256")),
		     id);
	/* Signing does not touch the host-independent part. */
	CHECK_INT_EQ(ev_receipt_comparable_holds(r, &err), 1);

	json_t *edited = json_deep_copy(r);
	json_object_set_new(edited, "host", json_string("elsewhere"));
	CHECK_INT_EQ(judge(edited, trust, why, sizeof why), EV_MISMATCH);
	CHECK_STR_EQ(why, "does not match its signature: it was altered after it was signed");
	json_decref(edited);

	json_t *by_b = sample_receipt();
	CHECK_INT_EQ(ev_receipt_sign(by_b, b, &err), EV_OK);
	CHECK_INT_EQ(judge(by_b, trust, why, sizeof why), EV_MISMATCH);
	CHECK(strncmp(why, "is signed by a key that is not trusted (key_sha256 ", 51) == 0);
	CHECK_INT_EQ(ev_trust_add_file(trust, in_dir("b.pub"), &err), EV_OK);
	CHECK_INT_EQ(judge(by_b, trust, why, sizeof why), EV_OK);

	/* A private key that others can read is refused, as ssh refuses it. */
	chmod(in_dir("b.key"), 0644);
	struct ev_signing_key *loose = NULL;
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_signing_key_load(in_dir("b.key"), &loose, &err), EV_REFUSED);
	CHECK(strstr(err.text, "expected mode 0600, found 0644") != NULL);
	CHECK(loose == NULL);

	/* A public key file is not a private key, and vice versa. */
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_trust_add_file(trust, in_dir("a.key"), &err), EV_REFUSED);

	json_decref(r);
	json_decref(by_b);
	ev_signing_key_free(a);
	ev_signing_key_free(b);
	ev_trust_free(trust);
	const char *names[] = {"a.key", "a.pub", "b.key", "b.pub"};
	for (size_t i = 0; i < 4; i++)
		unlink(in_dir(names[i]));
	rmdir(dir);
	return check_exit("test_signature_detects_alteration_and_foreign_keys");
}
