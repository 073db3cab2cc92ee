/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/receipt/signature.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "lib/core/grow.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"

#define ED25519_RAW_LEN 32
#define ED25519_SIG_LEN 64
#define KEY_FILE_MAX ((size_t)1 << 20)

struct ev_signing_key {
	EVP_PKEY *pkey;
	char id[EV_SHA256_HEX_LEN + 1];
};

struct trusted {
	EVP_PKEY *pkey;
	char id[EV_SHA256_HEX_LEN + 1];
};

struct ev_trust {
	struct trusted *keys;
	size_t count, cap;
};

static const char *openssl_reason(void)
{
	unsigned long e = ERR_get_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;
	ERR_clear_error();
	return r ? r : "no reason given";
}

/* A key's id: the SHA-256 of its raw public key, in hex. */
static ev_status key_id(EVP_PKEY *pkey, char id[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	unsigned char raw[ED25519_RAW_LEN];
	size_t len = sizeof raw;
	uint8_t digest[EV_SHA256_LEN];
	if (EVP_PKEY_get_raw_public_key(pkey, raw, &len) != 1 || len != sizeof raw)
		return ev_error_set(err, EV_ERROR, "cannot read the raw public key (%s)",
				    openssl_reason());
	ev_status st = ev_sha256_buffer(raw, len, digest, err);
	if (st == EV_OK)
		ev_sha256_hex(digest, id);
	return st;
}

/* PEM text of a key into a malloc'd buffer. */
static ev_status pem_of(EVP_PKEY *pkey, int private_part, char **out, size_t *len,
			struct ev_error *err)
{
	BIO *bio = BIO_new(BIO_s_mem());
	ev_status st = EV_OK;
	int ok = bio && (private_part ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL)
				      : PEM_write_bio_PUBKEY(bio, pkey));
	char *data = NULL;
	long n = ok ? BIO_get_mem_data(bio, &data) : 0;
	if (!ok || n <= 0 || !(*out = malloc((size_t)n))) {
		st = ev_error_set(err, EV_ERROR, "cannot encode the key as PEM (%s)", openssl_reason());
	} else {
		memcpy(*out, data, (size_t)n);
		*len = (size_t)n;
	}
	BIO_free(bio);
	return st;
}

ev_status ev_signature_keygen(const char *key_path, const char *pub_path,
			      char key_sha256_hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	char *priv = NULL, *pub = NULL;
	size_t priv_len = 0, pub_len = 0;
	char id[EV_SHA256_HEX_LEN + 1];
	ev_status st = EV_OK;
	/* Refuse before generating anything, so that neither file is written
	 * when one of them exists. */
	if (access(key_path, F_OK) == 0 || access(pub_path, F_OK) == 0)
		return ev_error_set(err, EV_REFUSED,
				    "%s: already exists; keys are never overwritten (choose a new name)",
				    access(key_path, F_OK) == 0 ? key_path : pub_path);
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pkey)
		return ev_error_set(err, EV_ERROR, "cannot generate an Ed25519 key (%s)",
				    openssl_reason());
	if ((st = key_id(pkey, id, err)) || (st = pem_of(pkey, 1, &priv, &priv_len, err)) ||
	    (st = pem_of(pkey, 0, &pub, &pub_len, err)))
		goto out;
	if ((st = ev_publish_bytes(key_path, priv, priv_len, 0600, err)) != EV_OK)
		goto out;
	if ((st = ev_publish_bytes(pub_path, pub, pub_len, 0644, err)) != EV_OK) {
		/* A private key without its public half is no use to anyone. */
		unlink(key_path);
		goto out;
	}
	if (key_sha256_hex)
		memcpy(key_sha256_hex, id, sizeof id);
out:
	if (priv)
		OPENSSL_cleanse(priv, priv_len);
	free(priv);
	free(pub);
	EVP_PKEY_free(pkey);
	return st;
}

static int is_ed25519(EVP_PKEY *pkey)
{
	return EVP_PKEY_get_id(pkey) == EVP_PKEY_ED25519;
}

