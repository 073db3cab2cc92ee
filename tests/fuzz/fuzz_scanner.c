/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the message scanner (fixmsg) on any bytes, with and
 * without DATA fields, and the stream framer. Nothing may be read outside
 * the input, and the fields found must lie inside it, in order. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fix/fixmsg.h"

static struct ev_fix_msg msg;

static void check_fields(const struct ev_fix_msg *m, size_t len)
{
	uint32_t end = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		if (m->f[i].off < end || (size_t)m->f[i].off + m->f[i].len > len)
			abort();
		end = m->f[i].off + m->f[i].len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly the input's size, so that ASan sees a read past it. */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ev_fix_scan(copy, size, NULL, &msg, NULL, NULL);
	check_fields(&msg, size);
	static uint32_t length_tag[200];
	length_tag[96] = 95;
	length_tag[91] = 90;
	length_tag[123] = 122;
	struct ev_fix_data_tags dt = {length_tag, 199};
	ev_fix_scan(copy, size, &dt, &msg, NULL, NULL);
	check_fields(&msg, size);
	long framed = ev_fix_frame(copy, size);
	if (framed > (long)size)
		abort();
	free(copy);
	return 0;
}
