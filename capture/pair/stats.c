/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pair.h"

#define LABEL(s) "\033[0;34m" s "\033[0m"
#define SERIES_MAGIC "EVSERIES"
#define SERIES_HEADER 80

static const unsigned percentiles[] = {50, 75, 90, 95, 99};
#define NPERCENTILES (sizeof percentiles / sizeof *percentiles)

struct summary {
	uint64_t min, max, sum;
	uint64_t p[NPERCENTILES];
};

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* llfix's floor-index rule on a sorted copy; the sum is exact. */
static int summarise(const uint64_t *samples, uint64_t n, struct summary *s)
{
	uint64_t *sorted = malloc(n * sizeof *sorted);
	if (!sorted)
		return pair_fail("out of memory for sorting %llu samples", (unsigned long long)n);
	memcpy(sorted, samples, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, by_value);
	memset(s, 0, sizeof *s);
	for (uint64_t i = 0; i < n; i++)
		s->sum += sorted[i];
	s->min = sorted[0];
	s->max = sorted[n - 1];
	for (size_t k = 0; k < NPERCENTILES; k++)
		s->p[k] = sorted[n * percentiles[k] / 100];
	free(sorted);
	return 0;
}

/* What llfix prints as "CPU isolation config": the isolation parameters
 * of the kernel command line, or nothing. */
static void isolation_config(char *out, size_t cap)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	out[0] = 0;
	size_t used = 0;
	for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"))
		if (strncmp(tok, "isolcpus=", 9) == 0 || strncmp(tok, "nohz_full=", 10) == 0 ||
		    strncmp(tok, "rcu_nocbs=", 10) == 0 || strncmp(tok, "irqaffinity=", 12) == 0) {
			int n = snprintf(out + used, cap - used, "%s%s", used ? " " : "", tok);
			if (n < 0 || (size_t)n >= cap - used)
				break;
			used += (size_t)n;
		}
}

int pair_stats_print(const struct pair_run *run, const uint64_t *samples, FILE *out)
{
	struct summary s;
	if (summarise(samples, run->measured, &s) != 0)
		return -1;
	char iso[512];
	isolation_config(iso, sizeof iso);
	fprintf(out, LABEL("CPU frequency") " %llu hertz\n",
		(unsigned long long)run->hz_cpuinfo);
	fprintf(out, LABEL("CPU isolation config") " : %s\n", iso);
	fprintf(out, LABEL("Pinned to CPU core") " %d\n", run->cpu);
	fprintf(out, LABEL("AVX2 available") " : %s\n", __builtin_cpu_supports("avx2") ? "true" : "false");
	fprintf(out, LABEL("Antistall mock order count") " : %llu\n\n", (unsigned long long)run->warmups);
	fprintf(out, LABEL("Title") " : %s\n", run->title);
	fprintf(out, LABEL("Sample count") " : %llu\n", (unsigned long long)run->measured);
	fprintf(out, LABEL("Minimum") " : %g nanoseconds\n", (double)s.min);
	fprintf(out, LABEL("Maximum") " : %g nanoseconds\n", (double)s.max);
	fprintf(out, LABEL("Average") " : %f nanoseconds\n", (double)s.sum / (double)run->measured);
	for (size_t k = 0; k < NPERCENTILES; k++)
		fprintf(out, LABEL("P%u") " : %f nanoseconds\n", percentiles[k], (double)s.p[k]);
	if (run->sndbuf_requested || run->rcvbuf_requested)
		fprintf(out, "Socket buffers : send %ld bytes (asked %ld), receive %ld bytes (asked %ld)\n",
			run->sndbuf, run->sndbuf_requested, run->rcvbuf, run->rcvbuf_requested);
	if (run->rate)
		fprintf(out, "Pacing : %llu orders/s asked, %.1f achieved, %llu deadlines missed and re-anchored\n",
			(unsigned long long)run->rate,
			run->elapsed_ns ? (double)run->measured * 1e9 / (double)run->elapsed_ns : 0.0,
			(unsigned long long)run->missed);
	return fflush(out) == 0 ? 0 : pair_fail("cannot write the statistics: %s", strerror(errno));
}

