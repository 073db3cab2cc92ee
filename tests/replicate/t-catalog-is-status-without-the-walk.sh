#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate index keeps every seal, receipt and summary in a SQLite catalog,
# and replicate status --catalog prints exactly what the walk of the same
# files prints (text and JSON, with and without --trust), for some
# directories or for everything; --recheck names a file changed since it
# was indexed, and a row edited by hand is named, not believed, its path
# opened only when clean (no link on the way, no ..). Commands
# add what they write when EVIDENCE_CATALOG is set,
# and a catalog that cannot take it leaves their outcome alone. An index
# stopped by SIGTERM or SIGKILL, or refused (a newer schema, a FIFO),
# leaves the catalog as it was.
. "$EV_SRCDIR/tests/lib/lib.sh"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"

# count ROWS of TABLE in a SQLite catalog, read by an independent reader
rows () {
	/usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM ' + sys.argv[2]).fetchone()[0])" "$1" "$2"
}

test_expect_success 'setup: a campaign sealed, copies on two hosts, audits, a FIFO and a broken file' '
	mkdir all && cd all &&
	make_campaign c && "$SEAL" create c -o sealed >/dev/null &&
	mkdir receipts audits &&
	as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h1.json sealed/archive.tar.zst >/dev/null &&
	as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h2.json sealed/archive.tar.zst >/dev/null &&
	cp receipts/replica-h1.json receipts/fetched-again.json &&
	"$AUDIT" journal --sender runs/A-1/journal --archive sealed/archive.tar.zst \
		--seal sealed/SEAL.json --receipt audits/archive.json >/dev/null 2>&1;
	test -s audits/archive.json &&
	mkfifo receipts/pipe.json && echo "{not json" >receipts/broken.json &&
	mkdir other && make_campaign other/c && echo more >other/c/extra && "$SEAL" create other/c -o other/sealed >/dev/null &&
	"$REPLICATE" keygen -o lab >/dev/null &&
	"$REPLICATE" verify --seal other/sealed/SEAL.json --sign-key lab.key --receipt other/signed.json \
		other/sealed/archive.tar.zst >/dev/null
'

test_expect_success 'index: counts every kind; the same bytes again are unchanged' '
	"$REPLICATE" index --catalog cat.sqlite all >out &&
	grep -q "^indexed into cat.sqlite on [^:]*: 7 receipts, 2 seals, 0 summaries, 0 registration or session records; 0 unchanged, 1 unreadable, 1 not regular files, 0 gone and forgotten$" out &&
	test "$(rows cat.sqlite receipts)" = 6 &&
	test "$(rows cat.sqlite files)" = 11 &&
	"$REPLICATE" index --catalog cat.sqlite --json all >out.json &&
	test "$(json_words out.json "d[\"unchanged\"], d[\"receipts\"], d[\"seals\"]")" = "9 0 0"
'

test_expect_success 'status --catalog DIR... is the walk of DIR..., line for line, text and JSON, with --trust too' '
	A=$PWD/all &&
	"$REPLICATE" status "$A/receipts" "$A/sealed" "$A/audits" >walk.txt &&
	"$REPLICATE" status --catalog cat.sqlite "$A/receipts" "$A/sealed" "$A/audits" >catalog.txt &&
	test_cmp walk.txt catalog.txt &&
	grep -q "^  copy:     h1, last verified" catalog.txt &&
	grep -q "^unreadable: $A/receipts/broken.json: " catalog.txt &&
	grep -q "^not read: $A/receipts/pipe.json: a FIFO, not a regular file$" catalog.txt &&
	"$REPLICATE" status --json --trust all/lab.pub "$A" >walk.json &&
	"$REPLICATE" status --json --trust all/lab.pub --catalog cat.sqlite >catalog.json &&
	test_cmp walk.json catalog.json &&
	json_words catalog.json "[c[\"copies\"][0][\"key\"] for c in d[\"campaigns\"] if c[\"copies\"]]" >keys &&
	test "$(wc -w <keys)" = 1
'

test_expect_success '--seal shows one campaign from the catalog as from the walk; a seal nothing names is refused' '
	seal=$(sha256_of all/sealed/SEAL.json) &&
	"$REPLICATE" status --seal $seal "$PWD/all" >walk.txt &&
	"$REPLICATE" status --seal $seal --catalog cat.sqlite >catalog.txt &&
	test_cmp walk.txt catalog.txt &&
	test "$(grep -c "^campaign " catalog.txt)" = 1 &&
	! grep -q "^unreadable" catalog.txt &&
	test_expect_code 2 "$REPLICATE" status --catalog cat.sqlite --seal $(echo x | sha256sum | cut -c1-64) >out 2>err &&
	grep -q "^replicate: seal [0-9a-f]*: no SEAL.json and no receipt naming it found in catalog cat.sqlite$" err
