#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate push over real OpenSSH to two test hosts: each runs its own
# sshd, in its own network namespace (joined by a veth pair) and with its
# own host name when the test runs as root, on loopback ports otherwise.
# The copies verify on both hosts and all receipts agree; a copy tampered
# with on one host is named member by member; a host with nothing
# listening and a host whose sshd is stopped are reported while the
# other host's result stands.
. "$EV_SRCDIR/tests/lib/lib.sh"

. "$EV_SRCDIR/tests/lib/sshd-hosts.sh"

J=runs/A-1/journal/1.bin

push () {
	"$REPLICATE" push out/archive.tar.zst --seal out/SEAL.json --receipt-dir receipts \
		--ssh-config "$T/ssh_config" --remote-replicate "$REPLICATE" "$@"
}

test_expect_success 'setup: a sealed campaign, a client key, two hosts with their own sshd' '
	make_campaign c && "$SEAL" create c -o out >/dev/null && mkdir receipts &&
	ssh_hosts_setup
'

test_expect_success 'the hosts are separate: own network namespace and host name (as root)' '
	if [ $isolated = 0 ]; then echo "not root: hosts share this network and name" && exit 0; fi &&
	test "$(ssh -F "$T/ssh_config" hostA hostname)" = hostA &&
	test "$(ssh -F "$T/ssh_config" hostB hostname)" = hostB &&
	test "$(ssh -F "$T/ssh_config" hostA readlink /proc/self/ns/net)" != "$(readlink /proc/self/ns/net)"
'

test_expect_success 'push to both hosts: each verifies its copy, and the three receipts agree' '
	push --to "hostA:$T/replica-a" --to "hostB:$T/replica-b" >stdout 2>stderr &&
	test ! -s stderr &&
	grep -q "^hostA:$T/replica-a: pass; receipt receipts/replica-hostA_.*\\.json$" stdout &&
	grep -q "^hostB:$T/replica-b: pass; receipt receipts/replica-hostB_.*\\.json$" stdout &&
	grep -q "^AGREE: 3 receipts, comparable [0-9a-f]\\{64\\}$" stdout &&
	cmp out/archive.tar.zst "$T/replica-a/archive.tar.zst" &&
	cmp out/archive.tar.zst "$T/replica-b/archive.tar.zst" &&
	ls "$T"/replica-a/replica-*.json "$T"/replica-b/replica-*.json >/dev/null &&
	if [ $isolated = 1 ]; then
		test "$(json_get receipts/replica-hostA_*.json "d[\"host\"]")" = hostA &&
		test "$(json_get receipts/replica-hostB_*.json "d[\"host\"]")" = hostB
	fi
'

test_expect_success 'a copy tampered with on one host: verified there, compared here, the member is named' '
	python3 "$SURGERY" out/archive.tar.zst forged.tar.zst flip $J 4100 &&
	cp forged.tar.zst "$T/replica-b/archive.tar.zst" &&
	test_expect_code 1 ssh -F "$T/ssh_config" hostB "$REPLICATE" verify --seal "$T/replica-b/SEAL.json" \
		--json --receipt "$T/replica-b/audit.json" "$T/replica-b/archive.tar.zst" >b-audit.json 2>/dev/null &&
	test_expect_code 1 "$REPLICATE" compare receipts/replica-hostA_*.json b-audit.json >/dev/null 2>actual &&
	grep -q "^replicate: b-audit.json: check sha256:$J: only in this receipt (found fail: content differs (SHA-256)" actual &&
	grep -q "^replicate: b-audit.json: result: differs between the receipts (expected pass, found fail)$" actual
'

test_expect_success 'pushing again to the tampered host is refused there; nothing is overwritten' '
	test_expect_code 2 push --to "hostB:$T/replica-b" >stdout 2>stderr &&
	grep -q "^replicate: hostB:$T/replica-b: failed while offering archive.tar.zst: $T/replica-b/archive.tar.zst: already holds a different file" stderr &&
	cmp forged.tar.zst "$T/replica-b/archive.tar.zst"
'

test_expect_success 'a host with nothing listening is reported with ssh'"'"'s reason; the other host passes' '
	test_expect_code 2 push --to "hostA:$T/replica-a2" --to "hostC:$T/replica-c" >stdout 2>stderr &&
	grep -q "^hostA:$T/replica-a2: pass" stdout && grep -q "^hostC:$T/replica-c: error$" stdout &&
	grep -q "^replicate: hostC:$T/replica-c: failed while offering SEAL.json: .*Connection refused" stderr &&
	grep -q "^AGREE: 2 receipts" stdout
'

test_expect_success 'a host whose sshd is stopped times out; the other host is reported meanwhile' '
	kill -STOP "$(cat "$T/hostB.pid")" &&
	start=$(date +%s) &&
	test_expect_code 2 push --timeout 8 --to "hostA:$T/replica-a3" --to "hostB:$T/replica-b3" >stdout 2>stderr;
	status=$?; kill -CONT "$(cat "$T/hostB.pid")"; test $status = 0 &&
	test $(( $(date +%s) - start )) -lt 30 &&
	grep -q "^hostA:$T/replica-a3: pass" stdout &&
	grep -x "replicate: hostB:$T/replica-b3: no progress for 8 s while offering SEAL.json; stopped it" stderr &&
	test_must_be_absent "$T/replica-b3/archive.tar.zst"
'

# remote_left DIR: what still runs on the far host for DIR (the hosts share
# this PID namespace).
remote_left () {
	pgrep -af "$1/archive.tar.zst" | grep -v pgrep || true
}

test_expect_success 'push stopped or killed while the far hosts verify: their verifiers end, no receipt' '
	mkdir -p big/runs && truncate -s 6G big/runs/series.bin && "$SEAL" create big -o outbig >/dev/null &&
	STOPPED_AFTER=1.2 stopped SIGINT receipts/none "$REPLICATE" push outbig/archive.tar.zst --seal outbig/SEAL.json \
		--receipt-dir receipts --ssh-config "$T/ssh_config" --remote-replicate "$REPLICATE" \
		--to "hostA:$T/big-a" || return 1
	"$REPLICATE" push outbig/archive.tar.zst --seal outbig/SEAL.json --receipt-dir receipts \
		--ssh-config "$T/ssh_config" --remote-replicate "$REPLICATE" --to "hostB:$T/big-b" >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 1 100); do
		[ -n "$(remote_left "$T/big-b")" ] && break
		sleep 0.1
	done
	test -n "$(remote_left "$T/big-b")" && kill -KILL $pid && { wait $pid; true; } &&
	for i in $(seq 1 $((20 * EV_TIME_SCALE))); do
		[ -z "$(remote_left "$T/big-a")$(remote_left "$T/big-b")" ] && break
		sleep 0.1
	done &&
	test -z "$(remote_left "$T/big-a")$(remote_left "$T/big-b")" &&
	# a far directory the push had not reached yet when stopped holds nothing to look at
	for far in "$T/big-a" "$T/big-b"; do
		test ! -e "$far" || no_entry "$far" "replica-.*big" || return 1
	done &&
	no_entry receipts "replica-.*big" &&
	test -z "$(find "$T/big-a" "$T/big-b" -name "replica-*.json")"
'

test_expect_success 'teardown: the sshds stop and the namespaces go' '
	stop_hosts && sleep 0.2 &&
	if [ $isolated = 1 ]; then ! ip netns list | contains "ev$tag"; fi
'

test_done
