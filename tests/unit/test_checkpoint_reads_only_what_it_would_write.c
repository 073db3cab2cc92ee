/* SPDX-License-Identifier: Apache-2.0 */
/* checkpoint: a C2SP checkpoint made with a key reads back with its
 * origin, size and root, signed by that key when it is trusted; each way
 * a note can differ from what we write (no final newline, a control
 * character, no blank line, a leading zero, a short root, an extension
 * line, no signature, a line without its em dash, a '+' in a name) is
 * refused naming its line; a changed text or signature is refused under
 * trust, a stranger's key is ignored as signed-note says, and only a
 * trusted key under the origin's name counts. A tlog-proof reads back, and
 * its refusals are named. Base64 is read strictly. (Go's own note and tlog
 * packages hold the same files in t-log-checkpoints-verify-with-go-sumdb.) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/base64.h"
#include "lib/receipt/checkpoint.h"

static struct ev_signing_key *key_pair(const char *dir, const char *name, struct ev_trust *trust)
{
	char priv[512], pub[512];
	struct ev_error err;
	struct ev_signing_key *key = NULL;
	ev_error_clear(&err);
	snprintf(priv, sizeof priv, "%s/%s.key", dir, name);
	snprintf(pub, sizeof pub, "%s/%s.pub", dir, name);
	CHECK_INT_EQ(ev_signature_keygen(priv, pub, NULL, &err), EV_OK);
	CHECK_INT_EQ(ev_signing_key_load(priv, &key, &err), EV_OK);
	if (trust)
		CHECK_INT_EQ(ev_trust_add_file(trust, pub, &err), EV_OK);
	return key;
}

/* note with its first occurrence of from replaced by to, read under trust:
 * the reason it is refused (empty when it reads). */
static const char *read_edited(const char *note, const char *from, const char *to, const struct ev_trust *trust)
{
	static char why[512];
	char edited[2048];
	const char *at = strstr(note, from);
	CHECK(at != NULL);
	snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - note), note, to, at + strlen(from));
	struct ev_checkpoint cp;
	why[0] = '\0';
	if (ev_checkpoint_read(edited, strlen(edited), trust, &cp, why, sizeof why) == EV_OK)
		why[0] = '\0';
	return why;
}

static int starts(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) == 0)
		return 1;
	fprintf(stderr, "expected \"%s...\", found \"%s\"\n", prefix, s);
	return 0;
}

