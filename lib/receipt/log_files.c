/* SPDX-License-Identifier: Apache-2.0 */
/* log_files: the receipt log's files (log_files.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/log_files.h"

#define LOG_MAX ((size_t)1 << 30)

/* The entries as read: each line's bytes (without its newline), parsed. */

void ev_log_entries_free(struct ev_log_entries *e)
{
	for (size_t i = 0; e->doc && i < e->n; i++)
		json_decref(e->doc[i]);
	free(e->bytes);
	free(e->line);
	free(e->len);
	free(e->doc);
	free(e->leaf);
	memset(e, 0, sizeof *e);
}

/* entries.jsonl, every line canonical JSON with its four fields. */
ev_status ev_log_entries_read(const char *dir, struct ev_log_entries *e, struct ev_error *err)
{
	char path[PATH_MAX];
	memset(e, 0, sizeof *e);
	if (ev_path_join(path, sizeof path, dir, "entries.jsonl") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	struct stat sb;
	if (lstat(path, &sb) != 0 && errno == ENOENT)
		return EV_OK; /* an empty log */
	size_t total = 0;
	ev_status st = ev_file_read_all(path, LOG_MAX, &e->bytes, &total, err);
	if (st != EV_OK)
		return st;
	if (total && e->bytes[total - 1] != '\n')
		return ev_error_set(err, EV_REFUSED, "%s: its last line is cut short (no newline): an append was "
				    "interrupted, or the file was edited", path);
	size_t lines = 0;
	for (size_t i = 0; i < total; i++)
		lines += e->bytes[i] == '\n';
	e->line = calloc(lines + 1, sizeof *e->line);
	e->len = calloc(lines + 1, sizeof *e->len);
	e->doc = calloc(lines + 1, sizeof *e->doc);
	e->leaf = calloc(lines + 1, sizeof *e->leaf);
	if (!e->line || !e->len || !e->doc || !e->leaf)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *at = e->bytes;
	for (size_t i = 0; i < lines; i++) {
		const char *nl = memchr(at, '\n', (size_t)(e->bytes + total - at));
		e->line[i] = at;
		e->len[i] = (size_t)(nl - at);
		ev_merkle_leaf_hash(at, e->len[i], e->leaf[i]);
		char name[PATH_MAX + 32];
		snprintf(name, sizeof name, "%s: entry %zu", path, i);
		/* canonical JSON ends in a newline; the line's does */
		if ((st = ev_json_parse(at, e->len[i] + 1, name, NULL, EV_JSON_REQUIRE_CANONICAL, &e->doc[i], err)) != EV_OK)
			return st;
		e->n++;
		at = nl + 1;
	}
	return EV_OK;
}

ev_status ev_log_entries_tree(const struct ev_log_entries *e, struct ev_merkle *t, struct ev_error *err)
{
	return ev_merkle_build(t, (const ev_merkle_hash *)e->leaf, e->n, err);
}

/* The new entries' lines, appended and synced. */
ev_status ev_log_entries_append(const char *dir, const char *text, size_t len, struct ev_error *err)
{
	char path[PATH_MAX];
	if (ev_path_join(path, sizeof path, dir, "entries.jsonl") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open for appending", path);
	ev_status st = EV_OK;
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		st = ev_error_errno(err, errno, "%s: cannot stat", path);
	size_t done = 0;
	while (st == EV_OK && done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			st = ev_error_errno(err, errno, "%s: cannot append", path);
			break;
		}
		done += (size_t)w;
	}
	if (st == EV_OK && fsync(fd) != 0)
		st = ev_error_errno(err, errno, "%s: cannot sync", path);
	if (close(fd) != 0 && st == EV_OK)
		st = ev_error_errno(err, errno, "%s: cannot close", path);
	/* a line cut short by a full disk would be a torn entry: the log goes
	 * back to the entries it had */
	if (st != EV_OK && done && truncate(path, sb.st_size) != 0) {
		size_t at = strlen(err->text);
		snprintf(err->text + at, sizeof err->text - at, "; and it could not be cut back to its %jd bytes: "
			 "replicate log verify names the torn entry", (intmax_t)sb.st_size);
	}
	return st;
}

ev_status ev_log_lock(const char *dir, int *fd, struct ev_error *err)
{
	char path[PATH_MAX];
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return ev_error_errno(err, errno, "%s: cannot make the log", dir);
	if (ev_path_join(path, sizeof path, dir, "heads") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return ev_error_errno(err, errno, "%s: cannot make it", path);
	if (ev_path_join(path, sizeof path, dir, ".lock") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0 || flock(*fd, LOCK_EX) != 0)
		return ev_error_errno(err, errno, "%s: cannot lock the log", path);
	return EV_OK;
}


static int by_size(const void *a, const void *b)
{
	const struct ev_log_head *x = a, *y = b;
	return x->size < y->size ? -1 : x->size > y->size;
}

void ev_log_heads_free(struct ev_log_head *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(h[i].doc);
	free(h);
}

ev_status ev_log_head_load(const char *path, struct ev_log_head *h, struct ev_error *err)
{
	memset(h, 0, sizeof *h);
	snprintf(h->path, sizeof h->path, "%s", path);
	ev_status st = ev_json_load(path, EV_TREE_HEAD_FORMAT, EV_JSON_REQUIRE_CANONICAL, &h->doc, NULL, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	const json_t *size = json_object_get(h->doc, "size");
	if (!json_is_integer(size) || json_integer_value(size) < 0 ||
	    ev_hex_decode(json_string_value(json_object_get(h->doc, "root_sha256")), h->root, EV_SHA256_LEN) != 0)
		return ev_error_set(err, EV_REFUSED, "%s: expected size and root_sha256 (64 hex digits)", path);
	h->size = (size_t)json_integer_value(size);
	return EV_OK;
}

/* One more head, loaded from HEADS/name into *out. */
static ev_status add_head(const char *heads, const char *name, struct ev_log_head **out, size_t *n, size_t *cap,
			  struct ev_error *err)
{
	if (ev_grow_array(out, cap, *n + 1, sizeof **out) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	char file[PATH_MAX];
	if (ev_path_join(file, sizeof file, heads, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", heads);
	ev_status st = ev_log_head_load(file, &(*out)[*n], err);
	if (st == EV_OK)
		(*n)++;
	else
		json_decref((*out)[*n].doc);
	return st;
}

/* heads/head-*.json, by size; with last_only, only the last as its name
 * says (head-SIZE.json, SIZE ten digits: the largest name is the largest
 * size), so that an append to a long log does not read every head. */
ev_status ev_log_heads_read(const char *dir, int last_only, struct ev_log_head **out, size_t *n, struct ev_error *err)
{
	char path[PATH_MAX], last[32] = "";
	*out = NULL;
	*n = 0;
	if (ev_path_join(path, sizeof path, dir, "heads") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? EV_OK : ev_error_errno(err, errno, "%s: cannot read the tree heads", path);
	struct dirent *de;
	size_t cap = 0;
	ev_status st = EV_OK;
	while (st == EV_OK && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, "head-", 5) != 0 || len < 10 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (!last_only)
			st = add_head(path, de->d_name, out, n, &cap, err);
		else if (len == 20 && strcmp(de->d_name, last) > 0)
			memcpy(last, de->d_name, len + 1);
	}
	closedir(d);
	if (st == EV_OK && last[0])
		st = add_head(path, last, out, n, &cap, err);
	if (st == EV_OK && *n > 1)
		qsort(*out, *n, sizeof **out, by_size);
	return st;
}

/* DIR/origin: the log's name, as its first append recorded it (origin ""
 * when there is none yet). */
ev_status ev_log_origin_read(const char *dir, char origin[EV_NOTE_NAME_MAX], struct ev_error *err)
{
	char path[PATH_MAX], *bytes = NULL;
	size_t len = 0;
	struct stat sb;
	origin[0] = '\0';
	if (ev_path_join(path, sizeof path, dir, "origin") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? EV_OK : ev_error_errno(err, errno, "%s: cannot read the log's origin", path);
	if (!S_ISREG(sb.st_mode))
		return ev_error_set(err, EV_REFUSED, "%s: the log's origin must be a regular file", path);
	ev_status st = ev_file_read_all(path, EV_NOTE_NAME_MAX + 1, &bytes, &len, err);
	if (st != EV_OK)
		return st;
	if (len < 2 || len > EV_NOTE_NAME_MAX || bytes[len - 1] != '\n')
		st = ev_error_set(err, EV_REFUSED, "%s: expected one line, the log's origin", path);
	else
		memcpy(origin, bytes, len - 1), origin[len - 1] = '\0';
	if (st == EV_OK && !ev_note_name_ok(origin))
		st = ev_error_set(err, EV_REFUSED, "%s: '%s' is not an origin (printable ASCII without space or '+')", path,
				  origin);
	free(bytes);
	if (st != EV_OK)
		origin[0] = '\0';
	return st;
}

/* DIR/origin, recorded: a log's name, or the one a replica witnesses. */
ev_status ev_log_origin_record(const char *dir, const char *origin, struct ev_error *err)
{
	char path[PATH_MAX], line[EV_NOTE_NAME_MAX + 1];
	int len = snprintf(line, sizeof line, "%s\n", origin);
	if (ev_path_join(path, sizeof path, dir, "origin") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	return ev_publish_bytes(path, line, (size_t)len, 0644, err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The cosigned checkpoints' paths, in name order. */
static ev_status list_cosigned(const char *dir, struct ev_log_view *v, struct ev_error *err)
{
	char top[PATH_MAX], sub[PATH_MAX + 256], path[PATH_MAX + 512];
	if (ev_path_join(top, sizeof top, dir, "cosignatures") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	DIR *d = opendir(top), *c;
	struct dirent *de, *ce;
	struct stat sb;
	size_t cap = 0;
	ev_status st = EV_OK;
	while (st == EV_OK && d && (de = readdir(d))) {
		if (ev_path_join(sub, sizeof sub, top, de->d_name) != 0 || de->d_name[0] == '.' || lstat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode) || !(c = opendir(sub)))
			continue;
		while (st == EV_OK && (ce = readdir(c))) {
			if (ev_path_join(path, sizeof path, sub, ce->d_name) != 0 || strncmp(ce->d_name, "checkpoint-", 11) != 0 ||
			    lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
				continue;
			if (ev_grow_array(&v->cosigned, &cap, v->ncosigned + 1, sizeof *v->cosigned) != 0) {
				st = ev_error_set(err, EV_ERROR, "out of memory");
				break;
			}
			if (!(v->cosigned[v->ncosigned] = strdup(path)))
				st = ev_error_set(err, EV_ERROR, "out of memory");
			else
				v->ncosigned++;
		}
		closedir(c);
	}
	if (d)
		closedir(d);
	if (v->ncosigned)
		qsort(v->cosigned, v->ncosigned, sizeof *v->cosigned, by_name);
	return st;
}

ev_status ev_log_view_read(const char *dir, struct ev_log_view *v, struct ev_error *err)
{
	memset(v, 0, sizeof *v);
	struct ev_log_entries e;
	ev_status st = ev_log_entries_read(dir, &e, err);
	if (st == EV_OK)
		st = ev_log_origin_read(dir, v->origin, err);
	if (st == EV_OK && !(v->sha256 = calloc(e.n + 1, sizeof *v->sha256)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; st == EV_OK && i < e.n; i++) {
		const char *hex = json_string_value(json_object_get(e.doc[i], "sha256"));
		if (!hex || !ev_sha256_hex_valid(hex))
			st = ev_error_set(err, EV_REFUSED, "%s/entries.jsonl: entry %zu: no \"sha256\" of the file logged", dir,
					  i);
		else
			snprintf(v->sha256[i], sizeof v->sha256[i], "%s", hex);
	}
	if (st == EV_OK && (st = ev_log_entries_tree(&e, &v->tree, err)) == EV_OK)
		v->n = e.n;
	if (st == EV_OK)
		st = list_cosigned(dir, v, err);
	ev_log_entries_free(&e);
	return st;
}
void ev_log_view_free(struct ev_log_view *v)
{
	free(v->sha256);
	ev_merkle_free(&v->tree);
	for (size_t i = 0; i < v->ncosigned; i++)
		free(v->cosigned[i]);
	free(v->cosigned);
	memset(v, 0, sizeof *v);
}
