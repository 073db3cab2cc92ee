#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The bash completion each tool writes from its command table (and the
# build installs) completes, in a real bash: the tool's commands; each
# command's options, exactly those its --help shows, for every command of
# the four tools; a plan's JSON files where capture takes a plan; hosts
# from ~/.ssh/config (HOST:) where replicate takes [HOST:]DIR; a file
# where an option takes a FILE or KEY; --pool's words.
. "$EV_SRCDIR/tests/lib/lib.sh"

command -v bash >/dev/null || test_skip_all "bash is not installed"

# complete TOOL WORD...: what bash completes for the last WORD (may be ""),
# one candidate per line, sorted
complete_words () {
	bash -c '
		. ./completions.bash
		tool=$1; shift
		COMP_WORDS=("$tool" "$@"); COMP_CWORD=$#; COMPREPLY=()
		fn=$(complete -p "$tool" | sed "s/.*-F \([^ ]*\) .*/\1/")
		"$fn" "$tool" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort
	' sh "$@"
}

test_expect_success 'setup: the four tools'"'"' completions, as the build wrote them, sourced together' '
	for t in seal audit replicate capture; do
		test -s "$EV_BUILDDIR/completions/$t" && "$EV_BUILDDIR/$t/$t" --bash-completion | cmp - "$EV_BUILDDIR/completions/$t" || return 1
		cat "$EV_BUILDDIR/completions/$t" >>completions.bash
	done &&
	bash -c ". ./completions.bash && complete -p seal audit replicate capture" >registered &&
	test "$(grep -c "^complete -F _evidence_[a-z]* [a-z]*$" registered)" = 4
'

test_expect_success 'commands: the tool'"'"'s own, from its table' '
	complete_words seal "" >got &&
	"$SEAL" --help | awk "/^commands:/ { f = 1; next } f && /^  [a-z]/ { print \$1 } f && /^$/ { f = 0 }" >want &&
	for c in $(cat want); do grep -qx "$c" got || { echo "seal $c not completed"; return 1; }; done &&
	complete_words replicate st >got && printf "status\n" >want && test_cmp want got &&
	complete_words audit hi >got && printf "history\n" >want && test_cmp want got
'

test_expect_success 'options: exactly what each command'"'"'s --help shows, for every command of every tool' '
	for t in seal audit replicate capture; do
		for c in $("$EV_BUILDDIR/$t/$t" --help | awk "/^commands:/ { f = 1; next } f && /^  [a-z]/ { print \$1 } f && /^$/ { f = 0 }"); do
			"$EV_BUILDDIR/$t/$t" $c --help | grep -o "^ *\(-[a-zA-Z], \)\?--[a-z0-9-]*" | sed "s/.*--/--/" | sort -u >want &&
			complete_words $t $c -- | sort -u >got &&
			test_cmp want got || { echo "$t $c: its completion and its --help differ"; return 1; }
		done
	done
'

test_expect_success 'values: plan files for capture, hosts from ~/.ssh/config for [HOST:]DIR, files for a KEY, --pool'"'"'s words' '
	mkdir -p plans/sub home/.ssh && touch plans/week.json plans/notes.txt &&
	printf "Host lab2 lab3\n  User me\nHost *.example\nhost backup\n" >home/.ssh/config &&
	(cd plans && bash -c ". ../completions.bash; COMP_WORDS=(capture pin \"\"); COMP_CWORD=2; _evidence_capture; printf \"%s\n\" \"\${COMPREPLY[@]}\" | sort") >got &&
	printf "sub/\nweek.json\n" >want && test_cmp want got &&
	HOME=$PWD/home complete_words replicate push a.tar.zst --to la >got &&
	printf "lab2:\nlab3:\n" >want && test_cmp want got &&
	HOME=$PWD/home complete_words replicate audit --seal S.json b >got &&
	printf "backup:\n" >want && test_cmp want got &&
	touch lab.key && complete_words seal create --sign-key lab. >got &&
	printf "lab.key\n" >want && test_cmp want got &&
	complete_words audit --pool s >got && printf "shared\n" >want && test_cmp want got &&
	complete_words seal verify --max-findings "" >got && test ! -s got
'

test_expect_success 'values of words: each is offered from the option table, the same words the parser takes' '
	complete_words audit history --statistic p9 >got && printf "p95\np99\np99.9\n" >want && test_cmp want got &&
	complete_words audit journal --quantile-rule "" >got &&
	printf "floor-index\nlinear\nnearest-rank\nround-half-up\n" >want && test_cmp want got &&
	complete_words capture run --priority "" >got && printf "high\nnormal\n" >want && test_cmp want got &&
	for rule in floor-index linear nearest-rank round-half-up; do
		test_expect_code 2 "$AUDIT" journal --quantile-rule $rule 2>err &&
		! grep -q "option --quantile-rule" err || return 1
	done &&
	test_expect_code 2 "$AUDIT" journal --quantile-rule median 2>err &&
	grep -qx "audit: option --quantile-rule: expected nearest-rank, floor-index, round-half-up or linear, found .median." err
'

test_done
