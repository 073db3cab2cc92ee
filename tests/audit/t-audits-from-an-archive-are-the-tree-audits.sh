#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every audit from a sealed archive, read in one pass that checks every
# member against the seal and copies what the audit reads into a private
# directory, never extracted where anyone sees it, is the tree audit.
# audit campaign ARCHIVE: its outputs are the tree audit's byte for byte
# (the tree audited from its parent under the seal's root name), its
# receipt has the same checks and facts and adds the archive to its
# inputs, and two hosts auditing copies of one archive write one
# comparable digest. A byte changed in a series, a journal, a report or a
# run.json inside the archive is named and nothing passes; so is a
# truncated archive. Killed (SIGTERM, SIGKILL) while its copies exist, it
# leaves nothing in TMPDIR and no OUTDIR. audit series --archive: the same
# facts and checks as from the tree, plus the archive's own check; a named
# member that does not match its seal is named and nothing is computed.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(nproc)" -ge 2 ] || test_skip_all "needs two CPUs"
ARCHIVE_SURGERY="$EV_SRCDIR/tests/replicate/archive-surgery.py"
R=runs/001-baseline-spin-1

test_expect_success 'setup: a captured campaign of the reference pair, two cells, sealed' '
	two_cell_plan plan.json small 11021 2000 1 &&
	"$CAPTURE" pin plan.json -o pinned.json >/dev/null && "$CAPTURE" run pinned.json -o c >/dev/null &&
	"$SEAL" create c -o sealed >/dev/null &&
	mkdir private
'

