/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/stats/series.h"
#include "lib/core/grow.h"
#include "lib/core/stop.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
#define POPULATE_READ MADV_POPULATE_READ
#include "lib/core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/json.h"
#include "lib/core/text.h"

#define TEXT_MAX ((size_t)4 << 30)          /* a text series larger than this is refused */
#define SOCKPERF_HEADER "packet, txTime(sec), rxTime(sec), "
#define CSV_HEADER "# evidence-series/1"

const char *ev_series_kind_name(enum ev_series_kind kind)
{
	switch (kind) {
	case EV_SERIES_BINARY: return "binary";
	case EV_SERIES_CSV: return "csv";
	default: return "sockperf";
	}
}

void ev_series_free(struct ev_series *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	else
		free(s->v);
	s->v = NULL;
	s->map = NULL;
	s->n = 0;
}

/* Room for one more sample. */
static int grow(struct ev_series *s, size_t *cap)
{
	return ev_grow_array(&s->v, cap, s->n + 1, sizeof *s->v);
}

static void where_line(char *out, size_t cap, const char *path, uint64_t line)
{
	snprintf(out, cap, "%s: line %" PRIu64, path, line);
}

static ev_status load_binary(const char *path, int fd, const struct stat *sb, struct ev_series *s,
			     ev_finding_fn fn, void *ctx, struct ev_error *err)
{
	unsigned char h[EV_SERIES_HEADER];
	uint32_t version, header;
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
		return ev_error_set(err, EV_REFUSED, "%s: a binary series shorter than its %d-byte header",
				    path, EV_SERIES_HEADER);
	memcpy(&version, h + 8, 4);
	memcpy(&header, h + 12, 4);
	if (version != 1)
		return ev_error_set(err, EV_REFUSED, "%s: series version %u (this audit reads version 1)",
				    path, version);
	if (header < EV_SERIES_HEADER || header % 8 || (off_t)header > sb->st_size)
		return ev_error_set(err, EV_REFUSED, "%s: a header of %u bytes (expected a multiple of 8, at least %d)", path,
				    header, EV_SERIES_HEADER);
	memcpy(s->clock, h + 16, EV_SERIES_CLOCK_MAX);
	s->clock[EV_SERIES_CLOCK_MAX] = 0;
	memcpy(&s->ticks_per_second, h + 48, 8);
	memcpy(&s->source_hz, h + 56, 8);
	memcpy(&s->declared, h + 64, 8);
	s->has_declared = 1;
	uint64_t bytes = (uint64_t)sb->st_size - header;
	char subject[4200], a[64], b[64];
	if (bytes % 8) {
		snprintf(subject, sizeof subject, "%s: byte %" PRIu64, path, (uint64_t)sb->st_size - bytes % 8);
		snprintf(b, sizeof b, "%" PRIu64 " bytes", bytes % 8);
		ev_finding_emit(fn, ctx, subject, "series-count", "bytes after the last whole sample",
				"none", b);
	}
	s->n = (size_t)(bytes / 8);
	if (s->n != s->declared) {
		snprintf(subject, sizeof subject, "%s: byte 64", path);
		snprintf(a, sizeof a, "%" PRIu64 " samples", s->declared);
		snprintf(b, sizeof b, "%zu samples", s->n);
		ev_finding_emit(fn, ctx, subject, "series-count",
				"the header's count is not the number of samples the file holds", a, b);
	}
	if (!s->n)
		return EV_OK;
	/* mapped, not copied: the samples are the page cache's own pages.
	 * Populated read-only, then made writable (private: a write, only by
	 * the in-place fallback of a selection, copies just its page). Asked
	 * for writable at once, MAP_POPULATE copies every page up front. */
	void *map = mmap(NULL, (size_t)sb->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return ev_error_errno(err, errno, "%s: cannot map the series", path);
	/* populated a slice at a time, so that a signal is seen between two */
	const size_t slice = (size_t)64 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t at = 0; at < (size_t)sb->st_size; at += slice) {
		size_t len = (size_t)sb->st_size - at < slice ? (size_t)sb->st_size - at : slice;
		if (ev_stop_requested()) {
			munmap(map, (size_t)sb->st_size);
			return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", path);
		}
		if (madvise((char *)map + at, len, POPULATE_READ) != 0) /* an older kernel: touch each page */
			for (size_t off = 0; off < len; off += page)
				(void)*(volatile const char *)((char *)map + at + off);
	}
	if (mprotect(map, (size_t)sb->st_size, PROT_READ | PROT_WRITE) != 0) {
		int saved = errno;
		munmap(map, (size_t)sb->st_size);
		return ev_error_errno(err, saved, "%s: cannot map the series", path);
	}
	madvise(map, (size_t)sb->st_size, MADV_SEQUENTIAL);
	s->map = map;
	s->map_len = (size_t)sb->st_size;
	s->v = (uint64_t *)((char *)map + header); /* header is a multiple of 8 (80 or more, checked) */
	return EV_OK; /* little-endian hosts only, as every journal reader here */
}

