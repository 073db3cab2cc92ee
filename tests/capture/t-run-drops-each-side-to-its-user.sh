#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run as root: each side drops to the user its plan names before
# it execs (groups, gid, uid, and no capability left, the bounding set
# included), while capture keeps root for namespaces and PM QoS. What the
# process is, read from /proc during the run, matches run.json's record.
# A side that would run as root without saying so, an unknown user, and
# outputs its user could not write are refused before anything runs; run
# without root, capture refuses a side that names another user.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
[ "$(id -u)" = 0 ] || test_skip_all "needs root to change a side's user"
getent passwd nobody >/dev/null && getent passwd daemon >/dev/null && getent group nogroup >/dev/null ||
	test_skip_all "needs the users nobody and daemon and the group nogroup"
command -v setpriv >/dev/null || test_skip_all "setpriv (util-linux) is needed to drop root"
# the sides must reach the probe and their outputs: this directory is
# made for root alone (mktemp), the tree above it is not
chmod 755 "$trash"
probe_install || exit 99

# plan FILE [TOP] [SENDER_EXTRA] [PEER_EXTRA] [SENDER_OUT] [PEER_OUT]
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", "name": "users", "warmups": 0, "measured": 1, "namespaces": "veth", "controller_shares": true, ${2:-}
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "${6:-peer/probe}"} ${4:-}},
	  "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "${5:-sender/probe}"} ${3:-}}}]}
	EOF
	"$CAPTURE" pin "$1" -o "pinned-$1" >/dev/null
}

