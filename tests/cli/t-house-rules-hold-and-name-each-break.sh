#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The house rules of doc/design.md run as a test (tests/cli/house-rules.py):
# lib includes no tool, no tool includes another, each lib room includes
# only the rooms and the libraries its README allows, no two library files
# include one another (through others or not, in a room's sub-folders too),
# a parts header is included only from its own folder, nothing below
# lib/cli prints, each format
# string is spelled in one file's code, in the library (capture's too),
# and named in doc/design.md's owner table on its file's row,
# every function a tool exports carries its prefix, a function over 100
# lines says above it why it is kept whole (a reason removed is named,
# and one left above a short function),
# a command's options are switched on by name, never a bare letter,
# only lib/process runs a program a document names (a tool that execs, a
# library call whose program is not said to be the user's, are named), every source file carries its SPDX licence line, no
# script under pipefail ends a pipe in head. The
# tree holds them all; a copy with one break of
# each rule names that break, and a format named in a comment is no break.
. "$EV_SRCDIR/tests/lib/lib.sh"

RULES="$EV_SRCDIR/tests/cli/house-rules.py"

test_expect_success 'the tree holds every house rule' '
	python3 "$RULES" "$EV_SRCDIR" >out 2>&1 &&
	test ! -s out
'

test_expect_success 'each rule broken once in a copy: each break named, exit 1' '
	mkdir t && for d in lib seal audit replicate capture doc; do cp -R "$EV_SRCDIR/$d" t/; done &&
	echo "#include \"audit/audit.h\"" >>t/lib/core/status.c &&
	echo "#include \"audit/audit.h\"" >>t/seal/main.c &&
	echo "#include \"lib/fix/fixmsg.h\"" >>t/lib/stats/series.c &&
	echo "#include <sqlite3.h>" >>t/lib/stats/series.c &&
	echo "#include \"lib/core/json.h\"" >>t/lib/core/text.c &&
	echo "#include \"lib/usecase/seal/seal_create.h\"" >>t/lib/usecase/seal/seal_outdir.c &&
	echo "#include \"lib/usecase/audit/journal/parts.h\"" >>t/lib/usecase/audit/campaign/audit_campaign_runs.c &&
	printf "void ev_noise(void)\n{\n\tfprintf(stderr, \"noise\");\n}\n" >>t/lib/core/path.c &&
	echo "static const char *again = \"evidence-run/1\";" >>t/audit/series.c &&
	echo "/* \"evidence-seal/1\", named in a comment */" >>t/replicate/check.c &&
	echo "static const char *samples = \"evidence-tcp-samples/1\";" >>t/capture/leases.c &&
	sed -i "s/(\`evidence-status\/1\`)/(the inventory)/" t/doc/design.md &&
	printf "int status_count(void)\n{\n\treturn 0;\n}\n" >>t/replicate/status.c &&
	sed -i "/SPDX-License-Identifier/d" t/audit/compare.c &&
	sed -i "s/Kept whole: one pass over one archive/One pass over one archive/" t/lib/archive/archive_reader.c &&
	printf "/* Kept whole: it reads better. */\nint capture_short(void)\n{\n\treturn 0;\n}\n" >>t/capture/run.c &&
	sed -i "s/case CAPTURE_PIN_OPT_OUTPUT:/case \\x27o\\x27:/" t/capture/pin.c &&
	printf "void capture_spawn(char **argv)\n{\n\texecv(argv[0], argv);\n}\n" >>t/capture/pin.c &&
	sed -i "s|/\* program: /bin/sh, fixed in the code.*|/* the watcher */|" t/lib/core/scratch.c &&
	mkdir t/scripts && printf "#!/bin/bash\n# SPDX-License-Identifier: Apache-2.0\nset -o pipefail\nsort big \174 head -n 5\n" >t/scripts/tail-of-it &&
	test_expect_code 1 python3 "$RULES" t >out &&
	grep -q "^lib-includes-no-tool: lib/core/status.c:[0-9]*: includes audit/$" out &&
	grep -q "^tool-includes-no-tool: seal/main.c:[0-9]*: seal includes audit/$" out &&
	grep -q "^room-includes: lib/stats/series.c:[0-9]*: lib/stats includes lib/fix (its README allows core)$" out &&
	grep -q "^room-includes: lib/stats/series.c:[0-9]*: lib/stats includes libsqlite3 (<sqlite3.h>; its README allows no library)$" out &&
	grep -q "^lib-prints-nothing: lib/core/path.c:[0-9]*: fprintf(stderr, \"noise\");$" out &&
	grep -q "^include-circle: lib/core/json <-> lib/core/text include one another; split what they share into a file below both$" out &&
	grep -q "^include-circle: lib/usecase/seal/seal_create <-> lib/usecase/seal/seal_outdir include one another; split" out &&
	grep -q "^parts-stay-home: lib/usecase/audit/campaign/audit_campaign_runs.c:[0-9]*: includes lib/usecase/audit/journal/parts.h, the parts of lib/usecase/audit/journal/ (only its own folder.s files may)$" out &&
	grep -q "^format-owner: \"evidence-run/1\" is spelled in audit/series.c, lib/campaign/run.h$" out &&
	grep -q "^format-in-lib: capture/leases.c: spells \"evidence-tcp-samples/1\";" out &&
	grep -q "^format-owner: \"evidence-tcp-samples/1\" is spelled in capture/leases.c, lib/usecase/capture/run_record.c$" out &&
	grep -q "^format-table: \"evidence-tcp-samples/1\" (spelled in capture/leases.c)" out &&
	grep -q "^format-in-lib: audit/series.c: spells \"evidence-run/1\"; a format is the library.s (a lib room builds it, the tool prints it)$" out &&
	grep -q "^format-table: \"evidence-run/1\" (spelled in audit/series.c): no row of doc/design.md.s \"Formats and their owners\" names .evidence-run/1. and audit/series$" out &&
	grep -q "^format-table: \"evidence-status/1\" (spelled in lib/usecase/replicate/replicate_status.c): no row" out &&
	grep -q "^long-function: lib/archive/archive_reader.c:[0-9]*: ev_archive_check_tapped() is [0-9]* lines; split it, or say above it why it is kept whole (\"Kept whole: ...\")$" out &&
	grep -q "^long-function: capture/run.c:[0-9]*: capture_short() is 1 lines; its reason to be kept whole is stale (remove it)$" out &&
	grep -q "^option-named: capture/pin.c:[0-9]*: case .o.: out = optarg; break;: an option is switched on by its name (TOOL_COMMAND_OPT_NAME), not a bare letter$" out &&
	grep -q "^exec-only-in-process: capture/pin.c:[0-9]*: a tool runs no program itself (the library does: lib/process for a plan.s)$" out &&
	grep -q "^exec-only-in-process: lib/core/scratch.c:[0-9]*: outside lib/process, a program comes from the command line, PATH, /proc/self/exe or the code, said above the call" out &&
	grep -q "^tool-prefix: replicate/status.c:[0-9]*: replicate exports status_count() without the prefix replicate_$" out &&
	grep -q "^spdx: audit/compare.c:1: no \"SPDX-License-Identifier: Apache-2.0\" in its first three lines$" out &&
	grep -q "^pipe-ends-early: scripts/tail-of-it:4: sort big [|] head -n 5$" out &&
	test "$(wc -l <out)" = 23
'

test_done
