/* SPDX-License-Identifier: Apache-2.0 */
/* fix_text: FIX messages for unit tests, written as text. */
#ifndef TESTS_FIX_TEXT_H
#define TESTS_FIX_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message from "|"-separated text: SOH for '|', BodyLength and CheckSum
 * filled in for "9=?" and "10=?"; in an exactly-sized heap block, so that
 * ASan catches a read past its end. */
static char *fix_text(const char *text, size_t *len)
{
	char body[8192], out[8192];
	size_t n = 0;
	for (const char *p = text; *p; p++)
		body[n++] = *p == '|' ? '\001' : *p;
	body[n] = '\0';
	const char *nine = strstr(body, "9=?\001"), *ten = strstr(body, "10=?\001");
	size_t o = 0;
	if (nine && ten) {
		size_t head = (size_t)(nine - body), after9 = head + 4;
		size_t body_len = (size_t)(ten - body) - after9;
		o = (size_t)snprintf(out, sizeof out, "%.*s9=%zu\001", (int)head, body, body_len);
		memcpy(out + o, body + after9, body_len);
		o += body_len;
		unsigned sum = 0;
		for (size_t i = 0; i < o; i++)
			sum += (unsigned char)out[i];
		o += (size_t)snprintf(out + o, sizeof out - o, "10=%03u\001", sum % 256);
		o += (size_t)snprintf(out + o, sizeof out - o, "%s", ten + 5);
	} else {
		memcpy(out, body, n);
		o = n;
	}
	char *m = malloc(o ? o : 1);
	memcpy(m, out, o);
	*len = o;
	return m;
}

#endif
