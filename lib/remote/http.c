/* SPDX-License-Identifier: Apache-2.0 */
/* http: one POST through libcurl (http.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "lib/remote/http.h"
#include "lib/core/dynlib.h"

/* libcurl, opened by the first POST a process makes, not at every start
 * (lib/core/dynlib.h). Its soname is its ABI since curl 7.16. */
static struct {
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
} curlfn;
/* named without curl_: curl.h makes curl_easy_setopt( and
 * curl_easy_getinfo( macros that check their arguments' types */
#define CURL_SYMBOL(name) {"curl_" #name, (void **)&curlfn.name}
static const struct ev_dynlib_symbol curl_symbols[] = {
	CURL_SYMBOL(easy_cleanup),
	CURL_SYMBOL(easy_getinfo),
	CURL_SYMBOL(easy_init),
	CURL_SYMBOL(easy_perform),
	CURL_SYMBOL(easy_setopt),
	CURL_SYMBOL(easy_strerror),
	CURL_SYMBOL(slist_append),
	CURL_SYMBOL(slist_free_all),
};
static struct ev_dynlib libcurl = EV_DYNLIB("libcurl.so.4", "libcurl4", "a timestamp over HTTP", curl_symbols);

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
	if (ev_dynlib_load(&libcurl, err) != EV_OK)
		return ev_error_wrap(err, "%s: cannot send", url);
	CURL *handle = curlfn.easy_init();
	if (!handle)
		return ev_error_set(err, EV_ERROR, "cannot start libcurl");
	struct answer a = {.max = max};
	char header[256], curl_err[CURL_ERROR_SIZE] = "";
	snprintf(header, sizeof header, "Content-Type: %s", content_type);
	struct curl_slist *headers = curlfn.slist_append(NULL, header);
	curlfn.easy_setopt(handle, CURLOPT_URL, url);
	curlfn.easy_setopt(handle, CURLOPT_POST, 1L);
	curlfn.easy_setopt(handle, CURLOPT_POSTFIELDS, body);
	curlfn.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curlfn.easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
	curlfn.easy_setopt(handle, CURLOPT_WRITEFUNCTION, take);
	curlfn.easy_setopt(handle, CURLOPT_WRITEDATA, &a);
	curlfn.easy_setopt(handle, CURLOPT_TIMEOUT, timeout_seconds);
	curlfn.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
	curlfn.easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
	curlfn.easy_setopt(handle, CURLOPT_ERRORBUFFER, curl_err);
	CURLcode rc = curlfn.easy_perform(handle);
	long code = 0;
	curlfn.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
	ev_status st = EV_OK;
	if (a.too_large)
		st = ev_error_set(err, EV_ERROR, "%s: the answer is larger than %zu bytes", url, max);
	else if (rc != CURLE_OK)
		st = ev_error_set(err, EV_ERROR, "%s: %s", url, curl_err[0] ? curl_err : curlfn.easy_strerror(rc));
	else if (code != 200)
		st = ev_error_set(err, EV_ERROR, "%s: the server answered HTTP %ld, not 200", url, code);
	curlfn.slist_free_all(headers);
	curlfn.easy_cleanup(handle);
	if (st != EV_OK) {
		free(a.bytes);
		return st;
	}
	*out = a.bytes;
	*out_len = a.len;
	return EV_OK;
}
