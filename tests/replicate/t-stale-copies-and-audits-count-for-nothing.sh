#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# With --max-age (or the configuration's max-age), a copy counts toward
# --min-hosts, and an audit as passing, only with a verification that
# finished within it: replicate status shows an older copy stale, with its
# age, and does not count it; prune refuses when too few fresh copies are
# left, naming each stale receipt, and a stale receipt beside enough fresh
# ones is no reason to refuse. A copy whose latest verification failed
# after its last pass does not count at all (an audit that passed long ago:
# t-audit-on-two-sshd-hosts). Receipts are aged with faketime: a
# verification made "20 days ago" says so (in a sanitized build, which
# hangs under libfaketime, its times are moved after: receipt_dated).
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

as_host probe true 2>/dev/null || test_skip_all "cannot give a command its own host name (no UTS namespaces here)"
grep -q __asan_init "$REPLICATE" || command -v faketime >/dev/null || test_skip_all "needs faketime (Debian package faketime)"

# dated DAYS RECEIPT COMMAND...: COMMAND, which writes RECEIPT, as if run
# DAYS days from now ("-20", "+30"): under faketime, its clock moved; in a
# sanitized build, which hangs under libfaketime, run now and RECEIPT's
# times moved after (receipt_dated). COMMAND's exit status either way.
sanitized=0
grep -q __asan_init "$REPLICATE" && sanitized=1
dated () {
	days=$1 receipt=$2
	shift 2
	if [ $sanitized = 0 ] && [ "$1" = as_host ]; then # a shell function: faketime goes inside it
		host=$2
		shift 2
		as_host "$host" env FAKETIME_DONT_FAKE_MONOTONIC=1 timeout 120 faketime -f "${days}d" "$@"
		return
	fi
	if [ $sanitized = 0 ]; then
		FAKETIME_DONT_FAKE_MONOTONIC=1 timeout 120 faketime -f "${days}d" "$@"
		return
	fi
	"$@"
	code=$?
	if [ -s "$receipt" ]; then receipt_dated "$days" "$receipt" || return 1; fi
	return $code
}

snapshot () { (cd "$1" && find . -printf "%p %y %s %m\n" | sort && find . -type f -exec sha256sum {} + | sort); }

test_expect_success 'setup: a sealed campaign; h1 verified its copy 20 days ago, h2 now; an audit 20 days ago' '
	make_campaign c && "$SEAL" create c -o sealed >/dev/null &&
	mkdir receipts audits &&
	dated -20 receipts/replica-h1-old.json \
		as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h1-old.json sealed/archive.tar.zst >/dev/null &&
	as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h2.json sealed/archive.tar.zst >/dev/null &&
	dated -20 audits/old.json "$AUDIT" journal --sender runs/A-1/journal --archive sealed/archive.tar.zst \
		--seal sealed/SEAL.json --receipt audits/old.json >/dev/null 2>&1;
	test -s audits/old.json &&
	json_get receipts/replica-h1-old.json "d[\"finished\"]" >when &&
	test "$(cut -c1-10 when)" = "$(date -u -d "20 days ago" +%Y-%m-%d)"
'

test_expect_success 'without --max-age every copy counts, and no age is shown' '
	"$REPLICATE" status sealed receipts >out &&
	grep -q "^  copy:     h1, last verified $(cat when) (1 receipt: receipts/replica-h1-old.json)$" out &&
	grep -q "^  prune would hold (2 hosts hold a verified copy" out
'

