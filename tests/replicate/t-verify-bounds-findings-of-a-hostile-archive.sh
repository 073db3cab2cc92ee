#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A hostile archive of 250,000 empty extra members costs seal verify and
# replicate verify a bounded stderr, a bounded receipt and bounded memory,
# while every finding is still counted: --max-findings (default 100 per
# check) caps what is shown and kept, the receipt says how many there were
# and that the rest were not listed, and the extra names past the first
# 65,536 are named as not compared for collisions.
. "$EV_SRCDIR/tests/lib/lib.sh"
Q="'"

# peak_rss_kib COMMAND...: run COMMAND (stdout and stderr to stdout, err) and
# print its peak resident size in KiB; its exit status in status.
peak_rss_kib () {
	python3 - "$@" <<-\PY
	import resource, subprocess, sys
	code = subprocess.call(sys.argv[1:], stdout=open("stdout", "w"), stderr=open("err", "w"))
	open("status", "w").write("%d\n" % code)
	print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
	PY
}

test_expect_success 'setup: a sealed tree, and its archive with 250,000 empty extra members behind it' '
	mkdir t && echo x >t/a && "$SEAL" create t -o out >/dev/null &&
	python3 - <<-\PY
	import io, subprocess, tarfile
	raw = subprocess.run(["zstd", "-dc", "out/archive.tar.zst"], capture_output=True, check=True).stdout
	members = tarfile.open(fileobj=io.BytesIO(raw))
	p = subprocess.Popen(["zstd", "-q", "-1", "-o", "hostile.tar.zst"], stdin=subprocess.PIPE)
	w = tarfile.open(fileobj=p.stdin, mode="w|", format=tarfile.PAX_FORMAT)
	for m in members.getmembers():
	    w.addfile(m, members.extractfile(m) if m.isfile() else None)
	for i in range(250000):
	    extra = tarfile.TarInfo("t/extra%06d" % i)
	    extra.mode = 0o644
	    w.addfile(extra)
	w.close(); p.stdin.close(); assert p.wait() == 0
	PY
'

for tool in seal replicate; do
	if [ $tool = seal ]; then run="$SEAL"; else run="$REPLICATE"; fi
	test_expect_success "$tool verify: 100 extras shown and kept, 250,000 counted, under 64 MiB" '
		kib=$(peak_rss_kib "$run" verify --seal out/SEAL.json --receipt $tool.json hostile.tar.zst) &&
		test "$(cat status)" = 1 &&
		test "$(grep -c "^$tool: extra[0-9]\\{6\\}: member not in the seal (found file)$" err)" = 100 &&
		grep -qx "$tool: extra: 249900 more not shown (--max-findings 100; 250000 in all)" err &&
		test "$(wc -l <err)" = 101 &&
		# AddressSanitizer'"'"'s shadow memory and quarantine are not the tool'"'"'s
		{ grep -q __asan_init "$run" || test "$kib" -lt 65536; } &&
		test "$(wc -c <$tool.json)" -lt 100000 &&
		test "$(json_get $tool.json "d[\"result\"], d[\"facts\"][\"findings_by_check\"], d[\"facts\"][\"max_findings_per_check\"]")" = \
			"fail {${Q}extra${Q}: 250000} 100" &&
		test "$(json_get $tool.json "[c[\"detail\"] for c in d[\"checks\"] if c[\"name\"] == \"extra:more\"]")" = \
			"[${Q}249900 more not shown (--max-findings 100; 250000 in all)${Q}]" &&
		test "$(json_get $tool.json "sum(c[\"name\"].startswith(\"extra:\") for c in d[\"checks\"])")" = 101 &&
		json_get $tool.json "d[\"facts\"][\"coverage\"][\"not_checked\"][-1]" >last &&
		echo "collisions by case or Unicode normalization of 184464 extra members past the first 65536: each is an extra finding already" >expect &&
		test_cmp expect last
	'
done

test_expect_success '--max-findings 3 shows three, 0 shows every one; the counts do not change' '
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --max-findings 3 --receipt three.json \
		hostile.tar.zst >/dev/null 2>err &&
	test "$(wc -l <err)" = 4 && grep -qx "replicate: extra: 249997 more not shown (--max-findings 3; 250000 in all)" err &&
	test "$(json_get three.json "d[\"facts\"][\"findings_by_check\"][\"extra\"]")" = 250000 &&
	test_expect_code 1 "$SEAL" verify --seal out/SEAL.json --max-findings 0 hostile.tar.zst >/dev/null 2>err &&
	test "$(wc -l <err)" = 250000 &&
	test_expect_code 2 "$SEAL" verify --seal out/SEAL.json --max-findings -1 hostile.tar.zst 2>err &&
	grep -q "^seal: option --max-findings: expected 0-1000000, found ${Q}-1${Q}$" err
'

test_done
