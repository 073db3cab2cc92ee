/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: a series file and a native report of any bytes. The
 * bytes are put in a memory file and read by path, as audit reads them;
 * whatever they are, the readers return a status or findings, never read
 * outside what they hold, and what they keep is summed up and selected. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/stats/nativestats.h"
#include "lib/stats/quantile.h"
#include "lib/stats/series.h"

static void ignore(void *ctx, const struct ev_finding *f)
{
	(void)ctx, (void)f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-series", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_series s;
	if (ev_series_load(path, &s, ignore, NULL, &err) == EV_OK) {
		struct ev_moments m;
		ev_moments_of(s.v, s.n, &m);
		if (s.n && (m.min > m.max))
			abort();
		if (s.n) {
			struct ev_prob p = {999, 1000};
			double q = ev_quantile(s.v, s.n, EV_QRULE_LINEAR, p);
			if (q < (double)m.min || q > (double)m.max)
				abort();
		}
		ev_series_free(&s);
	}
	ev_error_clear(&err);
	struct ev_native nat;
	if (ev_native_load(path, &nat, &err) == EV_OK && (nat.n == 0 || nat.n > EV_NATIVE_MAX))
		abort();
	close(fd);
	return 0;
}
