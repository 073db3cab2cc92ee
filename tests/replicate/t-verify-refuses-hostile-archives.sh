#!/bin/sh
# replicate verify refuses what an archive must never carry: absolute names,
# '..', backslashes, symbolic and hard links (escapes included), devices,
# FIFOs, pax path records that say another name than the header, names
# that collide by case, and a respelled duplicate. Each is named and the
# run exits 1; since nothing is ever extracted, nothing appears outside the
# receipts, which find / before and after confirms.
. "$EV_SRCDIR/tests/lib/lib.sh"

escape=evidence-escape-$$
SQ="'"

hostile () { # NAME OP ARGS...: out/archive.tar.zst with one hostile change
	name=$1
	shift
	python3 "$SURGERY" out/archive.tar.zst "h-$name.tar.zst" "$@"
}

# refused NAME 'expected stderr lines...': exit 1 and exactly these lines.
refused () {
	name=$1
	shift
	printf "%s\n" "$@" >expect &&
	test_expect_code 1 "$REPLICATE" verify --seal out/SEAL.json --receipt "r-$name.json" \
		"h-$name.tar.zst" >/dev/null 2>actual &&
	test_cmp expect actual
}

# The file system as find sees it, without what other tests and this one
# may write: /tmp and friends, the build and source trees, automake logs.
snapshot () {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path "$trash" -o -path "$EV_BUILDDIR" \
		-o -path "$EV_SRCDIR" -o -path "${TMPDIR:-/tmp}" \) -prune -o -printf "%p %y %s\n" 2>/dev/null |
		grep -v "\.log \|\.trs " | sort
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

test_expect_success 'find / before the hostile archives are verified' '
	snapshot >before && test -s before
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

test_expect_success 'find / after: nothing was written anywhere, nothing escaped' '
	snapshot >after && test_cmp before after &&
	test_must_be_absent "/$escape" /etc/passwd.new &&
	ls r-*.json >receipts && test "$(wc -l <receipts)" -eq 12
'

test_done
