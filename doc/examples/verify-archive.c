/* SPDX-License-Identifier: Apache-2.0 */
/* verify-archive: hold a sealed archive to its SEAL.json with libevidence,
 * and say whether a receipt holds, as replicate verify and replicate check
 * would. An example of the public API (evidence.h).
 *
 *   cc verify-archive.c $(pkg-config --cflags --libs evidence) -o verify-archive
 *   ./verify-archive SEAL.json ARCHIVE [RECEIPT]
 *
 * Exit status: 0 everything held, 1 a finding, 2 an error. */
#include <stdio.h>

#include <evidence.h>

static void show(void *ctx, const struct evidence_finding *f)
{
	(void)ctx;
	printf("finding: %s: %s: %s", f->subject, f->check, f->message);
	if (f->expected[0] || f->found[0])
		printf(" (expected %s, found %s)", f->expected, f->found);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: verify-archive SEAL.json ARCHIVE [RECEIPT]\n");
		return 2;
	}
	struct evidence_outcome out;
	int code = evidence_archive_verify(argv[1], NULL, argv[2], show, NULL, &out);
	if (code == EVIDENCE_ERROR) {
		fprintf(stderr, "verify-archive: %s\n", out.error);
		return 2;
	}
	printf("%s: %llu finding%s against %s (libevidence %s)\n", argv[2], out.findings, out.findings == 1 ? "" : "s",
	       argv[1], evidence_version());
	if (argc == 4) {
		struct evidence_receipt r;
		int rc = evidence_receipt_read(argv[3], NULL, &r, &out);
		if (rc == EVIDENCE_ERROR) {
			fprintf(stderr, "verify-archive: %s\n", out.error);
			return 2;
		}
		printf("%s: kind %s, result %s, on %s, %s\n", argv[3], r.kind, r.result, r.host,
		       r.intact ? "intact" : "EDITED after it was written");
		if (rc > code)
			code = rc;
	}
	return code;
}
