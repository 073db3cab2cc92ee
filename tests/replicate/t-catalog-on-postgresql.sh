#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# One PostgreSQL catalog for a lab: a real PostgreSQL 15 server started
# here (initdb and pg_ctl in the trash directory, as a non-root user), two
# hosts indexing into it at once, each one's rows under its own name; status
# from it shows both hosts' copies (HOST:PATH) and what prune would say;
# the same files give the same status from PostgreSQL as from SQLite. A
# server that goes away in the middle of an index: a clear error, exit 2,
# and nothing of that index in the catalog.
. "$EV_SRCDIR/tests/lib/lib.sh"

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
test -x "$PGBIN/initdb" || test_skip_all "PostgreSQL's server is not installed (apt-get install postgresql)"
as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

# the server runs as postgres when we are root (it refuses root), else as us
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || test_skip_all "no postgres user to run the server as"
	AS="runuser -u postgres --"
else
	AS=
fi

PGDIR=$PWD/pg
start_server () {
	$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -o "-k $PGDIR -c listen_addresses= -c fsync=off" -l "$PGDIR/data/log" -w start >/dev/null
}
stop_server () {
	$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m "${1:-fast}" -w stop >/dev/null 2>&1
}
trap 'stop_server immediate' EXIT
CATALOG="postgresql:///postgres?host=$PGDIR&user=evidence"
Q="'" # a single quote, for SQL literals inside the cases' own single quotes

test_expect_success 'setup: a PostgreSQL server of our own, a campaign, copies verified on two hosts' '
	chmod 755 . && mkdir pg && test -z "$AS" || chown postgres pg &&
	$AS "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U evidence --no-sync -E UTF8 --locale=C >/dev/null &&
	start_server &&
	make_campaign c && "$SEAL" create c -o sealed >/dev/null &&
	mkdir h1 h2 &&
	as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt h1/replica.json sealed/archive.tar.zst >/dev/null &&
	as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt h2/replica.json sealed/archive.tar.zst >/dev/null
'

test_expect_success 'two hosts index into one catalog at once; status shows both copies, and prune would hold' '
	as_host h1 "$REPLICATE" index --catalog "$CATALOG" h1 sealed >out1 2>err1 &
	p1=$!
	as_host h2 "$REPLICATE" index --catalog "$CATALOG" h2 sealed >out2 2>err2 &
	p2=$!
	wait $p1 && wait $p2 &&
	grep -q "^indexed into postgresql:///postgres?host=$PGDIR&user=evidence on h1: 2 receipts, 1 seal, 0 summaries" out1 &&
	grep -q " on h2: 2 receipts, 1 seal, 0 summaries" out2 &&
	"$REPLICATE" status --catalog "$CATALOG" >out &&
	grep -q "^  copy:     h1, last verified [0-9T:-]*Z (1 receipt: h1:$PWD/h1/replica.json)$" out &&
	grep -q "^  copy:     h2, last verified [0-9T:-]*Z (1 receipt: h2:$PWD/h2/replica.json)$" out &&
	grep -q "^  sealed:   on .* (h1:$PWD/sealed/receipt.json)$" out &&
	grep -q "^  prune would hold (2 hosts hold a verified copy" out &&
	"$REPLICATE" status --catalog "$CATALOG" --recheck >out &&
	grep -q "^recheck: h1:$PWD/h1/replica.json: on another host, not rechecked here (run --recheck there)$" out
'

test_expect_success 'the same files give the same status from PostgreSQL, from SQLite and from the walk' '
	"$REPLICATE" index --catalog "$CATALOG" h1 h2 sealed >/dev/null &&
	"$REPLICATE" index --catalog lite.sqlite h1 h2 sealed >/dev/null &&
	"$REPLICATE" status --json --catalog "$CATALOG" "$PWD/h1" "$PWD/h2" "$PWD/sealed" >pg.json &&
	"$REPLICATE" status --json --catalog lite.sqlite "$PWD/h1" "$PWD/h2" "$PWD/sealed" >lite.json &&
	"$REPLICATE" status --json "$PWD/h1" "$PWD/h2" "$PWD/sealed" >walk.json &&
	test_cmp walk.json pg.json && test_cmp walk.json lite.json
