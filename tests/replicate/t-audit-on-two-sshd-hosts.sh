#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate audit over real OpenSSH: each host that push gave a copy of a
# sealed campaign runs audit campaign against that copy (one read of the
# archive there, nothing extracted, its OUTDIR beside the copy); the
# receipts and summaries come back here, and every host recomputed the
# comparable digest the lab host computes from its own archive. A host
# holding a tampered copy is named, with the member and the first value
# where its summary differs; a host with nothing listening is reported
# while the others' audits stand (and, dated 20 days back, are stale
# under --max-age 7d). prune --require-audit removes the
# runtime tree only once another host's audit of its archive copy passed.
# Stopped by a signal, replicate audit ends every far audit and says, for
# each host, what exists there and here; each account is held to the files.
. "$EV_SRCDIR/tests/lib/lib.sh"
. "$EV_SRCDIR/tests/lib/sshd-hosts.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
R=runs/001-baseline-spin-1

audit_hosts () {
	"$REPLICATE" audit --seal out/SEAL.json --receipt-dir receipts --ssh-config "$T/ssh_config" \
		--remote-audit "$AUDIT" "$@"
}

test_expect_success 'setup: a captured campaign, sealed, pushed to two hosts with their own sshd' '
	two_cell_plan plan.json small 11031 2000 1 &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null &&
	"$SEAL" create c -o out >/dev/null && mkdir receipts &&
	ssh_hosts_setup &&
	"$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir receipts --ssh-config "$T/ssh_config" \
		--remote-replicate "$REPLICATE" --to "hostA:$T/replica-a" --to "hostB:$T/replica-b" >/dev/null
'

test_expect_success 'each host audits its copy; the audits agree with the lab host'"'"'s audit of its archive' '
	audit_hosts "hostA:$T/replica-a" "hostB:$T/replica-b" >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^hostA:$T/replica-a: pass; receipt receipts/audit-hostA_.*\\.json$" stdout &&
	grep -q "^hostB:$T/replica-b: pass; receipt receipts/audit-hostB_.*\\.json$" stdout &&
	grep -q "^AGREE: 2 audits, comparable [0-9a-f]\\{64\\}$" stdout &&
	ls receipts/audit-hostA_*.summary.json receipts/audit-hostB_*.summary.json >/dev/null &&
	a=$(ls receipts/audit-hostA_*[0-9]Z.json) &&
	cmp "$T"/replica-a/audit-*/receipt.json "$a" &&
	cmp "$T"/replica-a/audit-*/summary.json receipts/audit-hostA_*.summary.json &&
	ls "$T/replica-a" | grep -v "^audit-" | grep -v "^replica-" >left &&
	printf "%s\n" SEAL.json archive.tar.zst >want && test_cmp want left &&
	if [ $isolated = 1 ]; then
		test "$(json_get "$a" "d[\"host\"]")" = hostA
	fi &&
	"$AUDIT" campaign --seal out/SEAL.json --seal-sha256 "$(sha256_of out/SEAL.json)" out/archive.tar.zst -o here >/dev/null &&
	test "$(json_get here/receipt.json "d[\"comparable\"]")" = "$(json_get "$a" "d[\"comparable\"]")" &&
	"$REPLICATE" status receipts >status.out &&
	c16=$(json_get "$a" "d[\"comparable\"][:16]") &&
	grep -q "^  audit:    audit campaign on [^,]*, from the archive, pass at [^,]*, comparable $c16 ($a)$" status.out &&
	cp -R receipts aged &&
	for r in aged/audit-*[0-9]Z.json; do receipt_dated -20 "$r" || return 1; done &&
	"$REPLICATE" status --max-age 7d aged >status.out &&
	grep -q "^  audit:    audit campaign on [^,]*, from the archive, pass at [^,]*, 20d old, STALE, comparable $c16 (aged/${a#receipts/})$" status.out &&
	grep -q "^  missing:  an audit that passed within 7d (every passing one is older): replicate audit again$" status.out
'

