#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A replica is a witness: given its own key and the log keys it trusts
# (its own configuration, never the pusher's), keep-head checks the
# consistency proof as before, then cosigns the head's C2SP checkpoint
# (c2sp.org/tlog-cosignature, cosignature/v1) and the pusher keeps it in
# its log (cosignatures/NAME/). Go's note.Open, with the cosignature
# checked by crypto/ed25519 (tests/replicate/c2sp-verify.go), accepts it
# and refuses it edited. The witness rules, each refused and named with
# nothing kept: an untrusted log key, an unknown origin, a checkpoint
# that is not the head's; a replica that trusts no log key, or an
# unsigned log, keeps the head and says it cosigned nothing (a replica
# that signs its receipts is not made a witness by that alone). A split view (the
# host shows two replicas two histories under one origin) leaves two
# validly signed checkpoints of one size that disagree, and verify names
# the one its log does not hash to.
. "$EV_SRCDIR/tests/lib/lib.sh"

require_go_sumdb
FAKE_SSH="$EV_SRCDIR/tests/replicate/fake-ssh"

# far NAME: a replicate for the far host NAME: its own configuration
# (NAME.conf), its own cosigner name.
far () {
	cat >"far-$1" <<-EOF
	#!/bin/sh
	export EVIDENCE_CONFIG="$PWD/$1.conf"
	if [ "\$1" = keep-head ]; then shift; exec "$REPLICATE" keep-head --name $1.example/witness "\$@"; fi
	exec "$REPLICATE" "\$@"
	EOF
	chmod +x "far-$1"
}

# push_to NAME LOG [ARGS...]: push the sealed archive to host NAME's
# directory NAME (through fake-ssh), offering LOG's latest head.
push_to () {
	n=$1 log=$2 && shift 2 &&
	"$REPLICATE" push s/archive.tar.zst --seal s/SEAL.json --receipt-dir rc --to "$n:$PWD/$n" --log "$log" \
		--remote-replicate "$PWD/far-$n" --ssh "$FAKE_SSH" "$@"
}

test_expect_success 'setup: the Go verifier, keys for the log and two replicas, a signed log of three receipts' '
	build_c2sp_verify &&
	for k in lab r1 r2 stranger; do "$REPLICATE" keygen -o $k >/dev/null || return 1; done &&
	mkdir -p rc t/c && echo run >t/c/run.log && "$SEAL" create t/c -o s >/dev/null &&
	/usr/bin/python3 - <<-\PY &&
	import json, os
	base = json.loads(open("s/receipt.json", "rb").read())
	for i in range(1, 5):
	    base["facts"]["archive_bytes"] = 100000 + i
	    os.makedirs("r%d" % i)
	    open("r%d/receipt.json" % i, "w").write(json.dumps(base, sort_keys=True, separators=(",", ":")) + "\n")
	PY
	"$REPLICATE" log --log L --origin lab.example/log --sign-key lab.key append r1/receipt.json r2/receipt.json \
		r3/receipt.json >/dev/null &&
	printf "sign-key = %s\ntrust = %s\n" "$PWD/r1.key" "$PWD/lab.pub" >r1.conf &&
	printf "sign-key = %s\ntrust = %s\n" "$PWD/r2.key" "$PWD/lab.pub" >r2.conf &&
	far r1 && far r2 &&
	"$REPLICATE" log --log L vkey lab.pub >lab.vkey &&
	"$REPLICATE" log --witness r1.example/witness vkey r1.pub >r1.vkey &&
	grep -q "^r1.example/witness+[0-9a-f]\\{8\\}+B[A-P][A-Za-z0-9+/]\\{42\\}$" r1.vkey
'

test_expect_success 'push --log: the replica keeps the head, cosigns its checkpoint, and the pusher keeps the cosignature' '
	push_to r1 L >out &&
	grep -q "^r1:.*: pass; receipt .*; tree head head-0000000003 kept there, cosigned by r1.example/witness$" out &&
	label=$(ls r1/log-heads) &&
	echo lab.example/log >want && test_cmp want r1/log-heads/$label/origin &&
	test -s r1/log-heads/$label/heads/checkpoint-0000000003 &&
	test_cmp r1/log-heads/$label/heads/checkpoint-0000000003 L/cosignatures/r1.example_witness/checkpoint-0000000003 &&
	head -n 5 L/cosignatures/r1.example_witness/checkpoint-0000000003 >got && test_cmp L/heads/checkpoint-0000000003 got &&
	sed -n 6p L/cosignatures/r1.example_witness/checkpoint-0000000003 |
		grep -q "^— r1.example/witness [A-Za-z0-9+/]\\{102\\}==$" &&
	"$REPLICATE" log --log L --trust lab.pub --trust r1.pub verify >out &&
	grep -q "^OK: log L: 3 entries, 1 tree heads, 1 checkpoints, 1 cosignatures, root " out &&
	"$REPLICATE" log --log L --trust lab.pub verify | grep -q ", 0 cosignatures, root "
