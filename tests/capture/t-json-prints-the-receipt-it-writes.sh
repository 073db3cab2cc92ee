#!/bin/sh
# capture pin --json prints the receipt it writes; a pinned plan is never
# overwritten.
. "$EV_SRCDIR/tests/lib/lib.sh"

test_expect_success '--json prints the receipt it writes; a pinned plan is never overwritten' '
	probe_install &&
	cat >plan.json <<-EOF &&
	{"format": "evidence-plan/1", $PLAN_USER "name": "json", "warmups": 0, "measured": 1,
	 "cells": [{"name": "A", "peer": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 0, "outputs": {"p": "p/peer"}},
	  "sender": {"argv": ["$PWD/probe", "{out:p}"], "cpu": 1, "outputs": {"p": "p/sender"}}}]}
	EOF
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null &&
	test_expect_code 2 "$CAPTURE" pin plan.json -o pinned.json 2>err &&
	grep -q "^capture: pinned.json: already exists" err &&
	if [ "$(nproc)" -ge 2 ]; then
		"$CAPTURE" run --json pinned.json -o c >printed &&
		cmp printed c/receipt-capture.json &&
		test "$(json_words printed "d[\"kind\"], d[\"tool\"][\"name\"], d[\"result\"]")" = "capture capture pass"
	fi
'

test_done