test_expect_success 'status --max-age 7d: h1 is stale, with its age, and not counted; the old audit too' '
	"$REPLICATE" status --max-age 7d sealed receipts audits >out &&
	grep -q "^  copy:     h1, last verified $(cat when), 20d old, STALE: not counted (1 receipt: receipts/replica-h1-old.json)$" out &&
	grep -q "^  copy:     h2, last verified [0-9T:-]*Z, [0-9]*s old (1 receipt: receipts/replica-h2.json)$" out &&
	grep -q "^  audit:    audit journal on [^,]*, from the archive, [a-z]* at [0-9T:-]*Z, 20d old, STALE, comparable " out &&
	grep -q "^  prune would refuse: too few copies verified within --max-age (1 host holds a copy verified within 7d; prune needs 2" out &&
	grep -q "^  missing:  a verified copy on 1 more host (prune needs 2, each verified whole within 7d)$" out &&
	grep -q "^  missing:  a whole verification of the copy on h1 within 7d (its last, $(cat when), is 20d old): replicate verify it again$" out &&
	"$REPLICATE" status --json --max-age 7d sealed receipts >out.json &&
	json_words out.json "d[\"max_age_seconds\"], [(c[\"key\"], c[\"fresh\"], c[\"age_seconds\"] // 86400) for c in d[\"campaigns\"][0][\"copies\"]], d[\"campaigns\"][0][\"prune\"][\"hosts\"]" >got &&
	echo "604800 h1 False 20 h2 True 0 1" >expect && test_cmp expect got &&
	"$REPLICATE" status --max-age 21d sealed receipts >out &&
	grep -q "^  prune would hold (2 hosts hold a copy verified within 21d" out
'

