/* SPDX-License-Identifier: Apache-2.0 */
/* archive_reader: an archive judged member by member against its seal in
 * one streaming pass (archive_reader.h); its plain tar comes from
 * tar_source, which decodes it into the ring the hasher reads. */
#include "config.h"
#include "lib/archive/archive_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "lib/archive/decoder.h"
#include "lib/core/input.h"
#include "lib/archive/tar_source.h"
#include "lib/archive/tarwalk.h"
#include "lib/core/hashpipe.h"
#include "lib/archive/namefold.h"
#include "lib/core/path.h"
#include "lib/core/meter.h"

/* Slots are mostly references into the ring; a copy slot's memory is
 * touched only as far as it is filled. */
#define HASH_SLOTS 64
#define HASH_SLOT_BYTES ((size_t)1 << 20)
#define EXTRA_NAMES_FOLDED 65536

struct checker {
	const struct ev_seal *seal;
	ev_finding_fn on_finding;
	void *ctx;
	unsigned findings;
	unsigned char *seen;   /* per seal member */
	size_t *order;         /* seal index of each sealed member, as they came */
	size_t ordered;
	/* Member contents are hashed on another thread while the next ones are
	 * decompressed; digests are compared once it has caught up. */
	struct ev_hashpipe *pipe;
	uint8_t (*digests)[EV_SHA256_LEN]; /* per seal member */
	unsigned char *hashed; /* per seal member: a digest is due */
	struct ev_namefold *names; /* every member name seen, for collisions */
	const struct ev_meter *progress; /* NULL: none */
	const struct ev_archive_tap *tap; /* NULL: none */
	int out_of_memory;
	uint64_t extras_folded;     /* extra names compared for collisions */
	struct ev_archive_check *result;
	const int *stopped;    /* the source stopped for a signal: its errors are not findings */
	struct ev_tar_source *source;
};

static void found(struct checker *c, const char *subject, const char *check, const char *message,
		  const char *expected, const char *what)
{
	ev_finding_emit(c->on_finding, c->ctx, subject, check, message, expected, what);
	c->findings++;
}

/* A header whose own name is not its pax path: libarchive reads one file,
 * a tar without pax support would write another. */
static void header_names(void *ctx, const char *header, const char *pax)
{
	struct checker *c = ctx;
	if (pax[0] && !ev_tarwalk_name_fits(header, pax))
		found(c, pax, "pax-path", "the member's pax path record names another file than its tar header",
		      pax, header);
}

static void count_finding(void *ctx, const struct ev_finding *f)
{
	struct checker *c = ctx;
	c->on_finding(c->ctx, f);
	c->findings++;
}

static enum ev_member_type entry_type(struct archive_entry *e)
{
	if (archive_entry_hardlink(e))
		return EV_MEMBER_HARDLINK;
	switch (archive_entry_filetype(e)) {
	case AE_IFREG: return EV_MEMBER_FILE;
	case AE_IFDIR: return EV_MEMBER_DIR;
	case AE_IFLNK: return EV_MEMBER_SYMLINK;
	case AE_IFIFO: return EV_MEMBER_FIFO;
	case AE_IFSOCK: return EV_MEMBER_SOCKET;
	case AE_IFCHR:
	case AE_IFBLK: return EV_MEMBER_DEVICE;
	default: return EV_MEMBER_OTHER;
	}
}

/* The member's next block of data. @return 1 (buf, len set), 0 at its end,
 * -1 when the stream breaks (a "stream" finding about subject, unless
 * the check was stopped). */
static int next_block(struct archive *a, struct checker *c, const char *subject, const void **buf,
		      size_t *len)
{
	la_int64_t off;
	int r = archive_read_data_block(a, buf, len, &off);
	if (r == ARCHIVE_EOF)
		return 0;
	if (r == ARCHIVE_OK)
		return 1;
	if (!(c->stopped && *c->stopped))
		found(c, subject, "stream", "archive stream is damaged or truncated while this member is read",
		      NULL, archive_error_string(a));
	return -1;
}

/* Send a member's data to the hashing thread, counting its size; the
 * digest lands in c->digests[idx]. A tap that asked for the member gets
 * each block too, before it is copied for the hasher. @return 0, or -1
 * when the stream broke (reported; the digest is then never due). */
