/* SPDX-License-Identifier: Apache-2.0 */
/* http: one POST to a server (libcurl), for the timestamp authority a
 * user names: the body sent with its content type, the answer's body
 * kept (bounded), a timeout, an answer that is not 200 refused with its
 * status. No global state beyond libcurl's own initialisation. */
#ifndef EV_HTTP_H
#define EV_HTTP_H

#include <stddef.h>

#include "lib/core/status.h"

/* POST body (len bytes, content_type) to url; the answer (at most max
 * bytes, malloc'd) into *out, *out_len. @return EV_OK; EV_ERROR naming
 * the URL and what went wrong (connection, timeout, status, too large). */
ev_status ev_http_post(const char *url, const char *content_type, const void *body, size_t len, size_t max,
		       long timeout_seconds, char **out, size_t *out_len, struct ev_error *err);

#endif