test_expect_success 'a host holding a tampered copy: named, with the member and the first value its summary differs in' '
	python3 "$SURGERY" out/archive.tar.zst forged.tar.zst flip $R/series/send.bin 4100 &&
	mkdir "$T/replica-f" && cp out/SEAL.json "$T/replica-f/" && cp forged.tar.zst "$T/replica-f/archive.tar.zst" &&
	test_expect_code 1 audit_hosts "hostA:$T/replica-a" "hostB:$T/replica-f" >forged.out 2>forged.err &&
	grep -q "^hostA:$T/replica-a: pass; receipt " forged.out &&
	grep -q "^hostB:$T/replica-f: FAIL; receipt receipts/audit-hostB_.*\\.json$" forged.out &&
	grep -q "^DIFFER: the audits do not agree" forged.out &&
	grep -q "^replicate: receipts/audit-hostB_.*: check inputs against the seal: differs between the receipts (expected pass: .*, found fail: $R/series/send.bin: its SHA-256 is not the seal" forged.err &&
	grep -q "^replicate: hostB:$T/replica-f: its summary differs first at run 001-baseline-spin-1: recomputed\\.[a-z0-9_.]*: [0-9\"]* here, [0-9\"]* on hostA:$T/replica-a$" forged.err &&
	test_expect_code 1 "$REPLICATE" compare receipts/audit-hostA_*[0-9]Z.json receipts/audit-hostB_*[0-9]Z.json >/dev/null 2>&1
'

test_expect_success 'a host with nothing listening is reported with ssh'"'"'s reason; the other host'"'"'s audit stands' '
	test_expect_code 2 audit_hosts "hostA:$T/replica-a" "hostC:$T/replica-c" >unreached.out 2>unreached.err &&
	grep -q "^hostA:$T/replica-a: pass; receipt " unreached.out && grep -q "^hostC:$T/replica-c: error$" unreached.out &&
	grep -q "^replicate: hostC:$T/replica-c: ssh failed (status 255): .*Connection refused" unreached.err
'

test_expect_success 'a local DIR is audited here with the audit beside replicate; misuse refused' '
	mkdir -p local && cp out/SEAL.json out/archive.tar.zst local/ &&
	"$REPLICATE" audit --seal out/SEAL.json --receipt-dir receipts ./local >local.out 2>local.err &&
	grep -q "^./local: pass; receipt receipts/audit-local-.*\\.json$" local.out &&
	test_expect_code 2 "$REPLICATE" audit --receipt-dir receipts ./local 2>err &&
	grep -q "^replicate: no seal given (--seal SEAL.json)$" err &&
	test_expect_code 2 "$REPLICATE" audit --seal out/SEAL.json --seal-sha256 "$(printf "%064d" 0)" --receipt-dir receipts \
		./local 2>err &&
	grep -q "out/SEAL.json" err &&
	test_expect_code 2 "$REPLICATE" audit --seal out/SEAL.json --receipt-dir nowhere ./local 2>err &&
	grep -q "^replicate: nowhere: the receipt directory (--receipt-dir) does not exist$" err
'

# far_audits DIR: the audits still running on the far host for DIR (the
# hosts share this PID namespace).
far_audits () {
	pgrep -af "campaign .*$1/archive.tar.zst" | grep -v pgrep || true
}

# far_audits_end DIR...: wait (as long as the time scale allows) until no
# audit runs there for any DIR.
far_audits_end () {
	for i in $(seq 1 $((100 * EV_TIME_SCALE))); do
		[ -z "$(for d in "$@"; do far_audits "$d"; done)" ] && return 0
		sleep 0.1
	done
	[ -z "$(for d in "$@"; do far_audits "$d"; done)" ]
}

# running_there DIR...: a command for STOPPED_WHEN, true once an audit of
# each DIR runs ("[c]" keeps the pattern from matching the shell that
# carries it).
running_there () {
	for d in "$@"; do printf "pgrep -f \"[c]ampaign .*%s/archive.tar.zst\" >/dev/null && " "$d"; done
	printf true
}

