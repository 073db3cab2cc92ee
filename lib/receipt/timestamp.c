/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp: RFC 3161 requests and the checks of a reply (timestamp.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ts.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "lib/receipt/timestamp.h"

ev_status ev_timestamp_request(const uint8_t digest[EV_SHA256_LEN], unsigned char **der, size_t *len,
			       struct ev_error *err)
{
	*der = NULL;
	TS_REQ *req = TS_REQ_new();
	TS_MSG_IMPRINT *imprint = TS_MSG_IMPRINT_new();
	X509_ALGOR *algo = X509_ALGOR_new();
	ASN1_INTEGER *nonce = NULL;
	BIGNUM *bn = BN_new();
	unsigned char random[8];
	ev_status st = EV_OK;
	if (!req || !imprint || !algo || !bn || RAND_bytes(random, sizeof random) != 1 ||
	    !BN_bin2bn(random, sizeof random, bn) || !(nonce = BN_to_ASN1_INTEGER(bn, NULL)) ||
	    X509_ALGOR_set0(algo, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL) != 1 ||
	    TS_MSG_IMPRINT_set_algo(imprint, algo) != 1 ||
	    TS_MSG_IMPRINT_set_msg(imprint, (unsigned char *)digest, EV_SHA256_LEN) != 1 ||
	    TS_REQ_set_version(req, 1) != 1 || TS_REQ_set_msg_imprint(req, imprint) != 1 ||
	    TS_REQ_set_nonce(req, nonce) != 1 || TS_REQ_set_cert_req(req, 1) != 1) {
		st = ev_error_set(err, EV_ERROR, "cannot make a timestamp request (%s)",
				  ERR_reason_error_string(ERR_get_error()) ?: "no reason given");
	} else {
		int n = i2d_TS_REQ(req, der);
		if (n <= 0)
			st = ev_error_set(err, EV_ERROR, "cannot encode the timestamp request");
		else
			*len = (size_t)n;
	}
	ERR_clear_error();
	BN_free(bn);
	ASN1_INTEGER_free(nonce);
	X509_ALGOR_free(algo);
	TS_MSG_IMPRINT_free(imprint);
	TS_REQ_free(req);
	return st;
}

/* A verdict: OpenSSL's error queue is left empty for the next caller. */
#define fail(why, cap, ...) (ERR_clear_error(), ev_why(why, cap, __VA_ARGS__))

static void utc_of(const ASN1_GENERALIZEDTIME *t, char *out, size_t cap, time_t *when)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	*when = 0;
	out[0] = 0;
	if (t && ASN1_TIME_to_tm(t, &tm) == 1) {
		*when = timegm(&tm);
		strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
}

/* The TSA's certificate in the token: the one its signer info names. */
static X509 *signer_of(PKCS7 *token)
{
	STACK_OF(X509) *signers = PKCS7_get0_signers(token, NULL, 0);
	X509 *x = signers && sk_X509_num(signers) == 1 ? sk_X509_value(signers, 0) : NULL;
	if (x)
		X509_up_ref(x);
	sk_X509_free(signers);
	return x;
}

static int ca_is_text(const char *ca)
{
	return strncmp(ca, "-----BEGIN ", 11) == 0;
}

/* The CA certificates of a file, or of PEM text itself (a policy carries
 * its CA inline, so that it is one self-contained signed document). */
static X509_STORE *ca_store(const char *ca)
{
	X509_STORE *store = X509_STORE_new();
	if (!store)
		return NULL;
	if (!ca_is_text(ca)) {
		if (X509_STORE_load_file(store, ca) == 1)
			return store;
		X509_STORE_free(store);
		return NULL;
	}
	BIO *bio = BIO_new_mem_buf(ca, -1);
	X509 *x;
	int n = 0;
	while (bio && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		n += X509_STORE_add_cert(store, x) == 1;
		X509_free(x);
	}
	BIO_free(bio);
	ERR_clear_error(); /* the loop ends on "no start line" */
	if (n)
		return store;
	X509_STORE_free(store);
	return NULL;
}

ev_status ev_timestamp_verify(const uint8_t digest[EV_SHA256_LEN], const unsigned char *tsq, size_t qlen,
			      const unsigned char *tsr, size_t rlen, const char *ca_file, struct ev_timestamp_verdict *v,
			      char *why, size_t why_cap, struct ev_error *err)
{
	memset(v, 0, sizeof *v);
	const unsigned char *p = tsq;
	TS_REQ *req = d2i_TS_REQ(NULL, &p, (long)qlen);
	p = tsr;
	TS_RESP *resp = d2i_TS_RESP(NULL, &p, (long)rlen);
	X509_STORE *store = NULL;
	X509 *signer = NULL;
	X509_STORE_CTX *ctx = NULL;
	ev_status st = EV_OK;
	if (!req) {
		st = fail(why, why_cap, "request: not a DER TimeStampReq");
		goto out;
	}
	if (!resp) {
		st = fail(why, why_cap, "reply: not a DER TimeStampResp");
		goto out;
	}
	long status = ASN1_INTEGER_get(TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(resp)));
	TS_TST_INFO *info = TS_RESP_get_tst_info(resp);
	PKCS7 *token = TS_RESP_get_token(resp);
	if ((status != TS_STATUS_GRANTED && status != TS_STATUS_GRANTED_WITH_MODS) || !info || !token) {
		st = fail(why, why_cap, "status: the TSA did not grant it (status %ld)", status);
		goto out;
	}
	TS_MSG_IMPRINT *imprint = TS_TST_INFO_get_msg_imprint(info);
	const ASN1_OBJECT *alg = NULL;
	X509_ALGOR_get0(&alg, NULL, NULL, TS_MSG_IMPRINT_get_algo(imprint));
	ASN1_OCTET_STRING *msg = TS_MSG_IMPRINT_get_msg(imprint);
	if (!alg || OBJ_obj2nid(alg) != NID_sha256 || ASN1_STRING_length(msg) != EV_SHA256_LEN ||
	    memcmp(ASN1_STRING_get0_data(msg), digest, EV_SHA256_LEN) != 0) {
		st = fail(why, why_cap, "imprint: the token is for another digest than this file's SHA-256");
		goto out;
	}
	const ASN1_INTEGER *want = TS_REQ_get_nonce(req), *got = TS_TST_INFO_get_nonce(info);
	if (!want || !got || ASN1_INTEGER_cmp(want, got) != 0) {
		st = fail(why, why_cap, "nonce: the token's nonce is not the request's (a reply to another request)");
		goto out;
	}
	time_t when;
	utc_of(TS_TST_INFO_get_time(info), v->gen_time, sizeof v->gen_time, &when);
	const ASN1_INTEGER *serial = TS_TST_INFO_get_serial(info);
	BIGNUM *bn = serial ? ASN1_INTEGER_to_BN(serial, NULL) : NULL;
	char *hex = bn ? BN_bn2hex(bn) : NULL;
	snprintf(v->serial, sizeof v->serial, "%s", hex ? hex : "");
	OPENSSL_free(hex);
	BN_free(bn);
	if (!(signer = signer_of(token))) {
		st = fail(why, why_cap, "eku: the token carries no signing certificate (request it with certReq)");
		goto out;
	}
	X509_NAME_oneline(X509_get_subject_name(signer), v->tsa, sizeof v->tsa);
	uint32_t xku = X509_get_extended_key_usage(signer);
	if (!(X509_get_extension_flags(signer) & EXFLAG_XKUSAGE) || !(xku & XKU_TIMESTAMP)) {
		st = fail(why, why_cap, "eku: the signing certificate (%s) lacks the timeStamping extended key usage",
			  v->tsa);
		goto out;
	}
	if (!(store = ca_store(ca_file))) {
		st = fail(why, why_cap, "chain: cannot read the CA %s", ca_is_text(ca_file) ? "the policy names" : ca_file);
		goto out;
	}
	/* the chain as it stood when the token was made */
	X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(store), when);
	X509_VERIFY_PARAM_set_purpose(X509_STORE_get0_param(store), X509_PURPOSE_TIMESTAMP_SIGN);
	STACK_OF(X509) *certs = token->d.sign->cert;
	if (!(ctx = X509_STORE_CTX_new()) || X509_STORE_CTX_init(ctx, store, signer, certs) != 1) {
		st = ev_error_set(err, EV_ERROR, "cannot check a certificate chain");
		goto out;
	}
	if (X509_verify_cert(ctx) != 1) {
		st = fail(why, why_cap, "chain: the signing certificate (%s) does not chain to %s at the token's time %s: %s",
			  v->tsa, ca_is_text(ca_file) ? "the CA the policy names" : ca_file, v->gen_time, X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
		goto out;
	}
	X509 *by = NULL;
	if (TS_RESP_verify_signature(token, certs, store, &by) != 1) {
		st = fail(why, why_cap, "signature: the token's signature over its contents does not verify");
		X509_free(by);
		goto out;
	}
	X509_free(by);
out:
	ERR_clear_error();
	X509_STORE_CTX_free(ctx);
	X509_free(signer);
	X509_STORE_free(store);
	TS_RESP_free(resp);
	TS_REQ_free(req);
	return st;
}