static int hash_data(struct archive *a, struct checker *c, const char *subject, long idx,
		     uint64_t *size)
{
	unsigned char *slot = NULL; /* the ring slot being filled */
	size_t fill = 0;
	const struct ev_archive_tap *tap = c->tap;
	void *tapped = tap && c->seal->members[idx].type == EV_MEMBER_FILE
			       ? tap->begin(tap->ctx, (size_t)idx, &c->seal->members[idx])
			       : NULL;
	*size = 0;
	for (;;) {
		const void *buf;
		size_t len;
		int r = next_block(a, c, subject, &buf, &len);
		if (r == 0)
			break;
		if (r < 0) {
			if (tapped)
				tap->end(tapped, 0);
			return -1;
		}
		if (tapped)
			tap->data(tapped, buf, len);
		if (ev_tar_source_holds(c->source, buf, len)) {
			/* It stays in its ring block until the hasher is past it:
			 * hand it over where it is. */
			if (slot) {
				ev_hashpipe_publish(c->pipe, fill, 0, NULL);
				slot = NULL;
			}
			ev_tar_source_lend(c->source, ev_hashpipe_publish_ref(c->pipe, buf, len, 0, NULL));
		} else {
			/* libarchive's own copy (a block's end joined to the next)
			 * is only valid until the next call: copy it, into whole
			 * slots, so the hasher is woken once per slot. */
			for (size_t done = 0; done < len;) {
				if (!slot) {
					slot = ev_hashpipe_buffer(c->pipe);
					fill = 0;
				}
				size_t n = len - done < HASH_SLOT_BYTES - fill ? len - done : HASH_SLOT_BYTES - fill;
				memcpy(slot + fill, (const char *)buf + done, n);
				fill += n;
				done += n;
				if (fill == HASH_SLOT_BYTES) {
					ev_hashpipe_publish(c->pipe, fill, 0, NULL);
					slot = NULL;
				}
			}
		}
		*size += len;
		ev_meter_advance(c->progress, len, 0);
	}
	if (!slot) {
		ev_hashpipe_buffer(c->pipe);
		fill = 0;
	}
	ev_hashpipe_publish(c->pipe, fill, 1, c->digests[idx]);
	c->hashed[idx] = 1;
	if (tapped)
		tap->end(tapped, 1);
	ev_meter_advance(c->progress, 0, 1);
	return 0;
}

/* Check the first entry: SEAL.json with exactly the seal's bytes. */
static int check_embedded_seal(struct archive *a, struct archive_entry *e, struct checker *c,
			       const char *seal_bytes, size_t seal_len)
{
	const char *name = archive_entry_pathname_utf8(e);
	if (!name)
		name = archive_entry_pathname(e);
	if (!name || strcmp(name, EV_SEAL_FILENAME) != 0 || entry_type(e) != EV_MEMBER_FILE) {
		found(c, EV_SEAL_FILENAME, "embedded-seal",
		      "the archive's first member is not SEAL.json", EV_SEAL_FILENAME,
		      name ? name : "(unnamed)");
		return 0;
	}
	char *copy = malloc(seal_len + 1);
	if (!copy)
		return -1;
	size_t got = 0;
	int differs = 0;
	for (;;) {
		const void *buf;
		size_t len;
		int r = next_block(a, c, EV_SEAL_FILENAME, &buf, &len);
		if (r == 0)
			break;
		if (r < 0) {
			free(copy);
			return -1;
		}
		if (got + len > seal_len)
			differs = 1;
		else
			memcpy(copy + got, buf, len);
		got += len;
	}
	if (differs || got != seal_len || memcmp(copy, seal_bytes, seal_len) != 0)
		found(c, EV_SEAL_FILENAME, "embedded-seal",
		      "the archive's SEAL.json differs from the seal given", NULL, NULL);
	free(copy);
	return 0;
}

