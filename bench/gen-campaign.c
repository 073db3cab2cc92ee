/* SPDX-License-Identifier: Apache-2.0 */
/* gen-campaign: write a campaign-shaped tree for bench/seal.
 *
 *   gen-campaign DIR SCALE_MIB
 *
 * About SCALE_MIB MiB in the proportions of a real llfix TX campaign: one
 * large raw series (half the total: u64 per-call latencies), llfix journals
 * (64 MiB files: packed FIX NewOrderSingle records, then the zero tail the
 * engine leaves), per-run raw series, and many small text logs, run.json
 * files and observer snapshots. Deterministic (fixed PRNG seed). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A latency in ns: a floor, exponential-ish noise, rare long stalls. */
static uint64_t latency(void)
{
	uint64_t r = next();
	uint64_t v = 1800 + (r & 0x3FF) + ((r >> 10) & 0x7F) * ((r >> 20) & 3);
	if ((r >> 40) % 1000 == 0)
		v += (r >> 44) % 400000;
	return v;
}

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

static FILE *create(const char *dir, const char *name, mode_t mode)
{
	char path[4096];
	mkdirs(dir);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "gen-campaign: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	chmod(path, mode);
	return f;
}

static void series(const char *dir, const char *name, uint64_t bytes)
{
	FILE *f = create(dir, name, 0644);
	uint64_t n = (bytes - 64) / 8;
	char header[64] = "EVSERIES\1\0\0\0rdtscp";
	memcpy(header + 48, &n, 8);
	fwrite(header, 1, sizeof header, f);
	uint64_t buf[8192];
	for (uint64_t done = 0; done < n;) {
		size_t k = n - done < 8192 ? (size_t)(n - done) : 8192;
		for (size_t i = 0; i < k; i++)
			buf[i] = latency();
		fwrite(buf, 8, k, f);
		done += k;
	}
	fclose(f);
}

static unsigned fix_checksum(const char *s, size_t n)
{
	unsigned sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)s[i];
	return sum % 256;
}

/* One llfix journal file: count, packed records, zero tail to `bytes`. */
static void journal(const char *dir, const char *name, uint64_t bytes, uint64_t *clordid)
{
	char *buf = calloc(1, bytes);
	uint64_t count = 0, off = 8, ts = 1796198594257000000ull;
	for (;;) {
		char body[512], msg[600];
		int bl = snprintf(body, sizeof body,
				  "35=D\00134=%llu\00149=CLIENT1\00152=20261202-08:03:14.257\00156=EXECUTOR\001"
				  "50=SNDR_SUB\00157=SRVR_SUB\00111=%llu\00155=NOKIA.HE\00154=1\00138=10\001"
				  "44=10000\00140=2\00159=0\001453=2\001448=PARTY1\001447=D\001452=1\001"
				  "448=PARTY2\001447=D\001452=3\00160=20261202-08:03:14.257\001",
				  (unsigned long long)(*clordid + 1), (unsigned long long)*clordid);
		int ml = snprintf(msg, sizeof msg, "8=FIXT.1.1\0019=%d\001%s", bl, body);
		ml += snprintf(msg + ml, sizeof msg - (size_t)ml, "10=%03u\001", fix_checksum(msg, (size_t)ml));
		if (off + 17 + (uint64_t)ml > bytes)
			break;
		uint64_t len = (uint64_t)ml, t = ts + count * 7000 + (next() & 0xFFF);
		memcpy(buf + off, &t, 8);
		buf[off + 8] = 1;
		memcpy(buf + off + 9, &len, 8);
		memcpy(buf + off + 17, msg, len);
		off += 17 + len;
		count++;
		(*clordid)++;
		if (off > bytes * 3 / 4) /* the engine rotates before the file is full */
			break;
	}
	memcpy(buf, &count, 8);
	FILE *f = create(dir, name, 0600);
	fwrite(buf, 1, bytes, f);
	fclose(f);
	free(buf);
}

static void text(const char *dir, const char *name, size_t bytes, int line_kind)
{
	FILE *f = create(dir, name, 0644);
	size_t done = 0;
	for (unsigned long i = 0; done < bytes; i++) {
		int n = line_kind ? fprintf(f, "%lu cpu%lu %llu %llu %llu irq %llu softirq %llu\n", i,
					    i % 2, (unsigned long long)(next() % 100000),
					    (unsigned long long)(next() % 1000), (unsigned long long)(next() % 50000),
					    (unsigned long long)(next() % 9000), (unsigned long long)(next() % 700))
				  : fprintf(f, "2026-12-02T08:%02lu:%02lu.%06llu sender: sent order %lu, %llu ns\n",
					    (i / 60) % 60, i % 60, (unsigned long long)(next() % 1000000), i,
					    (unsigned long long)latency());
		done += (size_t)n;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen-campaign DIR SCALE_MIB\n");
		return 2;
	}
	const char *root = argv[1];
	uint64_t mib = strtoull(argv[2], NULL, 10), MiB = 1 << 20;
	char dir[4096];
	uint64_t clordid = 1;
	snprintf(dir, sizeof dir, "%s/raw", root);
	series(dir, "A-1-send.series", mib / 2 * MiB);                  /* the one big member */
	unsigned journals = (unsigned)(mib * 5 / 16 / 64);                /* 5/16 in 64 MiB files */
	for (unsigned j = 0; j < journals; j++) {
		snprintf(dir, sizeof dir, "%s/runs/%c-%u/messages", root, 'A' + j % 4, j / 4 + 1);
		journal(dir, "1.bin", 64 * MiB, &clordid);
	}
	unsigned runs = 32;
	for (unsigned r = 0; r < runs; r++) {                              /* 1/8 per-run series */
		snprintf(dir, sizeof dir, "%s/runs/%c-%u/series", root, 'A' + r % 4, r / 4 + 1);
		series(dir, "send.series", mib / 8 * MiB / runs);
	}
	uint64_t small_total = mib / 16 * MiB, done = 0;                  /* 1/16 small logs */
	for (unsigned i = 0; done < small_total; i++) {
		size_t size = 2000 + (size_t)(next() % 250000);
		snprintf(dir, sizeof dir, "%s/runs/%c-%u/%s", root, 'A' + i % 4, (i / 4) % 8 + 1,
			 i % 3 == 0 ? "observe" : "native");
		char name[64];
		snprintf(name, sizeof name, "%s-%04u.txt", i % 3 == 0 ? "snapshot" : "stdout", i);
		text(dir, name, size, i % 3 == 0);
		done += size;
	}
	return 0;
}