/* Whole number text [p, end). @return 0 and *v, or -1. */
static int whole_number(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return 0;
}

/* field [*start, end) without the blanks around it: its new end. */
static const char *trim(const char **start, const char *end)
{
	ev_text_trim(start, &end);
	return end;
}

/* "KEY=VALUE" words of the CSV twin's header line. */
static void csv_header(struct ev_series *s, const char *p, const char *end)
{
	while (p < end) {
		const char *word = p, *stop = memchr(p, ' ', (size_t)(end - p));
		if (!stop)
			stop = end;
		const char *eq = memchr(word, '=', (size_t)(stop - word));
		if (eq) {
			size_t klen = (size_t)(eq - word);
			uint64_t v;
			if (klen == 5 && memcmp(word, "clock", 5) == 0) {
				size_t n = (size_t)(stop - eq - 1);
				n = n < EV_SERIES_CLOCK_MAX ? n : EV_SERIES_CLOCK_MAX;
				memcpy(s->clock, eq + 1, n);
				s->clock[n] = 0;
			} else if (whole_number(eq + 1, stop, &v) == 0) {
				if (klen == 16 && memcmp(word, "ticks_per_second", 16) == 0)
					s->ticks_per_second = v;
				else if (klen == 23 && memcmp(word, "source_ticks_per_second", 23) == 0)
					s->source_hz = v;
				else if (klen == 5 && memcmp(word, "count", 5) == 0) {
					s->declared = v;
					s->has_declared = 1;
				}
			}
		}
		p = stop + 1;
	}
}

static ev_status load_csv(const char *path, const char *text, size_t len, struct ev_series *s,
			  ev_finding_fn fn, void *ctx, struct ev_error *err)
{
	size_t cap = 0;
	uint64_t line = 0;
	char subject[4200];
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		line++;
		const char *a = p, *b = trim(&a, stop);
		p = nl ? nl + 1 : end;
		if (a == b)
			continue;
		if (line == 1 && (size_t)(b - a) >= strlen(CSV_HEADER) && memcmp(a, CSV_HEADER, strlen(CSV_HEADER)) == 0) {
			csv_header(s, a + strlen(CSV_HEADER), b);
			continue;
		}
		uint64_t v;
		if (whole_number(a, b, &v) != 0) {
			char found[96];
			snprintf(found, sizeof found, "\"%.*s\"", (int)((size_t)(b - a) < 64 ? (size_t)(b - a) : 64), a);
			where_line(subject, sizeof subject, path, line);
			ev_finding_emit(fn, ctx, subject, "series-value", "not a whole number of ticks",
					"a whole number", found);
			continue;
		}
		if (grow(s, &cap) != 0)
			return ev_error_set(err, EV_ERROR, "%s: out of memory", path);
		s->v[s->n++] = v;
	}
	if (s->has_declared && s->declared != s->n) {
		char a[64], b[64];
		snprintf(subject, sizeof subject, "%s: line 1", path);
		snprintf(a, sizeof a, "%" PRIu64 " samples", s->declared);
		snprintf(b, sizeof b, "%zu samples", s->n);
		ev_finding_emit(fn, ctx, subject, "series-count",
				"the header's count is not the number of samples the file holds", a, b);
	}
	return EV_OK;
}

/* "2.435845963" seconds as ns, exactly (at most 9 decimals). */
static int seconds_ns(const char *p, const char *end, uint64_t *ns)
{
	const char *dot = memchr(p, '.', (size_t)(end - p));
	uint64_t whole, frac = 0;
	if (whole_number(p, dot ? dot : end, &whole) != 0 || whole > UINT64_MAX / 1000000000u)
		return -1;
	if (dot) {
		size_t d = (size_t)(end - dot - 1);
		if (d == 0 || d > 9 || whole_number(dot + 1, end, &frac) != 0)
			return -1;
		for (; d < 9; d++)
			frac *= 10;
	}
	*ns = whole * 1000000000u + frac;
	return 0;
}

/* The row's fields: packet, tx, rx, latency. @return 0, or -1. */
static int sockperf_row(const char *p, const char *end, const char *field[4], const char *fend[4])
{
	for (int k = 0; k < 4; k++) {
		const char *comma = k < 3 ? memchr(p, ',', (size_t)(end - p)) : end;
		if (!comma)
			return -1;
		field[k] = p;
		fend[k] = trim(&field[k], comma);
		p = comma + (k < 3);
	}
	return 0;
}