ev_status ev_signing_key_load(const char *path, struct ev_signing_key **out,
			      struct ev_error *err)
{
	struct stat sb;
	/* a FIFO is refused before it is opened: opening one waits for a writer */
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return ev_error_set(err, EV_REFUSED, "%s: a private key must be a regular file (this is %s)", path,
				    S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISLNK(sb.st_mode) ? "a symbolic link"
				    : S_ISDIR(sb.st_mode) ? "a directory" : "a special file");
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open the signing key", path);
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return ev_error_errno(err, errno, "%s: cannot stat the signing key", path);
	}
	if (!S_ISREG(sb.st_mode) || (sb.st_mode & 077)) {
		close(fd);
		char mode[8];
		snprintf(mode, sizeof mode, "%04o", (unsigned)sb.st_mode & 07777);
		return ev_error_set(err, EV_REFUSED,
				    "%s: a private key must be a regular file that only its owner "
				    "can read (expected mode 0600, found %s); chmod 600 it",
				    path, mode);
	}
	/* as ssh does: a key another user owns is not yours to sign with */
	if (sb.st_uid != geteuid()) {
		close(fd);
		return ev_error_set(err, EV_REFUSED, "%s: owned by uid %u, not by uid %u who signs with it: a "
				    "private key signs for its owner only", path, (unsigned)sb.st_uid, (unsigned)geteuid());
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return ev_error_errno(err, errno, "%s: cannot read the signing key", path);
	}
	EVP_PKEY *pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!pkey)
		return ev_error_set(err, EV_REFUSED, "%s: not a PEM private key (%s)", path,
				    openssl_reason());
	if (!is_ed25519(pkey)) {
		EVP_PKEY_free(pkey);
		return ev_error_set(err, EV_REFUSED, "%s: not an Ed25519 key", path);
	}
	struct ev_signing_key *k = calloc(1, sizeof *k);
	if (!k) {
		EVP_PKEY_free(pkey);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	k->pkey = pkey;
	ev_status st = key_id(pkey, k->id, err);
	if (st != EV_OK) {
		ev_signing_key_free(k);
		return ev_error_wrap(err, "%s", path);
	}
	*out = k;
	return EV_OK;
}

void ev_signing_key_free(struct ev_signing_key *key)
{
	if (!key)
		return;
	EVP_PKEY_free(key->pkey);
	free(key);
}

/* The canonical bytes a signature covers: r without its "signature". */
static ev_status signed_bytes(const json_t *r, char **bytes, size_t *len, struct ev_error *err)
{
	json_t *copy = json_copy((json_t *)r);
	if (!copy)
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_object_del(copy, "signature");
	ev_status st = ev_json_dump(copy, bytes, len, err);
	json_decref(copy);
	return st;
}

