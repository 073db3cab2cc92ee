/* SPDX-License-Identifier: Apache-2.0 */
/* tarwalk: a header name stands for its pax path when equal, when it
 * renders each non-ASCII character as '?', or, for a path longer than a
 * ustar name, when it is libarchive's truncation; any other name does not.
 * Fed a tar stream cut at every size, it sees the same names and says the
 * stream is complete only with its end-of-archive marker. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/archive/tarwalk.h"

struct names {
	char header[8][256], pax[8][256];
	size_t n;
};

static void on_entry(void *ctx, const char *header, const char *pax)
{
	struct names *s = ctx;
	if (s->n < 8) {
		snprintf(s->header[s->n], sizeof s->header[0], "%s", header);
		snprintf(s->pax[s->n], sizeof s->pax[0], "%s", pax);
	}
	s->n++;
}

static void octal(unsigned char *f, size_t n, unsigned long v)
{
	snprintf((char *)f, n, "%0*lo", (int)n - 1, v);
}

/* One header block: name, type, size (ustar). */
static void block(unsigned char *b, const char *name, char type, unsigned long size)
{
	memset(b, 0, 512);
	memcpy(b, name, strlen(name));
	octal(b + 100, 8, 0644);
	octal(b + 124, 12, size);
	b[156] = (unsigned char)type;
	memcpy(b + 257, "ustar\00000", 8);
	unsigned sum = 0;
	memset(b + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += b[i];
	snprintf((char *)b + 148, 8, "%06o", sum);
}

int main(void)
{
	CHECK(ev_tarwalk_name_fits("c/runs/run.sh", "c/runs/run.sh"));
	CHECK(!ev_tarwalk_name_fits("c/runs/elsewhere.sh", "c/runs/run.sh"));
	CHECK(!ev_tarwalk_name_fits("c/runs/run", "c/runs/run.sh")); /* short paths are never truncated */
	CHECK(ev_tarwalk_name_fits("c/r?sum?.txt", "c/r\xc3\xa9sum\xc3\xa9.txt"));
	CHECK(!ev_tarwalk_name_fits("c/r??sum??.txt", "c/r\xc3\xa9sum\xc3\xa9.txt"));
	CHECK(!ev_tarwalk_name_fits("c/rxsumx.txt", "c/r\xc3\xa9sum\xc3\xa9.txt"));
	char longdir[121], longpath[400], header[400];
	memset(longdir, 'd', 120), longdir[120] = 0;
	snprintf(longpath, sizeof longpath, "lt/%s/%0130d", longdir, 0);
	snprintf(header, sizeof header, "lt/%s/%098d", longdir, 0);
	CHECK(ev_tarwalk_name_fits(header, longpath));
	snprintf(header, sizeof header, "lt/%s/%097dx", longdir, 0);
	CHECK(!ev_tarwalk_name_fits(header, longpath));
	snprintf(header, sizeof header, "elsewhere/%098d", 0);
	CHECK(!ev_tarwalk_name_fits(header, longpath));

	/* a file with data and no pax header (its data, which looks like a
	 * header, is not read as one), a pax header, its entry, a directory,
	 * the end marker, padding */
	static unsigned char tar[512 * 14];
	const char *records = "27 path=c/elsewhere/run.sh\n";
	size_t at = 0;
	block(tar + at, "c/SEAL.json", '0', 512), at += 512;
	block(tar + at, "c/looks-like-a-header", '0', 0), at += 512;
	block(tar + at, "c/PaxHeader/run.sh", 'x', strlen(records)), at += 512;
	memcpy(tar + at, records, strlen(records)), at += 512;
	block(tar + at, "c/runs/run.sh", '0', 600), at += 512;
	at += 1024; /* its 600 bytes of data, padded */
	block(tar + at, "c/runs", '5', 0), at += 512;
	size_t end = at + 1024, whole = sizeof tar;
	for (size_t piece = 1; piece <= 700; piece += piece < 20 ? 1 : 37) {
		struct names seen = {0};
		struct ev_tarwalk w = {.on_entry = on_entry, .ctx = &seen};
		for (size_t i = 0; i < whole; i += piece)
			ev_tarwalk_feed(&w, tar + i, whole - i < piece ? whole - i : piece);
		CHECK_INT_EQ(seen.n, 3);
		CHECK_STR_EQ(seen.header[0], "c/SEAL.json");
		CHECK_STR_EQ(seen.header[1], "c/runs/run.sh");
		CHECK_STR_EQ(seen.pax[1], "c/elsewhere/run.sh");
		CHECK_STR_EQ(seen.header[2], "c/runs");
		CHECK_STR_EQ(seen.pax[2], "");
		CHECK(ev_tarwalk_complete(&w));
		ev_tarwalk_free(&w);
	}
	/* cut before the marker, or inside it: not complete */
	size_t cuts[] = {at, at + 512, 5 * 512};
	for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
		struct ev_tarwalk w = {0};
		ev_tarwalk_feed(&w, tar, cuts[k]);
		CHECK(!ev_tarwalk_complete(&w));
		ev_tarwalk_free(&w);
	}
	struct ev_tarwalk w = {0};
	ev_tarwalk_feed(&w, tar, end);
	CHECK(ev_tarwalk_complete(&w));
	ev_tarwalk_free(&w);
	return check_exit("tarwalk");
}
