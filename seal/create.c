/* seal create: walk, refuse, then read every file once, hashing it on one
 * thread while the archive writer compresses it on others. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/archive_writer.h"
#include "lib/core/publish.h"
#include "lib/core/hashpipe.h"
#include "lib/core/json.h"
#include "lib/archive/namefold.h"
#include "lib/core/path.h"
#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"
#include "lib/archive/tree.h"
#include "seal/outputs.h"
#include "seal/seal.h"

#define SLOTS 8
#define SLOT_BYTES ((size_t)1 << 20)

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
	struct seal_archive_opts archive;
	int refuse_writable, json;
};

/* --- refusals ---------------------------------------------------------------- */

struct refusals {
	unsigned count;
};

static void print_refusal(void *ctx, const struct ev_finding *f)
{
	struct refusals *r = ctx;
	r->count++;
	ev_cli_finding(stderr, TOOL ": refused: ", f);
}

static void refuse(struct refusals *r, const char *path, const char *check, const char *message,
		   const char *found)
{
	ev_finding_emit(print_refusal, r, path, check, message, NULL, found);
}

static const char *type_refusal(enum ev_member_type t)
{
	switch (t) {
	case EV_MEMBER_SYMLINK:
		return "is a symbolic link; seal never follows or stores links (copy the target "
		       "in, or move the link out of the tree)";
	case EV_MEMBER_FIFO:
		return "is a FIFO; only regular files and directories can be sealed";
	case EV_MEMBER_SOCKET:
		return "is a socket; only regular files and directories can be sealed";
	case EV_MEMBER_DEVICE:
		return "is a device node; only regular files and directories can be sealed";
	default:
		return "is not a regular file or directory";
	}
}

/* Check every entry and report every reason to refuse it. */
static ev_status check_entries(const struct ev_tree *tree, const struct create_opts *o,
			       struct refusals *r, struct ev_error *err)
{
	struct ev_namefold *names = ev_namefold_new();
	if (!names)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < tree->count; i++) {
		const struct ev_tree_entry *e = &tree->entries[i];
		const struct ev_member *m = &e->m;
		char mode[8];
		ev_mode_format(m->mode, mode, sizeof mode);
		if (e->name_problem) {
			char bytes[EV_FINDING_VALUE_MAX];
			ev_path_quote_bytes(m->path, strlen(m->path), bytes, sizeof bytes);
			refuse(r, m->path, "name", e->name_problem,
			       e->name_problem == ev_path_not_nfc ? bytes : NULL);
			continue;
		}
		if (m->type != EV_MEMBER_FILE && m->type != EV_MEMBER_DIR) {
			refuse(r, m->path, "type", type_refusal(m->type), NULL);
			continue;
		}
		if (m->mode & 07000)
			refuse(r, m->path, "mode",
			       "has a setuid, setgid or sticky bit, which seal refuses to carry",
			       mode);
		if (o->refuse_writable && (m->mode & 022))
			refuse(r, m->path, "mode",
			       "is group- or world-writable and --refuse-writable is set", mode);
		if (m->type == EV_MEMBER_FILE) {
			int fd = ev_tree_open_member(tree, m->path);
			if (fd < 0)
				refuse(r, m->path, "unreadable", "cannot be read", strerror(errno));
			else
				close(fd);
		}
		if (ev_namefold_add(names, m->path, err) != EV_OK) {
			ev_namefold_free(names);
			return err->status;
		}
	}
	/* A seal that no replica on macOS or Windows could hold is refused
	 * here, not discovered when it is copied. */
	ev_namefold_report(names, print_refusal, r);
	ev_namefold_free(names);
	return EV_OK;
}

/* OUTDIR's parent must not be the tree or inside it: the outputs would
 * seal themselves. */
static ev_status check_outdir_outside(const struct ev_tree *tree, const char *outdir,
				      struct ev_error *err)
{
	char *copy = strdup(outdir);
	char real[PATH_MAX];
	if (!copy)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *parent = dirname(copy);
	if (!realpath(parent, real)) {
		ev_status st = ev_error_errno(err, errno, "%s: cannot resolve the directory that "
					      "should hold the outputs (%s)", outdir, parent);
		free(copy);
		return st;
	}
	free(copy);
	for (;;) {
		struct stat sb;
		if (stat(real, &sb) == 0 && sb.st_dev == tree->root_dev && sb.st_ino == tree->root_ino)
			return ev_error_set(err, EV_REFUSED,
					    "%s: output directory is inside the tree being sealed; "
					    "choose an OUTDIR outside it",
					    outdir);
		char *slash = strrchr(real, '/');
		if (!slash || slash == real) {
			if (strcmp(real, "/") == 0)
				break;
			strcpy(real, "/");
			continue;
		}
		*slash = '\0';
	}
	return EV_OK;
}

