#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# seal create refuses what it cannot represent safely, names every offending
# member in one run, and writes nothing at all.
. "$EV_SRCDIR/tests/lib/lib.sh"

# refused TREE 'expected stderr lines...': create fails with exit 2, prints
# exactly these lines, and leaves no output and no temporary behind.
refused () {
	tree=$1
	shift
	printf "%s\n" "$@" >expect &&
	test_expect_code 2 "$SEAL" create "$tree" -o out 2>actual >stdout &&
	test_cmp expect actual &&
	test ! -s stdout &&
	test_must_be_absent out &&
	no_temporaries .
}

test_expect_success 'a symbolic link, even to a file inside the tree' '
	make_campaign t && ln -s run.sh t/runs/link &&
	refused t "seal: refused: runs/link: is a symbolic link; seal never follows or stores links (copy the target in, or move the link out of the tree)" \
		"seal: t: 1 member refused; nothing was written"
'

test_expect_success 'a FIFO and a socket' '
	make_campaign f && mkfifo f/fifo &&
	python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"f/sock\")" &&
	refused f "seal: refused: fifo: is a FIFO; only regular files and directories can be sealed" \
		"seal: refused: sock: is a socket; only regular files and directories can be sealed" \
		"seal: f: 2 members refused; nothing was written"
'

test_expect_success 'a device node (needs root to make one)' '
	{ [ "$(id -u)" = 0 ] || test_skip_case "not root: only root makes a device node"; } &&
	make_campaign d && mknod d/null c 1 3 &&
	refused d "seal: refused: null: is a device node; only regular files and directories can be sealed" \
		"seal: d: 1 member refused; nothing was written"
'

test_expect_success 'setuid, setgid and sticky bits' '
	make_campaign s && chmod 4755 s/runs/run.sh && chmod 2750 s/observe && chmod 1777 s/summary &&
	refused s "seal: refused: observe: has a setuid, setgid or sticky bit, which seal refuses to carry (found 2750)" \
		"seal: refused: runs/run.sh: has a setuid, setgid or sticky bit, which seal refuses to carry (found 4755)" \
		"seal: refused: summary: has a setuid, setgid or sticky bit, which seal refuses to carry (found 1777)" \
		"seal: s: 3 members refused; nothing was written"
'

test_expect_success 'names that are not valid UTF-8, hold control characters or a backslash' '
	make_campaign n && : >"n/$(printf "bad\377")" && : >"n/$(printf "tab\there")" && : >"n/back\\slash" &&
	refused n "seal: refused: back\\x5Cslash: holds a backslash" \
		"seal: refused: bad\\xFF: is not valid UTF-8" \
		"seal: refused: tab\\x09here: holds a control character" \
		"seal: n: 3 members refused; nothing was written"
'

test_expect_success 'names that differ only in case, and names not in NFC (an archive would not give them back)' '
	make_campaign c && : >c/runs/README && : >c/runs/readme &&
	: >"c/summary/$(printf "Stra\303\237e")" && : >c/summary/STRASSE &&
	: >"c/summary/$(printf "cafe\314\201")" &&
	refused c "seal: refused: summary/$(printf "cafe\314\201"): is not in Unicode normalization form C (NFC) (found summary/cafe\xCC\x81)" \
		"seal: refused: runs/readme: two members name the same file where case or Unicode normalization is ignored (macOS, Windows) (found runs/readme and runs/README)" \
		"seal: refused: summary/$(printf "Stra\303\237e"): two members name the same file where case or Unicode normalization is ignored (macOS, Windows) (found summary/Stra\xC3\x9Fe and summary/STRASSE)" \
		"seal: c: 3 members refused; nothing was written"
'

test_expect_success '--refuse-writable refuses group- and world-writable members, only when asked' '
	make_campaign w && chmod 664 w/summary/*.txt && chmod 777 w/runs &&
	"$SEAL" create w -o allowed >/dev/null &&
	printf "%s\n" \
		"seal: refused: runs: is group- or world-writable and --refuse-writable is set (found 0777)" \
		"seal: w: 1 member refused; nothing was written" >expect &&
	chmod 644 w/summary/*.txt &&
	test_expect_code 2 "$SEAL" create --refuse-writable w -o out 2>actual &&
	test_cmp expect actual && test_must_be_absent out && no_temporaries .
'

test_expect_success 'an unreadable file (checked as an unprivileged user when run as root)' '
	make_campaign u && chmod 000 u/runs/A-1/series/send.csv &&
	printf "%s\n" "seal: refused: runs/A-1/series/send.csv: cannot be read (found Permission denied)" \
		"seal: u: 1 member refused; nothing was written" >expect &&
	if [ "$(id -u)" = 0 ]; then
		mkdir -p unpriv && chown -R nobody unpriv u && chmod 755 . &&
		test_expect_code 2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$SEAL" create u -o unpriv/out 2>actual
	else
		test_expect_code 2 "$SEAL" create u -o unpriv/out 2>actual
	fi &&
	test_cmp expect actual && test_must_be_absent unpriv/out
'

test_expect_success 'every refusal in one tree is reported in one run' '
	make_campaign all && ln -s x all/l1 && mkfifo all/p1 && chmod 4755 all/runs/run.sh &&
	test_expect_code 2 "$SEAL" create all -o out 2>actual &&
	test "$(grep -c "^seal: refused: " actual)" -eq 3 &&
	tail -n 1 actual >last && echo "seal: all: 3 members refused; nothing was written" >expect &&
	test_cmp expect last && test_must_be_absent out
'

test_done