'

test_expect_success 'Go verifies the cosigned checkpoint, both signatures, and refuses its cosignature edited' '
	./c2sp-verify cosigned "$(cat lab.vkey)" "$(cat r1.vkey)" L/cosignatures/r1.example_witness/checkpoint-0000000003 >out &&
	grep -q "^ok: " out &&
	/usr/bin/python3 - <<-\PY &&
	lines = open("L/cosignatures/r1.example_witness/checkpoint-0000000003", encoding="utf-8").read().split("\n")
	sig = lines[5]
	at = len(sig) - 8
	lines[5] = sig[:at] + ("B" if sig[at] != "B" else "C") + sig[at + 1:]
	open("edited", "w", encoding="utf-8").write("\n".join(lines))
	PY
	test_expect_code 1 ./c2sp-verify cosigned "$(cat lab.vkey)" "$(cat r1.vkey)" edited 2>err >/dev/null &&
	grep -q "^edited: invalid signature for key r1.example/witness+[0-9a-f]\\{8\\}$" err &&
	cp edited L/cosignatures/r1.example_witness/checkpoint-0000000003.edited &&
	mkdir -p Lx && cp -R L/. Lx/ && mv Lx/cosignatures/r1.example_witness/checkpoint-0000000003.edited \
		Lx/cosignatures/r1.example_witness/checkpoint-0000000003 &&
	rm L/cosignatures/r1.example_witness/checkpoint-0000000003.edited &&
	test_expect_code 1 "$REPLICATE" log --log Lx --trust lab.pub --trust r1.pub verify 2>err >/dev/null &&
	grep -q "^replicate: cosigned by r1.example_witness: cosignature: .*/checkpoint-0000000003: line 6: the cosignature by r1.example/witness (key ID [0-9a-f]\\{8\\}, trusted key [0-9a-f]\\{16\\}...) does not verify: the checkpoint was changed after it was cosigned$" err
'

test_expect_success 'the same head pushed again: the same cosignature line, not a new one' '
	cp L/cosignatures/r1.example_witness/checkpoint-0000000003 before &&
	push_to r1 L >out &&
	grep -q "tree head head-0000000003 kept there, cosigned by r1.example/witness$" out &&
	test_cmp before L/cosignatures/r1.example_witness/checkpoint-0000000003 &&
	label=$(ls r1/log-heads) && test_cmp before r1/log-heads/$label/heads/checkpoint-0000000003
'

test_expect_success 'the next push: the replica cosigns the larger checkpoint once the proof extends the one it kept' '
	"$REPLICATE" log --log L --sign-key lab.key append r4/receipt.json >/dev/null &&
	push_to r1 L >out &&
	grep -q "tree head head-0000000004 kept there, cosigned by r1.example/witness$" out &&
	ls L/cosignatures/r1.example_witness >got && printf "%s\n" checkpoint-0000000003 checkpoint-0000000004 >want &&
	test_cmp want got
'

# keep_head_refuses NAME WHY [OPTIONS...]: a fresh replica NAME, given
# (as push gives it) L's head and its checkpoint with OPTIONS, refuses
# with WHY and keeps nothing.
keep_head_refuses () {
	n=$1 why=$2 && shift 2 &&
	test_expect_code 1 "$REPLICATE" keep-head "$@" "$n" "$label" <msg >answer 2>err &&
	grep -q "^refused: $why" answer || { cat answer err; return 1; }
	test_must_be_absent "$n/log-heads/$label/heads" "$n/log-heads/$label/origin"
}

test_expect_success 'the witness rules: an untrusted log key, a checkpoint not the head'"'"'s: refused, nothing kept' '
	label=$(ls r1/log-heads) &&
	/usr/bin/python3 - <<-\PY &&
	import json
	head = json.load(open("L/heads/head-0000000004.json"))
	cp = open("L/heads/checkpoint-0000000004", encoding="utf-8").read()
	other = open("L/heads/checkpoint-0000000003", encoding="utf-8").read()
	for name, msg in (("msg", {"head": head, "proof": [], "checkpoint": cp}),
	                  ("msg.unsigned", {"head": head, "proof": []}),
	                  ("msg.mismatch", {"head": head, "proof": [], "checkpoint": other})):
	    open(name, "w").write(json.dumps(msg) + "\n")
	PY
	cp msg msg.signed &&
	keep_head_refuses w2 "checkpoint: not signed by a trusted key named lab.example/log (its origin): 1 signature line, none by a key given with --trust$" \
		--sign-key r1.key --trust stranger.pub --name r1.example/witness &&
	cp msg.mismatch msg &&
	keep_head_refuses w4 "the checkpoint says size 3, root [0-9a-f]\\{64\\}; the head says size 4, root [0-9a-f]\\{64\\}$" \
		--sign-key r1.key --trust lab.pub --name r1.example/witness &&
	test_expect_code 2 "$REPLICATE" keep-head --sign-key r1.key --name "r 1" w5 "$label" </dev/null 2>err &&
	grep -q "cannot be a cosigner.s name" err
