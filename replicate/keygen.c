/* SPDX-License-Identifier: Apache-2.0 */
/* replicate keygen: an Ed25519 key pair for signing receipts. */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/receipt/signature.h"
#include "replicate/replicate.h"

int replicate_keygen_main(int argc, char **argv)
{
	const char *name = NULL;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "keygen");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&replicate_tool, "keygen");
		case REPLICATE_KEYGEN_OPT_OUTPUT: name = optarg; break;
		default:
			return ev_cli_usage(&replicate_tool, "keygen", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(&replicate_tool, "keygen", "unexpected argument '%s'", argv[optind]);
	if (!name || !*name)
		return ev_cli_usage(&replicate_tool, "keygen", "no key name given (-o NAME)");
	struct stat sb;
	size_t len = strlen(name);
	if (name[len - 1] == '/' || (stat(name, &sb) == 0 && S_ISDIR(sb.st_mode)))
		return ev_cli_usage(&replicate_tool, "keygen", "-o %s names a directory; give the pair's name in it, e.g. -o %s%shost",
				 name, name, name[len - 1] == '/' ? "" : "/");
	char key[4096], pub[4096], id[EV_SHA256_HEX_LEN + 1];
	if ((size_t)snprintf(key, sizeof key, "%s.key", name) >= sizeof key ||
	    (size_t)snprintf(pub, sizeof pub, "%s.pub", name) >= sizeof pub)
		return ev_cli_usage(&replicate_tool, "keygen", "key name too long");
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
