#!/bin/sh
# capture --help and each command's --help (and the pair's programs') print
# on stdout and exit 0; misuse names what is wrong with the synopsis, exit 2;
# a file that is not a plan is refused, naming it.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success 'capture --help lists the commands; each command has its own --help' '
	"$CAPTURE" --help >out && grep -q "^  run  *run (or resume) the campaign of PLAN" out && grep -q "^  pin  *pin every program" out &&
	grep -q "^  leases  *list who holds or waits for this host" out &&
	"$CAPTURE" run --help >out && grep -q "^usage: capture run PLAN -o CAMPAIGN_DIR \[--wait\] \[--priority PRIORITY\] \[--degrade\] \[--allow-dirty\] \[--require quiet\] \[--sign-key KEY\] \[--json\]" out &&
	grep -q -- "--degrade" out &&
	"$CAPTURE" leases --help >out && grep -q "^usage: capture leases \[--json\]" out &&
	"$CAPTURE" pin --help >out && grep -q "^usage: capture pin \[--file PATH ...\] PLAN -o PINNED_PLAN" out &&
	"$FIX_SENDER" --help >out && grep -q "^usage: fix-sender --connect ADDR:PORT" out &&
	"$FIX_RECEIVER" --help >out && grep -q "^usage: fix-receiver --listen ADDR:PORT" out
'

test_expect_success 'misuse: the reason, the synopsis, a hint, exit 2' '
	test_expect_code 2 "$CAPTURE" 2>err && grep -q "^capture: no command given" err &&
	test_expect_code 2 "$CAPTURE" launch 2>err && grep -q "^capture: unknown command .launch." err &&
	test_expect_code 2 "$CAPTURE" run plan.json 2>err &&
	printf "%s\n" "capture: no campaign directory given (-o DIR)" "usage: capture run PLAN -o CAMPAIGN_DIR [--wait] [--priority PRIORITY] [--degrade] [--allow-dirty] [--require quiet] [--sign-key KEY] [--json]" \
		"Try '"'"'capture run --help'"'"' for more." >expect && test_cmp expect err &&
	test_expect_code 2 "$CAPTURE" run a.json b.json -o c 2>err && grep -q "^capture: one plan at a time" err &&
	test_expect_code 2 "$CAPTURE" pin a.json 2>err && grep -q "^capture: no output given (-o PINNED_PLAN)" err &&
	test_expect_code 2 "$FIX_SENDER" --connect 127.0.0.1:1 --clock tsc 2>err &&
	grep -q "^fix-sender: option --clock: expected monotonic-raw or rdtscp, found '"'"'tsc'"'"'" err &&
	test_expect_code 2 "$FIX_RECEIVER" --mode poll --listen 127.0.0.1:1 2>err &&
	grep -q "^fix-receiver: option --mode: expected spin or epoll, found '"'"'poll'"'"'" err
'

test_expect_success 'a file that is not a plan is refused, naming it' '
	echo "{\"format\": \"evidence-seal/1\"}" >seal.json &&
	test_expect_code 2 "$CAPTURE" run seal.json -o c 2>err &&
	echo "capture: seal.json: wrong format (expected \"evidence-plan/1\", found \"evidence-seal/1\")" >expect &&
	test_cmp expect err &&
	echo "{" >broken.json &&
	test_expect_code 2 "$CAPTURE" pin broken.json -o p.json 2>err &&
	grep -q "^capture: broken.json: not valid JSON (line 2" err &&
	test_must_be_absent c p.json
'

test_done