'

test_expect_success 'a replica that trusts no log key, or an unsigned log: the head kept, nothing cosigned, and said' '
	label=$(ls r1/log-heads) &&
	"$REPLICATE" keep-head --sign-key r1.key --name r1.example/witness w1 "$label" <msg.signed >answer &&
	grep -q "^kept head-0000000004 not cosigned: this replica trusts no log key (--trust, or trust in its configuration)$" answer &&
	test -s w1/log-heads/$label/heads/head-0000000004.json &&
	test_must_be_absent w1/log-heads/$label/heads/checkpoint-0000000004 w1/log-heads/$label/origin &&
	"$REPLICATE" keep-head --sign-key r1.key --trust lab.pub --name r1.example/witness w3 "$label" <msg.unsigned >answer &&
	grep -q "^kept head-0000000004 not cosigned: the head came without a checkpoint (an unsigned log)$" answer &&
	test_must_be_absent w3/log-heads/$label/heads/checkpoint-0000000004 &&
	printf "sign-key = %s\n" "$PWD/r1.key" >r3.conf && far r3 &&
	push_to r3 L >out &&
	grep -q "tree head head-0000000004 kept there, not cosigned: this replica trusts no log key (--trust, or trust in its configuration)$" out &&
	test_must_be_absent L/cosignatures/r3.example_witness
'

test_expect_success 'an unknown origin: a replica that witnesses this host'"'"'s log as another origin refuses it' '
	label=$(ls r1/log-heads) &&
	cp -R r1 r1x && echo elsewhere.example/log >r1x/log-heads/$label/origin &&
	ls r1x/log-heads/$label/heads >before &&
	cp far-r1 far-r1x && "$REPLICATE" log --log L --sign-key lab.key append s/receipt.json >/dev/null &&
	test_expect_code 1 push_to r1x L >out &&
	grep -q "tree head REFUSED there: unknown origin lab.example/log: this replica witnesses this host.s log as elsewhere.example/log (.*/r1x/log-heads/$label/origin)$" out &&
	ls r1x/log-heads/$label/heads >after && test_cmp before after
'

test_expect_success 'a cosigner named ".." is the far end'"'"'s word: its cosignature stays under cosignatures/' '
	sed "s|--name r1.example/witness|--name ..|" far-r1 >far-dots && chmod +x far-dots &&
	grep -q -- "--name \.\. " far-dots && cp -R r1 dots &&
	push_to dots L >out &&
	grep -q "head-0000000005 kept there, cosigned by \.\.$" out &&
	test -s L/cosignatures/_./checkpoint-0000000005 && test_must_be_absent L/checkpoint-0000000005
'

test_expect_success 'a split view: two replicas shown two histories under one origin cosign checkpoints that disagree' '
	mkdir fork && cp r1/receipt.json fork/1.json && cp r2/receipt.json fork/2.json && cp r4/receipt.json fork/4.json &&
	"$REPLICATE" log --log Lfork --origin lab.example/log --sign-key lab.key append fork/1.json fork/2.json \
		fork/4.json >/dev/null &&
	push_to r2 Lfork >out && grep -q "head-0000000003 kept there, cosigned by r2.example/witness$" out &&
	A=L/cosignatures/r1.example_witness/checkpoint-0000000003 B=Lfork/cosignatures/r2.example_witness/checkpoint-0000000003 &&
	"$REPLICATE" log --witness r2.example/witness vkey r2.pub >r2.vkey &&
	./c2sp-verify cosigned "$(cat lab.vkey)" "$(cat r1.vkey)" $A >/dev/null &&
	./c2sp-verify cosigned "$(cat lab.vkey)" "$(cat r2.vkey)" $B >/dev/null &&
	sed -n 2p $A >sa && sed -n 2p $B >sb && test_cmp sa sb &&
	sed -n 3p $A >ra && sed -n 3p $B >rb && ! cmp -s ra rb &&
	mkdir -p L/cosignatures/r2.example_witness && cp $B L/cosignatures/r2.example_witness/ &&
	test_expect_code 1 "$REPLICATE" log --log L --trust lab.pub verify 2>err >/dev/null &&
	grep -q "^replicate: cosigned by r2.example_witness: cosigned-checkpoint: .*/checkpoint-0000000003: the replica cosigned size 3, root [0-9a-f]\\{64\\}; this log.s first 3 entries hash to [0-9a-f]\\{64\\}: it was shown another history$" err
'

test_done