int main(void)
{
	char dir[256], why[512];
	struct ev_error err;
	ev_error_clear(&err);
	snprintf(dir, sizeof dir, "%s/ev-checkpoint-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(dir) != NULL);
	struct ev_trust *lab = ev_trust_new(), *stranger = ev_trust_new();
	struct ev_signing_key *lab_key = key_pair(dir, "lab", lab), *stranger_key = key_pair(dir, "stranger", stranger);

	ev_merkle_hash root;
	for (int i = 0; i < 32; i++)
		root[i] = (uint8_t)(i * 7);
	char *note = NULL, *other = NULL;
	size_t len = 0, other_len = 0;
	CHECK_INT_EQ(ev_checkpoint_make("lab.example/log", 7, root, lab_key, &note, &len, &err), EV_OK);
	CHECK(starts(note, "lab.example/log\n7\nAAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk=\n\n\xe2\x80\x94 lab.example/log "));
	struct ev_checkpoint cp;
	CHECK_INT_EQ(ev_checkpoint_read(note, len, lab, &cp, why, sizeof why), EV_OK);
	CHECK_STR_EQ(cp.origin, "lab.example/log");
	CHECK_INT_EQ((int)cp.size, 7);
	CHECK(memcmp(cp.root, root, sizeof root) == 0);
	CHECK_INT_EQ((int)cp.trusted, 1);

	/* the shape: each difference from what we write, named by its line */
	CHECK(starts(read_edited(note, "7\n", "07\n", NULL), "line 2: expected the tree size"));
	CHECK(starts(read_edited(note, "tk=\n", "t=\n", NULL), "line 3: expected the root hash"));
	CHECK(starts(read_edited(note, "tk=\n", "tk=\next\n", NULL), "line 4: an extension line"));
	CHECK(starts(read_edited(note, "\n\n", "\n", NULL), "no blank line before signature lines"));
	CHECK(starts(read_edited(note, "\xe2\x80\x94 ", "- ", NULL), "line 5: a signature line begins with an em dash"));
	CHECK(starts(read_edited(note, "\xe2\x80\x94 lab", "\xe2\x80\x94 la+b", NULL), "line 5: 'la+b.example/log' is not a key name"));
	CHECK(starts(read_edited(note, "lab.example/log\n7", "lab example/log\n7", NULL), "line 1: 'lab example/log' is not an origin"));
	CHECK(starts(read_edited(note, "7\n", "7\t\n", NULL), "byte 17 is a control character (0x09)"));
	note[len - 1] = ' ';
	CHECK_INT_EQ(ev_checkpoint_read(note, len, NULL, &cp, why, sizeof why), EV_MISMATCH);
	CHECK(starts(why, "does not end in a newline"));
	note[len - 1] = '\n';
	CHECK_INT_EQ(ev_checkpoint_read(note, (size_t)(strstr(note, "\n\n") - note) + 2, NULL, &cp, why, sizeof why),
		     EV_MISMATCH);
	CHECK(starts(why, "no signature line"));

	/* the signature: judged only under trust, and only a known key's */
	CHECK_STR_EQ(read_edited(note, "\n7\n", "\n8\n", NULL), "");
	CHECK(starts(read_edited(note, "\n7\n", "\n8\n", lab), "line 5: the signature by lab.example/log (key ID "));
	CHECK(strstr(read_edited(note, "\n7\n", "\n8\n", lab), "does not verify: the note was changed after it was signed"));
	CHECK(starts(read_edited(note, "lab.example/log\n7", "lab.example/log2\n7", lab), "line 5: the signature by"));
	CHECK(starts(read_edited(note, "", "", stranger), "not signed by a trusted key named lab.example/log (its origin): 1 "
		     "signature line, none by a key given with --trust"));
	/* another's signature line beside the log's is ignored; the log's still counts */
	CHECK_INT_EQ(ev_checkpoint_make("lab.example/log", 7, root, stranger_key, &other, &other_len, &err), EV_OK);
	char both[2048];
	snprintf(both, sizeof both, "%s%s", note, strstr(other, "\n\n") + 2);
	CHECK_INT_EQ(ev_checkpoint_read(both, strlen(both), lab, &cp, why, sizeof why), EV_OK);
	CHECK_INT_EQ((int)cp.signatures, 2);
	CHECK_INT_EQ((int)cp.trusted, 1);

	/* a witness's cosignature: counted under trust, a changed one refused, an untrusted one ignored */
	char cosig[512], cosigned[2048];
	CHECK_INT_EQ(ev_cosignature_make(note, len, "w.example/witness", 1765000000, stranger_key, cosig, sizeof cosig, &err),
		     EV_OK);
	CHECK(starts(cosig, "\xe2\x80\x94 w.example/witness "));
	snprintf(cosigned, sizeof cosigned, "%s%s", note, cosig);
	struct ev_trust *lab_and_witness = ev_trust_new();
	snprintf(why, sizeof why, "%s/lab.pub", dir);
	CHECK_INT_EQ(ev_trust_add_file(lab_and_witness, why, &err), EV_OK);
	snprintf(why, sizeof why, "%s/stranger.pub", dir);
	CHECK_INT_EQ(ev_trust_add_file(lab_and_witness, why, &err), EV_OK);
	CHECK_INT_EQ(ev_checkpoint_read(cosigned, strlen(cosigned), lab_and_witness, &cp, why, sizeof why), EV_OK);
	CHECK_INT_EQ((int)cp.cosigned, 1);
	CHECK_STR_EQ(cp.cosigners, "w.example/witness");
	CHECK_INT_EQ(ev_checkpoint_read(cosigned, strlen(cosigned), lab, &cp, why, sizeof why), EV_OK);
	CHECK_INT_EQ((int)cp.cosigned, 0);
	char *at = strstr(cosigned, "w.example/witness ") + strlen("w.example/witness ") + 20;
	*at = *at == 'A' ? 'B' : 'A';
	CHECK_INT_EQ(ev_checkpoint_read(cosigned, strlen(cosigned), lab_and_witness, &cp, why, sizeof why), EV_MISMATCH);
	CHECK(starts(why, "line 6: the cosignature by w.example/witness (key ID "));
	CHECK_INT_EQ(ev_cosignature_make(note, len, "w witness", 1, stranger_key, cosig, sizeof cosig, &err), EV_USAGE);
	ev_trust_free(lab_and_witness);

	/* the verifier key: NAME+KEYID+base64(0x01 || key) */
	char vkey[EV_NOTE_VKEY_MAX];
	unsigned char pub[32];
	ev_signing_key_public(lab_key, pub);
	CHECK_INT_EQ(ev_note_vkey("lab.example/log", EV_NOTE_ED25519, pub, vkey, &err), EV_OK);
	CHECK(starts(vkey, "lab.example/log+"));
	CHECK_INT_EQ((int)strlen(vkey), (int)strlen("lab.example/log+") + 8 + 1 + 44);
	CHECK_INT_EQ(ev_note_vkey("lab log", EV_NOTE_ED25519, pub, vkey, &err), EV_USAGE);

	/* a tlog-proof reads back; its refusals are named */
	ev_merkle_hash path[2];
	memcpy(path[0], root, sizeof root);
	memset(path[1], 0xab, sizeof path[1]);
	char *proof = NULL;
	size_t proof_len = 0;
	CHECK_INT_EQ(ev_tlog_proof_make(3, path, 2, note, len, &proof, &proof_len, &err), EV_OK);
	CHECK(starts(proof, "c2sp.org/tlog-proof@v1\nindex 3\nAAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk=\n"));
	struct ev_tlog_proof *p = malloc(sizeof *p);
	CHECK(p != NULL);
	CHECK_INT_EQ(ev_tlog_proof_read(proof, proof_len, p, why, sizeof why), EV_OK);
	CHECK_INT_EQ((int)p->index, 3);
	CHECK_INT_EQ((int)p->n, 2);
	CHECK(memcmp(p->path[1], path[1], sizeof path[1]) == 0);
	CHECK_INT_EQ((int)p->checkpoint_len, (int)len);
	CHECK(memcmp(p->checkpoint, note, len) == 0);
	const char *refused[][2] = {
		{"c2sp.org/tlog-proof@v2\nindex 3\n\nx", "line 1: expected 'c2sp.org/tlog-proof@v1'"},
		{"c2sp.org/tlog-proof@v1\nextra AAAA\nindex 3\n\nx", "line 2: expected 'index N' (N a decimal, no leading "
									"zero); found extra data"},
		{"c2sp.org/tlog-proof@v1\nindex 03\n\nx", "line 2: expected 'index N'"},
		{"c2sp.org/tlog-proof@v1\nindex 3\nAAAA\n\nx", "line 3: expected a proof hash"},
		{"c2sp.org/tlog-proof@v1\nindex 3\n", "line 3: the proof ends before the blank line"},
		{"c2sp.org/tlog-proof@v1\nindex 3\n\n", "line 4: no checkpoint after the blank line"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		CHECK_INT_EQ(ev_tlog_proof_read(refused[i][0], strlen(refused[i][0]), p, why, sizeof why), EV_MISMATCH);
		CHECK(starts(why, refused[i][1]));
	}

	/* base64: one spelling per value */
	size_t n = 0;
	unsigned char *b = ev_base64_decode("QQ==", 4, &n);
	CHECK(b != NULL && n == 1 && b[0] == 'A');
	free(b);
	CHECK(ev_base64_decode("QQ=", 3, &n) == NULL);
	CHECK(ev_base64_decode("Q===", 4, &n) == NULL);
	CHECK(ev_base64_decode("Q=QQ", 4, &n) == NULL);
	CHECK(ev_base64_decode("QQ-_", 4, &n) == NULL);

	free(p);
	free(proof);
	free(note);
	free(other);
	ev_signing_key_free(lab_key);
	ev_signing_key_free(stranger_key);
	ev_trust_free(lab);
	ev_trust_free(stranger);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT_EQ(system(cmd), 0);
	return check_exit("checkpoint");
}
