/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming SHA-256 gives the FIPS 180-2 digests, whatever the chunking;
 * hex is read strictly (ev_hex_decode). */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/core/sha256.h"

static void hex_of(const void *data, size_t len, char hex[65])
{
	uint8_t d[EV_SHA256_LEN];
	struct ev_error err;
	ev_error_clear(&err);
	ev_sha256_buffer(data, len, d, &err);
	ev_sha256_hex(d, hex);
}

int main(void)
{
	char hex[65];
	hex_of("", 0, hex);
	CHECK_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of("abc", 3, hex);
	CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

	struct ev_error err;
	ev_error_clear(&err);
	struct ev_sha256 *ctx = ev_sha256_new();
	CHECK(ctx != NULL);
	char *a = malloc(1000000);
	memset(a, 'a', 1000000);
	size_t done = 0, step = 1;
	while (done < 1000000) {
		size_t n = step < 1000000 - done ? step : 1000000 - done;
		CHECK_INT_EQ(ev_sha256_update(ctx, a + done, n, &err), EV_OK);
		done += n;
		step = step * 3 + 1;
	}
	uint8_t d[EV_SHA256_LEN];
	CHECK_INT_EQ(ev_sha256_final(ctx, d, &err), EV_OK);
	ev_sha256_hex(d, hex);
	CHECK_STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* A reset context starts over. */
	CHECK_INT_EQ(ev_sha256_reset(ctx, &err), EV_OK);
	ev_sha256_update(ctx, "abc", 3, &err);
	ev_sha256_final(ctx, d, &err);
	ev_sha256_hex(d, hex);
	CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	free(a);
	ev_sha256_free(ctx);
	ev_sha256_free(NULL);

	CHECK(ev_sha256_hex_valid("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	CHECK(!ev_sha256_hex_valid("BA7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	CHECK(!ev_sha256_hex_valid("ba78"));
	/* hex read strictly: exactly 2n lower-case digits, nothing else */
	uint8_t two[2];
	CHECK_INT_EQ(ev_hex_decode("0aff", two, 2), 0);
	CHECK(two[0] == 0x0a && two[1] == 0xff);
	const char *refused[] = {"0AFF", " aff", "+aff", "0x0a", "0af", "0aff0", "0ag0", ""};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		CHECK_INT_EQ(ev_hex_decode(refused[i], two, 2), -1);
	CHECK_INT_EQ(ev_hex_decode(NULL, two, 2), -1);
	return check_exit("test_sha256_matches_known_vectors");
}