static void to_hex(const unsigned char *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

ev_status ev_receipt_finish_signed(json_t *r, const struct ev_signing_key *key, struct ev_error *err)
{
	ev_status st = ev_receipt_finish(r, err);
	if (st == EV_OK && key)
		st = ev_receipt_sign(r, key, err);
	return st;
}

ev_status ev_signature_sign_bytes(const struct ev_signing_key *key, const void *bytes, size_t len,
				  unsigned char sig[ED25519_SIG_LEN], char key_sha256_hex[EV_SHA256_HEX_LEN + 1],
				  struct ev_error *err)
{
	size_t sig_len = ED25519_SIG_LEN;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int ok = md && EVP_DigestSignInit(md, NULL, NULL, NULL, key->pkey) == 1 &&
		 EVP_DigestSign(md, sig, &sig_len, bytes, len) == 1 && sig_len == ED25519_SIG_LEN;
	EVP_MD_CTX_free(md);
	if (!ok)
		return ev_error_set(err, EV_ERROR, "cannot sign (%s)", openssl_reason());
	if (key_sha256_hex)
		memcpy(key_sha256_hex, key->id, EV_SHA256_HEX_LEN + 1);
	return EV_OK;
}

void ev_signing_key_public(const struct ev_signing_key *key, unsigned char pub[ED25519_RAW_LEN])
{
	size_t len = ED25519_RAW_LEN;
	/* cannot fail: the key was checked to be Ed25519 when it was loaded */
	if (EVP_PKEY_get_raw_public_key(key->pkey, pub, &len) != 1)
		memset(pub, 0, ED25519_RAW_LEN);
}

void ev_trust_public(const struct ev_trust *t, size_t i, unsigned char pub[ED25519_RAW_LEN],
		     char key_sha256_hex[EV_SHA256_HEX_LEN + 1])
{
	size_t len = ED25519_RAW_LEN;
	if (EVP_PKEY_get_raw_public_key(t->keys[i].pkey, pub, &len) != 1)
		memset(pub, 0, ED25519_RAW_LEN);
	if (key_sha256_hex)
		memcpy(key_sha256_hex, t->keys[i].id, EV_SHA256_HEX_LEN + 1);
}

int ev_trust_verify_bytes(const struct ev_trust *t, const char *key_sha256_hex, const void *bytes, size_t len,
			  const unsigned char *sig, size_t sig_len)
{
	const struct trusted *key = NULL;
	for (size_t i = 0; t && i < t->count && !key; i++)
		if (key_sha256_hex && strcmp(t->keys[i].id, key_sha256_hex) == 0)
			key = &t->keys[i];
	if (!key)
		return -1;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int verdict = 0;
	if (md && EVP_DigestVerifyInit(md, NULL, NULL, NULL, key->pkey) == 1)
		verdict = EVP_DigestVerify(md, sig, sig_len, bytes, len) == 1;
	EVP_MD_CTX_free(md);
	ERR_clear_error();
	return verdict;
}

ev_status ev_receipt_sign(json_t *r, const struct ev_signing_key *key, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	unsigned char sig[ED25519_SIG_LEN];
	size_t sig_len = sizeof sig;
	char hex[2 * ED25519_SIG_LEN + 1];
	json_object_del(r, "signature");
	ev_status st = signed_bytes(r, &bytes, &len, err);
	if (st != EV_OK)
		return st;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (!md || EVP_DigestSignInit(md, NULL, NULL, NULL, key->pkey) != 1 ||
	    EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)bytes, len) != 1 ||
	    sig_len != sizeof sig) {
		st = ev_error_set(err, EV_ERROR, "cannot sign the receipt (%s)", openssl_reason());
		goto out;
	}
	to_hex(sig, sig_len, hex);
	if (json_object_set_new(r, "signature",
				json_pack("{s:s, s:s, s:s}", "algorithm", EV_SIGNATURE_ALGORITHM,
					  "key_sha256", key->id, "value", hex)) != 0)
		st = ev_error_set(err, EV_ERROR, "out of memory");
out:
	EVP_MD_CTX_free(md);
	free(bytes);
	return st;
}

struct ev_trust *ev_trust_new(void)
{
	return calloc(1, sizeof(struct ev_trust));
}

ev_status ev_trust_from_files(const char *const *files, size_t n, struct ev_trust **out, struct ev_error *err)
{
	*out = NULL;
	if (!n)
		return EV_OK;
	struct ev_trust *t = ev_trust_new();
	if (!t)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ev_status st = ev_trust_add_file(t, files[i], err);
		if (st != EV_OK) {
			ev_trust_free(t);
			return st;
		}
	}
	*out = t;
	return EV_OK;
}

void ev_trust_free(struct ev_trust *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->count; i++)
		EVP_PKEY_free(t->keys[i].pkey);
	free(t->keys);
	free(t);
}

size_t ev_trust_count(const struct ev_trust *t)
{
	return t->count;
}

/* Take pkey into t (freed on failure). */
static ev_status trust_push(struct ev_trust *t, EVP_PKEY *pkey, struct ev_error *err)
{
	if (ev_grow_array(&t->keys, &t->cap, t->count + 1, sizeof *t->keys) != 0) {
		EVP_PKEY_free(pkey);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	t->keys[t->count].pkey = pkey;
	ev_status st = key_id(pkey, t->keys[t->count].id, err);
	if (st != EV_OK)
		EVP_PKEY_free(pkey);
	else
		t->count++;
	return st;
}

ev_status ev_trust_add_raw(struct ev_trust *t, const unsigned char pub[32], struct ev_error *err)
{
	EVP_PKEY *pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, ED25519_RAW_LEN);
	if (!pkey)
		return ev_error_set(err, EV_ERROR, "cannot make an Ed25519 public key (%s)", openssl_reason());
	return trust_push(t, pkey, err);
}