static void check_member(struct archive *a, struct archive_entry *e, struct checker *c,
			 int *broken)
{
	const struct ev_seal *seal = c->seal;
	const char *raw = archive_entry_pathname_utf8(e);
	if (!raw)
		raw = archive_entry_pathname(e);
	if (!raw)
		raw = "";
	enum ev_member_type type = entry_type(e);
	size_t rawlen = strlen(raw);
	if (rawlen > EV_PATH_MAX + 1) {
		found(c, raw, "refused", "member name too long", NULL, NULL);
		return;
	}
	/* The name is judged whole before its root is: "/etc/x" and
	 * "ROOT/../x" are hostile whatever they would have matched. */
	char name[EV_PATH_MAX + 2];
	memcpy(name, raw, rawlen + 1);
	if (type == EV_MEMBER_DIR && rawlen > 1 && name[rawlen - 1] == '/')
		name[--rawlen] = '\0';
	const char *problem = ev_path_problem(name, rawlen);
	if (problem) {
		found(c, raw, "refused", problem, NULL, NULL);
		return;
	}
	size_t rootlen = strlen(seal->root);
	if (strncmp(name, seal->root, rootlen) != 0 || name[rootlen] != '/') {
		found(c, raw, "extra", "member outside the sealed root", seal->root, raw);
		return;
	}
	char *path = name + rootlen + 1;
	long idx = ev_seal_find(seal, path);
	/* Sealed names are bounded by the seal; extras only by the archive,
	 * so past a limit they are counted, not folded (each is a finding
	 * already, the archive fails whatever they collide with). */
	if (idx < 0 && c->extras_folded >= EXTRA_NAMES_FOLDED) {
		c->result->extra_names_not_folded++;
	} else {
		struct ev_error oom;
		ev_error_clear(&oom);
		if (ev_namefold_add(c->names, path, &oom) != EV_OK)
			c->out_of_memory = 1;
		c->extras_folded += idx < 0;
	}
	if (idx < 0) {
		found(c, path, "extra", "member not in the seal", NULL, ev_member_type_name(type));
		return;
	}
	if (c->seen[idx]) {
		found(c, path, "duplicate", "member appears more than once", NULL, NULL);
		return;
	}
	c->seen[idx] = 1;
	c->order[c->ordered++] = (size_t)idx;
	/* All 07777 bits: a setuid bit in the archive is a mode finding. */
	struct ev_member got = {.path = path, .type = type,
				.mode = (unsigned)archive_entry_mode(e) & 07777};
	if (type == EV_MEMBER_FILE) {
		if (hash_data(a, c, path, idx, &got.size) != 0) {
			*broken = 1;
			return;
		}
	} else if (type != EV_MEMBER_DIR) {
		found(c, path, "type", "archive holds a link, device or FIFO, which is never accepted",
		      ev_member_type_name(seal->members[idx].type), ev_member_type_name(type));
		return;
	}
	/* Type, mode and size now; the digest when the hasher has it. */
	ev_member_compare(&seal->members[idx], &got, 0, count_finding, c);
	if (got.type != seal->members[idx].type || got.size != seal->members[idx].size)
		c->hashed[idx] = 0;
}

/* Name the members that moved: those outside a longest run of members
 * still in seal order (a longest increasing subsequence of seal indices).
 * Comparing each member with the one before it would blame an innocent
 * neighbour of a member moved earlier. */
