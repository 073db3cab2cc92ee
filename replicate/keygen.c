/* replicate keygen: an Ed25519 key pair for signing receipts. */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/receipt/signature.h"
#include "replicate/replicate.h"

static const char help[] =
	"usage: replicate keygen -o NAME\n"
	"\n"
	"Make an Ed25519 key pair for signing receipts: NAME.key (PKCS#8 PEM, mode\n"
	"0600 from the moment it exists) and NAME.pub (PEM, 0644). Neither file may\n"
	"exist already; keys are never overwritten. Give NAME.pub to whoever compares\n"
	"receipts (replicate compare --trust NAME.pub); keep NAME.key on the host\n"
	"that signs (replicate verify --sign-key NAME.key).\n"
	"\n"
	"  -o, --output NAME   where the pair goes\n"
	"  -h, --help          show this help\n";

int replicate_keygen_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	const char *name = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'o': name = optarg; break;
		default:
			return msg_usage("keygen", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return msg_usage("keygen", "unexpected argument '%s'", argv[optind]);
	if (!name || !*name)
		return msg_usage("keygen", "no key name given (-o NAME)");
	struct stat sb;
	size_t len = strlen(name);
	if (name[len - 1] == '/' || (stat(name, &sb) == 0 && S_ISDIR(sb.st_mode)))
		return msg_usage("keygen", "-o %s names a directory; give the pair's name in it, e.g. -o %s%shost",
				 name, name, name[len - 1] == '/' ? "" : "/");
	char key[4096], pub[4096], id[EV_SHA256_HEX_LEN + 1];
	if ((size_t)snprintf(key, sizeof key, "%s.key", name) >= sizeof key ||
	    (size_t)snprintf(pub, sizeof pub, "%s.pub", name) >= sizeof pub)
		return msg_usage("keygen", "key name too long");
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_signature_keygen(key, pub, id, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		return ev_status_exit_code(st);
	}
	/* the modes as created (the umask may have narrowed the public key's) */
	struct stat ks, ps;
	if (stat(key, &ks) != 0 || stat(pub, &ps) != 0) {
		fprintf(stderr, TOOL ": %s: cannot read back the pair's modes: %s\n", name, strerror(errno));
		return 2;
	}
	printf("%s: private key (%04o)\n%s: public key (%04o)\nkey_sha256 %s\n", key, (unsigned)(ks.st_mode & 07777),
	       pub, (unsigned)(ps.st_mode & 07777), id);
	return 0;
}