test_expect_success 'prune --max-age 7d refuses, naming the stale receipt; without it, the same receipts remove the directory' '
	snapshot c >before &&
	test_expect_code 1 "$REPLICATE" prune --max-age 7d --seal sealed/SEAL.json --receipts receipts/*.json \
		--receipt cleanup.json c >stdout 2>err &&
	cat >expect <<-EOF &&
	replicate: refused: receipts/replica-h1-old.json: records no verification within --max-age: replicate verify the copy again (expected within 7d (--max-age), found 20d old)
	replicate: refused: receipts: too few distinct hosts hold a copy verified within --max-age (expected 2, found 1)
	EOF
	test_cmp expect err &&
	snapshot c >after && test_cmp before after &&
	test "$(json_get cleanup.json "d[\"result\"], d[\"facts\"][\"max_age_seconds\"], [s[\"receipt\"] for s in d[\"facts\"][\"stale_receipts\"]], d[\"facts\"][\"hosts\"]")" = \
		"fail 604800 [${Q}receipts/replica-h1-old.json${Q}] [${Q}h2${Q}]" &&
	cp -R c c-copy &&
	"$REPLICATE" prune --seal sealed/SEAL.json --receipts receipts/*.json --receipt cleanup2.json c-copy >/dev/null &&
	test_must_be_absent c-copy
'

test_expect_success 'h1 verifies again: the stale receipt beside two fresh hosts is no reason to refuse' '
	as_host h1 "$REPLICATE" verify --seal sealed/SEAL.json --receipt receipts/replica-h1.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" status --max-age 7d sealed receipts >out &&
	grep -q "^  copy:     h1, last verified [0-9T:-]*Z, [0-9]*s old (2 receipts: receipts/replica-h1-old.json, receipts/replica-h1.json)$" out &&
	grep -q "^  prune would hold (2 hosts" out &&
	cp -R c c-copy &&
	"$REPLICATE" prune --max-age 7d --seal sealed/SEAL.json --receipts receipts/*.json --receipt cleanup3.json c-copy >/dev/null 2>err &&
	test_must_be_absent c-copy && test ! -s err &&
	test "$(json_get cleanup3.json "[s[\"receipt\"] for s in d[\"facts\"][\"stale_receipts\"]]")" = "[${Q}receipts/replica-h1-old.json${Q}]"
'

test_expect_success 'a copy whose latest verification failed after its last pass counts for nothing, however fresh' '
	mkdir rotted &&
	python3 "$EV_SRCDIR/tests/replicate/archive-surgery.py" sealed/archive.tar.zst rotted/archive.tar.zst \
		flip runs/A-1/journal/1.bin 10 &&
	cp receipts/replica-h1.json receipts/replica-h2.json rotted/ &&
	test_expect_code 1 as_host h2 "$REPLICATE" verify --seal sealed/SEAL.json --receipt rotted/replica-h2-rotted.json \
		rotted/archive.tar.zst >/dev/null 2>&1 &&
	"$REPLICATE" status --max-age 7d sealed rotted >out &&
	grep -q "^  copy:     h2, last verified [0-9T:-]*Z, [0-9]*s old, FAILED at [0-9T:-]*Z since: not counted (1 receipt: rotted/replica-h2.json)$" out &&
	grep -q "^  missing:  a passing verification of the copy on h2 (its latest, at [0-9T:-]*Z, failed: rotted/replica-h2-rotted.json): replicate verify it again, or replace the copy$" out &&
	grep -q "^  prune would refuse: one host (1 host holds a copy verified within 7d" out &&
	"$REPLICATE" status --json sealed rotted >out.json &&
	test "$(json_get out.json "[(c[\"key\"], c[\"failed_since\"][\"receipt\"]) for c in d[\"campaigns\"][0][\"copies\"] if \"failed_since\" in c]")" = \
		"[(${Q}h2${Q}, ${Q}rotted/replica-h2-rotted.json${Q})]" &&
	test_expect_code 1 "$REPLICATE" prune --max-age 7d --seal sealed/SEAL.json --receipts rotted/*.json --receipt cleanup5.json c >/dev/null 2>err &&
	grep -q "^replicate: refused: rotted/replica-h2-rotted.json: records a failed verification (expected pass, found fail)$" err &&
	test -d c
'

test_expect_success 'a verification dated 30 days ahead is no evidence of freshness' '
	mkdir ahead &&
	dated +30 ahead/replica-h3.json \
		as_host h3 "$REPLICATE" verify --seal sealed/SEAL.json --receipt ahead/replica-h3.json sealed/archive.tar.zst >/dev/null &&
	"$REPLICATE" status --max-age 7d sealed ahead >out &&
	grep -q "^  copy:     h3, last verified [0-9T:-]*Z, in the future by \(30d\|29d 23h\), STALE: not counted (1 receipt: ahead/replica-h3.json)$" out &&
	test_expect_code 1 "$REPLICATE" prune --max-age 7d --min-hosts 1 --seal sealed/SEAL.json --receipts ahead/replica-h3.json \
		--receipt cleanup4.json c >/dev/null 2>err &&
	grep -q "^replicate: refused: ahead/replica-h3.json: records no verification within --max-age: replicate verify the copy again (expected within 7d (--max-age), found in the future by \(30d\|29d 23h\))$" err &&
	test -d c
'

test_expect_success 'the configuration'"'"'s max-age is --max-age; the command line wins; a malformed one stops every command' '
	echo "max-age = 7d" >config &&
	EVIDENCE_CONFIG=$PWD/config "$REPLICATE" status sealed receipts >out &&
	grep -q "^  copy:     h1, last verified [0-9T:-]*Z, [0-9]*s old" out &&
	EVIDENCE_CONFIG=$PWD/config "$REPLICATE" status --max-age 30d --json sealed receipts >out.json &&
	test "$(json_get out.json "d[\"max_age_seconds\"]")" = 2592000 &&
	EVIDENCE_CONFIG=$PWD/config "$REPLICATE" config >out &&
	grep -q "max-age" out &&
	echo "max-age = 7x" >bad &&
	test_expect_code 2 env EVIDENCE_CONFIG=$PWD/bad "$REPLICATE" status sealed receipts >out 2>err &&
	echo "replicate: $PWD/bad:1: max-age: expected a duration: a whole number and s, m, h, d or w (7d, 36h, 90m), found ${Q}7x${Q}; fix the file, or set EVIDENCE_CONFIG to another" >expect &&
	test_cmp expect err && test ! -s out
'

test_expect_success 'a duration that is not one is refused, the same words for status and prune' '
	for bad in 7 0d -1d 7x 1.5d d 99999999w; do
		test_expect_code 2 "$REPLICATE" status --max-age "$bad" sealed >out 2>err &&
		test ! -s out &&
		grep -q "^replicate: option --max-age: expected a duration: a whole number and s, m, h, d or w (7d, 36h, 90m), found ${Q}$bad${Q}$" err || return 1
		test_expect_code 2 "$REPLICATE" prune --max-age "$bad" --seal sealed/SEAL.json --receipts receipts/replica-h2.json c >out 2>err &&
		grep -q "^replicate: option --max-age: expected a duration" err || return 1
	done &&
	test -d c
'

test_done