static void report_moved(struct checker *c)
{
	size_t n = c->ordered;
	if (n < 2)
		return;
	size_t *tail = malloc(n * sizeof *tail);  /* tail[k]: position ending a run of k+1 */
	size_t *prev = malloc(n * sizeof *prev);  /* the position before it in its run */
	unsigned char *keep = calloc(n, 1);
	if (!tail || !prev || !keep) {
		c->out_of_memory = 1;
		goto out;
	}
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = len;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (c->order[tail[mid]] < c->order[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : SIZE_MAX;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	for (size_t i = tail[len - 1]; i != SIZE_MAX; i = prev[i])
		keep[i] = 1;
	const struct ev_seal *seal = c->seal;
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			continue;
		size_t idx = c->order[i];
		char expected[EV_FINDING_VALUE_MAX], got[EV_FINDING_VALUE_MAX];
		if (idx == 0)
			snprintf(expected, sizeof expected, "first");
		else
			snprintf(expected, sizeof expected, "after %s", seal->members[idx - 1].path);
		if (i == 0)
			snprintf(got, sizeof got, "first");
		else
			snprintf(got, sizeof got, "after %s", seal->members[c->order[i - 1]].path);
		found(c, seal->members[idx].path, "order", "member out of seal order", expected, got);
	}
out:
	free(tail);
	free(prev);
	free(keep);
}

/* Compare the digests of the members hashed in full, in seal order. */
static void compare_digests(struct checker *c)
{
	const struct ev_seal *seal = c->seal;
	for (size_t i = 0; i < seal->count; i++) {
		if (!c->hashed[i] || memcmp(c->digests[i], seal->members[i].sha256, EV_SHA256_LEN) == 0)
			continue;
		char want[EV_SHA256_HEX_LEN + 1], got[EV_SHA256_HEX_LEN + 1];
		ev_sha256_hex(seal->members[i].sha256, want);
		ev_sha256_hex(c->digests[i], got);
		found(c, seal->members[i].path, "sha256", "content differs (SHA-256)", want, got);
	}
}

ev_status ev_archive_check(const char *path, const struct ev_seal *seal, const char *seal_bytes,
			   size_t seal_len, ev_finding_fn on_finding, void *ctx,
			   const struct ev_meter *progress, volatile sig_atomic_t *interrupted,
			   struct ev_archive_check *result, struct ev_error *err)
{
	return ev_archive_check_tapped(path, seal, seal_bytes, seal_len, on_finding, ctx, NULL,
				       progress, interrupted, result, err);
}

/* Kept whole: one pass over one archive, whose decoder, tar reader,
 * hashing thread and ring are made and torn down together on every path (a
 * signal included); split, each part would carry all four. */
ev_status ev_archive_check_tapped(const char *path, const struct ev_seal *seal,
				  const char *seal_bytes, size_t seal_len, ev_finding_fn on_finding,
				  void *ctx, const struct ev_archive_tap *tap,
				  const struct ev_meter *progress, volatile sig_atomic_t *interrupted,
				  struct ev_archive_check *result, struct ev_error *err)
{
	memset(result, 0, sizeof *result);
	ev_status st = EV_OK;
	struct checker c = {.seal = seal, .on_finding = on_finding, .ctx = ctx, .progress = progress,
			    .tap = tap, .result = result};
	struct ev_tar_source src = {0};
	src.walk.on_entry = header_names;
	src.interrupted = interrupted;
	c.stopped = &src.stopped;
	src.walk.ctx = &c;
	int fd = -1, first = 1, broken = 0, stream_ended = 0;
	struct archive *a = NULL;
	size_t slots = seal->count ? seal->count : 1;
	ev_error_clear(&src.io);
	c.seen = calloc(slots, 1);
	c.order = calloc(slots, sizeof *c.order);
	c.hashed = calloc(slots, 1);
	c.digests = calloc(slots, sizeof *c.digests);
	c.names = ev_namefold_new();
	if (!c.seen || !c.order || !c.hashed || !c.digests || !c.names) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", path);
		goto out;
	}
	if ((st = ev_hashpipe_new(&c.pipe, HASH_SLOTS, HASH_SLOT_BYTES, err)) != EV_OK)
		goto out;
	c.source = &src;
	if ((st = ev_tar_source_ring(&src, c.pipe, path, err)) != EV_OK)
		goto out;
	if ((fd = ev_input_open(path, "archive", err)) < 0) {
		st = err->status;
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if ((st = ev_decoder_open(&src.decoder, fd, err)) != EV_OK) {
		ev_error_wrap(err, "%s", path);
		goto out;
	}
	result->compression = ev_decoder_kind_name(ev_decoder_kind(src.decoder));
	a = archive_read_new();
	if (!a || archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    /* A tar reader stops at the first end-of-archive marker, and
	     * `tar -i` or a second reader would go on: read past it, so that
	     * whatever follows is a member (an "extra") or damage ("stream"),
	     * never unseen. Zero blocks after it are tar record padding. */
	    archive_read_set_format_option(a, "tar", "read_concatenated_archives", "1") !=
		    ARCHIVE_OK) {
		st = ev_error_set(err, EV_ERROR, "%s: libarchive lacks tar support", path);
		goto out;
	}
	if (archive_read_open(a, &src, NULL, ev_tar_source_read, NULL) != ARCHIVE_OK) {
		if (src.stopped) {
			st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", path);
			goto out;
		}
		if (src.io.status != EV_OK) {
			st = ev_error_set(err, EV_ERROR, "%s: %s", path, src.io.text);
			goto out;
		}
		/* libarchive reads ahead while opening, so damage far into a small
		 * archive shows here too. */
		const char *problem = ev_decoder_problem(src.decoder);
		found(&c, path, "stream",
		      ev_decoder_kind(src.decoder) == EV_DECODE_UNKNOWN
			      ? "not a zstd or gzip compressed tar archive"
		      : problem[0] ? "archive stream is damaged or truncated"
				   : "no tar archive inside the compressed stream",
		      NULL, problem[0] ? problem : archive_error_string(a));
		stream_ended = 1;
		goto summarize;
	}
	while (!broken) {
		struct archive_entry *e;
		int r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (src.io.status != EV_OK) {
			st = ev_error_set(err, EV_ERROR, "%s: %s", path, src.io.text);
			goto out;
		}
		if (src.stopped)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			found(&c, path, "stream", "archive stream is damaged or truncated", NULL,
			      archive_error_string(a));
			stream_ended = 1;
			break;
		}
		if (first) {
			first = 0;
			if (check_embedded_seal(a, e, &c, seal_bytes, seal_len) != 0) {
				stream_ended = 1;
				break;
			}
			continue;
		}
		result->members_checked++;
		check_member(a, e, &c, &broken);
		if (src.stopped)
			break;
	}
	if (src.stopped || (interrupted && *interrupted)) {
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", path);
		goto out;
	}
	if (src.io.status != EV_OK) {
		st = ev_error_set(err, EV_ERROR, "%s: %s", path, src.io.text);
		goto out;
	}
	/* A stream cut where a frame or a tar header ends decodes cleanly and
	 * reads as a shorter archive: only its missing end-of-archive marker
	 * tells it from a whole one. */
	if (!stream_ended && !broken && !first && !ev_tarwalk_complete(&src.walk)) {
		found(&c, path, "stream", "archive stream is damaged or truncated", NULL,
		      "the tar stream ends without its end-of-archive marker (cut where a frame or a header ends)");
		stream_ended = 1;
	}
summarize:;
	/* The archive's digest covers every byte of the file, trailing ones too. */
	uint64_t trailing = 0, trailing_at = 0;
	if ((st = ev_decoder_finish(src.decoder, result->archive_sha256, &result->archive_bytes,
				    &trailing, &trailing_at, err)) != EV_OK) {
		ev_error_wrap(err, "%s", path);
		goto out;
	}
	if ((st = ev_hashpipe_finish(c.pipe, err)) != EV_OK)
		goto out;
	report_moved(&c);
	compare_digests(&c);
	if (c.out_of_memory) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory while checking names", path);
		goto out;
	}
	c.findings += ev_namefold_report(c.names, on_finding, ctx);
	if (first && !broken && !stream_ended)
		found(&c, path, "embedded-seal", "the archive holds no members at all", NULL, NULL);
	if (broken || stream_ended) {
		/* Members after the break were never reached: say so once rather
		 * than calling each of them missing. */
		size_t unreached = 0;
		for (size_t i = 0; i < seal->count; i++)
			unreached += !c.seen[i];
		result->unreached = unreached;
		if (unreached) {
			char n[32];
			snprintf(n, sizeof n, "%zu", unreached);
			found(&c, path, "unreached", "sealed members left unchecked", NULL, n);
		}
	} else {
		for (size_t i = 0; i < seal->count; i++)
			if (!c.seen[i])
				found(&c, seal->members[i].path, "missing", "missing from the archive",
				      ev_member_type_name(seal->members[i].type), NULL);
	}
	if (trailing) {
		char what[96];
		snprintf(what, sizeof what, "%llu bytes from byte %llu", (unsigned long long)trailing,
			 (unsigned long long)trailing_at);
		found(&c, path, "trailing", "bytes follow the end of the compressed stream", NULL, what);
	}
	result->findings = c.findings;
	st = c.findings ? EV_MISMATCH : EV_OK;
