# SPDX-License-Identifier: Apache-2.0
# bench/lib.sh: what the benchmarks share, sourced by every bench. Sets
# top, build, dir, bench and cores, and defines need, measure, the floors
# (floor_files, floor_stream) and machine_line; campaign_tree generates
# the campaign-shaped tree of bench/seal and bench/replicate once.
#
#   . bench/lib.sh "$@"      (arguments: [BUILDDIR] ...)

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build/plain}" && pwd)
export EVIDENCE_DATADIR=$top/share # the build tree's tools read the sources' data
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

# measure NAME COMMAND: best of two runs; sets T_NAME (wall s), C_NAME (CPU
# s, user + system) and M_NAME (peak RSS, KiB) of the faster run.
# Each run starts from an empty $dir/out, after sync: seal and replicate
# fsync their outputs, and on ext4 an fsync waits for every dirty page.
measure () {
	local name=$1 cmd=$2 best_t="" best_m="" best_c="" t m u s i
	for i in 1 2; do
		rm -rf "$dir/out"
		mkdir -p "$dir/out"
		sync
		/usr/bin/time -f '%e %M %U %S' -o "$dir/time.txt" bash -c "$cmd" >/dev/null
		read -r t m u s <"$dir/time.txt"
		if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then
			best_t=$t best_m=$m best_c=$(awk "BEGIN{print $u + $s}")
		fi
	done
	printf -v "T_$name" '%s' "$best_t"
	printf -v "C_$name" '%s' "$best_c"
	printf -v "M_$name" '%s' "$best_m"
}

# The machine's floor: what the best implementations take on the same
# bytes, in the same run, each measured like the tools (best of two).
cores=$(nproc)

# machine_line: the CPU, its cores and whether it has SHA extensions, for
# every bench's first line (the floors mean little without them).
machine_line () {
	local model sha=no
	model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
	grep -qw -m1 sha_ni /proc/cpuinfo && sha=yes
	echo "machine: ${model:-unknown CPU}, $cores cores, SHA extensions: $sha"
}

# floor_files NAME DIR LIST: over the files named in LIST (NUL-separated,
# relative to DIR),
#   T_NAME_read   cat > /dev/null                  (reading them)
#   T_NAME_sha1   openssl sha256, one process      (one core)
#   T_NAME_shaP   openssl dgst -sha256, xargs -P cores -n 8  (all cores,
#                 process start-ups included)
floor_files () {
	local name=$1 at=$2 list=$3
	measure "${name}_read" "cd '$at' && xargs -0 -a '$list' cat >/dev/null"
	measure "${name}_sha1" "cd '$at' && xargs -0 -a '$list' openssl sha256 >/dev/null"
	measure "${name}_shaP" "cd '$at' && xargs -0 -a '$list' -P $cores -n 8 openssl dgst -sha256 >/dev/null"
}

# floor_stream NAME ARCHIVE: over an archive's compressed stream and the tar
# inside it (decompressed once to $dir/NAME.tar, outside the timing),
#   T_NAME_unzstd   zstd -dc ARCHIVE > /dev/null
#   T_NAME_shatar   openssl sha256 of the tar
#   C_NAME_zstd1    CPU seconds of zstd -1 -T1 compressing the tar
#   C_NAME_shatar   CPU seconds of openssl sha256 of the tar
floor_stream () {
	local name=$1 archive=$2 tar=$dir/$1.tar
	zstd -dcq "$archive" >"$tar"
	measure "${name}_unzstd" "zstd -dcq '$archive' >/dev/null"
	measure "${name}_shatar" "openssl sha256 '$tar' >/dev/null"
	measure "${name}_zstd1" "zstd -1 -T1 -qc '$tar' >/dev/null"
	rm -f "$tar"
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