/* --- reading one file ------------------------------------------------------------ */

static int same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static ev_status changed(const char *path, const char *how, struct ev_error *err)
{
	return ev_error_set(err, EV_REFUSED,
			    "%s: %s while it was being sealed; nothing was written (seal a tree "
			    "that is no longer being written to)",
			    path, how);
}

static ev_status seal_file(const struct ev_tree *tree, struct ev_tree_entry *e,
			   struct ev_hashpipe *p, struct ev_archive_writer *w,
			   struct ev_progress *progress, struct ev_error *err)
{
	struct ev_member *m = &e->m;
	int fd = ev_tree_open_member(tree, m->path);
	if (fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open", m->path);
	ev_status st = EV_OK;
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", m->path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_dev != e->dev || sb.st_ino != e->ino) {
		st = changed(m->path, "was replaced", err);
		goto out;
	}
	if ((uint64_t)sb.st_size != m->size || !same_time(sb.st_mtim, e->mtime)) {
		st = changed(m->path, "changed (size or mtime)", err);
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if ((st = ev_archive_writer_begin(w, m, err)) != EV_OK)
		goto out;
	uint64_t left = m->size;
	do {
		unsigned char *buf = ev_hashpipe_buffer(p);
		size_t want = left < SLOT_BYTES ? (size_t)left : SLOT_BYTES;
		ssize_t n = 0;
		while (want && (n = read(fd, buf, want)) < 0 && errno == EINTR)
			;
		if (n < 0) {
			st = ev_error_errno(err, errno, "%s: read failed", m->path);
			goto out;
		}
		if (want && n == 0) {
			st = changed(m->path, "shrank", err);
			goto out;
		}
		left -= (uint64_t)n;
		/* Hashed on the hasher thread while it is compressed on this one. */
		ev_hashpipe_publish(p, (size_t)n, left == 0, m->sha256);
		if ((st = ev_archive_writer_data(w, buf, (size_t)n, err)) != EV_OK)
			goto out;
		ev_progress_add(progress, (uint64_t)n, left == 0);
		if (ev_cli_interrupted) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing was "
					  "written");
			goto out;
		}
	} while (left);
	char extra;
	ssize_t more;
	while ((more = read(fd, &extra, 1)) < 0 && errno == EINTR)
		;
	if (more != 0) {
		st = more > 0 ? changed(m->path, "grew", err)
			      : ev_error_errno(err, errno, "%s: read failed", m->path);
		goto out;
	}
	if (fstat(fd, &sb) != 0) {
		st = ev_error_errno(err, errno, "%s: cannot stat", m->path);
		goto out;
	}
	if ((uint64_t)sb.st_size != m->size || !same_time(sb.st_mtim, e->mtime))
		st = changed(m->path, "changed (size or mtime)", err);
out:
	close(fd);
	return st;
}

/* --- the whole run --------------------------------------------------------------- */

struct run {
	const struct create_opts *o;
	char root_real[PATH_MAX];
	const char *root_name;
	struct ev_tree tree;
	struct ev_seal seal;   /* shallow copies of the tree entries (build_seal) */
	struct seal_out out;
	json_t *receipt;
};

/* The seal's members are the tree's entries, shallow-copied: the tree keeps
 * ownership of the path strings. */
static ev_status build_seal(struct run *r, struct ev_error *err)
{
	ev_seal_init(&r->seal);
	r->seal.root = (char *)r->root_name;
	r->seal.members = calloc(r->tree.count ? r->tree.count : 1, sizeof r->seal.members[0]);
	if (!r->seal.members)
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < r->tree.count; i++)
		r->seal.members[i] = r->tree.entries[i].m;
	r->seal.count = r->tree.count;
	ev_seal_finish(&r->seal);
	return EV_OK;
}

static void copy_digests(struct run *r)
{
	for (size_t i = 0; i < r->tree.count; i++)
		memcpy(r->seal.members[i].sha256, r->tree.entries[i].m.sha256, EV_SHA256_LEN);
}

