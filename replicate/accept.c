/* SPDX-License-Identifier: Apache-2.0 */
/* replicate accept: one verdict on a campaign against a signed acceptance
 * policy (lib/usecase/replicate/replicate_accept); replicate sign-policy: a draft
 * made that policy (lib/receipt/acceptance), keys filled from PEM files
 * and signed. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/core/base64.h"
#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/receipt/acceptance.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/accept_bundle.h"
#include "lib/usecase/replicate/replicate_accept.h"
#include "replicate/replicate.h"

static void print_verdict(const struct ev_replicate_accept *a)
{
	static const char *const states[] = {"held", "UNMET", "not required"};
	printf("policy %s version %lld (%s), seal %.16s... (%s)\n", a->policy.name, a->policy.version, a->policy_path,
	       a->seal_sha256, a->seal_path);
	for (int i = 0; i < EV_ACCEPT_CONDITIONS; i++)
		printf("  %-12s %-12s %s\n", a->conditions[i].name, states[a->conditions[i].state], a->conditions[i].said);
	if (a->first_unmet < 0)
		printf("PASSED: every condition of %s held\n", a->policy.name);
	else
		printf("FAILED: %s: %s\n", a->conditions[a->first_unmet].name, a->conditions[a->first_unmet].said);
}

#define MAX_KEYS 16

int replicate_accept_main(int argc, char **argv)
{
	struct ev_trust *trust = NULL;
	struct ev_replicate_accept a = {0};
	struct ev_signing_key *keys[MAX_KEYS] = {0};
	size_t nkeys = 0;
	const char *out = NULL;
	int c, json = 0, code = 2;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "accept");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: code = ev_cli_help(&replicate_tool, "accept"); goto done;
		case REPLICATE_ACCEPT_OPT_JSON: json = 1; break;
		case REPLICATE_ACCEPT_OPT_BUNDLE: out = optarg; break;
		case REPLICATE_ACCEPT_OPT_SIGN_KEY:
			if (nkeys == MAX_KEYS) {
				code = ev_cli_usage(&replicate_tool, "accept", "at most %d --sign-key", MAX_KEYS);
				goto done;
			}
			if (ev_cli_sign_key(TOOL, optarg, &keys[nkeys]))
				goto done;
			nkeys++;
			break;
		case REPLICATE_ACCEPT_OPT_POLICY: a.policy_path = optarg; break;
		case REPLICATE_ACCEPT_OPT_SEAL: a.seal = optarg; break;
		case REPLICATE_ACCEPT_OPT_TRUST:
			if (ev_cli_trust_add(TOOL, &trust, optarg))
				goto done;
			break;
		default: code = ev_cli_usage(&replicate_tool, "accept", "%s", ev_cli_option_problem(argv)); goto done;
		}
	}
	if (!a.policy_path) {
		code = ev_cli_usage(&replicate_tool, "accept", "no policy given (--policy POLICY)");
		goto done;
	}
	if (!trust) {
		code = ev_cli_usage(&replicate_tool, "accept", "no trust list given (--trust FILE: the keys a policy may be "
				    "signed by)");
		goto done;
	}
	if (argc - optind != 1) {
		code = ev_cli_usage(&replicate_tool, "accept", "give one DIR (the campaign's evidence) or BUNDLE");
		goto done;
	}
	if (out && !nkeys) {
		code = ev_cli_usage(&replicate_tool, "accept", "--bundle is signed: give --sign-key KEY (or sign-key in the "
				    "configuration)");
		goto done;
	}
	struct stat sb;
	if (out && stat(argv[optind], &sb) == 0 && S_ISREG(sb.st_mode)) {
		code = ev_cli_usage(&replicate_tool, "accept", "%s is a bundle already: judge it without --sign-key, or "
				    "write a bundle from the campaign's evidence directory", argv[optind]);
		goto done;
	}
	if (out) /* a signal stops the bundle at its commit: nothing half-written, exit 2 */
		ev_cli_catch_signals();
	a.dir = argv[optind];
	a.trust = trust;
	a.now = time(NULL);
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_replicate_accept_judge(&a, &err);
	if (st != EV_OK && st != EV_MISMATCH) {
		ev_cli_error(TOOL, &err);
		code = ev_status_exit_code(st);
		goto done;
	}
	if (out) { /* the verdict, and what it read, as one bundle a reviewer takes away */
		ev_status bst = ev_accept_bundle_write(&a, (const struct ev_signing_key *const *)keys, nkeys, out, &err);
		if (bst != EV_OK) {
			ev_cli_error(TOOL, &err);
			code = ev_status_exit_code(bst);
			goto done;
		}
	}
	if (json) {
		json_t *doc = ev_replicate_accept_verdict_json(&a);
		if (out)
			json_object_set_new(doc, "bundle", json_string(out));
		ev_json_print(doc, stdout, &err);
		json_decref(doc);
	} else {
		print_verdict(&a);
		if (out)
			printf("bundle: %s (the verdict as a SLSA verification summary, each audit as an in-toto test result, and "
			       "the evidence read, each in a DSSE envelope)\n", out);
	}
	code = st == EV_OK ? 0 : 1;
