#!/usr/bin/env bash
# The engines and sgq of this tree against those of an earlier commit, side by side: both are
# built in release (the earlier one in a git worktree under target/compare/), then every
# command runs RUNS times, alternating between the two builds, whole process, and the medians
# and their ratio (this tree ÷ the earlier one) are printed. Also the stripped size of sgq.
#
#   scripts/compare-builds.sh REV [RUNS]        (RUNS default 7)
#
# The work: the take-and-break engine on 0.16 and Grundy's game (examples/octal), chess rows
# at W = 24 (examples/simd_chess), a queen board of side 4096 (`sgtab build`, simd), and
# `sgq lasker` on a 100 MB generated input read from a file. A ratio above 1 is slower.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: scripts/compare-builds.sh REV [RUNS]}"
runs="${2:-7}"
root="$PWD"
base="$root/target/compare/$(git rev-parse --short "$rev")"
if [ ! -d "$base" ]; then
    mkdir -p "$root/target/compare"
    git worktree add --detach "$base" "$rev" >/dev/null
fi
build() { (cd "$1" && cargo build --release --quiet --bins --example octal --example simd_chess); }
echo "building $rev in $base, and this tree" >&2
build "$base"
build "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
input="$tmp/lasker.txt"
"$root/target/release/sgtab" gen lasker --cases 10 --per-case 1000000 --seed 1 > "$input"
for side in base head; do
    dir="$base"; [ "$side" = head ] && dir="$root"
    mkdir -p "$tmp/$side/tables"
    "$dir/target/release/sgtab" build lasker --out "$tmp/$side/tables" >/dev/null 2>&1
    strip -o "$tmp/$side/sgq" "$dir/target/release/sgq"
done

# run SIDE LABEL COMMAND...: one timed run (nanoseconds) appended to $tmp/SIDE.LABEL
run() {
    local side="$1" label="$2"; shift 2
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 )) >> "$tmp/$side.$label"
}
labels=(octal-0.16-1e6 octal-grundy-1e5 chess-24 queen-4096 sgq-lasker-100MB)
for ((i = 0; i < runs; i++)); do
    for side in base head; do
        dir="$base"; [ "$side" = head ] && dir="$root"
        bin="$dir/target/release"
        run "$side" octal-0.16-1e6 "$bin/examples/octal" 0.16 999999
        run "$side" octal-grundy-1e5 "$bin/examples/octal" grundy 99999
        run "$side" chess-24 "$bin/examples/simd_chess" 24
        run "$side" queen-4096 "$bin/sgtab" build queen:4096 --backend simd --out "$tmp/$side/out"
        run "$side" sgq-lasker-100MB sh -c "'$tmp/$side/sgq' lasker --tables '$tmp/$side/tables' < '$input'"
    done
    echo "run $((i + 1)) of $runs done" >&2
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '%-20s %14s %14s %8s\n' work "$rev (ms)" "this tree (ms)" ratio
for label in "${labels[@]}"; do
    b=$(median "$tmp/base.$label"); h=$(median "$tmp/head.$label")
    awk -v l="$label" -v b="$b" -v h="$h" 'BEGIN {printf "%-20s %14.1f %14.1f %7.3fx\n", l, b/1000, h/1000, h/b}'
done
printf '%-20s %14s %14s\n' "sgq stripped (bytes)" "$(stat -c %s "$tmp/base/sgq")" "$(stat -c %s "$tmp/head/sgq")"