static ev_status seal_members(struct run *r, struct ev_error *err)
{
	struct ev_hashpipe *p = NULL;
	ev_status st = ev_hashpipe_new(&p, SLOTS, SLOT_BYTES, err);
	if (st != EV_OK)
		return st;
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": sealing", r->tree.file_bytes, r->tree.count);
	for (size_t i = 0; i < r->tree.count && st == EV_OK; i++) {
		struct ev_tree_entry *e = &r->tree.entries[i];
		if (e->m.type == EV_MEMBER_DIR) {
			st = ev_archive_writer_begin(r->out.writer, &e->m, err);
			ev_progress_add(&progress, 0, 1);
		} else {
			st = seal_file(&r->tree, e, p, r->out.writer, &progress, err);
		}
		if (st == EV_OK)
			st = ev_hashpipe_status(p, err);
	}
	ev_progress_done(&progress);
	ev_status hashed = ev_hashpipe_finish(p, err);
	ev_hashpipe_free(p);
	return st != EV_OK ? st : hashed;
}

/* The receipt's own part; seal_out_finish adds the outputs and totals. */
static ev_status make_receipt(struct run *r, struct ev_error *err)
{
	ev_status st;
	if (!(r->receipt = ev_receipt_new("seal", TOOL, err)))
		return err->status;
	if ((st = ev_receipt_add_input(r->receipt, "tree", r->root_real, NULL, err)) ||
	    (st = ev_receipt_add_check(r->receipt, "members-refused", 1, "none", err)) ||
	    (st = ev_receipt_add_check(r->receipt, "members-unchanged-while-read", 1,
				       "size and mtime held from walk to end of read", err)))
		return st;
	return EV_OK;
}

static void print_summary(const struct run *r)
{
	if (r->o->json) {
		struct ev_error err;
		ev_error_clear(&err);
		ev_json_print(r->receipt, stdout, &err);
		return;
	}
	seal_out_print(&r->out, &r->seal);
}

static ev_status run_create(struct run *r, struct ev_error *err)
{
	const struct create_opts *o = r->o;
	ev_status st;
	if (!realpath(o->dir, r->root_real))
		return ev_error_errno(err, errno, "%s: cannot resolve", o->dir);
	r->root_name = o->name ? o->name : basename(r->root_real);
	const char *problem = ev_path_component_problem(r->root_name, strlen(r->root_name));
	if (problem)
		return ev_error_set(err, EV_USAGE, "root name \"%s\" %s; choose one with --name",
				    r->root_name, problem);

	struct refusals refused = {0};
	if ((st = ev_tree_scan(o->dir, &r->tree, print_refusal, &refused, err)) != EV_OK)
		return st;
	if ((st = check_entries(&r->tree, o, &refused, err)) != EV_OK)
		return st;
	if (refused.count)
		return ev_error_set(err, EV_REFUSED, "%s: %u member%s refused; nothing was written",
				    o->dir, refused.count, refused.count == 1 ? "" : "s");
	if ((st = check_outdir_outside(&r->tree, o->outdir, err)) != EV_OK)
		return st;
	if ((st = build_seal(r, err)) != EV_OK)
		return st;
	/* Digests are still zero: the length of SEAL.json is already final. */
	if ((st = seal_out_begin(&r->out, o->outdir, &o->archive, &r->seal, err)) != EV_OK)
		return st;
	if ((st = seal_members(r, err)) != EV_OK)
		return st;
	copy_digests(r);
	if ((st = make_receipt(r, err)) != EV_OK)
		return st;
	return seal_out_finish(&r->out, &r->seal, r->receipt, err);
}

static void run_free(struct run *r)
{
	seal_out_free(&r->out);
	free(r->seal.members); /* paths belong to the tree */
	ev_tree_free(&r->tree);
	json_decref(r->receipt);
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
	seal_archive_opts_init(&o.archive);
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
	struct run r;
	memset(&r, 0, sizeof r);
	r.o = &o;
	r.tree.rootfd = -1;
	r.out.archive.fd = r.out.archive.dirfd = -1;
	r.out.seal_file.fd = r.out.seal_file.dirfd = -1;
	r.out.receipt_file.fd = r.out.receipt_file.dirfd = -1;
	r.out.od.dirfd = r.out.od.parentfd = -1;
	ev_status st = run_create(&r, &err);
	if (st == EV_OK)
		print_summary(&r);
	else
		ev_cli_error(TOOL, &err);
	run_free(&r);
	return ev_status_exit_code(st);
}