test_expect_success 'replicate audit stopped (SIGTERM) while the far hosts audit: each says what exists there and here, and it is so' '
	cp -r c cbig && head -c 800000000 /dev/zero >cbig/runs/extra.bin && "$SEAL" create cbig -o outbig >/dev/null &&
	"$REPLICATE" push outbig/archive.tar.zst --seal outbig/SEAL.json --receipt-dir receipts --ssh-config "$T/ssh_config" \
		--remote-replicate "$REPLICATE" --to "hostA:$T/big-a" --to "hostB:$T/big-b" >/dev/null &&
	before=$(ls receipts | wc -l) &&
	STOPPED_WHEN=$(running_there "$T/big-a" "$T/big-b") STOPPED_AFTER=0 STOPPED_WITHIN=2 \
		stopped SIGTERM receipts/none "$REPLICATE" audit --seal outbig/SEAL.json --receipt-dir receipts \
		--ssh-config "$T/ssh_config" --remote-audit "$AUDIT" "hostA:$T/big-a" "hostB:$T/big-b" &&
	test "$(head -n 1 stopped.err)" = "replicate: interrupted by a signal" &&
	test "$(wc -l <stopped.err)" = 3 &&
	far_audits_end "$T/big-a" "$T/big-b" &&
	stopped=0 && kept=0 &&
	for x in a b; do
		line=$(grep "^replicate: host[AB]:$T/big-$x: " stopped.err) &&
		o=$(printf "%s\n" "$line" | grep -o "$T/big-$x/audit-[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{3\}Z" | awk "NR == 1") &&
		test -n "$o" &&
		case $line in
		*": its audit was stopped; it published no OUTDIR ($o)")
			test ! -e "$o" && stopped=$((stopped + 1)) ;;
		*": its audit did not end within 0.4 s of the signal and was killed; look for $o there in case it published it just then (an OUTDIR is whole or absent)")
			test ! -e "$o" && stopped=$((stopped + 1)) ;;
		# on a fast machine one audit may end first: what is said must be what is there
		*": audited before the signal; its OUTDIR stays there ($o) and its receipt here: "*)
			test -d "$o" && cmp "$o/receipt.json" "${line##* }" && kept=$((kept + 1)) ;;
		*": audited before the signal; its OUTDIR stays there ($o), its receipt was not kept here (it is OUTDIR/receipt.json)")
			test -d "$o" ;;
		*) false ;;
		esac || return 1
	done &&
	# at least one stop was exercised, or the test needs a longer input
	test "$stopped" -ge 1 &&
	test "$(ls receipts | wc -l)" = "$((before + 2 * kept))"
'

