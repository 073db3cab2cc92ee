#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate status reads the receipts and seals under its directories and
# shows, per sealed campaign: its seal receipt and seal checks, each host
# holding a verified copy (a receipt fetched twice counted once) and when
# it last verified, failed and edited copies apart, the audits tied to it
# (by its SEAL.json, or by a file it holds), and whether prune's receipt
# guards would hold; prune itself agrees. A FIFO is named, never opened;
# with --trust only signed copies count. Nothing is written.
. "$EV_SRCDIR/tests/lib/lib.sh"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

test_expect_success 'setup: a sealed campaign, three copies verified on one host, audited twice' '
	make_campaign c && "$SEAL" create c -o sealed >/dev/null &&
	mkdir receipts audits &&
	for copy in lab2 backup here; do
		as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-$copy.json \
			sealed/archive.tar.zst >/dev/null || return 1
	done &&
	cp receipts/replica-lab2.json receipts/fetched-again.json &&
	"$AUDIT" journal --sender runs/A-1/journal --archive sealed/archive.tar.zst \
		--seal sealed/SEAL.json --receipt audits/archive.json >/dev/null 2>&1;
	test -s audits/archive.json &&
	(cd c && "$AUDIT" journal --sender runs/A-1/journal --receipt ../audits/tree.json >/dev/null 2>&1);
	test -s audits/tree.json &&
	mkdir other && make_campaign other/c && echo more >other/c/extra && "$SEAL" create other/c -o other/sealed >/dev/null
'

test_expect_success 'one host: three copies, two audits, "prune would refuse: one host", what is missing' '
	"$REPLICATE" status sealed receipts audits >out &&
	seal=$(sha256_of sealed/SEAL.json) &&
	grep -q "^campaign c  seal $seal$" out &&
	grep -q "^  sealed:   on .* pass (sealed/receipt.json)$" out &&
	grep -q "^  copy:     h1, last verified [0-9T:-]*Z (3 receipts: receipts/fetched-again.json, receipts/replica-backup.json, receipts/replica-here.json)$" out &&
	test "$(grep -c "^  audit:    audit journal on " out)" = 2 &&
	grep -q "^  audit:    audit journal on [^,]*, from the archive, [a-z]* at [0-9T:-]*Z, comparable [0-9a-f]\{16\} (audits/archive.json)$" out &&
	grep -q "^  audit:    audit journal on [^,]*, from the tree, [a-z]* at [0-9T:-]*Z, comparable [0-9a-f]\{16\} (audits/tree.json)$" out &&
	grep -q "^  prune would refuse: one host (1 host holds a verified copy; prune needs 2" out &&
	grep -q "^  missing:  a verified copy on 1 more host (prune needs 2)$" out &&
	test_expect_code 1 "$REPLICATE" prune --seal sealed/SEAL.json --receipts receipts/*.json c >/dev/null 2>err &&
	test -d c
'

test_expect_success 'a second host: prune would hold, and prune does' '
	as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h2.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" status receipts sealed audits >out &&
	grep -q "^  copy:     h2, last verified" out &&
	grep -q "^  prune would hold (2 hosts hold a verified copy; prune needs 2" out &&
	! grep -q "more host" out &&
	cp -R c c-copy &&
	"$REPLICATE" prune --seal sealed/SEAL.json --receipts receipts/*.json --receipt cleanup.json c-copy >/dev/null &&
	test_must_be_absent c-copy &&
	mkdir cleanups && mv cleanup.json cleanups/ &&
	"$REPLICATE" status receipts sealed cleanups >out &&
	grep -q "^  pruned:   on .* pass (cleanups/cleanup.json)$" out
'

test_expect_success 'a failed copy and an edited one are shown apart and never counted' '
	mkdir more && cp receipts/replica-h2.json more/ &&
	python3 - more/replica-h2.json <<-\PY &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["host"] = "h3"; d["facts"]["members_read"] += 1
	open(sys.argv[1].replace("h2", "h3-edited"), "w").write(json.dumps(d, sort_keys=True, separators=(",", ":")) + "\n")
	PY
	rm more/replica-h2.json &&
	"$REPLICATE" status receipts sealed more >out &&
	grep -q "^  not a verified copy: replicate verify on h3 at .*, pass, edited (more/replica-h3-edited.json)$" out &&
	grep -q "^  missing:  more/replica-h3-edited.json: edited after it was written" out &&
	! grep -q "^  copy:     h3" out
'

test_expect_success '--json: a row per campaign; the tree audit reads a journal the second one holds too, the archive audit names the first seal' '
	"$REPLICATE" status --json receipts sealed audits other >status.json &&
	test "$(json_words status.json "d[\"format\"]")" = evidence-status/1 &&
	test "$(json_words status.json "sorted(r[\"seal_sha256\"] for r in d[\"campaigns\"])")" = \
		"$(printf "%s\n%s\n" "$(sha256_of sealed/SEAL.json)" "$(sha256_of other/sealed/SEAL.json)" | sort | tr "\n" " " | sed "s/ $//")" &&
	json_words status.json "[(r[\"prune\"][\"verdict\"], len(r[\"copies\"]), [a[\"receipt\"] for a in r[\"audits\"]]) for r in d[\"campaigns\"] if r[\"seal_sha256\"] == \"$(sha256_of other/sealed/SEAL.json)\"]" >got &&
	echo "prune would refuse: no host 0 audits/tree.json" >expect && test_cmp expect got
'

test_expect_success 'with --trust, only copies signed by a trusted key count, and the passing ones left out are counted' '
	"$REPLICATE" keygen -o k >/dev/null &&
	"$REPLICATE" status receipts sealed >out &&
	grep -q "^  prune would hold" out &&
	"$REPLICATE" status --trust k.pub receipts sealed >out &&
	grep -q "^  prune would refuse: no host" out &&
	grep -q "^with --trust: 4 passing replica receipts left out of the copies: no trusted key signs them$" out &&
	"$REPLICATE" status --json --trust k.pub receipts sealed >status.json &&
	test "$(json_words status.json "d[\"untrusted_left_out\"]")" = 4 &&
	"$REPLICATE" status --json receipts sealed >status.json &&
	test "$(json_words status.json "\"untrusted_left_out\" in d")" = False &&
	mkdir signed &&
	as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --sign-key k.key --receipt signed/r.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" status --trust k.pub signed sealed >out &&
	grep -q "^  prune would refuse: one host" out &&
	grep -q "^with --trust: 0 passing replica receipts left out of the copies" out
'

test_expect_success 'a FIFO is named, never opened; a DIR that is a file is refused; nothing is written' '
	mkdir fifo && mkfifo fifo/x.json && cp receipts/replica-here.json fifo/ &&
	timeout 10 "$REPLICATE" status fifo sealed >out &&
	grep -q "^not read: fifo/x.json: a FIFO, not a regular file$" out &&
	test_expect_code 2 "$REPLICATE" status sealed/SEAL.json 2>err &&
	grep -q "^replicate: sealed/SEAL.json: is a regular file; expected a directory of receipts and seals$" err &&
	test_expect_code 2 "$REPLICATE" status 2>err && grep -q "no directory given" err &&
	no_temporaries . && no_temporaries receipts
'

test_done
