#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The shipped plan for the llfix TX benchmark (share/plans/llfix-tx), its
# own files changed only where they say @NAME@, run by capture with
# stand-ins for llfix's client and server in a git checkout laid out as
# llfix's (the reference pair underneath, in llfix's journal layout and
# printing its statistics block): each side gets its config.cfg copied
# from the pinned file into a working directory of its own, reads it from
# there and writes its journals relative to it; the server drops to
# nobody and quits on "q" on its stdin; the client runs as root, as the
# plan declares; the controller shares the peer's CPU, as the plan says.
# audit campaign then reads both directions and shows the printed block
# as a real cell. A config edited after pinning is refused before
# anything runs, naming the side and the input.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
[ "$(id -u)" = 0 ] || test_skip_all "needs root: the plan's sides run as root and as nobody, in namespaces"
[ -x /usr/bin/python3 ] || test_skip_all "the stand-ins need /usr/bin/python3"
git_setup
chmod 755 "$trash"

test_expect_success 'setup: stand-ins for the client and the server, committed where llfix builds them' '
	git_init llfix && mkdir -p llfix/benchmarks/networked_client_tx/server &&
	cat >llfix/benchmarks/networked_client_tx/server/server <<-EOF &&
	#!/usr/bin/python3
	# The server as capture sees it: config.cfg from its working directory,
	# journals and its sequence store relative to it, a listener on
	# accept_port, and "q" on stdin to quit. The session itself is the
	# receiver of the reference pair, which journals in the llfix layout.
	import configparser, os, subprocess, sys
	cfg = configparser.ConfigParser(); cfg.read("config.cfg")
	port, s = cfg["EXAMPLE_SERVER"]["accept_port"], cfg["SESSION1"]
	os.makedirs(os.path.dirname(s["sequence_store_file_path"]), exist_ok=True)
	open(s["sequence_store_file_path"], "wb").write(bytes(4096))
	code = subprocess.call(["$FIX_RECEIVER", "--listen", "0.0.0.0:" + port,
	                        "--journal", s["incoming_message_serialisation_path"],
	                        "--outgoing-journal", s["outgoing_message_serialisation_path"],
	                        "--journal-file-size", cfg["SESSION1"].get("max_serialised_file_size", "67108864")],
	                       stdin=subprocess.DEVNULL)
	open(cfg["ENGINE"]["log_file"], "w").write("uid %d\n" % os.getuid())
	for line in sys.stdin:
	    if line.strip() == "q": sys.exit(code)
	sys.exit(3)
	EOF
	cat >llfix/benchmarks/networked_client_tx/benchmark <<-EOF &&
	#!/usr/bin/python3
	# The client as capture sees it: root or nothing, config.cfg from its
	# working directory, its 1000 warmups and 1,000,000 measured orders fixed
	# as in the llfix source, journals relative to it; the sender of the
	# reference pair sends them and prints the llfix statistics block.
	import configparser, os, sys
	if os.geteuid() != 0: print("You need to run this app with sudo."); sys.exit(255)
	cfg = configparser.ConfigParser(); cfg.read("config.cfg")
	c, s = cfg["EXAMPLE_CLIENT"], cfg["EXAMPLE_SESSION"]
	open(s["sequence_store_file_path"], "wb").write(bytes(4096))
	os.execv("$FIX_SENDER", ["fix-sender", "--connect", c["primary_address"] + ":" + c["primary_port"],
	         "--warmups", "1000", "--measured", "1000000",
	         "--journal", s["outgoing_message_serialisation_path"],
	         "--incoming-journal", s["incoming_message_serialisation_path"],
	         "--journal-file-size", s["max_serialised_file_size"]])
	EOF
	chmod 755 llfix/benchmarks/networked_client_tx/benchmark llfix/benchmarks/networked_client_tx/server/server &&
	git -C llfix add . && git -C llfix commit -q -m "stand-ins" &&
	mkdir plandir && cp "$EV_SRCDIR/share/plans/llfix-tx/client.cfg" "$EV_SRCDIR/share/plans/llfix-tx/server.cfg" plandir &&
	# the files of the plan, changed only where they say @NAME@: this
	# machine has two CPUs, so the controller shares the CPU of the peer
	fill () { sed -e "s|@LLFIX@|$PWD/llfix|g" -e "s|@PLANDIR@|$PWD/plandir|g" -e "s|@PEER_CPU@|0|g" \
		-e "s|@SENDER_CPU@|1|g" -e "s|@CONTROLLER_CPU@|0|g" -e "s|@CONTROLLER_SHARES@|true|g" \
		-e "s|@REPEATS@|1|g" "$@"; } &&
	fill -i plandir/client.cfg plandir/server.cfg && chmod 644 plandir/*.cfg &&
	fill "$EV_SRCDIR/share/plans/llfix-tx/plan.json" >plan.json &&
	! grep -q "@[A-Z_]*@" plan.json plandir/*.cfg &&
	"$CAPTURE" pin plan.json -o pinned.json >out &&
	echo "pinned 2 programs and 2 files: pinned.json" >expect && test_cmp expect out
'

test_expect_success 'the plan tells a user what it needs: both configs, a git checkout made dirty by pinning, the namespace address' '
	json_words plan.json "d[\"description\"]" >description &&
	grep -q "client.cfg" description && grep -q "server.cfg" description &&
	grep -q "must be a git checkout" description && grep -q -- "--allow-dirty" description &&
	grep -q "never 127.0.0.1" description &&
	grep -q "^primary_address=10.201.0.2$" plandir/client.cfg
'

test_expect_success 'the pair runs: configs copied in, journals where the plan says, the server stopped by "q"' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	r=c/runs/001-baseline-kernel-tcp-1 &&
	test "$(json_words $r/run.json "d[\"result\"]")" = ok &&
	test_cmp plandir/server.cfg $r/peer/config.cfg && test_cmp plandir/client.cfg $r/sender/config.cfg &&
	test "$(json_words $r/run.json "[(p[\"role\"], i[\"name\"], i[\"path\"], i[\"sha256\"]) for p in d[\"processes\"] for i in p[\"inputs\"]]")" = \
		"peer config.cfg $PWD/plandir/server.cfg $(sha256_of plandir/server.cfg) sender config.cfg $PWD/plandir/client.cfg $(sha256_of plandir/client.cfg)" &&
	test -s $r/sender/messages_outgoing/1.bin && test -s $r/peer/client1/messages_incoming/1.bin &&
	test -s $r/peer/client1/sequence.store && test -s $r/sender/sequence.store &&
	test "$(json_words $r/run.json "d[\"controller\"][\"cpus\"], d[\"controller\"][\"shared_with_sides\"]")" = "0 0" &&
	test "$(json_words $r/run.json "[(p[\"role\"], p[\"stop\"][\"how\"], p[\"stop\"][\"ended\"], p[\"exit\"][\"code\"]) for p in d[\"processes\"]]")" = \
		"peer stdin stopped 0 sender exit exited 0"
'

test_expect_success 'the server ran as nobody, the client as root by declaration' '
	r=c/runs/001-baseline-kernel-tcp-1 &&
	test "$(cat $r/peer/log.txt)" = "uid $(id -u nobody)" &&
	test "$(json_words $r/run.json "[(p[\"role\"], p[\"credentials\"][\"declared\"][\"user\"], p[\"credentials\"][\"seen\"][\"uid\"][1]) for p in d[\"processes\"]]")" = \
		"peer nobody $(id -u nobody) sender root 0"
'

test_expect_success 'audit campaign: both directions of the session, the printed block a real cell in ns, nothing unsaid' '
	"$AUDIT" campaign c -o s >out 2>err &&
	grep -q "^OK: 1 runs (1 printed, not recomputable (no series): bytes pinned by capture receipt 1); summary s$" out &&
	test "$(json_words s/summary.json "[(c[\"cell\"], c[\"runs\"], c[\"unit\"], c[\"source\"]) for c in d[\"cells\"]]")" = \
		"kernel-tcp 1 ns printed, not recomputable (no series)" &&
	grep -q "^| kernel-tcp | 1 | floor-index, printed | [0-9]" s/summary.md &&
	test "$(json_words s/audit-journal.json "[(p[\"sender\"][\"expected_orders\"], p[\"sender\"][\"orders\"]) for p in d[\"facts\"][\"pairs\"]]")" = \
		"1001000 1001000 0 0" &&
	json_words s/receipt.json "d[\"facts\"][\"coverage\"][\"not_checked\"]" >not-checked &&
	grep -q "the sender.s output sequence of 1 run: declared, not read" not-checked &&
	grep -q "the peer.s output log of 1 run: declared, not read" not-checked
'

test_expect_success 'a config edited after pinning is refused before anything runs, naming the side and the input' '
	pinned=$(sha256_of plandir/server.cfg) &&
	echo "log_level=DEBUG" >>plandir/server.cfg &&
	test_expect_code 2 "$CAPTURE" run pinned.json -o c2 2>err &&
	echo "capture: cell kernel-tcp peer input config.cfg: $PWD/plandir/server.cfg: SHA-256 differs from the plan'"'"'s pin (expected $pinned, found $(sha256_of plandir/server.cfg)): the file changed since it was pinned" >expect &&
	test_cmp expect err && test_must_be_absent c2
'

test_done
