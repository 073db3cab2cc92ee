#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every command of every tool names a bad option once, in the tool's own
# words, then its usage: an unknown option, an option without its value
# (no second message from getopt); and TOOL help COMMAND prints exactly
# what COMMAND --help prints, exit 0, while an unknown one is refused. The
# commands are those each tool's --help lists, never a list kept here.
. "$EV_SRCDIR/tests/lib/lib.sh"

# each TOOL PROGRAM COMMAND...: run the checks for every COMMAND of TOOL.
each () {
	tool=$1 program=$2
	shift 2
	for c in "$@"; do
		test_expect_code 2 "$program" $c --no-such-option >/dev/null 2>err &&
		head -n 1 err >first && echo "$tool: unknown option ${Q}--no-such-option${Q}" >expect &&
		test_cmp expect first &&
		sed -n 2p err | contains "^usage: $tool $c" &&
		! grep -q "unrecognized\\|invalid option" err &&
		"$program" help $c >via-help && "$program" $c --help >direct &&
		test_cmp direct via-help || { echo "in: $tool $c"; return 1; }
	done
	test_expect_code 2 "$program" help no-such-command 2>err &&
	grep -qx "$tool: unknown command ${Q}no-such-command${Q}" err
}
Q="'"

for tool in seal audit replicate capture; do
	test_expect_success "$tool: every command its --help lists" '
		program="$EV_BUILDDIR/$tool/$tool" &&
		commands=$(tool_commands "$program") && test -n "$commands" &&
		each $tool "$program" $commands
	'
done

test_expect_success 'an option without its value is named as such' '
	test_expect_code 2 "$SEAL" verify --seal 2>err &&
	head -n 1 err >first && echo "seal: option ${Q}--seal${Q} needs a value" >expect && test_cmp expect first &&
	test_expect_code 2 "$AUDIT" journal --max-findings 2>err &&
	head -n 1 err >first && echo "audit: option ${Q}--max-findings${Q} needs a value" >expect && test_cmp expect first &&
	test_expect_code 2 "$REPLICATE" push -x 2>err &&
	head -n 1 err >first && echo "replicate: unknown option ${Q}-x${Q}" >expect && test_cmp expect first
'

test_done