done:
	for (size_t i = 0; i < nkeys; i++)
		ev_signing_key_free(keys[i]);
	ev_replicate_accept_free(&a);
	ev_trust_free(trust);
	return code;
}

/* NAME=PUB: keys.NAME, the base64 of PUB's raw public key. */
static int put_key(json_t *keys, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		ev_cli_usage(&replicate_tool, "sign-policy", "--key %s: expected NAME=PUBLIC_KEY", arg);
		return -1;
	}
	struct ev_trust *t = ev_trust_new();
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = t ? ev_trust_add_file(t, eq + 1, &err) : ev_error_set(&err, EV_ERROR, "out of memory");
	if (st == EV_OK && ev_trust_count(t) != 1)
		st = ev_error_set(&err, EV_USAGE, "%s: holds %zu public keys; --key takes one", eq + 1, ev_trust_count(t));
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		ev_trust_free(t);
		return -1;
	}
	unsigned char pub[32];
	ev_trust_public(t, 0, pub, NULL);
	ev_trust_free(t);
	char *b64 = ev_base64_encode(pub, sizeof pub);
	char name[EV_NOTE_NAME_MAX];
	snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
	json_object_set_new(keys, name, json_string(b64 ? b64 : ""));
	free(b64);
	return 0;
}

int replicate_sign_policy_main(int argc, char **argv)
{
	struct ev_signing_key *key = NULL;
	const char *out = NULL;
	json_t *keys = json_object(), *draft = NULL;
	int c, code = 2;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "sign-policy");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: code = ev_cli_help(&replicate_tool, "sign-policy"); goto done;
		case REPLICATE_SIGN_POLICY_OPT_KEY:
			if (put_key(keys, optarg))
				goto done;
			break;
		case REPLICATE_SIGN_POLICY_OPT_OUTPUT: out = optarg; break;
		case REPLICATE_SIGN_POLICY_OPT_SIGN_KEY:
			if (key) {
				code = ev_cli_usage(&replicate_tool, "sign-policy", "one --sign-key: a policy has one signature");
				goto done;
			}
			if (ev_cli_sign_key(TOOL, optarg, &key))
				goto done;
			break;
		default: code = ev_cli_usage(&replicate_tool, "sign-policy", "%s", ev_cli_option_problem(argv)); goto done;
		}
	}
	if (!key || !out || argc - optind != 1) {
		code = ev_cli_usage(&replicate_tool, "sign-policy", "%s",
				    !key ? "no key given (--sign-key KEY): a policy is signed"
					 : !out ? "no output given (-o POLICY)" : "give one DRAFT");
		goto done;
	}
	ev_cli_catch_signals(); /* a signal stops the policy at its commit: nothing half-written, exit 2 */
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_json_load(argv[optind], EV_ACCEPTANCE_FORMAT, 0, &draft, NULL, NULL, NULL, &err);
	if (st == EV_OK && json_object_size(keys)) {
		json_t *have = json_object_get(draft, "keys");
		if (!json_is_object(have))
			json_object_set(draft, "keys", keys);
		else
			json_object_update(have, keys);
	}
	struct ev_acceptance p = {0};
	if (st == EV_OK && (st = ev_acceptance_read(draft, argv[optind], &p, &err)) == EV_OK)
		st = ev_receipt_sign(draft, key, &err);
	ev_acceptance_free(&p);
	if (st == EV_OK)
		st = ev_publish_json(out, draft, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		code = ev_status_exit_code(st);
		goto done;
	}
	printf("%s: policy %s signed\n", out, json_string_value(json_object_get(draft, "name")));
	code = 0;
done:
	json_decref(keys);
	json_decref(draft);
	ev_signing_key_free(key);
	return code;
}