static ev_status load_sockperf(const char *path, const char *text, size_t len, struct ev_series *s,
			       ev_finding_fn fn, void *ctx, struct ev_error *err)
{
	const char *head = NULL;
	for (const char *p = text, *end = text + len; p < end && !head;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= strlen(SOCKPERF_HEADER) && memcmp(p, SOCKPERF_HEADER, strlen(SOCKPERF_HEADER)) == 0)
			head = p;
		p = nl ? nl + 1 : end;
	}
	if (!head)
		return ev_error_set(err, EV_REFUSED, "%s: no \"%s\" header line", path, SOCKPERF_HEADER);
	const char *after = head + strlen(SOCKPERF_HEADER);
	s->half_rtt = strncmp(after, "latency(usec)", 13) == 0;
	snprintf(s->clock, sizeof s->clock, "%s", s->half_rtt ? "sockperf (rx - tx) / 2" : "sockperf rx - tx");
	s->ticks_per_second = 1000000000u;
	uint64_t line = 1;
	for (const char *q = text; q < head; q++)
		line += *q == '\n';
	size_t cap = 0;
	char subject[4200];
	const char *p = memchr(head, '\n', (size_t)(text + len - head));
	p = p ? p + 1 : text + len;
	for (const char *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		const char *row = p;
		line++;
		p = nl ? nl + 1 : end;
		if (stop - row >= 3 && memcmp(row, "---", 3) == 0)
			break; /* the end of the rows */
		const char *f[4], *fe[4];
		uint64_t packet, tx, rx;
		where_line(subject, sizeof subject, path, line);
		if (sockperf_row(row, stop, f, fe) != 0 || whole_number(f[0], fe[0], &packet) != 0 ||
		    seconds_ns(f[1], fe[1], &tx) != 0 || seconds_ns(f[2], fe[2], &rx) != 0 || rx < tx) {
			char found[96];
			snprintf(found, sizeof found, "\"%.*s\"", (int)(stop - row < 64 ? stop - row : 64), row);
			ev_finding_emit(fn, ctx, subject, "series-value",
					"not a row of packet, txTime, rxTime, latency", "packet, tx, rx, latency", found);
			continue;
		}
		if (packet != s->n) {
			char a[32], b[32];
			snprintf(a, sizeof a, "%zu", s->n);
			snprintf(b, sizeof b, "%" PRIu64, packet);
			ev_finding_emit(fn, ctx, subject, "series-value", "packet number out of turn", a, b);
		}
		/* sockperf's own arithmetic for the latency column: from ns to
		 * seconds in double, the difference scaled, %.3lf */
		double dtx = (double)tx / 1000 / 1000 / 1000, drx = (double)rx / 1000 / 1000 / 1000;
		char want[64];
		snprintf(want, sizeof want, "%.3lf", (drx - dtx) * (double)(1000000u / (s->half_rtt ? 2u : 1u)));
		if (strlen(want) != (size_t)(fe[3] - f[3]) || memcmp(want, f[3], strlen(want)) != 0) {
			char found[64];
			snprintf(found, sizeof found, "%.*s", (int)(fe[3] - f[3] < 32 ? fe[3] - f[3] : 32), f[3]);
			ev_finding_emit(fn, ctx, subject, "series-value",
					"the latency column is not (rxTime - txTime) as sockperf computes it", want, found);
		}
		if (grow(s, &cap) != 0)
			return ev_error_set(err, EV_ERROR, "%s: out of memory", path);
		s->rtt_sum += rx - tx;
		if (s->n == 0)
			s->first_tx = tx;
		s->last_rx = rx;
		s->v[s->n++] = s->half_rtt ? (rx - tx) / 2 : rx - tx;
	}
	return EV_OK;
}

ev_status ev_series_load(const char *path, struct ev_series *s, ev_finding_fn fn, void *ctx,
			 struct ev_error *err)
{
	memset(s, 0, sizeof *s);
	snprintf(s->clock, sizeof s->clock, "unknown");
	int fd = ev_input_open(path, "series", err);
	if (fd < 0)
		return err->status;
	struct stat sb;
	char magic[8] = {0};
	ev_status st;
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", path);
	} else if (!S_ISREG(sb.st_mode)) {
		st = ev_error_set(err, EV_USAGE, "%s: not a regular file", path);
	} else if (pread(fd, magic, 8, 0) == 8 && memcmp(magic, EV_SERIES_MAGIC, 8) == 0) {
		s->kind = EV_SERIES_BINARY;
		st = load_binary(path, fd, &sb, s, fn, ctx, err);
	} else {
		char *text = NULL;
		size_t len = 0;
		st = ev_file_read_all(path, TEXT_MAX, &text, &len, err);
		if (st == EV_OK && memchr(text, 0, len)) {
			st = ev_error_set(err, EV_REFUSED,
					  "%s: binary, but not an evidence series (no \"EVSERIES\" at its start)", path);
		} else if (st == EV_OK) {
			int sockperf = strstr(text, "\n" SOCKPERF_HEADER) || strncmp(text, SOCKPERF_HEADER, strlen(SOCKPERF_HEADER)) == 0;
			s->kind = sockperf ? EV_SERIES_SOCKPERF : EV_SERIES_CSV;
			st = sockperf ? load_sockperf(path, text, len, s, fn, ctx, err)
				      : load_csv(path, text, len, s, fn, ctx, err);
		}
		free(text);
	}
	close(fd);
	if (st != EV_OK)
		ev_series_free(s);
	return st;
}
