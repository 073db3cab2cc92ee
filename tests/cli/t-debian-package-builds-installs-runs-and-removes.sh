#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Debian package, as a lab host gets it: built from this tree with
# dpkg-buildpackage -us -uc (evidence, libevidence0, libevidence-dev),
# lintian clean (no error, no warning), installed with apt-get install
# ./...deb on this machine; the installed tools run the demo end to end,
# the example builds against the installed library with pkg-config, the
# lease directory, completion and samples are where they belong; removed,
# nothing of it is left but its configuration, and purged, not even that.
# Built once, from the plain build's suite: the sanitizers' and
# distcheck's skip it.
. "$EV_SRCDIR/tests/lib/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "installing a package needs root"
[ -d "$EV_SRCDIR/debian" ] || test_skip_all "no debian/ in this source tree (a dist tarball)"
for tool in dpkg-buildpackage dh lintian apt-get; do
	command -v $tool >/dev/null || test_skip_all "$tool is not installed (apt-get install dpkg-dev debhelper lintian)"
done
if nm -D --undefined-only "$EV_BUILDDIR/lib/api/.libs/libevidence.so.0" 2>/dev/null | grep -c __asan >/dev/null; then
	test_skip_all "a sanitizer build: the package is built once, by the plain build's suite"
fi
if dpkg-query -W -f='${Status}' evidence 2>/dev/null | grep -q installed; then
	test_skip_all "a package named evidence is installed already; this test will not touch it"
fi

PKGS="evidence libevidence0 libevidence-dev"
trap 'dpkg --purge $PKGS >/dev/null 2>&1' EXIT

test_expect_success 'dpkg-buildpackage -us -uc builds the three packages from a copy of this tree' '
	mkdir -p src/evidence-0.1.0 &&
	if [ -d "$EV_SRCDIR/.git" ]; then
		git -C "$EV_SRCDIR" ls-files -z | (cd "$EV_SRCDIR" && tar --null -T - -cf -) | tar -C src/evidence-0.1.0 -xf -
	else
		(cd "$EV_SRCDIR" && tar --exclude=./build --exclude="./build*" -cf - .) | tar -C src/evidence-0.1.0 -xf -
	fi &&
	# noddebs: no -dbgsym packages, whose xz-compressed debug sections
	# nothing here installs or lints and which cost a tenth of the build.
	# noopt: -O0 (dpkg-buildflags drops _FORTIFY_SOURCE with it), a third
	# less compiling; this test proves the packaging (files, dependencies,
	# lintian, install, run, remove); the optimised build and its warnings
	# are proven by the plain build, which the suite runs on
	(cd src/evidence-0.1.0 && DEB_BUILD_OPTIONS="noddebs noopt${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
		dpkg-buildpackage -us -uc -b -j"$(nproc)") >build.log 2>&1 ||
		{ tail -n 30 build.log; false; } &&
	for p in $PKGS; do test -f src/${p}_0.1.0_*.deb || { echo "no $p package"; return 1; }; done
'

test_expect_success 'lintian: no error and no warning' '
	lintian --fail-on error,warning src/evidence_0.1.0_*.changes >lintian.out 2>&1 ||
		{ cat lintian.out; false; } &&
	! grep -q "^[EW]: " lintian.out
'

test_expect_success 'apt-get install ./...deb: the tools, the library, its header, completion, samples, the lease directory' '
	(cd src && apt-get install -y -qq --no-install-recommends ./evidence_0.1.0_*.deb ./libevidence0_0.1.0_*.deb \
		./libevidence-dev_0.1.0_*.deb) >install.log 2>&1 || { tail -n 20 install.log; false; } &&
	/usr/bin/seal --version | grep -q "^seal (evidence) 0.1.0$" &&
	for t in seal audit replicate capture; do
		test -x /usr/bin/$t && test -s /usr/share/bash-completion/completions/$t &&
		man -w $t >/dev/null || return 1
	done &&
	grep -q "^d /run/evidence 1777 root root -$" /usr/lib/tmpfiles.d/evidence.conf &&
	if command -v systemd-tmpfiles >/dev/null; then test "$(stat -c %a /run/evidence)" = 1777; fi &&
	test -f /etc/evidence/pools && test -f /etc/evidence/config &&
	/usr/bin/seal config >cfg && grep -q "^files read: /etc/evidence/config" cfg &&
	test -f /usr/include/evidence/evidence.h && pkg-config --exists evidence &&
	test -f /usr/share/doc/evidence/formats.md.gz
'

test_expect_success 'the installed tools run the demo end to end' '
	EVIDENCE_DEMO_DIR=$PWD/demo "$EV_SRCDIR/scripts/demo.sh" --installed /usr/bin >demo.out 2>demo.err ||
		{ tail -n 30 demo.out demo.err; false; } &&
	grep -q "^demo: done; outputs are in $PWD/demo$" demo.out
'

test_expect_success 'the example builds against the installed library with pkg-config, and verifies the demo'"'"'s archive' '
	cc -Wall -Werror -o verify-archive /usr/share/doc/libevidence-dev/examples/verify-archive.c $(pkg-config --cflags --libs evidence) &&
	./verify-archive demo/sealed/SEAL.json demo/sealed/archive.tar.zst demo/sealed/receipt.json >out &&
	grep -q "^demo/sealed/archive.tar.zst: 0 findings against demo/sealed/SEAL.json (libevidence 0.1.0)$" out &&
	ldd verify-archive | grep -c "libevidence.so.0 => /\(usr/\)\?lib/" >/dev/null
'

test_expect_success 'removed: nothing left but the configuration; purged: not even that' '
	dpkg -L $PKGS | sort -u >files &&
	apt-get remove -y -qq $PKGS >remove.log 2>&1 &&
	while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] || continue
		case $f in /etc/evidence/*) ;; *) echo "left after remove: $f"; return 1 ;; esac
	done <files &&
	test -f /etc/evidence/pools &&
	dpkg --purge $PKGS >purge.log 2>&1 &&
	while read -r f; do
		if [ -f "$f" ] || [ -L "$f" ]; then echo "left after purge: $f"; return 1; fi
	done <files &&
	test_must_be_absent /etc/evidence
'

test_done
