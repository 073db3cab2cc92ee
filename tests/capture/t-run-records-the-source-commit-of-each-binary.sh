#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# capture run, with a plan whose "sources" tie the probe binary to a git
# repository: a clean tree's commit and tree id are recorded in the
# receipt (a fact and an input) and in every run's binaries; a tree with
# an uncommitted change is refused before anything runs, naming the
# repository and the change, unless --allow-dirty, which records it as
# dirty; a source for a program the plan does not run, and a repository
# that does not exist, are refused.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
probe_install || exit 99
git_setup

# plan FILE REPO [PROGRAM]: one probe cell, pinned, its source REPO.
plan () {
	cat >"$1" <<-EOF
	{"format": "evidence-plan/1", $PLAN_USER "name": "sources", "warmups": 0, "measured": 1,
	 "pins": {"$PROBE": "$(sha256sum <"$PROBE" | cut -c1-64)"},
	 "sources": {"${3:-$PROBE}": "$2"},
	 "cells": [{"name": "A",
	  "peer": {"argv": ["$PROBE", "{out:probe}"], "cpu": 0, "outputs": {"probe": "probe/peer"}},
	  "sender": {"argv": ["$PROBE", "{out:probe}"], "cpu": 1, "outputs": {"probe": "probe/sender"}}}]}
	EOF
}

test_expect_success 'setup: the probe'"'"'s source in a repository, committed' '
	git_init src && cp "$PROBE" src/probe.sh && git -C src add . && git -C src commit -q -m "the probe" &&
	plan p.json "$PWD/src"
'

test_expect_success 'a clean source: commit and tree in the receipt and in every run'"'"'s binaries' '
	"$CAPTURE" run p.json -o c1 >out &&
	commit=$(git -C src rev-parse HEAD) && tree=$(git -C src rev-parse HEAD^{tree}) &&
	test "$(json_words c1/receipt-capture.json "[(v[\"commit\"], v[\"tree\"], v[\"clean\"]) for v in d[\"facts\"][\"sources\"].values()]")" = "$commit $tree True" &&
	test "$(json_words c1/receipt-capture.json "[(i[\"path\"], i[\"git_tree\"]) for i in d[\"inputs\"] if i[\"name\"] == \"source of $PROBE\"]")" = "$PWD/src $tree" &&
	test "$(json_words c1/runs/001-baseline-A-1/run.json "[b[\"source\"][\"commit\"] for p in d[\"processes\"] for b in p[\"binaries\"]]")" = "$commit $commit"
'

test_expect_success 'an uncommitted change is refused before anything runs, naming it' '
	echo "# local edit" >>src/probe.sh &&
	test_expect_code 2 "$CAPTURE" run p.json -o c2 >out 2>err &&
	echo "capture: source of $PROBE: $PWD/src has 1 uncommitted change (first: probe.sh), so $PROBE may not be commit $(git -C src rev-parse --short=12 HEAD); commit or stash them and rebuild, or pass --allow-dirty to run and record the tree as dirty" >expect &&
	test_cmp expect err && test_must_be_absent c2
'

test_expect_success 'an untracked file is a change too' '
	git -C src checkout -q probe.sh && echo new >src/notes.txt &&
	test_expect_code 2 "$CAPTURE" run p.json -o c2 2>err &&
	grep -q "(first: notes.txt (untracked))" err && test_must_be_absent c2
'

test_expect_success '--allow-dirty runs and records the tree as dirty' '
	"$CAPTURE" run p.json -o c3 --allow-dirty >out 2>err &&
	grep -q "^capture: warning: source of $PROBE: $PWD/src has 1 uncommitted changes; recorded as dirty" err &&
	test "$(json_words c3/receipt-capture.json "[(v[\"clean\"], v[\"changes\"]) for v in d[\"facts\"][\"sources\"].values()]")" = "False 1"
'

test_expect_success 'a source for a program the plan does not run, or no repository, is refused' '
	plan q.json "$PWD/src" /usr/bin/true &&
	test_expect_code 2 "$CAPTURE" run q.json -o c4 2>err &&
	echo "capture: q.json: sources: \"/usr/bin/true\": no side runs this program or launcher (a source names a binary the plan runs)" >expect &&
	test_cmp expect err &&
	plan r.json "$PWD/nowhere" &&
	test_expect_code 2 "$CAPTURE" run r.json -o c4 2>err &&
	grep -q "^capture: source of $PROBE: $PWD/nowhere: not a git repository" err && test_must_be_absent c4
'

test_done
