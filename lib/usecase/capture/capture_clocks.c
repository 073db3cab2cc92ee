/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/usecase/capture/capture_clocks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/campaign/clocks_read.h"
#include "lib/core/proc.h"
#include "lib/core/publish.h"
#include "lib/process/clocks.h"
#include "lib/receipt/signature.h"

ev_status ev_capture_clocks(const char *out, const struct ev_signing_key *key, json_t **doc, struct ev_error *err)
{
	char host[256], boot[EV_BOOT_ID_LEN + 1], at[64];
	ev_status st = ev_proc_boot_id(boot, err);
	if (st != EV_OK)
		return st;
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	size_t n = strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(at + n, sizeof at - n, ".%09ldZ", now.tv_nsec);
	json_t *d = ev_clocks_snapshot();
	json_object_set_new(d, "format", json_string(EV_CLOCKS_FORMAT));
	json_object_set_new(d, "host", json_string(host));
	json_object_set_new(d, "boot_id", json_string(boot));
	json_object_set_new(d, "at", json_string(at));
	if ((key && (st = ev_receipt_sign(d, key, err)) != EV_OK) || (out && (st = ev_publish_json(out, d, err)) != EV_OK)) {
		json_decref(d);
		return st;
	}
	*doc = d;
	return EV_OK;
}
