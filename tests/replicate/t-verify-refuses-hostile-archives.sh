#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# replicate verify refuses what an archive must never carry: absolute names,
# '..', backslashes, symbolic and hard links (escapes included), devices,
# FIFOs, pax path records that say another name than the header, names
# that collide by case, and a respelled duplicate. Each is named and the
# run exits 1; since nothing is ever extracted, nothing is written outside
# the receipts: each run is traced (strace), and every system call that
# could create, change or remove a file names a path in the test's own
# directory. The proof is the tool's own behaviour, not a quiet machine.
. "$EV_SRCDIR/tests/lib/lib.sh"

escape=evidence-escape-$$
SQ="'"

hostile () { # NAME OP ARGS...: out/archive.tar.zst with one hostile change
	name=$1
	shift
	python3 "$SURGERY" out/archive.tar.zst "h-$name.tar.zst" "$@"
}

command -v strace >/dev/null || test_skip_all "strace is not installed (Debian package strace)"

# refused NAME 'expected stderr lines...': exit 1 and exactly these lines,
# the run traced into trace-NAME.
refused () {
	name=$1
	shift
	printf "%s\n" "$@" >expect &&
	# LeakSanitizer cannot run under ptrace: leaks are looked for elsewhere
	test_expect_code 1 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -qq -o "trace-$name" -e signal=none \
		-e trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,rmdir,truncate,chmod,fchmodat,chown,fchownat,mknod,mknodat \
		"$REPLICATE" verify --seal out/SEAL.json --receipt "r-$name.json" "h-$name.tar.zst" >/dev/null 2>actual &&
	test_cmp expect actual
}

# written_outside TRACE...: the paths outside this directory that a traced
# run opened for writing, created, renamed, linked, removed or changed.
written_outside () {
	python3 - "$trash" "$@" <<-\PY
	import os, re, sys
	here = os.path.realpath(sys.argv[1])
	bad = []
	for trace in sys.argv[2:]:
	    for line in open(trace):
	        m = re.match(r"\d+ +(\w+)\((.*)\) += (-?\d+)", line)
	        if not m or int(m.group(3)) < 0:
	            continue                       # failed calls changed nothing
	        call, args = m.group(1), m.group(2)
	        if call in ("open", "openat", "openat2") and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", args):
	            continue                       # read only
	        # each path argument, joined to the directory its descriptor names (-y)
	        for dirfd, path in re.findall(r"(?:(?:AT_FDCWD(?:<[^>]*>)?|\d+<([^>]*)>), )?\"([^\"]*)\"", args):
	            full = os.path.normpath(os.path.join(dirfd or here, path))
	            if not (full + "/").startswith(here + "/"):
	                bad.append("%s: %s %s" % (trace, call, full))
	for b in bad:
	    print(b)
	PY
}

test_expect_success 'setup: a sealed campaign and its hostile twins' '
	make_campaign c && "$SEAL" create c -o out >/dev/null &&
	hostile absolute rename runs/run.sh "/$escape" &&
	hostile dotdot rename runs/run.sh "c/../../../../../../../../$escape" &&
	hostile backslash rename runs/run.sh "c/runs\\..\\..\\$escape" &&
	hostile symlink symlink runs/run.sh / &&
	python3 "$SURGERY" h-symlink.tar.zst h-through-link.tar.zst add "run.sh/$escape" "written through the link" &&
	hostile hardlink hardlink runs/run.sh /etc/passwd &&
	hostile device device runs/run.sh &&
	hostile fifo fifo runs/run.sh &&
	hostile pax-escape pax-path runs/run.sh "c/../../../$escape" &&
	hostile pax-other pax-path runs/run.sh c/runs/B-1/empty.log &&
	hostile case add runs/RUN.sh "#!/bin/sh" &&
	hostile respelled add "summary/$(printf "re\\314\\201sume\\314\\201").txt" "p99 1" &&
	for f in out/archive.tar.zst h-*.tar.zst; do test -s "$f" || return 1; done
'

test_expect_success 'an absolute name' '
	refused absolute "replicate: /$escape: is absolute" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_expect_success 'a name that climbs out with ..' '
	refused dotdot "replicate: c/../../../../../../../../$escape: has a ${SQ}.${SQ} or ${SQ}..${SQ} component" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_expect_success 'a name with backslashes (a separator elsewhere)' '
	refused backslash "replicate: c/runs\\x5C..\\x5C..\\x5C$escape: holds a backslash" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_expect_success 'a symbolic link in place of a file, and a file written through it' '
	refused symlink "replicate: runs/run.sh: archive holds a link, device or FIFO, which is never accepted (expected file, found symlink)" &&
	refused through-link "replicate: runs/run.sh: archive holds a link, device or FIFO, which is never accepted (expected file, found symlink)" \
		"replicate: run.sh/$escape: member not in the seal (found file)"
'

test_expect_success 'a hard link to a file outside the tree' '
	refused hardlink "replicate: runs/run.sh: archive holds a link, device or FIFO, which is never accepted (expected file, found hardlink)"
'

test_expect_success 'a device node and a FIFO' '
	refused device "replicate: runs/run.sh: archive holds a link, device or FIFO, which is never accepted (expected file, found device)" &&
	refused fifo "replicate: runs/run.sh: archive holds a link, device or FIFO, which is never accepted (expected file, found fifo)"
'

test_expect_success 'a pax path record naming a way out, or another member, under an innocent header name' '
	refused pax-escape "replicate: c/../../../$escape: the member${SQ}s pax path record names another file than its tar header (expected c/../../../$escape, found c/runs/run.sh)" \
		"replicate: c/../../../$escape: has a ${SQ}.${SQ} or ${SQ}..${SQ} component" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)" &&
	refused pax-other "replicate: c/runs/B-1/empty.log: the member${SQ}s pax path record names another file than its tar header (expected c/runs/B-1/empty.log, found c/runs/run.sh)" \
		"replicate: runs/B-1/empty.log: member appears more than once" \
		"replicate: runs/run.sh: missing from the archive (expected file, found nothing)"
'

test_expect_success 'a name that collides with a sealed one by case' '
	refused case "replicate: runs/RUN.sh: member not in the seal (found file)" \
		"replicate: runs/run.sh: two members name the same file where case or Unicode normalization is ignored (macOS, Windows) (found runs/run.sh and runs/RUN.sh)"
'

test_expect_success 'a sealed name respelled in NFD arrives as a second copy of it' '
	refused respelled "replicate: summary/$(printf "r\\303\\251sum\\303\\251").txt: member appears more than once"
'

test_expect_success 'traced: no run wrote, created or removed anything outside this directory; nothing escaped' '
	ls trace-* >traces && test "$(wc -l <traces)" -eq 12 &&
	written_outside trace-* >outside && test_cmp /dev/null outside &&
	grep -q "r-absolute.json" trace-absolute &&
	test_must_be_absent "/$escape" /etc/passwd.new &&
	ls r-*.json >receipts && test "$(wc -l <receipts)" -eq 12
'

test_expect_success 'the trace check can fail: a run that writes outside is caught' '
	strace -f -y -qq -o trace-probe -e signal=none -e trace=openat sh -c ": >/tmp/evidence-probe-$$; rm -f /tmp/evidence-probe-$$" &&
	written_outside trace-probe >outside && grep -q "openat /tmp/evidence-probe-$$" outside
'

test_done
