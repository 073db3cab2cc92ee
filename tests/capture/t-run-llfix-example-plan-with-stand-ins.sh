#!/bin/sh
# The shipped plan for the llfix TX benchmark (share/plans/llfix-tx), run
# by capture with stand-ins for llfix's client and server in a git
# checkout laid out as llfix's: each side gets its config.cfg copied from
# the pinned file into a working directory of its own, reads it from
# there and writes its journals relative to it; the server drops to
# nobody and quits on "q" on its stdin; the client runs as root, as the
# plan declares. A config edited after pinning is refused before anything
# runs, naming the side and the input.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
[ "$(id -u)" = 0 ] || test_skip_all "needs root: the plan's sides run as root and as nobody, in namespaces"
[ -x /usr/bin/python3 ] || test_skip_all "the stand-ins need /usr/bin/python3"
git_setup
chmod 755 "$trash"

test_expect_success 'setup: stand-ins for the client and the server, committed where llfix builds them' '
	git_init llfix && mkdir -p llfix/benchmarks/networked_client_tx/server &&
	cat >llfix/benchmarks/networked_client_tx/server/server <<-\EOF &&
	#!/usr/bin/python3
	# The server as capture sees it: config.cfg from its working directory,
	# journals relative to it, a listener on accept_port, and "q" to quit.
	import configparser, os, socket, sys
	cfg = configparser.ConfigParser(); cfg.read("config.cfg")
	port = int(cfg["EXAMPLE_SERVER"]["accept_port"])
	incoming = cfg["SESSION1"]["incoming_message_serialisation_path"]
	os.makedirs(incoming, exist_ok=True); os.makedirs(cfg["SESSION1"]["outgoing_message_serialisation_path"], exist_ok=True)
	open(cfg["SESSION1"]["sequence_store_file_path"], "wb").write(bytes(65536))
	s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", port)); s.listen(1)
	c, _ = s.accept(); got = b""
	while True:
	    b = c.recv(65536)
	    if not b: break
	    got += b
	open(os.path.join(incoming, "1.bin"), "wb").write(got)
	open(cfg["ENGINE"]["log_file"], "w").write("uid %d\n" % os.getuid())
	for line in sys.stdin:
	    if line.strip() == "q": sys.exit(0)
	sys.exit(3)
	EOF
	cat >llfix/benchmarks/networked_client_tx/benchmark <<-\EOF &&
	#!/usr/bin/python3
	# The client as capture sees it: root or nothing, config.cfg from its
	# working directory, journals relative to it.
	import configparser, os, socket, sys
	if os.geteuid() != 0: print("You need to run this app with sudo."); sys.exit(255)
	cfg = configparser.ConfigParser(); cfg.read("config.cfg")
	c, s = cfg["EXAMPLE_CLIENT"], cfg["EXAMPLE_SESSION"]
	out = s["outgoing_message_serialisation_path"]
	os.makedirs(out, exist_ok=True); os.makedirs(s["incoming_message_serialisation_path"], exist_ok=True)
	open(s["sequence_store_file_path"], "wb").write(bytes(65536))
	msg = b"8=FIXT.1.1\x019=5\x0135=D\x0110=000\x01"
	k = socket.create_connection((c["primary_address"], int(c["primary_port"])))
	k.sendall(msg); k.close()
	open(os.path.join(out, "1.bin"), "wb").write(msg)
	print("Sample count : 1")
	EOF
	chmod 755 llfix/benchmarks/networked_client_tx/benchmark llfix/benchmarks/networked_client_tx/server/server &&
	git -C llfix add . && git -C llfix commit -q -m "stand-ins" &&
	mkdir plandir && cp "$EV_SRCDIR/share/plans/llfix-tx/client.cfg" "$EV_SRCDIR/share/plans/llfix-tx/server.cfg" plandir &&
	chmod 644 plandir/*.cfg &&
	sed -i "s/^cpu_core_id=2$/cpu_core_id=0/" plandir/server.cfg &&
	sed -e "s|@LLFIX@|$PWD/llfix|g" -e "s|@PLANDIR@|$PWD/plandir|g" \
	    -e "s|\"cpu\": 2,|\"cpu\": 0,|" -e "s|\"cpu\": 10,|\"cpu\": 1,|" \
	    "$EV_SRCDIR/share/plans/llfix-tx/plan.json" >plan.json &&
	"$CAPTURE" pin plan.json -o pinned.json >out &&
	echo "pinned 2 programs and 2 files: pinned.json" >expect && test_cmp expect out
'

test_expect_success 'the pair runs: configs copied in, journals where the plan says, the server stopped by "q"' '
	"$CAPTURE" run pinned.json -o c >out 2>err &&
	r=c/runs/001-baseline-kernel-tcp-1 &&
	test "$(json_words $r/run.json "d[\"result\"]")" = ok &&
	test_cmp plandir/server.cfg $r/peer/config.cfg && test_cmp plandir/client.cfg $r/sender/config.cfg &&
	test "$(json_words $r/run.json "[(p[\"role\"], i[\"name\"], i[\"path\"], i[\"sha256\"]) for p in d[\"processes\"] for i in p[\"inputs\"]]")" = \
		"peer config.cfg $PWD/plandir/server.cfg $(sha256_of plandir/server.cfg) sender config.cfg $PWD/plandir/client.cfg $(sha256_of plandir/client.cfg)" &&
	test_cmp $r/sender/messages_outgoing/1.bin $r/peer/client1/messages_incoming/1.bin &&
	test -s $r/peer/client1/sequence.store && test -s $r/sender/sequence.store &&
	test "$(json_words $r/run.json "[(p[\"role\"], p[\"stop\"][\"how\"], p[\"stop\"][\"ended\"], p[\"exit\"][\"code\"]) for p in d[\"processes\"]]")" = \
		"peer stdin stopped 0 sender exit exited 0"
'

test_expect_success 'the server ran as nobody, the client as root by declaration' '
	r=c/runs/001-baseline-kernel-tcp-1 &&
	test "$(cat $r/peer/log.txt)" = "uid $(id -u nobody)" &&
	test "$(json_words $r/run.json "[(p[\"role\"], p[\"credentials\"][\"declared\"][\"user\"], p[\"credentials\"][\"seen\"][\"uid\"][1]) for p in d[\"processes\"]]")" = \
		"peer nobody $(id -u nobody) sender root 0"
'

test_expect_success 'a config edited after pinning is refused before anything runs, naming the side and the input' '
	pinned=$(sha256_of plandir/server.cfg) &&
	echo "log_level=DEBUG" >>plandir/server.cfg &&
	test_expect_code 2 "$CAPTURE" run pinned.json -o c2 2>err &&
	echo "capture: cell kernel-tcp peer input config.cfg: $PWD/plandir/server.cfg: SHA-256 differs from the plan'"'"'s pin (expected $pinned, found $(sha256_of plandir/server.cfg)): the file changed since it was pinned" >expect &&
	test_cmp expect err && test_must_be_absent c2
'

test_done
