#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal continue: a failed receipt is kept byte for byte; the continuation
# names it by SHA-256, says exactly which differences it accepts, reruns
# the same command on the same inputs and records the fresh result. A rule
# for a check the original did not fail, a pattern that would accept an
# empty or any value, or one that accepts none of the original's findings
# is refused, and so is an original that passed, was edited, is not the
# pinned one, or whose inputs changed; nothing is written for a refusal.
. "$EV_SRCDIR/tests/lib/lib.sh"

git_setup
SQ="'"

# refused 'LINE' ARGS...: seal continue ARGS exits 2 with LINE first on
# stderr, writes no continuation, and the original is untouched.
refused () {
	line=$1
	shift
	test_expect_code 2 "$SEAL" continue "$@" >out 2>err &&
	echo "$line" >expect && head -n 1 err >actual && test_cmp expect actual &&
	test ! -s out && test_must_be_absent one-continuation.json two-continuation.json &&
	cmp one.json one.kept && cmp two.json two.kept
}

test_expect_success 'setup: a selection integrated into git, failing on one byte (one.json) and on two files (two.json)' '
	mkdir ev && printf "private run log\n" >ev/run.log && chmod 600 ev/run.log &&
	printf "#!/bin/sh\necho rerun\n" >ev/go.sh && chmod 755 ev/go.sh &&
	"$SEAL" create ev -o sealed >/dev/null &&
	"$SEAL" select --seal sealed/SEAL.json --include run.log --include go.sh -o sel.json >/dev/null &&
	git_init repo && cp ev/run.log ev/go.sh repo/ &&
	printf "private run Log\n" >repo/run.log &&
	git -C repo add . && git -C repo commit -q -m one && git -C repo tag one &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --rev one --receipt one.json 2>/dev/null &&
	git -C repo update-index --chmod=-x go.sh && git -C repo commit -q -m two &&
	test_expect_code 1 "$SEAL" integrate --selection sel.json --repo repo --receipt two.json 2>/dev/null &&
	cp one.json one.kept && cp two.json two.kept &&
	test "$(json_get one.json "d[\"invocation\"][\"argv\"][1:]")" = \
		"[${SQ}integrate${SQ}, ${SQ}--selection${SQ}, ${SQ}sel.json${SQ}, ${SQ}--repo${SQ}, ${SQ}repo${SQ}, ${SQ}--rev${SQ}, ${SQ}one${SQ}, ${SQ}--receipt${SQ}, ${SQ}one.json${SQ}]"
'