'

test_expect_success '--recheck: a receipt edited after it was indexed is named, exit 1; indexed again, it holds' '
	"$REPLICATE" status --catalog cat.sqlite --recheck >out &&
	grep -q "^recheck: 9 files on this host, each the bytes the catalog indexed$" out &&
	before=$(sha256_of all/audits/archive.json) &&
	sed "s/\"host\":\"[^\"]*\"/\"host\":\"elsewhere\"/" all/audits/archive.json >edited && mv edited all/audits/archive.json &&
	! test "$before" = "$(sha256_of all/audits/archive.json)" &&
	rm all/receipts/fetched-again.json &&
	test_expect_code 1 "$REPLICATE" status --catalog cat.sqlite --recheck >out &&
	grep -q "^recheck: $PWD/all/audits/archive.json: changed since it was indexed (SHA-256 $(echo $before | cut -c1-16)\.\.\. then, [0-9a-f]\{16\}\.\.\. now); index it again" out &&
	grep -q "^recheck: $PWD/all/receipts/fetched-again.json: indexed (SHA-256 [0-9a-f]\{16\}\.\.\.), now gone$" out &&
	grep -q "^FAIL: recheck: 2 of 9 files changed since the catalog indexed them$" out &&
	"$REPLICATE" index --catalog cat.sqlite all >out &&
	grep -q ": 1 receipt, 0 seals, 0 summaries, 0 registration or session records; 7 unchanged, 1 unreadable, 1 not regular files, 1 gone and forgotten$" out &&
	"$REPLICATE" status --catalog cat.sqlite --recheck >out &&
	grep -q "^recheck: 8 files on this host" out
'

test_expect_success 'EVIDENCE_CATALOG: a command adds what it wrote; a catalog that cannot take it changes nothing of the outcome' '
	EVIDENCE_CATALOG=$PWD/cat.sqlite "$SEAL" verify --seal all/sealed/SEAL.json --receipt all/verify-1.json all/c >/dev/null &&
	"$REPLICATE" status --catalog cat.sqlite >out &&
	grep -q "^  checked:  seal verify, pass at .* ($PWD/all/verify-1.json)$" out &&
	mkdir all/t2 && echo new >all/t2/a &&
	EVIDENCE_CATALOG=$PWD/cat.sqlite "$SEAL" create all/t2 -o all/resealed >/dev/null &&
	"$REPLICATE" status --catalog cat.sqlite --seal $(sha256_of all/resealed/SEAL.json) >out &&
	grep -q "^  sealed:   on .* pass ($PWD/all/resealed/receipt.json)$" out &&
	EVIDENCE_CATALOG=$PWD/nowhere/cat.sqlite "$SEAL" verify --seal all/sealed/SEAL.json --receipt all/verify-2.json all/c >out 2>err &&
	test -s all/verify-2.json &&
	grep -q "^seal: EVIDENCE_CATALOG: catalog $PWD/nowhere/cat.sqlite: cannot create it: No such file or directory; what this command wrote is in place but not in the catalog: add it with replicate index $PWD/all/verify-2.json$" err
'

test_expect_success 'a schema newer than this evidence is refused, the catalog untouched' '
	cp cat.sqlite newer.sqlite &&
	/usr/bin/python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE catalog_meta SET value = 99 WHERE key = \x27schema\x27\"); c.commit()" newer.sqlite &&
	cp newer.sqlite newer.before &&
	test_expect_code 2 "$REPLICATE" index --catalog newer.sqlite all >out 2>err &&
	grep -q "^replicate: catalog newer.sqlite: its schema is version 99, newer than this evidence knows (1); nothing was read or written" err &&
	test_expect_code 2 "$REPLICATE" status --catalog newer.sqlite >out 2>err &&
	grep -q "its schema is version 99" err &&
	test_cmp newer.before newer.sqlite
'

test_expect_success 'a row edited in the catalog by hand is named, not believed' '
	cp cat.sqlite edited.sqlite &&
	/usr/bin/python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE files SET sha256 = \x27not a digest\x27 WHERE path LIKE \x27%/replica-h2.json\x27\"); c.commit()" edited.sqlite &&
	"$REPLICATE" status --catalog edited.sqlite >out &&
	grep -q "^unreadable: $PWD/all/receipts/replica-h2.json: the catalog.s row for it has no valid SHA-256; index it again$" out &&
	! grep -q "^  copy:     h2" out &&
	test_expect_code 1 "$REPLICATE" status --catalog edited.sqlite --recheck >out &&
	grep -q "^recheck: $PWD/all/receipts/replica-h2.json: changed since it was indexed (SHA-256 not a digest\.\.\. then" out
