/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp: RFC 3161 trusted timestamps of a file's SHA-256, through
 * OpenSSL's TS API (no ASN.1 of our own).
 *
 * A request (TimeStampReq, DER: FILE.tsq) holds the SHA-256 of the file's
 * bytes, a random 64-bit nonce, and asks for the TSA's certificate. A
 * reply (TimeStampResp, DER: FILE.tsr) is stored only once it is verified,
 * each fact in turn, the first that fails named:
 *   status      the TSA granted it;
 *   imprint     the token's message imprint is SHA-256 and exactly our digest;
 *   nonce       the token's nonce is the request's;
 *   eku         the signing certificate has the timeStamping extended key usage;
 *   chain       the signing certificate chains to the CA file given, checked
 *               at the token's genTime (so a token stays valid after its
 *               certificate expires; one signed outside the certificate's
 *               validity never is);
 *   signature   the token's signature over its TSTInfo verifies (with the
 *               ESS signing-certificate binding OpenSSL checks).
 * No global state.
 */
#ifndef EV_TIMESTAMP_H
#define EV_TIMESTAMP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

/* A TimeStampReq over digest, DER into *der (malloc'd, *len bytes). */
ev_status ev_timestamp_request(const uint8_t digest[EV_SHA256_LEN], unsigned char **der, size_t *len,
			       struct ev_error *err);

struct ev_timestamp_verdict {
	char gen_time[32];     /* the token's genTime, UTC: 2026-12-05T06:40:00Z */
	char tsa[256];         /* the signing certificate's subject */
	char serial[80];       /* the token's serial number, hex */
};

/* Hold reply (tsr) to the request (tsq) made over digest, and its signer
 * to ca_file: a PEM file, or, when it begins "-----BEGIN ", the PEM
 * certificates themselves (as an acceptance policy carries its CA). @return EV_OK with v filled; EV_MISMATCH with why
 * (why_cap bytes) starting with the fact that failed ("nonce: ...");
 * EV_ERROR. */
ev_status ev_timestamp_verify(const uint8_t digest[EV_SHA256_LEN], const unsigned char *tsq, size_t qlen,
			      const unsigned char *tsr, size_t rlen, const char *ca_file, struct ev_timestamp_verdict *v,
			      char *why, size_t why_cap, struct ev_error *err);

#endif
