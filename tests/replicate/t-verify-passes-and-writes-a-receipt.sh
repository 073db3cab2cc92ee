#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate verify on an intact archive: exit 0 and a replica receipt that
# records both inputs by SHA-256, every check, host-independent facts, and
# the same comparable digest for every copy; pins are checks; an existing
# receipt is never replaced.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

test_expect_success 'setup: seal a campaign (zstd and gzip)' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	"$SEAL" create --gzip c -o gout >/dev/null
'

test_expect_success 'an intact archive: OK, exit 0, receipt where replicate ran (not beside the archive)' '
	"$REPLICATE" verify --seal out/SEAL.json out/archive.tar.zst >stdout 2>stderr &&
	test ! -s stderr &&
	receipt=$(sed -n "s/^OK: out\\/archive.tar.zst: 19 members, 0 findings against out\\/SEAL.json; receipt //p" stdout) &&
	test -n "$receipt" && test -f "$receipt" &&
	case "$receipt" in ./replica-*-[0-9]*T[0-9]*Z.json) ;; *) false ;; esac &&
	no_entry out "^replica-" &&
	test "$(json_get "$receipt" "d[\"kind\"], d[\"result\"], d[\"format\"]")" = "replica pass evidence-receipt/1" &&
	test "$(json_get "$receipt" "\" \".join(i[\"name\"] for i in d[\"inputs\"])")" = "SEAL.json archive" &&
	test "$(json_get "$receipt" "d[\"inputs\"][1][\"sha256\"]")" = "$(sha256_of out/archive.tar.zst)" &&
	test "$(json_get "$receipt" "d[\"inputs\"][0][\"sha256\"]")" = "$(sha256_of out/SEAL.json)" &&
	grep -q "^checked 19 members${Q} content, size, mode and type, and every byte of the archive; SEAL.json not pinned; not checked: owners and times (not sealed)$" stdout &&
	test "$(json_get "$receipt" "d[\"facts\"][\"coverage\"][\"pinned\"]")" = \
		"[${Q}SEAL.json not pinned: it is trusted as given (--seal-sha256 pins it)${Q}, ${Q}the archive not pinned (--archive-sha256 pins it)${Q}]" &&
	test "$(json_get "$receipt" "d[\"inputs\"][1][\"path\"]")" = "$(pwd)/out/archive.tar.zst" &&
	test "$(json_get "$receipt" "d[\"facts\"][\"totals\"][\"files\"], d[\"facts\"][\"members_read\"]")" = "9 19" &&
	test "$(json_get "$receipt" "\" \".join(c[\"name\"] + \"=\" + c[\"result\"] for c in d[\"checks\"])")" = "members=pass"
'

test_expect_success 'a copy elsewhere writes the same comparable digest' '
	mkdir -p elsewhere/deeper && cp out/SEAL.json out/archive.tar.zst elsewhere/deeper/ &&
	"$REPLICATE" verify --seal out/SEAL.json --receipt a.json out/archive.tar.zst >/dev/null &&
	(cd elsewhere/deeper && "$REPLICATE" verify --seal SEAL.json --receipt ../b.json archive.tar.zst >/dev/null) &&
	test "$(json_get a.json "d[\"comparable\"]")" = "$(json_get elsewhere/b.json "d[\"comparable\"]")" &&
	! cmp -s a.json elsewhere/b.json
'

test_expect_success 'gzip archives verify the same way' '
	"$REPLICATE" verify --seal gout/SEAL.json --receipt g.json gout/archive.tar.gz >/dev/null &&
	test "$(json_get g.json "d[\"result\"]")" = pass
'

test_expect_success 'both pins pass as checks; --json prints exactly the receipt written' '
	"$REPLICATE" verify --seal out/SEAL.json --seal-sha256 "$(sha256_of out/SEAL.json)" \
		--archive-sha256 "$(sha256_of out/archive.tar.zst)" --json --receipt p.json \
		out/archive.tar.zst >printed.json &&
	cmp printed.json p.json &&
	test "$(json_get p.json "\" \".join(c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"pass\")")" = \
		"seal-sha256 archive-sha256 members"
'

test_expect_success 'a seal that is not the pinned one: exit 1, nothing else checked, a failing receipt' '
	other=$(printf "%064d" 0) &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --seal-sha256 "$other" \
		--receipt pinfail.json out/archive.tar.zst >/dev/null 2>actual &&
	echo "replicate: out/SEAL.json: SEAL.json is not the pinned seal; nothing else was checked (expected $other, found $(sha256_of out/SEAL.json))" >expect &&
	test_cmp expect actual &&
	test "$(json_get pinfail.json "d[\"result\"], \" \".join(c[\"name\"] + \"=\" + c[\"result\"] for c in d[\"checks\"])")" = "fail seal-sha256=fail"
'

test_expect_success 'an archive that is not the one pinned: a finding, the members still checked' '
	other=$(printf "%064d" 1) &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --archive-sha256 "$other" \
		--receipt afail.json out/archive.tar.zst >/dev/null 2>actual &&
	echo "replicate: out/archive.tar.zst: the archive is not the one pushed (its SHA-256 differs) (expected $other, found $(sha256_of out/archive.tar.zst))" >expect &&
	test_cmp expect actual &&
	test "$(json_get afail.json "\" \".join(c[\"name\"] for c in d[\"checks\"] if c[\"result\"] == \"fail\")")" = \
		"archive-sha256 members"
'

test_expect_success 'an existing receipt is refused before anything is read, and kept as it was' '
	echo precious >kept.json &&
	test_expect_code 2 "$REPLICATE" verify --seal out/SEAL.json --receipt kept.json out/archive.tar.zst 2>actual &&
	echo "replicate: kept.json: already exists; evidence is never overwritten (choose a new name)" >expect &&
	test_cmp expect actual && echo precious >expect && test_cmp expect kept.json
'

test_expect_success 'two runs in the same second get two receipts, not one overwritten' '
	mkdir two && cp out/SEAL.json out/archive.tar.zst two/ &&
	(cd two && "$REPLICATE" verify --seal SEAL.json archive.tar.zst >/dev/null &&
	 "$REPLICATE" verify --seal SEAL.json archive.tar.zst >/dev/null) &&
	"$REPLICATE" verify --seal two/SEAL.json --receipt-dir two two/archive.tar.zst >/dev/null &&
	test "$(ls two/replica-*.json | wc -l)" -eq 3 && no_temporaries two
'

test_done
