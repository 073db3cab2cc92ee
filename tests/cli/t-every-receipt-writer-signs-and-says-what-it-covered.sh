#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every command of every tool's command table that writes a receipt takes
# --sign-key, and every receipt it writes says what its pass covered
# (facts.coverage: "recomputed" and "not_checked", each a list of
# sentences). The commands that write none are named here, and their
# source is held to it: a new command that writes a receipt without
# --sign-key fails this test until it takes one.
. "$EV_SRCDIR/tests/lib/lib.sh"

# The commands that only read (receipts, seals, plans) or only copy: they
# write no receipt, so --sign-key would sign nothing. replicate audit keeps
# the receipts the audits on the far hosts wrote (and signed, with
# --remote-sign-key); it writes none of its own. replicate keep-head, the
# far end of push --log, keeps a tree head the pushing host wrote. seal
# timestamp stores the time-stamp authority's signed token, not a receipt.
# replicate index keeps what it reads in a catalog, and writes no file;
# audit history reads the catalog and writes only the page asked for.
# capture register writes a registration, fixed by the TSA's signed token
# and the receipt log's entry, not a receipt.
READERS="seal:diff seal:select seal:timestamp seal:config audit:config replicate:config capture:config replicate:compare replicate:check replicate:status replicate:keygen replicate:receive
replicate:audit replicate:keep-head replicate:index audit:history capture:pin capture:register capture:leases"

test_expect_success 'every command in the tables takes --sign-key, or is a reader whose source writes no receipt' '
	n=0 &&
	for tool in seal audit replicate capture; do
		cmds=$(tool_commands "$EV_BUILDDIR/$tool/$tool") && test -n "$cmds" || return 1
		for c in $cmds; do
			n=$((n + 1))
			if echo "$READERS" | tr " " "\n" | contains -x "$tool:$c"; then
				fn=$(sed -n "/\.name = \"$c\"/,/\.run = /s/.*\.run = \([a-z_]*\).*/\1/p" "$EV_SRCDIR/$tool/commands.c") &&
				# config is one table entry every tool takes from lib/cli
				if [ -z "$fn" ] && [ "$c" = config ] && grep -q "EV_CLI_CONFIG_COMMAND(\"$tool\")" "$EV_SRCDIR/$tool/commands.c"; then
					fn=ev_cli_config_main
				fi &&
				file=$(grep -l "^int $fn(" "$EV_SRCDIR"/$tool/*.c "$EV_SRCDIR"/lib/cli/*.c) && test -n "$file" || { echo "$tool $c: no source for $fn"; return 1; }
				if grep -n "ev_receipt_new(\|ev_receipt_write\|ev_receipt_finish(\|ev_receipt_finish_signed(" $file; then
					echo "$tool $c is listed as a reader but $file writes a receipt"; return 1
				fi
			else
				"$EV_BUILDDIR/$tool/$tool" $c --help >help.txt && grep -q "^ *--sign-key KEY" help.txt ||
					{ echo "$tool $c writes a receipt and takes no --sign-key"; return 1; }
			fi
		done
	done &&
	# the four tools have 25 commands today: a table that could not be read would pass with none
	test $n -ge 25
'

test_expect_success 'a reader listed here that is not in any table is a stale name' '
	for rc in $READERS; do
		tool_commands "$EV_BUILDDIR/${rc%%:*}/${rc%%:*}" | contains -x "${rc#*:}" || { echo "$rc: no such command"; return 1; }
	done
'

test_expect_success 'setup: a repository, a sealed tree, a selection whose integration fails on one byte' '
	git_setup && "$REPLICATE" keygen -o k >/dev/null &&
	mkdir ev && printf "run log\n" >ev/run.log && "$SEAL" create ev -o sealed --sign-key k.key >/dev/null &&
	"$SEAL" select --seal sealed/SEAL.json --include run.log -o sel.json >/dev/null &&
	git_init repo && printf "run Log\n" >repo/run.log && git -C repo add . && git -C repo commit -q -m one &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --receipt failed.json 2>/dev/null
'

test_expect_success 'the receipts of seal create, capsule, capsule --verify, integrate and a continuation: signed, with coverage' '
	"$SEAL" capsule --repo repo -o cap --sign-key k.key >/dev/null &&
	"$SEAL" capsule --verify --repo repo --receipt capverify.json --sign-key k.key cap >out &&
	grep -q "; receipt capverify.json$" out &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --receipt integ.json --sign-key k.key 2>/dev/null &&
	"$SEAL" continue --original failed.json --accept-value "sha256=$(sha256sum <repo/run.log | cut -c1-64)" \
		--receipt cont.json --sign-key k.key >/dev/null &&
	for f in sealed/receipt.json cap/receipt.json capverify.json integ.json cont.json; do
		python3 - $f <<-\PY || return 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		c = d["facts"].get("coverage")
		assert isinstance(c, dict), (sys.argv[1], "no coverage")
		for k in ("recomputed", "not_checked"):
		    assert isinstance(c.get(k), list) and all(isinstance(s, str) and s for s in c[k]), (sys.argv[1], k, c)
		assert c["recomputed"], (sys.argv[1], "recomputed is empty")
		assert d["signature"]["algorithm"] == "ed25519", (sys.argv[1], "unsigned")
		PY
	done &&
	grep -q "1 difference of the rerun, accepted by the rules given" cont.json &&
	"$REPLICATE" check --trust k.pub sealed/receipt.json cap/receipt.json capverify.json integ.json cont.json >out &&
	grep -q "^OK: 5 of 5 receipts intact and signed by a trusted key$" out
'

test_expect_success 'capsule --receipt: refused without --verify, and when the file exists, before any work' '
	test_expect_code 2 "$SEAL" capsule --repo repo -o cap2 --receipt r.json 2>err &&
	grep -q "receipt names --verify" err && test_must_be_absent cap2 &&
	test_expect_code 2 "$SEAL" capsule --verify --repo repo --receipt capverify.json cap 2>err &&
	grep -q "^seal: capverify.json: already exists; evidence is never overwritten (choose a new name)$" err
'

test_done