test_expect_success 'each side runs as its user, with its groups and no capability, as /proc showed it during the run' '
	plan u.json "\"user\": \"nobody\"," "" ", \"user\": \"daemon\", \"group\": \"nogroup\"" &&
	"$CAPTURE" run pinned-u.json -o u >out 2>err &&
	r=u/runs/001-baseline-A-1 &&
	nobody=$(id -u nobody) && nogroup=$(getent group nogroup | cut -d: -f3) && daemon=$(id -u daemon) &&
	grep -q "^Uid:	$nobody	$nobody	$nobody	$nobody$" $r/sender/probe/creds &&
	grep -q "^Gid:	$(id -g nobody)	$(id -g nobody)	$(id -g nobody)	$(id -g nobody)$" $r/sender/probe/creds &&
	grep -q "^Uid:	$daemon	$daemon	$daemon	$daemon$" $r/peer/probe/creds &&
	grep -q "^Gid:	$nogroup	$nogroup	$nogroup	$nogroup$" $r/peer/probe/creds &&
	for side in sender peer; do
		for cap in CapInh CapPrm CapEff CapBnd CapAmb; do
			grep -q "^$cap:	0000000000000000$" $r/$side/probe/creds || return 1
		done
	done &&
	test "$(json_words $r/run.json "[(p[\"role\"], p[\"credentials\"][\"declared\"][\"user\"], p[\"credentials\"][\"declared\"][\"dropped\"], p[\"credentials\"][\"seen\"][\"uid\"], p[\"credentials\"][\"seen\"][\"cap_bnd\"]) for p in d[\"processes\"]]")" = \
		"peer daemon True $daemon $daemon $daemon $daemon 0000000000000000 sender nobody True $nobody $nobody $nobody $nobody 0000000000000000" &&
	test "$(json_words $r/run.json "[p[\"credentials\"][\"seen\"][\"groups\"] for p in d[\"processes\"] if p[\"role\"] == \"peer\"]")" = "$(id -G daemon | tr " " "\n" | grep -v "^$(id -g daemon)$" | { cat; echo $nogroup; } | sort -n | tr "\n" " " | sed "s/ $//")" &&
	grep -q "^HOME=$(getent passwd nobody | cut -d: -f6)$" $r/sender/probe/env
'

test_expect_success 'capture kept root for what needs it: the sides were in namespaces of their own' '
	r=u/runs/001-baseline-A-1 &&
	test "$(cat $r/sender/probe/netns)" != "$(cat $r/peer/probe/netns)" &&
	test "$(json_words $r/run.json "d[\"result\"], d[\"network\"][\"topology\"]")" = "ok veth"
'

test_expect_success 'each side may write only its own: working directory and output directories are its user'"'"'s' '
	r=u/runs/001-baseline-A-1 &&
	test "$(stat -c %U $r/sender $r/peer $r/sender/probe $r $r/native | tr "\n" " ")" = "nobody daemon nobody root root "
'

test_expect_success '"user": "root" runs a side as root, because the plan says so' '
	plan r.json "\"user\": \"root\"," &&
	"$CAPTURE" run pinned-r.json -o r >out 2>err &&
	grep -q "^Uid:	0	0	0	0$" r/runs/001-baseline-A-1/sender/probe/creds &&
	test "$(json_words r/runs/001-baseline-A-1/run.json "[p[\"credentials\"][\"declared\"][\"dropped\"] for p in d[\"processes\"]]")" = "False False"
'

# refused PLAN MESSAGE
refused () {
	test_expect_code 2 "$CAPTURE" run "$1" -o c >out 2>err &&
	echo "$2" >expect && test_cmp expect err && test ! -s out && test_must_be_absent c
}

test_expect_success 'a side that would run as root without saying so is refused before anything runs' '
	plan none.json "" "" ", \"user\": \"nobody\"" &&
	refused pinned-none.json "capture: users: cell A sender: would run as root: name the user it runs as (\"user\": \"NAME\", for one side or for the whole plan), or say \"user\": \"root\" if it must"
'

test_expect_success 'an unknown user or group, and a group without a user, are refused' '
	plan nou.json "\"user\": \"no-such-user-here\"," &&
	refused pinned-nou.json "capture: users: cell A sender: user \"no-such-user-here\": no such user on this host" &&
	plan nog.json "\"user\": \"nobody\", \"group\": \"no-such-group\"," &&
	refused pinned-nog.json "capture: users: cell A sender: group \"no-such-group\": no such group on this host" &&
	test_expect_code 2 plan gw.json "" "" ", \"group\": \"nogroup\"" 2>err &&
	echo "capture: gw.json: cell A peer: \"group\": given without \"user\" (name whom the side runs as)" >expect &&
	test_cmp expect err
'

test_expect_success 'an output its user could not write is refused: the run directory itself, a directory shared across users' '
	plan top.json "\"user\": \"nobody\"," "" "" "probe" &&
	refused pinned-top.json "capture: users: cell A sender: output \"probe\" (probe) would be written in the run directory itself, where user nobody cannot write: put it in the side'"'"'s working directory (sender/...) or a directory of its own" &&
	plan shared.json "\"user\": \"nobody\"," "" ", \"user\": \"daemon\"" "p/sender" "p/peer" &&
	refused pinned-shared.json "capture: users: cell A: the sender and the peer run as different users and both write outputs in p/: give each side'"'"'s outputs a directory of its own" &&
	plan same.json "\"user\": \"nobody\"," "" "" "p/sender" "p/peer" &&
	"$CAPTURE" run pinned-same.json -o same >out 2>err
'

test_expect_success 'without root, a side that names another user is refused, and its own user is accepted' '
	cp "$CAPTURE" capture && chmod 755 capture && mkdir nob && chmod 777 nob &&
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --" &&
	plan other.json "\"user\": \"daemon\"," &&
	sed "s/\"namespaces\":\"veth\",//" pinned-other.json >other2.json &&
	test_expect_code 2 $AS ./capture run other2.json -o nob/c 2>err &&
	echo "capture: users: cell A sender: runs as daemon, and capture runs as uid $(id -u nobody): only root can start a side as another user or group; run capture as root" >expect &&
	test_cmp expect err && test_must_be_absent nob/c &&
	sed "s/daemon/nobody/" other2.json >own.json &&
	$AS ./capture run own.json -o nob/own >out.txt 2>err &&
	grep -q "^Uid:	$(id -u nobody)	" nob/own/runs/001-baseline-A-1/sender/probe/creds
'

test_done