ev_status ev_trust_add_file(struct ev_trust *t, const char *path, struct ev_error *err)
{
	char *text = NULL;
	size_t len = 0;
	ev_status st = ev_file_read_all(path, KEY_FILE_MAX, &text, &len, err);
	if (st != EV_OK)
		return st;
	BIO *bio = BIO_new_mem_buf(text, (int)len);
	size_t before = t->count;
	EVP_PKEY *pkey;
	while (bio && (pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL)) != NULL) {
		if (!is_ed25519(pkey)) {
			EVP_PKEY_free(pkey);
			st = ev_error_set(err, EV_REFUSED, "%s: holds a public key that is not Ed25519",
					  path);
			break;
		}
		if ((st = trust_push(t, pkey, err)) != EV_OK)
			break;
	}
	ERR_clear_error(); /* the loop ends on "no start line" */
	if (st == EV_OK && t->count == before)
		st = ev_error_set(err, EV_REFUSED, "%s: holds no PEM public key", path);
	BIO_free(bio);
	free(text);
	return st;
}

static ev_status mismatch(char *why, size_t cap, const char *text)
{
	snprintf(why, cap, "%s", text);
	return EV_MISMATCH;
}

ev_status ev_receipt_check_signature(const json_t *r, const struct ev_trust *t,
				     char key_sha256_hex[EV_SHA256_HEX_LEN + 1], char *why,
				     size_t why_cap, struct ev_error *err)
{
	const json_t *sig = json_object_get(r, "signature");
	if (!sig)
		return mismatch(why, why_cap, "is not signed");
	const char *alg = json_string_value(json_object_get(sig, "algorithm"));
	const char *id = json_string_value(json_object_get(sig, "key_sha256"));
	const char *value = json_string_value(json_object_get(sig, "value"));
	unsigned char raw[ED25519_SIG_LEN];
	if (!alg || strcmp(alg, EV_SIGNATURE_ALGORITHM) != 0 || !id || !value ||
	    ev_hex_decode(value, raw, sizeof raw) != 0)
		return mismatch(why, why_cap, "has a malformed signature (expected ed25519, "
					      "key_sha256 and a 128-digit hex value)");
	/* the signature object is outside what it signs: a field beside the
	 * three would ride along unsigned, so there is none */
	if (!json_is_object(sig) || json_object_size(sig) != 3) {
		const char *key;
		json_t *v;
		char extra[128] = "";
		json_object_foreach((json_t *)sig, key, v)
			if (strcmp(key, "algorithm") && strcmp(key, "key_sha256") && strcmp(key, "value")) {
				snprintf(extra, sizeof extra, "%s", key);
				break;
			}
		snprintf(why, why_cap, "has a signature object with a field the signature does not cover "
			 "(\"%s\"; expected only algorithm, key_sha256 and value)", extra);
		return EV_MISMATCH;
	}
	const struct trusted *key = NULL;
	for (size_t i = 0; i < t->count && !key; i++)
		if (strcmp(t->keys[i].id, id) == 0)
			key = &t->keys[i];
	if (!key) {
		snprintf(why, why_cap, "is signed by a key that is not trusted (key_sha256 %s)", id);
		return EV_MISMATCH;
	}
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = signed_bytes(r, &bytes, &len, err);
	if (st != EV_OK)
		return st;
	int verdict = ev_trust_verify_bytes(t, key->id, bytes, len, raw, sizeof raw);
	free(bytes);
	if (verdict != 1)
		return mismatch(why, why_cap, "does not match its signature: it was altered after "
					      "it was signed");
	if (key_sha256_hex)
		memcpy(key_sha256_hex, key->id, EV_SHA256_HEX_LEN + 1);
	return EV_OK;
}
