/* SPDX-License-Identifier: Apache-2.0 */
/* base64: RFC 4648 §4 standard base64 with padding (OpenSSL's
 * EVP_EncodeBlock and EVP_DecodeBlock), as DSSE envelopes and C2SP signed
 * notes carry it. Decoding is strict: what we would not have written
 * (a wrong length, a character outside the alphabet, padding inside) is
 * refused, so that one value has one spelling. No global state. */
#ifndef EV_BASE64_H
#define EV_BASE64_H

#include <stddef.h>

/* The base64 of len bytes, NUL-terminated (malloc'd; NULL when out of
 * memory). */
char *ev_base64_encode(const unsigned char *bytes, size_t len);

/* The bytes text (n characters, no NUL needed) encodes (malloc'd, *len of
 * them), or NULL when text is not strict standard base64 with padding or
 * memory ran out. */
unsigned char *ev_base64_decode(const char *text, size_t n, size_t *len);

#endif
