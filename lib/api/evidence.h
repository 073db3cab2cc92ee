/* SPDX-License-Identifier: Apache-2.0 */
/* evidence.h: libevidence's public API, version 1.
 *
 * A small, stable surface over what the tools do, for programs that check
 * evidence themselves: seal a tree, verify a tree or an archive against its
 * seal, read and verify a receipt, audit the FIX journals of one pair.
 * Everything else in the library is private (not exported).
 *
 * Every call returns EVIDENCE_OK (0: everything held), EVIDENCE_FINDINGS
 * (1: a check failed; each finding was passed to fn when one is given, and
 * out->findings counts them) or EVIDENCE_ERROR (2: usage, I/O, a refused
 * input or a signal; out->error says what, naming the file). out may not
 * be NULL; fn may be. Calls are independent: no global state, and two
 * threads may each make their own calls.
 *
 * Build against it with: cc prog.c $(pkg-config --cflags --libs evidence)
 */
#ifndef EVIDENCE_H
#define EVIDENCE_H

#ifdef __cplusplus
extern "C" {
#endif

#define EVIDENCE_API_VERSION 1

#if defined(__GNUC__)
#define EVIDENCE_EXPORT __attribute__((visibility("default")))
#else
#define EVIDENCE_EXPORT
#endif

enum evidence_status { EVIDENCE_OK = 0, EVIDENCE_FINDINGS = 1, EVIDENCE_ERROR = 2 };

/* One difference a check saw: the member, file or record it is about, a
 * stable check name ("sha256", "missing", ...), a sentence, and the values
 * expected and found ("" when not applicable). Valid during the call. */
struct evidence_finding {
	const char *subject, *check, *message, *expected, *found;
};
typedef void (*evidence_finding_fn)(void *ctx, const struct evidence_finding *f);

struct evidence_outcome {
	unsigned long long findings; /* every finding, passed to fn or not */
	char error[1024];            /* with EVIDENCE_ERROR: what went wrong, for people */
};

/* The library's version ("0.1.0"). */
EVIDENCE_EXPORT const char *evidence_version(void);

/* Seal tree into outdir (new; SEAL.json, archive.tar.zst, receipt.json),
 * as `seal create TREE -o OUTDIR` does. A member that cannot be sealed
 * safely is a finding, and nothing is written. */
EVIDENCE_EXPORT int evidence_seal_create(const char *tree, const char *outdir, evidence_finding_fn fn, void *ctx,
					 struct evidence_outcome *out);

/* Hold tree to seal_json (pinned to seal_sha256, 64 hex digits, when not
 * NULL): every member's type, size, mode and SHA-256, nothing missing or
 * extra, as `seal verify` does, writing no receipt. */
EVIDENCE_EXPORT int evidence_seal_verify(const char *seal_json, const char *seal_sha256, const char *tree,
					 evidence_finding_fn fn, void *ctx, struct evidence_outcome *out);

/* Hold an archive to seal_json in one streamed read, as `replicate verify`
 * does, writing no receipt. */
EVIDENCE_EXPORT int evidence_archive_verify(const char *seal_json, const char *seal_sha256, const char *archive,
					    evidence_finding_fn fn, void *ctx, struct evidence_outcome *out);

/* What a receipt says, and whether it holds. */
struct evidence_receipt {
	char kind[32], result[16], host[256], finished[32], comparable[65];
	int intact;  /* its comparable digest still matches its contents */
	int trusted; /* signed by a key of the trust list given */
	char signer[65];
};

/* Read a receipt (canonical JSON, evidence-receipt/1). EVIDENCE_OK when it
 * is intact and, with trust_file (a list of public keys, as `replicate
 * check --trust` reads), signed by one of its keys; EVIDENCE_FINDINGS when
 * it was edited or is not so signed (r says which). */
EVIDENCE_EXPORT int evidence_receipt_read(const char *path, const char *trust_file, struct evidence_receipt *r,
					  struct evidence_outcome *out);

/* Audit the FIX journals of one pair (a directory or file each, the
 * receiver's may be NULL) cold, with the shipped expectation spec and
 * dictionaries, as `audit journal --sender S --receiver R --receipt
 * RECEIPT` does; the receipt (new) is written in either verdict. */
EVIDENCE_EXPORT int evidence_audit_journal_pair(const char *sender, const char *receiver, const char *receipt,
						struct evidence_outcome *out);

#ifdef __cplusplus
}
#endif

#endif
