# bench/lib.sh: what the benchmarks share, sourced by bench/seal,
# bench/replicate and bench/audit-journal. Sets top, build, dir and bench,
# and defines need, measure, sha256_rate; campaign_tree generates the
# campaign-shaped tree of bench/seal and bench/replicate once.
#
#   . bench/lib.sh "$@"      (arguments: [BUILDDIR] ...)

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build/plain}" && pwd)
dir=${BENCH_DIR:-/tmp/evidence-bench}
bench=$(basename "$0")

need () { # need TOOL...: each is on PATH, or say which package is missing
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "bench/$bench: $tool missing" >&2; exit 2; }
	done
}
need /usr/bin/time openssl

mkdir -p "$dir"

# campaign_tree SCALE_MIB: sets tree, generating it the first time.
campaign_tree () {
	scale=$1
	tree=$dir/campaign-$scale
	if [ ! -d "$tree" ]; then
		cc -O2 -o "$dir/gen-campaign" "$top/bench/gen-campaign.c"
		echo "bench/$bench: generating a ${scale} MiB campaign-shaped tree in $tree"
		"$dir/gen-campaign" "$tree.tmp" "$scale"
		mv "$tree.tmp" "$tree"
	fi
}

# measure NAME COMMAND: best of two runs; sets T_NAME (s) and M_NAME (KiB).
# Each run starts from an empty $dir/out, after sync: seal and replicate
# fsync their outputs, and on ext4 an fsync waits for every dirty page.
measure () {
	local name=$1 cmd=$2 best_t="" best_m="" t m i
	for i in 1 2; do
		rm -rf "$dir/out"
		mkdir -p "$dir/out"
		sync
		/usr/bin/time -f '%e %M' -o "$dir/time.txt" bash -c "$cmd" >/dev/null
		read -r t m <"$dir/time.txt"
		if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_m=$m; fi
	done
	printf -v "T_$name" '%s' "$best_t"
	printf -v "M_$name" '%s' "$best_m"
}

# sha256_rate: bytes/s of `openssl speed -evp sha256` on one core (16 KiB
# blocks; openssl prints thousands of bytes per second in its last column).
sha256_rate () {
	local kbps
	kbps=$(openssl speed -evp sha256 -bytes 16384 -seconds 3 2>/dev/null | awk '/^sha256/ {print $NF}' | tr -d k)
	awk "BEGIN{print $kbps * 1000}"
}

# measure_extracting_checkers SEALDIR: what a user would run to check an
# archive without evidence's tools, on SEALDIR's archive.tar.zst; sets
#   T_va/M_va  zstd -dc | tar -x into a scratch directory, then sha256sum -c
#   T_vb/M_vb  zstd -dc | bsdtar -cf - --format=mtree (type, mode, size, sha256)
measure_extracting_checkers () {
	local sealed=$1
	python3 - "$sealed/SEAL.json" "$(basename "$tree")" >"$dir/sums" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["members"]:
    if m["type"] == "file":
        print(m["sha256"] + "  " + sys.argv[2] + "/" + m["path"])
PY
	measure va "zstd -dc '$sealed/archive.tar.zst' | tar -x -C '$dir/out' && cd '$dir/out' && sha256sum --quiet -c '$dir/sums'"
	measure vb "zstd -dc '$sealed/archive.tar.zst' | bsdtar -cf - --format=mtree --options='!all,type,mode,size,sha256' @-"
}