test_expect_success 'stopped when one host had audited: its OUTDIR and receipt stay and are named; one stopped published nothing; one killed is where to look' '
	cat >far-audit <<-EOF &&
	#!/bin/sh
	# a DIR named *-held audits until its input closes, as a long audit
	# would; one named *-deaf does not hear it, until the test releases it
	case "\$*" in
	*-held/archive.tar.zst) cat >/dev/null; echo "audit: interrupted by a signal" >&2; exit 2 ;;
	*-deaf/archive.tar.zst) while [ ! -e "$PWD/release" ]; do sleep 0.05; done; exit 2 ;;
	esac
	exec "$AUDIT" "\$@"
	EOF
	chmod +x far-audit &&
	for d in held deaf; do mkdir "$T/copy-$d" && cp out/SEAL.json out/archive.tar.zst "$T/copy-$d/" || return 1; done &&
	mkdir early &&
	ls -d "$T"/replica-a/audit-* >outdirs.before &&
	STOPPED_WHEN="ls early/*.summary.json >/dev/null 2>&1" STOPPED_AFTER=0 STOPPED_WITHIN=2 \
		stopped SIGTERM receipts/none "$REPLICATE" audit --seal out/SEAL.json --receipt-dir early \
		--ssh-config "$T/ssh_config" --remote-audit "$PWD/far-audit" \
		"hostA:$T/replica-a" "hostB:$T/copy-held" "hostA:$T/copy-deaf" &&
	touch release &&
	far_audits_end "$T/copy-held" "$T/copy-deaf" &&
	kept=$(ls early/audit-hostA_*[0-9]Z.json) && test "$(ls early | wc -l)" = 2 &&
	ls -d "$T"/replica-a/audit-* >outdirs.after &&
	o=$(comm -13 outdirs.before outdirs.after) && test -n "$o" &&
	cmp "$o/receipt.json" "$kept" &&
	cat >want <<-EOF &&
	replicate: interrupted by a signal
	replicate: hostA:$T/replica-a: audited before the signal; its OUTDIR stays there ($o) and its receipt here: $kept
	replicate: hostB:$T/copy-held: its audit was stopped; it published no OUTDIR ($T/copy-held/${o##*/})
	replicate: hostA:$T/copy-deaf: its audit did not end within 0.4 s of the signal and was killed; look for $T/copy-deaf/${o##*/} there in case it published it just then (an OUTDIR is whole or absent)
	EOF
	test_cmp want stopped.err &&
	test -z "$(ls -d "$T"/copy-held/audit-* "$T"/copy-deaf/audit-* 2>/dev/null)"
'

test_expect_success 'prune --require-audit: refused for an audit made here, of a tree, or failed; removes once another host'"'"'s agrees' '
	"$AUDIT" campaign --seal out/SEAL.json c -o tree-here >/dev/null &&
	good=$(ls receipts/audit-hostA_*replica-a-*[0-9]Z.json | awk "NR == 1") &&
	bad=$(ls receipts/audit-hostB_*replica-f-*[0-9]Z.json) &&
	replica=$(ls receipts/replica-hostA_*replica-a-*.json | awk "NR == 1") &&
	test_expect_code 1 "$REPLICATE" prune --seal out/SEAL.json --min-hosts 1 --receipts "$replica" \
		--require-audit here/receipt.json --require-audit tree-here/receipt.json --require-audit "$bad" \
		--receipt refused.json c >prune.out 2>prune.err &&
	test -d c &&
	grep -q "^replicate: refused: here/receipt.json: was made on this host, not another (expected another host, found " prune.err &&
	grep -q "^replicate: refused: tree-here/receipt.json: audited a tree, not an archive copy (expected archive, found tree)$" prune.err &&
	grep -q "^replicate: refused: $bad: records a failed audit (expected pass, found fail)$" prune.err &&
	grep -q "^replicate: refused: audits: no audit campaign of an archive copy of this seal on another host passed" prune.err &&
	test "$(json_get refused.json "[c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"audits\"]")" = "['"'"'fail'"'"']" &&
	if [ $isolated = 1 ]; then
		mkdir aged-audit && cp "$good" aged-audit/audit.json && receipt_dated -20 aged-audit/audit.json &&
		test_expect_code 1 "$REPLICATE" prune --max-age 7d --seal out/SEAL.json --min-hosts 1 --receipts "$replica" \
			--require-audit aged-audit/audit.json --receipt stale.json c >prune.out 2>prune.err &&
		test -d c &&
		grep -q "^replicate: refused: aged-audit/audit.json: records no audit within --max-age: replicate audit the copy again (expected within 7d (--max-age), found 20d old)$" prune.err &&
		grep -q "^replicate: refused: audits: no audit campaign of an archive copy of this seal on another host passed within --max-age (expected 1, found 0)$" prune.err
	fi &&
	if [ $isolated = 1 ]; then
		"$REPLICATE" prune --seal out/SEAL.json --min-hosts 1 --receipts "$replica" --require-audit "$good" \
			--receipt pruned.json c >prune.out 2>prune.err &&
		test_must_be_absent c &&
		test "$(json_get pruned.json "[(c[\"result\"], c[\"detail\"]) for c in d[\"checks\"] if c[\"name\"] == \"audits\"]")" = \
			"[('"'"'pass'"'"', '"'"'$good'"'"')]"
	fi
'

test_expect_success 'teardown: the sshds stop and the namespaces go' '
	stop_hosts && sleep 0.2 &&
	if [ $isolated = 1 ]; then ! ip netns list | contains "ev$tag"; fi
'

test_done