test_expect_success 'a continuation accepting the one changed value passes, names the original, leaves it as it was' '
	found=$(sha256sum <repo/run.log | cut -c1-64) &&
	"$SEAL" continue --original one.json --accept-value "sha256=$found" >out &&
	echo "OK: continuation of one.json (sha256 $(sha256sum <one.json | cut -c1-16)...): ${SQ}seal integrate${SQ} rerun, 1 difference, 1 accepted, 0 remain; receipt ./one-continuation.json" >expect &&
	test_cmp expect out &&
	cmp one.json one.kept &&
	test "$(json_words one-continuation.json "d[\"kind\"], d[\"result\"]")" = "continuation pass" &&
	test "$(json_get one-continuation.json "d[\"inputs\"][0][\"sha256\"]")" = "$(sha256sum <one.json | cut -c1-64)" &&
	test "$(json_get one-continuation.json "d[\"facts\"][\"original\"][\"sha256\"]")" = "$(sha256sum <one.json | cut -c1-64)" &&
	test "$(json_get one-continuation.json "d[\"facts\"][\"original\"][\"comparable\"]")" = "$(json_get one.json "d[\"comparable\"]")" &&
	test "$(json_get one-continuation.json "[(a[\"check\"], a[\"subject\"], a[\"found\"]) for a in d[\"facts\"][\"accepted\"]]")" = \
		"[(${SQ}sha256${SQ}, ${SQ}run.log${SQ}, ${SQ}$found${SQ})]" &&
	test "$(json_get one-continuation.json "d[\"facts\"][\"rules\"]")" = \
		"[{${SQ}accepted${SQ}: 1, ${SQ}check${SQ}: ${SQ}sha256${SQ}, ${SQ}value${SQ}: ${SQ}$found${SQ}}]" &&
	test "$(json_words one-continuation.json "d[\"fresh_receipt\"][\"kind\"], d[\"fresh_receipt\"][\"result\"]")" = "integration fail" &&
	rm one-continuation.json
'

test_expect_success 'a difference no rule names remains: exit 1, named, and recorded as remaining' '
	found=$(sha256sum <repo/run.log | cut -c1-64) &&
	test_expect_code 1 "$SEAL" continue --original two.json --accept "sha256=[0-9a-f]{64}" --receipt partial.json >out 2>err &&
	echo "seal: go.sh: executable differs, and no rule accepts it (expected 100755 (sealed 0755), found 100644)" >expect &&
	test_cmp expect err &&
	grep -q "^FAIL: continuation of two.json .* 2 differences, 1 accepted, 1 remains; receipt partial.json$" out &&
	test "$(json_words partial.json "d[\"result\"], [r[\"check\"] for r in d[\"facts\"][\"remaining\"]]")" = "fail executable" &&
	cmp two.json two.kept
'

test_expect_success 'a rule for a check the original did not fail is refused' '
	refused "seal: --accept-value size=20: the original did not fail check ${SQ}size${SQ}; a continuation relaxes only a check the original failed (it failed: sha256)" \
		--original one.json --accept-value size=20
'

test_expect_success 'a pattern that would accept an empty or any value is refused' '
	refused "seal: --accept ${SQ}sha256=.*${SQ}: the pattern accepts an empty value, more than the difference it should name; write the form of the value that differs (e.g. ${SQ}NAME: VALUE \\(default: 0\\)${SQ} as ${SQ}[A-Z_]+: [0-9]+ \\(default: 0\\)${SQ})" \
		--original one.json --accept "sha256=.*" &&
	refused "seal: --accept ${SQ}sha256=.+${SQ}: the pattern accepts any value, more than the difference it should name; write the form of the value that differs (e.g. ${SQ}NAME: VALUE \\(default: 0\\)${SQ} as ${SQ}[A-Z_]+: [0-9]+ \\(default: 0\\)${SQ})" \
		--original one.json --accept "sha256=.+"
'

test_expect_success 'a rule that accepts none of the original'"'"'s findings is refused' '
	refused "seal: --accept-value sha256=$(printf %064d 0): accepts none of the original${SQ}s ${SQ}sha256${SQ} findings (one found ${SQ}$(sha256sum <repo/run.log | cut -c1-64)${SQ} at run.log); name the value that differs" \
		--original one.json --accept-value "sha256=$(printf %064d 0)"
'

test_expect_success 'an original that is not the pinned one, was edited, or passed is refused' '
	refused "seal: one.json: SHA-256 is $(sha256sum <one.json | cut -c1-64), not the $(printf %064d 0) given with --original-sha256" \
		--original one.json --original-sha256 "$(printf %064d 0)" --accept "sha256=[0-9a-f]{64}" &&
	sed "s/content differs/content DIFFERS/" one.json >edited.json &&
	refused "seal: edited.json: its comparable digest no longer matches its content: it was edited, and an edited receipt cannot be continued" \
		--original edited.json --accept "sha256=[0-9a-f]{64}" &&
	git_init ok && cp -p ev/run.log ev/go.sh ok/ && git -C ok add . && git -C ok commit -q -m ok &&
	"$SEAL" integrate --selection sel.json --repo ok --receipt pass.json >/dev/null &&
	refused "seal: pass.json: passed; only a failed receipt is continued" --original pass.json --accept "sha256=[0-9a-f]{64}"
'

test_expect_success 'when an input changed since the original, or is gone, the continuation is refused' '
	mv sel.json sel.kept &&
	"$SEAL" select --seal sealed/SEAL.json --include run.log -o sel.json >/dev/null &&
	refused "seal: one.json: the inputs are not the original${SQ}s: input selection (sel.json) had SHA-256 $(sha256sum <sel.kept | cut -c1-64), now $(sha256sum <sel.json | cut -c1-64); a continuation reruns the same inputs (restore them, or run the check again and continue that receipt)" \
		--original one.json --accept "sha256=[0-9a-f]{64}" &&
	mv sel.kept sel.json && mv repo repo.away &&
	refused "seal: the rerun of ${SQ}seal integrate${SQ} could not run its checks (exit 2); it said:" \
		--original one.json --accept "sha256=[0-9a-f]{64}" &&
	sed -n 2p err | contains "^seal: .*repo" &&
	mv repo.away repo
'

test_expect_success 'a continuation is not itself continued, and an existing --receipt is never replaced' '
	test_expect_code 1 "$SEAL" continue --original two.json --accept "sha256=[0-9a-f]{64}" --receipt c1.json 2>/dev/null &&
	cp c1.json c1.kept &&
	refused "seal: c1.json: is itself a continuation; continue the original it names, with every rule at once" \
		--original c1.json --accept "executable=100644" &&
	refused "seal: c1.json: already exists; evidence is never overwritten (choose a new name)" \
		--original two.json --accept "sha256=[0-9a-f]{64}" --receipt c1.json &&
	cmp c1.json c1.kept
'

test_expect_success 'seal verify receipts continue in the same shape' '
	mkdir t && cp -p ev/run.log ev/go.sh t/ && chmod 644 t/run.log &&
	test_expect_code 1 "$SEAL" verify --seal sealed/SEAL.json --receipt v.json t 2>/dev/null &&
	"$SEAL" continue --original v.json --accept-value mode=0644 --receipt vc.json >out &&
	grep -q "^OK: continuation of v.json .*${SQ}seal verify${SQ} rerun, 1 difference, 1 accepted, 0 remain" out
'

test_done