test_expect_success 'from its archive: the tree audit'"'"'s outputs byte for byte, the same checks and facts, nothing left in TMPDIR' '
	"$AUDIT" campaign --seal sealed/SEAL.json c -o tree >tree.out 2>tree.err &&
	TMPDIR=$PWD/private "$AUDIT" campaign --seal sealed/SEAL.json sealed/archive.tar.zst -o arch >arch.out 2>arch.err &&
	dir_empty private &&
	grep -q "^OK: 2 runs; summary arch$" arch.out &&
	(cd tree && ls) >tree.files && (cd arch && ls) >arch.files && test_cmp tree.files arch.files &&
	for f in $(cat tree.files); do
		case $f in receipt.json|audit-journal.json) continue ;; esac
		cmp tree/$f arch/$f || return 1
	done &&
	sed "s/arch/tree/" arch.out >arch.as-tree && test_cmp tree.out arch.as-tree &&
	test_cmp tree.err arch.err &&
	for k in checks facts result; do
		json_get tree/receipt.json "d[\"$k\"]" >tree.$k && json_get arch/receipt.json "d[\"$k\"]" >arch.$k &&
		test_cmp tree.$k arch.$k || return 1
	done &&
	json_get tree/receipt.json "[(i[\"name\"], i.get(\"path\"), i[\"sha256\"]) for i in d[\"inputs\"]]" >tree.inputs &&
	json_get arch/receipt.json "[(i[\"name\"], i.get(\"path\"), i[\"sha256\"]) for i in d[\"inputs\"] if i[\"name\"] != \"archive\"]" >arch.inputs &&
	test_cmp tree.inputs arch.inputs &&
	test "$(json_get arch/receipt.json "[(i[\"path\"], i[\"sha256\"]) for i in d[\"inputs\"] if i[\"name\"] == \"archive\"]")" = \
		"[('"'"'sealed/archive.tar.zst'"'"', '"'"'$(sha256_of sealed/archive.tar.zst)'"'"')]" &&
	json_get tree/audit-journal.json "d[\"checks\"], d[\"facts\"], d[\"inputs\"]" >tree.journals &&
	json_get arch/audit-journal.json "d[\"checks\"], d[\"facts\"], d[\"inputs\"][2:]" >arch.journals &&
	test_cmp tree.journals arch.journals &&
	test "$(json_get arch/audit-journal.json "[i[\"name\"] for i in d[\"inputs\"]][:2]")" = "['"'"'SEAL.json'"'"', '"'"'archive'"'"']" &&
	! grep -r -l "private" arch
'

test_expect_success 'two hosts auditing copies of one archive write one comparable digest' '
	mkdir -p h2/copy && cp sealed/SEAL.json sealed/archive.tar.zst h2/copy/ &&
	as_host lab-a "$AUDIT" campaign --seal sealed/SEAL.json sealed/archive.tar.zst -o on-a >/dev/null &&
	(cd h2 && as_host lab-b "$AUDIT" campaign --seal copy/SEAL.json copy/archive.tar.zst -o on-b >/dev/null) &&
	test "$(json_get on-a/receipt.json "d[\"host\"]")" = lab-a &&
	test "$(json_get h2/on-b/receipt.json "d[\"host\"]")" = lab-b &&
	test "$(json_get on-a/receipt.json "d[\"comparable\"]")" = "$(json_get h2/on-b/receipt.json "d[\"comparable\"]")" &&
	"$REPLICATE" compare on-a/receipt.json h2/on-b/receipt.json >compared &&
	cmp on-a/summary.json h2/on-b/summary.json
'

# changed NAME OP MEMBER ARGS...: the archive with one member changed
# (archive-surgery.py OP), audited into NAME: exit 1, the member named,
# the check "inputs against the seal" failed, nothing passed.
changed () {
	name=$1 op=$2 member=$3
	shift 3
	python3 "$ARCHIVE_SURGERY" sealed/archive.tar.zst $name.tar.zst $op $member "$@" &&
	test_expect_code 1 env TMPDIR=$PWD/private "$AUDIT" campaign --seal sealed/SEAL.json $name.tar.zst -o $name \
		>$name.out 2>$name.err &&
	grep -q "^audit: $member: content differs (SHA-256)" $name.err &&
	dir_empty private &&
	! grep -q "^OK" $name.out
}

test_expect_success 'a byte changed in a series inside the archive: named, its run and the seal check fail' '
	changed series flip $R/series/send.bin 4100 &&
	grep -q "^audit: c/$R/series/send.bin: its SHA-256 is not the seal'"'"'s" series.err &&
	grep -q "^FAIL: 2 runs; summary series$" series.out &&
	test "$(json_get series/receipt.json "d[\"result\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"inputs against the seal\"]")" = \
		"fail ['"'"'fail'"'"']"
'

test_expect_success 'a byte changed in a journal inside the archive: named by the seal check and by the rule it breaks' '
	changed journal flip $R/journal/sender/1.bin 300 &&
	grep -q "^audit: pair 1 sender: c/$R/journal/sender/1.bin: record" journal.err &&
	test "$(json_get journal/receipt.json "d[\"result\"]")" = fail
'

test_expect_success 'a number edited in a report inside the archive: named, and the statistic that differs' '
	p99=$(json_get c/$R/report.json "d[\"stats\"][\"p99\"]") &&
	case $p99 in *9) other=$((p99 - 1)) ;; *) other=$((p99 + 1)) ;; esac &&
	changed report replace $R/report.json "\"p99\":$p99" "\"p99\":$other" &&
	grep -q "^audit: 001-baseline-spin-1: c/$R/report.json: p99: differs (native $other, recomputed $p99)$" report.err &&
	test "$(json_get report/receipt.json "d[\"result\"]")" = fail
'

test_expect_success 'a run.json edited inside the archive (still JSON): named, and nothing passes' '
	changed runjson replace $R/run.json "\"repeat\":1" "\"repeat\":2" &&
	test "$(json_get runjson/receipt.json "d[\"result\"]")" = fail
'

test_expect_success 'a run.json broken inside the archive: exit 1 naming the member and where the audit stopped; no OUTDIR' '
	python3 "$ARCHIVE_SURGERY" sealed/archive.tar.zst broken.tar.zst flip $R/run.json 1 &&
	test_expect_code 1 env TMPDIR=$PWD/private "$AUDIT" campaign --seal sealed/SEAL.json broken.tar.zst -o broken \
		>broken.out 2>broken.err &&
	grep -q "^audit: $R/run.json: content differs (SHA-256)" broken.err &&
	grep -q "^audit: broken.tar.zst: does not match its seal (1 finding, the first $R/run.json: sha256: .*), and the audit stopped at: c/$R/run.json: " broken.err &&
	test_must_be_absent broken && dir_empty private && no_temporaries .
'

test_expect_success 'a truncated archive: the stream finding named, nothing passes, nothing left' '
	size=$(stat -c %s sealed/archive.tar.zst) &&
	head -c $((size / 2)) sealed/archive.tar.zst >cut.tar.zst &&
	test_expect_code 1 env TMPDIR=$PWD/private "$AUDIT" campaign --seal sealed/SEAL.json cut.tar.zst -o cut \
		>cut.out 2>cut.err &&
	grep -q "stream" cut.err &&
	! grep -q "^OK" cut.out && dir_empty private && no_temporaries .
'

test_expect_success 'misuse: an archive without its seal, a seal not the pinned one; nothing written' '
	test_expect_code 2 "$AUDIT" campaign sealed/archive.tar.zst -o none 2>err &&
	grep -q "^audit: sealed/archive.tar.zst: an archive is audited against its seal: give --seal SEAL.json$" err &&
	test_expect_code 2 "$AUDIT" campaign --seal sealed/SEAL.json --seal-sha256 $(printf "%064d" 0) \
		sealed/archive.tar.zst -o none 2>err &&
	grep -q "sealed/SEAL.json" err &&
	test_must_be_absent none
'

test_expect_success 'killed (SIGTERM, SIGKILL) while its copies exist: nothing left in TMPDIR, no OUTDIR' '
	killed_while_copying audit-campaign killed "$AUDIT" campaign --seal sealed/SEAL.json sealed/archive.tar.zst -o killed
'

S="--seal sealed/SEAL.json"
SERIES_ARGS="--native c/$R/report.json --journal c/$R/journal/sender --warmups 100 c/$R/series/send.bin"

test_expect_success 'audit series --archive: the facts and checks of the tree audit, and the archive'"'"'s check' '
	"$AUDIT" series --receipt s-tree.json $SERIES_ARGS >s-tree.out 2>s-tree.err &&
	TMPDIR=$PWD/private "$AUDIT" series --archive sealed/archive.tar.zst $S --receipt s-arch.json $SERIES_ARGS \
		>s-arch.out 2>s-arch.err &&
	dir_empty private &&
	grep -q "^OK: 0 statistics differ, 0 series findings, 0 archive findings; receipt s-arch.json$" s-arch.out &&
	sed "s/, 0 archive findings//; s/s-arch/s-tree/" s-arch.out >s-arch.as-tree && test_cmp s-tree.out s-arch.as-tree &&
	test_cmp s-tree.err s-arch.err &&
	json_get s-tree.json "d[\"facts\"], d[\"checks\"], d[\"inputs\"]" >s-tree.facts &&
	json_get s-arch.json "d[\"facts\"], d[\"checks\"][1:], d[\"inputs\"][2:]" >s-arch.facts &&
	test_cmp s-tree.facts s-arch.facts &&
	test "$(json_get s-arch.json "[(c[\"name\"], c[\"result\"]) for c in d[\"checks\"]][0], [i[\"name\"] for i in d[\"inputs\"]][:2]")" = \
		"('"'"'archive against its seal'"'"', '"'"'pass'"'"') ['"'"'SEAL.json'"'"', '"'"'archive'"'"']"
'

test_expect_success 'audit series --archive: a byte changed in the series inside it: named, nothing computed, the receipt fails' '
	test_expect_code 1 env TMPDIR=$PWD/private "$AUDIT" series --archive series.tar.zst $S --receipt s-flip.json \
		$SERIES_ARGS >s-flip.out 2>s-flip.err &&
	grep -q "^audit: $R/series/send.bin: content differs (SHA-256)" s-flip.err &&
	grep -q "^audit: series.tar.zst: the archive'"'"'s copy of what was named does not match its seal: nothing is computed from it$" s-flip.err &&
	grep -q "^FAIL: 1 archive finding, nothing computed; receipt s-flip.json$" s-flip.out &&
	test "$(json_get s-flip.json "d[\"result\"], \"recomputed\" in d[\"facts\"]")" = "fail False" &&
	dir_empty private
'

test_expect_success 'audit series --archive: misuse refused, nothing written' '
	test_expect_code 2 "$AUDIT" series --archive sealed/archive.tar.zst --receipt none.json c/$R/series/send.bin 2>err &&
	grep -q "^audit: --archive and --seal go together$" err &&
	test_expect_code 2 env TMPDIR=$PWD/private "$AUDIT" series --archive sealed/archive.tar.zst $S --receipt none.json \
		c/$R/series/other.bin 2>err &&
	grep -q "^audit: sealed/archive.tar.zst: no member c/$R/series/other.bin in sealed/SEAL.json (name it from the seal'"'"'s root, c/)$" err &&
	test_must_be_absent none.json && dir_empty private
'

test_expect_success 'audit compare --archive: two summaries sealed in an archive compared as from their directories' '
	mkdir -p pub && cp -r tree pub/one && cp -r on-a pub/two &&
	"$SEAL" create pub -o pubsealed >/dev/null &&
	"$AUDIT" compare --unregistered pub/one pub/two -o cmp-tree >cmp-tree.out 2>cmp-tree.err &&
	TMPDIR=$PWD/private "$AUDIT" compare --unregistered --archive pubsealed/archive.tar.zst --seal pubsealed/SEAL.json \
		pub/one pub/two -o cmp-arch >cmp-arch.out 2>cmp-arch.err &&
	dir_empty private &&
	for f in comparison.json comparison.md comparison.html; do cmp cmp-tree/$f cmp-arch/$f || return 1; done &&
	sed "s/cmp-arch/cmp-tree/" cmp-arch.out >cmp-arch.as-tree && test_cmp cmp-tree.out cmp-arch.as-tree &&
	json_get cmp-tree/receipt.json "d[\"facts\"], d[\"checks\"], d[\"inputs\"]" >cmp-tree.facts &&
	json_get cmp-arch/receipt.json "d[\"facts\"], d[\"checks\"][1:], d[\"inputs\"][2:]" >cmp-arch.facts &&
	test_cmp cmp-tree.facts cmp-arch.facts
'

test_expect_success 'audit compare --archive: a summary changed inside the archive: named, the archive check fails' '
	python3 "$ARCHIVE_SURGERY" pubsealed/archive.tar.zst pubflip.tar.zst replace two/summary.json "\"small\"" "\"smalL\"" &&
	test_expect_code 1 env TMPDIR=$PWD/private "$AUDIT" compare --unregistered --archive pubflip.tar.zst --seal pubsealed/SEAL.json \
		pub/one pub/two -o cmp-flip >cmp-flip.out 2>cmp-flip.err &&
	grep -q "^audit: two/summary.json: content differs (SHA-256)" cmp-flip.err &&
	test "$(json_get cmp-flip/receipt.json "d[\"result\"], [c[\"result\"] for c in d[\"checks\"] if c[\"name\"] == \"archive against its seal\"]")" = \
		"fail ['"'"'fail'"'"']" &&
	dir_empty private
'

test_expect_success 'from an archive, a signal while the receipt is written: exit 2, nothing published' '
	late_signal late-sa 1 "$AUDIT" series --archive sealed/archive.tar.zst $S --receipt late-sa.json $SERIES_ARGS &&
	grep -q "interrupted by a signal" late.err &&
	signal_while_outdir_receipt clate "$AUDIT" compare --unregistered --archive pubsealed/archive.tar.zst --seal pubsealed/SEAL.json \
		pub/one pub/two -o clate &&
	signal_while_outdir_receipt alate "$AUDIT" campaign --seal sealed/SEAL.json sealed/archive.tar.zst -o alate &&
	dir_empty private
'

test_expect_success 'audit series --archive killed (SIGTERM, SIGKILL) while its copies exist: nothing left, no receipt' '
	killed_while_copying audit-series killed.json "$AUDIT" series --archive sealed/archive.tar.zst $S \
		--receipt killed.json $SERIES_ARGS
'

test_done