'

test_expect_success 'the server goes away half way through an index: exit 2, said, and nothing of it kept' '
	mkdir many &&
	/usr/bin/python3 - h1/replica.json many <<-\PY &&
	import sys, os
	body = open(sys.argv[1]).read()
	for i in range(20000):
	    d = os.path.join(sys.argv[2], "d%03d" % (i // 400))
	    os.makedirs(d, exist_ok=True)
	    open(os.path.join(d, "r%05d.json" % i), "w").write(body)
	PY
	"$REPLICATE" status --json --catalog "$CATALOG" >before.json || return 1
	"$REPLICATE" index --catalog "$CATALOG" many >out 2>err &
	pid=$!
	sleep 1 && kill -0 $pid &&
	stop_server immediate &&
	{ wait $pid; code=$?; } && test $code = 2 &&
	grep -q "^replicate: nothing of this index was kept: catalog postgresql:///postgres?host=$PGDIR&user=evidence: the server went away: " err &&
	start_server &&
	"$REPLICATE" status --json --catalog "$CATALOG" >after.json &&
	test_cmp before.json after.json
'

test_expect_success 'a row edited on the server is not believed: status, history and index --check name it, exit 1' '
	/usr/bin/python3 "$EV_SRCDIR/tests/audit/history-campaigns.py" synth "{\"plan\": \"synth\", \"campaigns\": 6, \"seed\": 2}" >/dev/null &&
	"$REPLICATE" index --catalog "$CATALOG" synth >/dev/null &&
	"$REPLICATE" index --check --catalog "$CATALOG" >out &&
	grep -q "^ok: catalog postgresql:///postgres?host=$PGDIR&user=evidence: [0-9]* file rows held to their documents, 0 faults$" out &&
	"$AUDIT" history --catalog "$CATALOG" --plan synth --json >clean.json &&
	"$REPLICATE" status --catalog "$CATALOG" "$PWD/h2" >walk.txt &&
	"$PGBIN/psql" -X -q -h "$PGDIR" -U evidence -d postgres \
		-c "UPDATE receipts SET result = (CASE result WHEN ${Q}pass${Q} THEN ${Q}fail${Q} ELSE ${Q}pass${Q} END)" \
		-c "UPDATE cell_statistics SET value = (value::numeric * 10)::text" >/dev/null &&
	test_expect_code 1 "$REPLICATE" status --catalog "$CATALOG" "$PWD/h2" >out &&
	head -n "$(wc -l <walk.txt)" out >shown.txt && test_cmp walk.txt shown.txt &&
	grep -qx "row not believed: $PWD/h2/replica.json: row-edited: receipts.result says fail, its document says pass" out &&
	test_expect_code 1 "$AUDIT" history --catalog "$CATALOG" --plan synth --json >edited.json &&
	/usr/bin/python3 -c "
import json
a, b = json.load(open(\"clean.json\")), json.load(open(\"edited.json\"))
assert len(b.pop(\"not_believed\")) == 6
assert a == b
" &&
	test_expect_code 1 "$REPLICATE" index --check --catalog "$CATALOG" >out &&
	grep -q "^receipts: h2:$PWD/h2/replica.json: row-edited: receipts.result says fail, its document says pass$" out &&
	grep -q "^summaries: [^:]*:$PWD/synth/c00/summary.json: row-edited: cell_statistics (" out
'

test_expect_success 'a server that is not there: a clear error naming it, exit 2' '
	test_expect_code 2 "$REPLICATE" index --catalog "postgresql:///postgres?host=$PWD/nowhere&user=evidence" h1 >out 2>err &&
	grep -q "^replicate: catalog postgresql:///postgres?host=$PWD/nowhere&user=evidence: cannot connect: " err &&
	test_expect_code 2 "$REPLICATE" status --catalog "postgresql://evidence:secret@localhost:1/x" >out 2>err &&
	grep -q "^replicate: catalog postgresql://...@localhost:1/x: cannot connect: " err &&
	! grep -q secret err
'

test_done
