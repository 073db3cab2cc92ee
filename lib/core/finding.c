/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/finding.h"

#include <stdio.h>
#include <string.h>

#include "lib/core/path.h"

static void copy_value(char *dst, const char *src)
{
	if (!src) {
		dst[0] = '\0';
		return;
	}
	size_t n = strlen(src);
	if (n < EV_FINDING_VALUE_MAX) {
		memcpy(dst, src, n + 1);
		return;
	}
	memcpy(dst, src, EV_FINDING_VALUE_MAX - 4);
	memcpy(dst + EV_FINDING_VALUE_MAX - 4, "...", 4);
}

void ev_finding_make(struct ev_finding *f, const char *subject, const char *check,
		     const char *message, const char *expected, const char *found)
{
	f->subject = subject;
	f->check = check;
	f->message = message;
	f->in_receipt = 0;
	copy_value(f->expected, expected);
	copy_value(f->found, found);
}

void ev_finding_emit(ev_finding_fn fn, void *ctx, const char *subject, const char *check,
		     const char *message, const char *expected, const char *found)
{
	struct ev_finding f;
	ev_finding_make(&f, subject, check, message, expected, found);
	fn(ctx, &f);
}

void ev_finding_format(const struct ev_finding *f, char *buf, size_t cap)
{
	char subject[1024];
	ev_path_quote(f->subject, strlen(f->subject), subject, sizeof subject);
	int n;
	if (f->expected[0])
		n = snprintf(buf, cap, "%s: %s (expected %s, found %s)", subject, f->message,
			     f->expected, f->found[0] ? f->found : "nothing");
	else if (f->found[0])
		n = snprintf(buf, cap, "%s: %s (found %s)", subject, f->message, f->found);
	else
		n = snprintf(buf, cap, "%s: %s", subject, f->message);
	if (n >= 0 && (size_t)n >= cap && cap >= 4)
		memcpy(buf + cap - 4, "...", 4);
}

json_t *ev_finding_to_json(const struct ev_finding *f)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "check", json_string(f->check));
	/* A refused name may not be valid UTF-8; JSON carries the quoted form. */
	char subject[1024];
	ev_path_quote(f->subject, strlen(f->subject), subject, sizeof subject);
	json_object_set_new(o, "subject", json_string(subject));
	json_object_set_new(o, "message", json_string(f->message));
	if (f->expected[0])
		json_object_set_new(o, "expected", json_string(f->expected));
	if (f->found[0])
		json_object_set_new(o, "found", json_string(f->found));
	return o;
}
