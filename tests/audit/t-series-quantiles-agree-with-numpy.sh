#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# audit series: every quantile rule against values computed independently,
# at N = 1, 2, 999, 1000, 1001, 5000 and 10^6, with ties and with huge
# outliers, and without ties (where a rank off by one shows): linear
# against numpy (Debian's python3-numpy); nearest-rank, floor-index and
# round-half-up against their definitions in Python's exact integers, and
# nearest-rank against numpy's inverted_cdf wherever numpy's rank, taken in
# double, is the exact one (where it is not, numpy's answer is the element
# its double rank names: the difference is numpy's); the mean against the
# exact sum; min and max. The binary series and its CSV twin agree.
. "$EV_SRCDIR/tests/lib/lib.sh"

NUMPY=/usr/bin/python3
$NUMPY -c "import numpy" 2>/dev/null || test_skip_all "Debian's python3-numpy is not installed (/usr/bin/python3)"

test_expect_success 'setup: series of every size, with ties and outliers, binary and CSV' '
	$NUMPY - <<-\PY
	import numpy as np, struct
	rng = np.random.default_rng(7)
	for n in (1, 2, 999, 1000, 1001, 5000, 1000000):
	    v = 1800 + rng.integers(0, 40, n, dtype=np.uint64)          # ties everywhere
	    v[rng.integers(0, n, max(1, n // 997))] = 476819000          # huge outliers
	    if n >= 1000:
	        v[:7] = 2**40 + 11                                        # and beyond 2^32
	    if n % 2 == 0:                                                # 2, 1000, 10^6: no ties at all
	        v = (rng.permutation(n) * 7 + 1800).astype(np.uint64)
	        v[rng.integers(0, n, max(1, n // 997))] += 476819000
	    head = b"EVSERIES" + struct.pack("<II", 1, 80) + b"CLOCK_MONOTONIC_RAW".ljust(32, b"\0")
	    head += struct.pack("<QQQQ", 10**9, 0, n, 0)
	    open("s%d.bin" % n, "wb").write(head + v.astype("<u8").tobytes())
	    with open("s%d.csv" % n, "w") as f:
	        f.write("# evidence-series/1 clock=CLOCK_MONOTONIC_RAW ticks_per_second=1000000000 count=%d\n" % n)
	        f.write("\n".join(map(str, v.tolist())) + "\n")
	PY
'

for n in 1 2 999 1000 1001 5000 1000000; do
	test_expect_success "N = $n: every rule agrees with its independent computation" "
		for rule in nearest-rank floor-index round-half-up linear; do
			\"\$AUDIT\" series --rule \$rule --quantile 0 --quantile 25 --quantile 50 --quantile 90 \
				--quantile 95 --quantile 99 --quantile 99.9 --quantile 99.99 --quantile 99.999 \
				--quantile 100 --receipt r-$n-\$rule.json --json s$n.bin >out-$n-\$rule.json &&
			\"\$AUDIT\" series --rule \$rule --quantile 50 --quantile 99.9 --receipt c-$n-\$rule.json --json \
				s$n.csv >csv-$n-\$rule.json || return 1
		done &&
		\$NUMPY - $n <<-\\PY
		import json, sys, numpy as np
		n = int(sys.argv[1])
		v = np.fromfile('s%d.bin' % n, dtype='<u8', offset=80)
		s = np.sort(v)
		ints = [int(x) for x in s]
		def frac(p):                      # the percentage as an exact fraction
		    whole, _, dec = p.partition('.')
		    return int(whole + dec), 100 * 10 ** len(dec)
		for rule in ('nearest-rank', 'floor-index', 'round-half-up', 'linear'):
		    d = json.load(open('out-%d-%s.json' % (n, rule)))['facts']['recomputed']
		    assert d['count'] == n and d['min'] == ints[0] and d['max'] == ints[-1], d
		    assert int(d['sum']) == sum(ints), (d['sum'], sum(ints))
		    def decimal9(num, den):           # exact, rounded half up, as evidence writes a fraction
		        q, r = divmod(num * 10 ** 9, den)
		        q += 2 * r >= den
		        return '%d.%09d' % (q // 10 ** 9, q % 10 ** 9)
		    assert d['mean'] == decimal9(sum(ints), n), (d['mean'], decimal9(sum(ints), n))
		    for p, got in d['quantiles'].items():
		        num, den = frac(p[1:])
		        q = float(p[1:])
		        if rule == 'linear':
		            want = float(np.percentile(v.astype(np.float64), q, method='linear'))
		            assert abs(float(got) - want) <= 1e-9 * max(1.0, abs(want)), (rule, p, got, want)
		            # and exactly: rank (n - 1) p between two order statistics
		            lo, rem = divmod((n - 1) * num, den)
		            a, b = ints[lo], ints[min(lo + 1, n - 1)]
		            exact = (a * den + (b - a) * rem, den)
		            assert got == (a if rem == 0 or a == b else decimal9(*exact)), (p, got, exact)
		            continue
		        if rule == 'nearest-rank':
		            want = ints[max(1, -(-n * num // den)) - 1]
		            theirs = int(np.percentile(v, q, method='inverted_cdf'))
		            float_rank = max(1, int(np.ceil(q / 100 * n)))
		            assert theirs == want or theirs == ints[float_rank - 1], (n, p, theirs, want)
		        elif rule == 'floor-index':
		            want = ints[min(n - 1, n * num // den)]
		        else:
		            want = ints[max(1, min(n, (2 * n * num + den) // (2 * den))) - 1]
		        assert got == want, (n, rule, p, got, want)
		    c = json.load(open('csv-%d-%s.json' % (n, rule)))['facts']['recomputed']
		    assert c['quantiles'] == {k: d['quantiles'][k] for k in c['quantiles']}, (c, d)
		PY
	"
done

test_done
