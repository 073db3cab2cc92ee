#!/bin/sh
# A signal stops a verifier inside one large member, or an audit inside one
# endless journal, within half a second: exit 2, one sentence, no receipt
# (never a pass), no process left behind; the same command run again to
# its end passes. SIGINT, SIGTERM and SIGHUP each, across seal verify,
# replicate verify, audit journal on a file and from a sealed archive.
. "$EV_SRCDIR/tests/lib/lib.sh"

# stopped SIGNAL RECEIPT COMMAND...: start COMMAND, send SIGNAL once it has
# run 0.7 s, and require exit 2 within 0.5 s of the signal, no RECEIPT,
# and no process of the command left.
stopped () {
	python3 - "$@" <<-\PY
	import os, signal, subprocess, sys, time
	sig, receipt, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3:]
	p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open("stopped.err", "w"))
	time.sleep(0.7)
	assert p.poll() is None, "finished before the signal: the test needs a longer input"
	t = time.monotonic()
	p.send_signal(sig)
	try:
	    code = p.wait(timeout=5)
	except subprocess.TimeoutExpired:
	    p.kill()
	    sys.exit("still running 5 s after %s" % sys.argv[1])
	took = time.monotonic() - t
	assert code == 2, "exit %d after %s" % (code, sys.argv[1])
	assert took <= 0.5, "took %.2f s to stop" % took
	assert not os.path.exists(receipt), "a receipt was written: " + receipt
	left = subprocess.run(["pgrep", "-f", cmd[0] + " "], capture_output=True, text=True).stdout.split()
	assert str(p.pid) not in left, left
	PY
}

test_expect_success 'setup: a sealed tree holding one 3 GiB member (sparse), and its archive' '
	mkdir -p big/runs && truncate -s 3G big/runs/series.bin && echo ok >big/runs/note.txt &&
	"$SEAL" create big -o out >/dev/null
'

test_expect_success 'seal verify of the archive stops inside the member on SIGINT, SIGTERM and SIGHUP' '
	for s in SIGINT SIGTERM SIGHUP; do
		stopped $s r.json "$SEAL" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst || return 1
		grep -q "^seal: out/archive.tar.zst: interrupted by a signal; nothing is claimed$" stopped.err || return 1
	done
'

test_expect_success 'seal verify of the tree stops inside the member' '
	stopped SIGTERM r.json "$SEAL" verify --seal out/SEAL.json --receipt r.json big
'

test_expect_success 'replicate verify stops inside the member, no receipt anywhere' '
	for s in SIGINT SIGTERM SIGHUP; do
		stopped $s r.json "$REPLICATE" verify --seal out/SEAL.json --receipt r.json out/archive.tar.zst || return 1
	done &&
	test_must_be_absent out/replica-*.json
'

test_expect_success 'audit journal stops inside an endless journal, and inside a sealed archive' '
	stopped SIGTERM j.json "$AUDIT" journal --format raw --warmups 0 --measured 1 --sender /dev/zero --receipt j.json &&
	grep -q "^audit: pair 1: /dev/zero: interrupted by a signal; nothing is claimed$" stopped.err &&
	stopped SIGINT j.json "$AUDIT" journal --format raw --warmups 0 --measured 1 --archive out/archive.tar.zst \
		--seal out/SEAL.json --sender runs/series.bin --receipt j.json
'

test_expect_success 'run to its end, the same verification passes' '
	"$REPLICATE" verify --seal out/SEAL.json --receipt done.json out/archive.tar.zst >/dev/null &&
	test "$(json_get done.json "d[\"result\"]")" = pass
'

test_done