out:
	if (a)
		archive_read_free(a);
	if (fd >= 0)
		close(fd);
	ev_hashpipe_free(c.pipe); /* the hasher may still read the ring */
	ev_tar_source_free(&src);
	free(c.seen);
	free(c.order);
	free(c.hashed);
	free(c.digests);
	ev_namefold_free(c.names);
	return st;
}

ev_status ev_archive_embedded_seal(const char *path, size_t max, char **bytes, size_t *len,
				   struct ev_error *err)
{
	struct ev_tar_source src = {0};
	struct archive *a = NULL;
	struct archive_entry *e;
	char *buf = NULL;
	size_t got = 0;
	ev_status st = EV_OK;
	ev_error_clear(&src.io);
	*bytes = NULL;
	*len = 0;
	int fd = ev_input_open(path, "archive", err);
	if (fd < 0)
		return err->status;
	if ((st = ev_decoder_open(&src.decoder, fd, err)) != EV_OK) {
		ev_error_wrap(err, "%s", path);
		goto out;
	}
	if (!(a = archive_read_new()) || archive_read_support_format_tar(a) != ARCHIVE_OK) {
		st = ev_error_set(err, EV_ERROR, "%s: libarchive lacks tar support", path);
		goto out;
	}
	if (archive_read_open(a, &src, NULL, ev_tar_source_read, NULL) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		st = src.io.status != EV_OK
			     ? ev_error_set(err, EV_ERROR, "%s: %s", path, src.io.text)
			     : ev_error_set(err, EV_MISMATCH, "%s: not a readable compressed tar archive (%s)",
					    path, ev_decoder_problem(src.decoder)[0]
							  ? ev_decoder_problem(src.decoder)
							  : archive_error_string(a));
		goto out;
	}
	const char *name = archive_entry_pathname(e);
	if (!name || strcmp(name, EV_SEAL_FILENAME) != 0 || entry_type(e) != EV_MEMBER_FILE ||
	    archive_entry_size(e) < 0 || (uint64_t)archive_entry_size(e) > max) {
		st = ev_error_set(err, EV_MISMATCH,
				  "%s: its first member is not SEAL.json of at most %zu bytes (found %s '%.200s', "
				  "%lld bytes)", path, max, ev_member_type_name(entry_type(e)),
				  name ? name : "(unnamed)", (long long)archive_entry_size(e));
		goto out;
	}
	size_t want = (size_t)archive_entry_size(e);
	if (!(buf = malloc(want + 1))) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	while (got < want) {
		la_ssize_t n = archive_read_data(a, buf + got, want - got);
		if (n <= 0) {
			st = ev_error_set(err, EV_MISMATCH, "%s: the stream breaks inside SEAL.json (%s)", path,
					  n < 0 ? archive_error_string(a) : "it ends early");
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*bytes = buf;
	*len = got;
	buf = NULL;
out:
	free(buf);
	if (a)
		archive_read_free(a);
	ev_tar_source_free(&src);
	close(fd);
	return st;
}

json_t *ev_archive_coverage(const struct ev_archive_check *res, int seal_pinned, int archive_pinned,
			    char *line, size_t cap)
{
	uint64_t unreached = res->unreached;
	json_t *o = json_object(), *done = json_array(), *pins = json_array(), *not = json_array();
	json_array_append_new(done, json_string("the SHA-256, size, mode (all 12 bits) and type of every sealed member"));
	json_array_append_new(done, json_string("SEAL.json, the first member, byte for byte against the seal"));
	json_array_append_new(done, json_string("every member named once, in seal order, its tar header name against its "
						"pax path; no extra, missing, linked or special member; no name colliding "
						"by case or Unicode normalization"));
	json_array_append_new(done, json_string("the compressed stream to its end: every frame and checksum, SEAL.json's "
						"padding frame zeros only, no other skippable frame, tar's end-of-archive "
						"marker, no trailing bytes"));
	json_array_append_new(done, json_string("the SHA-256 of every byte of the archive file"));
	json_array_append_new(pins, json_string(seal_pinned ? "SEAL.json pinned by --seal-sha256"
							    : "SEAL.json not pinned: it is trusted as given (--seal-sha256 pins it)"));
	if (archive_pinned >= 0)
		json_array_append_new(pins, json_string(archive_pinned ? "the archive pinned by --archive-sha256"
								       : "the archive not pinned (--archive-sha256 pins it)"));
	json_array_append_new(not, json_string("members' owners, groups and modification times: the seal does not hold "
					       "them (evidence writes uid/gid 0 and a fixed time, and does not check them)"));
	json_array_append_new(not, json_string("extended attributes and ACLs: not sealed, not read"));
	if (res->extra_names_not_folded) {
		char why[256];
		snprintf(why, sizeof why, "collisions by case or Unicode normalization of %" PRIu64 " extra members past "
			 "the first %d: each is an extra finding already", res->extra_names_not_folded, EXTRA_NAMES_FOLDED);
		json_array_append_new(not, json_string(why));
	}
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "pinned", pins);
	json_object_set_new(o, "not_checked", not);
	char unread[128];
	if (unreached)
		snprintf(unread, sizeof unread, "%" PRIu64 " sealed members after the damage were never reached", unreached);
	else
		snprintf(unread, sizeof unread, "none: every byte was read");
	json_object_set_new(o, "not_read", json_string(unread));
	snprintf(line, cap, "checked %" PRIu64 " members' content, size, mode and type, and every byte of the archive%s; "
		 "not checked: owners and times (not sealed)%s", res->members_checked,
		 seal_pinned ? "" : "; SEAL.json not pinned", unreached ? "; some members unreached" : "");
	return o;
}
