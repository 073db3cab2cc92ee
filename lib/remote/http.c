/* SPDX-License-Identifier: Apache-2.0 */
/* http: one POST through libcurl (http.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "lib/remote/http.h"

struct answer {
	char *bytes;
	size_t len, max;
	int too_large;
};

static size_t take(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t bytes = size * n;
	if (a->len + bytes > a->max) {
		a->too_large = 1;
		return 0;
	}
	char *grown = realloc(a->bytes, a->len + bytes + 1);
	if (!grown)
		return 0;
	a->bytes = grown;
	memcpy(a->bytes + a->len, data, bytes);
	a->len += bytes;
	a->bytes[a->len] = 0;
	return bytes;
}

ev_status ev_http_post(const char *url, const char *content_type, const void *body, size_t len, size_t max,
		       long timeout_seconds, char **out, size_t *out_len, struct ev_error *err)
{
	*out = NULL;
	*out_len = 0;
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return ev_error_set(err, EV_USAGE, "%s: expected an http:// or https:// URL", url);
	CURL *curl = curl_easy_init();
	if (!curl)
		return ev_error_set(err, EV_ERROR, "cannot start libcurl");
	struct answer a = {.max = max};
	char header[256], curl_err[CURL_ERROR_SIZE] = "";
	snprintf(header, sizeof header, "Content-Type: %s", content_type);
	struct curl_slist *headers = curl_slist_append(NULL, header);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_POST, 1L);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_seconds);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_err);
	CURLcode rc = curl_easy_perform(curl);
	long code = 0;
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	ev_status st = EV_OK;
	if (a.too_large)
		st = ev_error_set(err, EV_ERROR, "%s: the answer is larger than %zu bytes", url, max);
	else if (rc != CURLE_OK)
		st = ev_error_set(err, EV_ERROR, "%s: %s", url, curl_err[0] ? curl_err : curl_easy_strerror(rc));
	else if (code != 200)
		st = ev_error_set(err, EV_ERROR, "%s: the server answered HTTP %ld, not 200", url, code);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	if (st != EV_OK) {
		free(a.bytes);
		return st;
	}
	*out = a.bytes;
	*out_len = a.len;
	return EV_OK;
}