/* Write all of buf, or fail naming path. */
static int write_all(int fd, const void *buf, size_t len, const char *path)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pair_fail("%s: write failed: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new file at path, refusing to replace one. */
static int create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		pair_fail("%s: cannot create: %s", path, strerror(errno));
	return fd;
}

static int finish_file(int fd, const char *path)
{
	int rc = fsync(fd) == 0 ? 0 : pair_fail("%s: cannot sync: %s", path, strerror(errno));
	if (close(fd) != 0 && rc == 0)
		rc = pair_fail("%s: cannot close: %s", path, strerror(errno));
	return rc;
}

int pair_series_write(const char *path, const char *clock, uint64_t source_hz,
		      const uint64_t *samples, uint64_t n)
{
	unsigned char h[SERIES_HEADER] = {0};
	uint32_t version = 1, header = SERIES_HEADER;
	uint64_t tps = 1000000000u;
	memcpy(h, SERIES_MAGIC, 8);
	memcpy(h + 8, &version, 4);
	memcpy(h + 12, &header, 4);
	strncpy((char *)h + 16, clock, 31);
	memcpy(h + 48, &tps, 8);
	memcpy(h + 56, &source_hz, 8);
	memcpy(h + 64, &n, 8);
	int fd = create_new(path);
	if (fd < 0)
		return -1;
	if (write_all(fd, h, sizeof h, path) != 0 ||
	    write_all(fd, samples, n * sizeof *samples, path) != 0) {
		close(fd);
		return -1;
	}
	return finish_file(fd, path);
}

static json_t *summary_json(const uint64_t *samples, uint64_t n)
{
	struct summary s;
	if (summarise(samples, n, &s) != 0)
		return NULL;
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:f}", "count", (json_int_t)n, "min",
			      (json_int_t)s.min, "max", (json_int_t)s.max, "sum", (json_int_t)s.sum,
			      "mean", (double)s.sum / (double)n);
	for (size_t k = 0; o && k < NPERCENTILES; k++) {
		char key[8];
		snprintf(key, sizeof key, "p%u", percentiles[k]);
		json_object_set_new(o, key, json_integer((json_int_t)s.p[k]));
	}
	return o;
}

int pair_report_write(const char *path, const struct pair_run *run, const uint64_t *samples,
		      const uint64_t *delays)
{
	json_t *r = json_pack(
		"{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:I, s:o, s:i, s:{s:{s:I, s:I}, s:{s:I, s:I}}, "
		"s:{s:I, s:I}}",
		"format", "evidence-pair-report/1", "program", "fix-sender", "title", run->title,
		"warmups", (json_int_t)run->warmups, "measured", (json_int_t)run->measured, "clock",
		run->clock, "rule", "floor-index", "ticks_per_second", (json_int_t)1000000000,
		"stats", summary_json(samples, run->measured), "cpu", run->cpu, "socket", "sndbuf",
		"requested", (json_int_t)run->sndbuf_requested, "effective", (json_int_t)run->sndbuf,
		"rcvbuf", "requested", (json_int_t)run->rcvbuf_requested, "effective",
		(json_int_t)run->rcvbuf, "journal", "files", (json_int_t)run->journal_files, "records",
		(json_int_t)run->journal_records);
	if (!r)
		return pair_fail("%s: cannot build the report", path);
	if (run->source_hz) {
		json_object_set_new(r, "source_hz", json_integer((json_int_t)run->source_hz));
		json_object_set_new(r, "source_hz_calibrated", json_integer((json_int_t)run->hz_calibrated));
	}
	if (run->rate) {
		json_t *pacing = json_pack("{s:I, s:I, s:f, s:I, s:o}", "rate", (json_int_t)run->rate,
					   "interval_ns", (json_int_t)(1000000000u / run->rate), "achieved",
					   run->elapsed_ns ? (double)run->measured * 1e9 / (double)run->elapsed_ns : 0.0,
					   "missed", (json_int_t)run->missed, "delay",
					   summary_json(delays, run->measured));
		json_object_set_new(r, "pacing", pacing);
	}
	char *text = json_dumps(r, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(r);
	if (!text)
		return pair_fail("%s: cannot build the report", path);
	int fd = create_new(path), rc = -1;
	if (fd >= 0 && write_all(fd, text, strlen(text), path) == 0 && write_all(fd, "\n", 1, path) == 0)
		rc = finish_file(fd, path);
	else if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}
