/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixread.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK ((size_t)1 << 20)
#define WINDOW (READ_CHUNK + EV_FIXREAD_RECORD_MAX)
#define STITCH ((size_t)64 << 10) /* added at a time to finish a record cut by a read */

struct ev_fixread {
	const struct ev_fixread_ops *ops;
	struct ev_fixread_sink sink;
	void *state;
	unsigned char *window; /* unconsumed bytes of the current file first */
	size_t room;           /* bytes allocated for window, at most WINDOW */
	size_t held;           /* bytes in window */
	uint64_t at;           /* file offset of window[0] */
	const char *name;
	uint32_t index;
	uint64_t records;
};

static const struct {
	const char *name;
	const struct ev_fixread_ops *ops;
} kinds[] = {
	[EV_FIXREAD_LLFIX] = {"llfix", &ev_fixread_llfix_ops},
	[EV_FIXREAD_RAW] = {"raw", &ev_fixread_raw_ops},
	[EV_FIXREAD_QF_STORE] = {"qf-store", &ev_fixread_qfstore_ops},
	[EV_FIXREAD_QF_LOG] = {"qf-log", &ev_fixread_qflog_ops},
};

const char *ev_fixread_kind_name(enum ev_fixread_kind kind)
{
	return (unsigned)kind < sizeof kinds / sizeof *kinds ? kinds[kind].name : "unknown";
}

int ev_fixread_kind_parse(const char *name)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* --- the file system as a journal source ----------------------------------- */

static mode_t look_file(void *ctx, const char *path)
{
	(void)ctx;
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	return sb.st_mode & S_IFMT;
}

static ev_status names_in_directory(void *ctx, const char *dir, void (*fn)(void *arg, const char *name), void *arg,
				    struct ev_error *err)
{
	(void)ctx;
	DIR *d = opendir(dir);
	if (!d)
		return ev_error_errno(err, errno, "%s: cannot open the journal directory", dir);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		fn(arg, e->d_name);
	closedir(d);
	return EV_OK;
}

const struct ev_journal_source ev_journal_files = {look_file, names_in_directory, NULL};

/* --- what a path stands for ----------------------------------------------------- */

int ev_fixread_detect_in(const struct ev_journal_source *src, const char *path, struct ev_error *err)
{
	char probe[4096];
	mode_t mode = src->look(src->ctx, path);
	if (!mode) {
		int why = errno;
		/* QuickFIX's session prefix, with or without its trailing dot */
		snprintf(probe, sizeof probe, "%s%sbody", path, ends_with(path, ".") ? "" : ".");
		if (src->look(src->ctx, probe))
			return EV_FIXREAD_QF_STORE;
		ev_error_errno(err, why, "%s: cannot read", path);
		return -1;
	}
	static const char *const beside[] = {".header", ".seqnums", ".session"};
	for (size_t i = 0; i < sizeof beside / sizeof *beside; i++) {
		size_t n = strlen(path), m = strlen(beside[i]);
		if (!ends_with(path, beside[i]) || n - m >= sizeof probe - 6)
			continue;
		snprintf(probe, sizeof probe, "%.*s.body", (int)(n - m), path);
		if (src->look(src->ctx, probe)) {
			ev_error_set(err, EV_USAGE, "%s: a QuickFIX store's %s, not its messages: name %s (or the "
				     "prefix), and the %s is read beside it", path, beside[i] + 1, probe, beside[i] + 1);
			return -1;
		}
	}
	if (S_ISDIR(mode)) {
		snprintf(probe, sizeof probe, "%s/1.bin", path);
		if (src->look(src->ctx, probe))
			return EV_FIXREAD_LLFIX;
		ev_error_set(err, EV_USAGE, "%s: a directory without 1.bin (not an llfix journal); "
			     "name the journal file, or say --format", path);
		return -1;
	}
	if (ends_with(path, ".body"))
		return EV_FIXREAD_QF_STORE;
	if (ends_with(path, ".log"))
		return EV_FIXREAD_QF_LOG;
	return EV_FIXREAD_RAW;
}