'

test_expect_success '--recheck opens no path a row names but a clean one: a link on the way, a .., a file not .json are named, never read' '
	cp cat.sqlite paths.sqlite && ln -s all linked &&
	/usr/bin/python3 - paths.sqlite <<-\PY &&
	import sqlite3, sys
	c = sqlite3.connect(sys.argv[1])
	edit = "UPDATE files SET path = replace(path, ?, ?) WHERE path LIKE ?"
	c.execute(edit, ("/all/", "/linked/", "%/replica-h1.json"))
	c.execute(edit, ("/all/", "/all/../all/", "%/replica-h2.json"))
	c.execute("UPDATE files SET path = ? WHERE path LIKE ?", ("/etc/passwd", "%/audits/archive.json"))
	c.commit()
	PY
	test_expect_code 1 "$REPLICATE" status --catalog paths.sqlite --recheck >out &&
	grep -q "^recheck: $PWD/linked/receipts/replica-h1.json: indexed (SHA-256 [0-9a-f]\{16\}\.\.\.), now not opened: the catalog.s row: .${PWD#/}/linked. is a symbolic link; refused" out &&
	grep -q "^recheck: $PWD/all/../all/receipts/replica-h2.json: indexed (SHA-256 [0-9a-f]\{16\}\.\.\.), now not opened: the catalog.s row: .* has a .\.. or .\.\.. component; refused" out &&
	grep -q "^recheck: /etc/passwd: indexed (SHA-256 [0-9a-f]\{16\}\.\.\.), now not opened: not an absolute path of a .json file$" out &&
	rm linked
'

test_expect_success 'refusals: a FIFO to index, a directory as the catalog, --recheck without one; nothing written' '
	cp cat.sqlite before.sqlite &&
	test_expect_code 2 "$REPLICATE" index --catalog cat.sqlite all/receipts/pipe.json >out 2>err &&
	grep -q "^replicate: all/receipts/pipe.json: is a FIFO; expected a directory of receipts and seals, or one such file$" err &&
	test_cmp before.sqlite cat.sqlite &&
	mkdir adir &&
	test_expect_code 2 "$REPLICATE" index --catalog adir all >out 2>err &&
	grep -q "^replicate: catalog adir: is not a regular file; expected a SQLite catalog file or postgresql://...$" err &&
	test_expect_code 2 "$REPLICATE" status --recheck all >out 2>err &&
	grep -q "^replicate: --recheck holds a catalog against the files: give --catalog" err &&
	test_expect_code 2 "$REPLICATE" status --seal nothex --catalog cat.sqlite >out 2>err &&
	grep -q "option --seal: expected a SHA-256 in hex, found .nothex." err &&
	test_expect_code 2 "$REPLICATE" index --catalog cat.sqlite >out 2>err &&
	grep -q "no PATH given" err
'

test_expect_success 'SIGTERM and SIGKILL half way through an index: the catalog is as it was' '
	mkdir many &&
	/usr/bin/python3 - all/receipts/replica-h1.json many <<-\PY &&
	import sys, os
	body = open(sys.argv[1]).read()
	for i in range(40000):
	    d = os.path.join(sys.argv[2], "d%03d" % (i // 400))
	    os.makedirs(d, exist_ok=True)
	    open(os.path.join(d, "r%05d.json" % i), "w").write(body)
	PY
	"$REPLICATE" status --json --catalog cat.sqlite >before.json &&
	before_files=$(rows cat.sqlite files) &&
	for sig in TERM KILL; do
		"$REPLICATE" index --catalog cat.sqlite many >out 2>err &
		pid=$! && sleep 1 &&
		kill -0 $pid && kill -$sig $pid && { wait $pid; code=$?; } &&
		if [ $sig = TERM ]; then
			test $code = 2 && grep -q "^replicate: stopped by a signal; the catalog is as it was$" err || return 1
		fi &&
		test "$(rows cat.sqlite files)" = "$before_files" &&
		"$REPLICATE" status --json --catalog cat.sqlite >after.json &&
		test_cmp before.json after.json || return 1
	done &&
	test "$(/usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA integrity_check\").fetchone()[0])" cat.sqlite)" = ok
'

test_expect_success 'the default catalog lies under the data directory, the user'"'"'s alone' '
	XDG_DATA_HOME=$PWD/data "$REPLICATE" index all/sealed >out &&
	test -f data/evidence/catalog.sqlite &&
	test "$(stat -c %a data/evidence)" = 700 &&
	test "$(stat -c %a data/evidence/catalog.sqlite)" = 600 &&
	grep -q "^indexed into $PWD/data/evidence/catalog.sqlite on " out
'

test_done
