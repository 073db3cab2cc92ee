#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate prune never deletes bytes written after its check. Prune is
# held between its check and its removals with strace's delay injection
# while the test writes to sealed files: by their name before DIR is moved
# aside, through the hidden name while another file is being removed, and
# through a descriptor opened before prune started. Each written file is
# kept with its new bytes, named in the cleanup receipt, and prune exits 1;
# what was provably unchanged is removed; what is left is back under DIR.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

command -v strace >/dev/null || test_skip_all "strace is not installed"
strace -f -o /dev/null -e inject=getpid:delay_enter=1 true 2>/dev/null ||
	test_skip_all "strace cannot inject delays here"
as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

# fresh_run: run/ (a.txt, log.txt, sub/b.txt; removed deepest first:
# sub/b.txt, sub, log.txt, a.txt), its seal in out/, receipts from two hosts.
fresh_run () {
	rm -rf run out hA.json hB.json cleanup.json .run.prune-* &&
	mkdir -p run/sub && echo sealed-a >run/a.txt && echo sealed-log >run/log.txt &&
	echo sealed-b >run/sub/b.txt &&
	"$SEAL" create run -o out >/dev/null &&
	as_host hA "$REPLICATE" verify --seal out/SEAL.json --receipt hA.json out/archive.tar.zst >/dev/null &&
	as_host hB "$REPLICATE" verify --seal out/SEAL.json --receipt hB.json out/archive.tar.zst >/dev/null
}

# held_prune SYSCALL: prune in the background, held 1.5 s at its first
# SYSCALL (renameat2: moving DIR aside; unlinkat: removing sub/b.txt).
held_prune () {
	# (the sanitizers' leak check cannot run under ptrace)
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null -e trace="$1" -e inject="$1":delay_enter=1500000:when=1 \
		"$REPLICATE" prune --seal out/SEAL.json --receipt cleanup.json --receipts hA.json hB.json \
		run >stdout 2>stderr &
	prune_pid=$!
	sleep 0.6
}

finish_prune () {
	wait $prune_pid
}

kept_names () {
	json_get cleanup.json "\" \".join(sorted(c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\"))"
}

test_expect_success 'a file appended by its name after the check, before DIR is moved aside, is kept' '
	fresh_run &&
	held_prune renameat2 &&
	echo appended >>run/a.txt &&
	test_expect_code 1 finish_prune &&
	printf "sealed-a\nappended\n" >expect && test_cmp expect run/a.txt &&
	test "$(ls -A run)" = a.txt && no_entry . "^\\.run\\." &&
	grep -q "^replicate: kept: a.txt: was written to or replaced after it was checked; kept (expected inode [0-9]*, 9 bytes, modified 20[0-9T:.-]*Z, changed 20[0-9T:.-]*Z, found inode [0-9]*, 18 bytes, " stderr &&
	grep -q "^KEPT: run was not removed whole: 1 entry changed after the check, left at $(pwd)/run; receipt cleanup.json$" stdout &&
	test "$(json_get cleanup.json "d[\"result\"], sorted(d[\"facts\"][\"removed\"])")" = "fail [${Q}log.txt${Q}, ${Q}sub${Q}, ${Q}sub/b.txt${Q}]" &&
	test "$(kept_names)" = "changed:a.txt removed"
'

test_expect_success 'a file written through the hidden name while another is removed is kept' '
	fresh_run &&
	held_prune unlinkat &&
	hidden=$(ls -Ad .run.prune-*) && test -f "$hidden/a.txt" &&
	echo appended >>"$hidden/a.txt" &&
	test_expect_code 1 finish_prune &&
	printf "sealed-a\nappended\n" >expect && test_cmp expect run/a.txt &&
	test "$(ls -A run)" = a.txt &&
	test "$(kept_names)" = "changed:a.txt removed"
'

test_expect_success 'a file another process holds open is kept, even if it never writes again' '
	fresh_run &&
	exec 3>>run/log.txt &&
	held_prune unlinkat &&
	echo "late line" >&3 && exec 3>&- &&
	test_expect_code 1 finish_prune &&
	printf "sealed-log\nlate line\n" >expect && test_cmp expect run/log.txt &&
	fresh_run &&
	exec 3<run/log.txt &&
	test_expect_code 1 "$REPLICATE" prune --seal out/SEAL.json --receipt cleanup.json \
		--receipts hA.json hB.json run >stdout 2>stderr &&
	exec 3<&- &&
	echo "replicate: kept: log.txt: is open in another process, which could still write to it; kept (fuser or lsof names the process)" >expect &&
	test_cmp expect stderr &&
	test "$(ls -A run)" = log.txt && test "$(kept_names)" = "open:log.txt removed"
'

test_expect_success 'a process that opens the file at the moment it is removed is seen and named' '
	fresh_run && held_prune unlinkat && hidden=$(ls -Ad .run.prune-*) || return 1
	(echo late >>"$hidden/sub/b.txt") 2>/dev/null &
	writer=$!
	test_expect_code 1 finish_prune && wait $writer;
	grep -q "^replicate: kept: sub/b.txt: another process opened it at the moment it was removed: its bytes up to then matched the seal, what it writes now goes to a file without a name$" stderr &&
	test "$(kept_names)" = "open:sub/b.txt removed" &&
	test_must_be_absent run
'

test_expect_success 'unchanged, it all goes; every file was proved under a lease' '
	fresh_run &&
	"$REPLICATE" prune --seal out/SEAL.json --receipt cleanup.json --receipts hA.json hB.json run >stdout &&
	test_must_be_absent run && no_entry . "^\\.run\\." &&
	head -n 1 stdout >first &&
	echo "each file proved unchanged and held open by no other process at its removal (3 hashed again)" >expect &&
	test_cmp expect first &&
	test "$(json_get cleanup.json "d[\"result\"], d[\"facts\"][\"coverage\"][\"not_checked\"], d[\"facts\"][\"coverage\"][\"rehashed_files\"]")" = "pass [] 3"
'

test_expect_success 'where a lease is refused, the open-file proof is named as not made' '
	{ [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || test_skip_case "needs root and user nobody"; }
	chmod 755 . && mkdir -m 777 lease && (cd lease &&
	fresh_run && chown -R nobody run && chown root run/a.txt && chmod 644 hA.json hB.json &&
	chmod 777 . &&
	setpriv --reuid nobody --regid nogroup --clear-groups "$REPLICATE" prune --seal out/SEAL.json \
		--receipt cleanup.json --receipts hA.json hB.json run >stdout &&
	test_must_be_absent run &&
	echo "each file proved unchanged at its removal (3 hashed again); not checked for 1 file: that no other process held it open (the lease was refused: Permission denied)" >expect &&
	head -n 1 stdout >first && test_cmp expect first &&
	test "$(json_get cleanup.json "d[\"result\"], d[\"facts\"][\"coverage\"][\"not_checked\"][0][\"files\"]")" = "pass 1")
'

test_done