int ev_fixread_detect(const char *path, struct ev_error *err)
{
	return ev_fixread_detect_in(&ev_journal_files, path, err);
}

void ev_fixread_files_free(char **files, size_t n)
{
	for (size_t i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
}

unsigned long ev_fixread_llfix_number(const char *name)
{
	char *end;
	if (name[0] < '1' || name[0] > '9')
		return 0;
	unsigned long n = strtoul(name, &end, 10);
	return strcmp(end, ".bin") == 0 ? n : 0;
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

struct numbers {
	unsigned long *v;
	size_t n, cap;
	int oom;
};

static void add_number(void *arg, const char *name)
{
	struct numbers *ns = arg;
	unsigned long k = ev_fixread_llfix_number(name);
	if (!k || ns->oom)
		return;
	if (ev_grow_array(&ns->v, &ns->cap, ns->n + 1, sizeof *ns->v) != 0) {
		ns->oom = 1;
		return;
	}
	ns->v[ns->n++] = k;
}

ev_status ev_fixread_list_in(const struct ev_journal_source *src, enum ev_fixread_kind kind, const char *path,
			     char ***files, size_t *nfiles, struct ev_error *err)
{
	*files = NULL;
	*nfiles = 0;
	if (kind != EV_FIXREAD_LLFIX) {
		char *one;
		if (kind == EV_FIXREAD_QF_STORE && !ends_with(path, ".body")) {
			size_t n = strlen(path) + 6;
			if ((one = malloc(n)))
				snprintf(one, n, "%s%sbody", path, ends_with(path, ".") ? "" : ".");
		} else {
			one = strdup(path);
		}
		if (!one || !(*files = malloc(sizeof **files))) {
			free(one);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
		(*files)[0] = one;
		*nfiles = 1;
		return EV_OK;
	}
	mode_t mode = src->look(src->ctx, path);
	if (mode && !S_ISDIR(mode))
		return ev_error_set(err, EV_USAGE,
				    "%s: %s, not a directory: an llfix journal is a directory of numbered "
				    ".bin files", path, ev_input_kind(mode));
	struct numbers ns = {0};
	ev_status st = src->names_in(src->ctx, path, add_number, &ns, err);
	if (st != EV_OK || ns.oom) {
		free(ns.v);
		return st != EV_OK ? st : ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (ns.n > 1)
		qsort(ns.v, ns.n, sizeof *ns.v, by_number);
	*files = calloc(ns.n ? ns.n : 1, sizeof **files);
	for (size_t i = 0; *files && i < ns.n; i++) {
		size_t len = strlen(path) + 32;
		if (((*files)[i] = malloc(len)) == NULL)
			break;
		snprintf((*files)[i], len, "%s/%lu.bin", path, ns.v[i]);
		*nfiles = i + 1;
	}
	free(ns.v);
	if (!*files || *nfiles != ns.n) {
		ev_fixread_files_free(*files, *nfiles);
		*files = NULL;
		*nfiles = 0;
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	return EV_OK;
}

ev_status ev_fixread_list(enum ev_fixread_kind kind, const char *path, char ***files, size_t *nfiles,
			  struct ev_error *err)
{
	return ev_fixread_list_in(&ev_journal_files, kind, path, files, nfiles, err);
}

struct ev_fixread *ev_fixread_new(enum ev_fixread_kind kind, const struct ev_fixread_sink *sink)
{
	if ((unsigned)kind >= sizeof kinds / sizeof *kinds)
		return NULL;
	struct ev_fixread *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->ops = kinds[kind].ops;
	r->sink = *sink;
	r->state = calloc(1, r->ops->state_size ? r->ops->state_size : 1);
	if (!r->state) {
		ev_fixread_free(r);
		return NULL;
	}
	return r;
}

void ev_fixread_free(struct ev_fixread *r)
{
	if (!r)
		return;
	if (r->state && r->ops->release)
		r->ops->release(r->state);
	free(r->state);
	free(r->window);
	free(r);
}

const char *ev_fixread_name(const struct ev_fixread *r)
{
	return r->name;
}

const struct ev_fixread_sink *ev_fixread_sink_of(const struct ev_fixread *r)
{
	return &r->sink;
}

uint64_t ev_fixread_records(const struct ev_fixread *r)
{
	return r->records;
}

void ev_fixread_emit_stamped(struct ev_fixread *r, const unsigned char *msg, uint32_t len, uint64_t at,
			     uint64_t stamp_ns)
{
	struct ev_fix_record rec = {(const char *)msg, len, r->name, r->index, ++r->records, at, stamp_ns};
	r->sink.record(r->sink.ctx, &rec);
}

void ev_fixread_emit(struct ev_fixread *r, const unsigned char *msg, uint32_t len, uint64_t at)
{
	ev_fixread_emit_stamped(r, msg, len, at, 0);
}

void ev_fixread_damage(struct ev_fixread *r, enum ev_fix_rule rule, uint64_t at,
		       const char *message, const char *expected, const char *found)
{
	r->sink.damage(r->sink.ctx, rule, r->name, 0, at, message, expected, found);
}

ev_status ev_fixread_begin(struct ev_fixread *r, const char *name, uint32_t index,
			   struct ev_error *err)
{
	(void)err;
	r->name = name;
	r->index = index;
	r->held = 0;
	r->at = 0;
	r->records = 0;
	if (r->ops->begin)
		r->ops->begin(r->state, r, name);
	return EV_OK;
}

/* The window grows to what a cut record needs, doubling, up to WINDOW:
 * a small journal (and each fuzzer input) costs kilobytes, not 5 MiB. */
static ev_status window_room(struct ev_fixread *r, size_t need, struct ev_error *err)
{
	if (need <= r->room)
		return EV_OK;
	size_t room = r->room ? r->room : STITCH;
	while (room < need)
		room *= 2;
	if (room > WINDOW)
		room = WINDOW;
	unsigned char *bigger = realloc(r->window, room);
	if (!bigger)
		return ev_error_set(err, EV_ERROR, "%s: out of memory for a record cut by a read (%zu bytes)",
				    r->name ? r->name : "journal", need);
	r->window = bigger;
	r->room = room;
	return EV_OK;
}

/* Let the reader consume what the window holds; keep the rest in front. */
static void consume(struct ev_fixread *r, int eof)
{
	static const unsigned char nothing[1];
	size_t used = r->ops->parse(r->state, r, r->window ? r->window : nothing, r->held, r->at, eof);
	if (used > r->held)
		used = r->held;
	if (used && used < r->held)
		memmove(r->window, r->window + used, r->held - used);
	r->held -= used;
	r->at += used;
}

/* A record longer than the window: the reader says why it cannot take it
 * and a chunk is skipped. */
static void overflow(struct ev_fixread *r)
{
	if (r->held < WINDOW)
		return;
	ev_fixread_damage(r, EV_RULE_STREAM_FRAMING, r->at, "a record longer than 4 MiB: skipped", NULL,
			  NULL);
	memmove(r->window, r->window + READ_CHUNK, r->held - READ_CHUNK);
	r->held -= READ_CHUNK;
	r->at += READ_CHUNK;
}

ev_status ev_fixread_feed(struct ev_fixread *r, const void *data, size_t len, struct ev_error *err)
{
	const unsigned char *p = data;
	if (r->sink.fed)
		r->sink.fed(r->sink.ctx, len);
	while (len) {
		if (r->held == 0) {
			/* Whole records straight from the caller's bytes; only the
			 * record cut by their end is copied, to be finished. */
			size_t used = r->ops->parse(r->state, r, p, len, r->at, 0);
			if (used > len)
				used = len;
			r->at += used;
			p += used;
			len -= used;
			size_t n = len < WINDOW ? len : WINDOW;
			if (n) {
				if (window_room(r, n, err) != EV_OK)
					return err->status;
				memcpy(r->window, p, n);
			}
			r->held = n;
			p += n;
			len -= n;
			overflow(r);
			continue;
		}
		/* A record is held: add bytes until it is whole. Once it is, the
		 * rest of the caller's bytes are parsed where they are. */
		size_t before = r->held, room = WINDOW - r->held;
		size_t n = len < room ? len : room;
		if (n > STITCH)
			n = STITCH;
		if (window_room(r, r->held + n, err) != EV_OK)
			return err->status;
		memcpy(r->window + r->held, p, n);
		r->held += n;
		consume(r, 0);
		size_t used = before + n - r->held;
		if (used > before) {
			p += used - before;
			len -= used - before;
			r->held = 0; /* the copy of what follows is not needed */
			continue;
		}
		p += n;
		len -= n;
		overflow(r);
	}
	return EV_OK;
}

ev_status ev_fixread_end(struct ev_fixread *r, struct ev_error *err)
{
	(void)err;
	consume(r, 1);
	uint64_t size = r->at + r->held;
	if (r->ops->end)
		r->ops->end(r->state, r, size);
	return EV_OK;
}

void ev_fixread_finish(struct ev_fixread *r)
{
	if (r->ops->finish)
		r->ops->finish(r->state, r);
}

void ev_fixread_companion(struct ev_fixread *r, const char *path)
{
	if (r->ops->companion)
		r->ops->companion(r->state, r, path);
}

ev_status ev_fixread_file(struct ev_fixread *r, const char *path, uint32_t index,
			  struct ev_hashpipe *pipe, uint8_t digest[EV_SHA256_LEN], uint64_t *bytes,
			  struct ev_error *err)
{
	unsigned char *buf = pipe ? NULL : malloc(READ_CHUNK);
	ev_status st = EV_OK;
	if (!pipe && !buf)
		return ev_error_set(err, EV_ERROR, "out of memory");
	int fd = ev_input_open(path, "journal", err);
	if (fd < 0) {
		free(buf);
		return err->status;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	ev_fixread_companion(r, path);
	ev_fixread_begin(r, path, index, err);
	uint64_t total = 0;
	for (;;) {
		if ((r->sink.stop && *r->sink.stop) || (r->sink.enough && *r->sink.enough)) {
			st = r->sink.stop && *r->sink.stop
				     ? ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", path)
				     : ev_error_set(err, EV_INTERRUPTED, "%s: left unread, no longer needed", path);
			if (pipe) { /* the digest of a file not read whole is void */
				ev_hashpipe_buffer(pipe);
				ev_hashpipe_publish(pipe, 0, 1, digest);
			}
			break;
		}
		/* Read into the hasher's slot: the bytes are hashed there and
		 * parsed from the same place. */
		unsigned char *into = pipe ? ev_hashpipe_buffer(pipe) : buf;
		ssize_t got = read(fd, into, READ_CHUNK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			st = ev_error_errno(err, errno, "%s: read failed", path);
			if (pipe) /* the slot is handed back unhashed: this digest is void */
				ev_hashpipe_publish(pipe, 0, 1, digest);
			break;
		}
		if (pipe)
			ev_hashpipe_publish(pipe, (size_t)got, got == 0, got == 0 ? digest : NULL);
		if (got == 0)
			break;
		total += (uint64_t)got;
		if ((st = ev_fixread_feed(r, into, (size_t)got, err)) != EV_OK) {
			if (pipe) { /* the digest of a file not read whole is void */
				ev_hashpipe_buffer(pipe);
				ev_hashpipe_publish(pipe, 0, 1, digest);
			}
			break;
		}
	}
	close(fd);
	if (bytes)
		*bytes = total;
	if (st == EV_OK)
		ev_fixread_end(r, err);
	free(buf);
	return st;
}
