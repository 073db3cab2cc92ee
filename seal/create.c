/* seal create: its options, then lib/usecase/seal_create, then what it made. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/usecase/seal_create.h"
#include "seal/outputs.h"
#include "seal/seal.h"

static const char help[] =
	"usage: seal create [options] DIR -o OUTDIR\n"
	"\n"
	"Seal DIR: read every file once, record its SHA-256, size and mode, and write\n"
	"a deterministic archive of the exact bytes and modes. OUTDIR must not exist;\n"
	"it appears complete (SEAL.json, archive.tar.zst, receipt.json) or not at all.\n"
	"\n"
	"  -o, --output OUTDIR   where the outputs go (created; never overwritten)\n"
	"      --gzip            write archive.tar.gz instead of archive.tar.zst\n"
	"      --jobs N          compression workers (default: all cores); --threads N\n"
	"                        is the same\n"
	"      --level N         compression level (zstd -7 to 19, default 1; gzip 1-9, default 6)\n"
	"      --name ROOT       the tree's name in the seal and archive (default: DIR's name)\n"
	"      --refuse-writable refuse group- or world-writable members\n"
	"      --json            print the receipt as JSON on stdout\n"
	"  -h, --help            show this help\n"
	"\n"
	"Refused, with every offending member named and nothing written: symbolic\n"
	"links, FIFOs, sockets, devices, unreadable files, names that are not valid\n"
	"UTF-8 or hold control characters, two names that differ only in case or\n"
	"Unicode normalization, setuid/setgid/sticky bits, a file that changes while\n"
	"it is read, an OUTDIR inside DIR. Hard links are sealed as ordinary files.\n";

struct create_opts {
	const char *dir, *outdir, *name;
	struct ev_seal_archive_opts archive;
	int refuse_writable, json;
};

static void print_refusal(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": refused: ", f);
}

int seal_create_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"gzip", no_argument, NULL, 'z'},
		{"help", no_argument, NULL, 'h'},
		{"json", no_argument, NULL, 'j'},
		{"level", required_argument, NULL, 'l'},
		{"name", required_argument, NULL, 'n'},
		{"output", required_argument, NULL, 'o'},
		{"refuse-writable", no_argument, NULL, 'w'},
		{"jobs", required_argument, NULL, 'J'},
		{"threads", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	struct create_opts o = {0};
	ev_seal_archive_opts_init(&o.archive);
	int c, bad;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if ((bad = seal_archive_opt(&o.archive, c, optarg, "create")) >= 0) {
			if (bad)
				return bad;
			continue;
		}
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'j': o.json = 1; break;
		case 'n': o.name = optarg; break;
		case 'o': o.outdir = optarg; break;
		case 'w': o.refuse_writable = 1; break;
		default:
			return msg_usage("create", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return msg_usage("create", optind == argc ? "no DIR given" : "more than one DIR given");
	o.dir = argv[optind];
	if (!o.outdir)
		return msg_usage("create", "no output directory given (-o OUTDIR)");
	if ((bad = seal_archive_opts_check(&o.archive, "create")) != 0)
		return bad;

	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": sealing", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_seal_create sc = {.dir = o.dir, .outdir = o.outdir, .name = o.name, .archive = o.archive,
				   .refuse_writable = o.refuse_writable, .on_refusal = print_refusal,
				   .meter = &meter, .interrupted = &ev_cli_interrupted};
	ev_status st = ev_seal_create(&sc, &err);
	ev_progress_done(&progress);
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	else if (o.json)
		ev_json_print(sc.receipt, stdout, &err);
	else
		seal_out_print(&sc.out, &sc.seal);
	ev_seal_create_free(&sc);
	return ev_status_exit_code(st);
}

