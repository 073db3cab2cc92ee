/* SPDX-License-Identifier: Apache-2.0 */
/* gen-journal: llfix-layout journals for one pair, as the llfix TX
 * benchmark leaves them: the sender's outgoing and the receiver's incoming
 * copy of a Logon, WARMUPS + MEASURED NewOrderSingles and a Logout,
 * FIXT.1.1, millisecond timestamps, 64 MiB files rotated as llfix rotates.
 *
 *   gen-journal [--file-size BYTES] OUTDIR WARMUPS MEASURED [SEED]
 *       writes OUTDIR/sender/N.bin and OUTDIR/receiver/N.bin; files of
 *       BYTES (default 64 MiB, as llfix; the tests use small ones to rotate)
 *
 * Deterministic for a seed. Used by bench/audit-journal and the tests. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static size_t file_size = (size_t)64 << 20;
#define SOH "\001"

struct journal {
	char dir[4096];
	int number;
	FILE *f;
	size_t used;
	uint64_t count;
};

static void die(const char *what)
{
	fprintf(stderr, "gen-journal: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void close_file(struct journal *j)
{
	if (!j->f)
		return;
	/* zeros to the end, then the count at offset 0 */
	static const char zeros[65536];
	for (size_t left = file_size - j->used; left;) {
		size_t n = left < sizeof zeros ? left : sizeof zeros;
		if (fwrite(zeros, 1, n, j->f) != n)
			die("write");
		left -= n;
	}
	if (fseek(j->f, 0, SEEK_SET) != 0 || fwrite(&j->count, 8, 1, j->f) != 1 || fclose(j->f) != 0)
		die("write");
	j->f = NULL;
}

static void open_file(struct journal *j)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%d.bin", j->dir, ++j->number);
	if (!(j->f = fopen(path, "wb")))
		die(path);
	uint64_t zero = 0;
	fwrite(&zero, 8, 1, j->f);
	j->used = 8;
	j->count = 0;
}

static void append(struct journal *j, uint64_t ts, const char *msg, size_t len)
{
	if (!j->f || j->used + 17 + len > file_size) {
		close_file(j);
		open_file(j);
	}
	unsigned char head[17];
	uint64_t l = len;
	memcpy(head, &ts, 8);
	head[8] = 1;
	memcpy(head + 9, &l, 8);
	if (fwrite(head, 1, 17, j->f) != 17 || fwrite(msg, 1, len, j->f) != len)
		die("write");
	j->used += 17 + len;
	j->count++;
}

/* A whole message from its body fields: 8, 9, the body, 10. */
static size_t finish(char *out, const char *body, size_t body_len)
{
	int n = sprintf(out, "8=FIXT.1.1" SOH "9=%zu" SOH, body_len);
	memcpy(out + n, body, body_len);
	size_t len = (size_t)n + body_len;
	unsigned sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)out[i];
	len += (size_t)sprintf(out + len, "10=%03u" SOH, sum % 256);
	return len;
}

static void stamp(char *buf, uint64_t ms)
{
	/* 2026-12-02 08:00:00 plus ms */
	uint64_t s = ms / 1000;
	sprintf(buf, "20261202-%02u:%02u:%02u.%03u", (unsigned)(8 + s / 3600 % 24), (unsigned)(s / 60 % 60),
		(unsigned)(s % 60), (unsigned)(ms % 1000));
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--file-size") == 0) {
		file_size = strtoull(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || file_size < 1024) {
		fprintf(stderr, "usage: gen-journal [--file-size BYTES >= 1024] OUTDIR WARMUPS MEASURED [SEED]\n");
		return 2;
	}
	uint64_t orders = strtoull(argv[2], NULL, 10) + strtoull(argv[3], NULL, 10);
	unsigned seed = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
	struct journal side[2] = {0};
	mkdir(argv[1], 0755);
	snprintf(side[0].dir, sizeof side[0].dir, "%s/sender", argv[1]);
	snprintf(side[1].dir, sizeof side[1].dir, "%s/receiver", argv[1]);
	for (int k = 0; k < 2; k++)
		if (mkdir(side[k].dir, 0755) != 0 && errno != EEXIST)
			die(side[k].dir);
	char body[1024], msg[1200], ts[32];
	uint64_t t0 = 1796198400000000000ull + seed * 1000ull, ms = 0;
	size_t n, len;
	stamp(ts, ms);
	n = (size_t)sprintf(body, "35=A" SOH "34=1" SOH "49=CLIENT1" SOH "52=%s" SOH "56=EXECUTOR" SOH
			    "98=0" SOH "108=30" SOH "1137=7" SOH, ts);
	len = finish(msg, body, n);
	for (int k = 0; k < 2; k++)
		append(&side[k], t0, msg, len);
	for (uint64_t i = 1; i <= orders; i++) {
		if (i % 997 == 0)
			ms++;
		stamp(ts, ms);
		n = (size_t)sprintf(body,
				    "35=D" SOH "34=%llu" SOH "49=CLIENT1" SOH "52=%s" SOH "56=EXECUTOR" SOH
				    "50=SNDR_SUB" SOH "57=SRVR_SUB" SOH "11=%llu" SOH "55=NOKIA.HE" SOH "54=1" SOH
				    "38=10" SOH "44=10000" SOH "40=2" SOH "59=0" SOH "453=2" SOH "448=PARTY1" SOH
				    "447=D" SOH "452=1" SOH "448=PARTY2" SOH "447=D" SOH "452=3" SOH "60=%s" SOH,
				    (unsigned long long)(i + 1), ts, (unsigned long long)i, ts);
		len = finish(msg, body, n);
		for (int k = 0; k < 2; k++)
			append(&side[k], t0 + i * 9000 + (uint64_t)k * 4000, msg, len);
	}
	stamp(ts, ms);
	n = (size_t)sprintf(body, "35=5" SOH "34=%llu" SOH "49=CLIENT1" SOH "52=%s" SOH "56=EXECUTOR" SOH,
			    (unsigned long long)(orders + 2), ts);
	len = finish(msg, body, n);
	for (int k = 0; k < 2; k++) {
		append(&side[k], t0 + (orders + 1) * 9000, msg, len);
		close_file(&side[k]);
	}
	return 0;
}
