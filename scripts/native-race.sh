#!/usr/bin/env bash
# The race of a user's game written in C++ (cpp:examples/games/GAME.cpp) against the plain C++
# table a contestant writes for it (an array, a mark array, a mex loop, g++ -O2, one thread:
# benches/race/GAME.cpp), whole processes, side by side in rounds. sgtab runs with its library
# cached (the first build, with its compile, is timed once on an empty cache and reported
# apart), with --threads 1 and with every core. Before timing, each peer's checksum (sum of the
# values, last value) is compared with the table's.
#
#   scripts/native-race.sh [ROUNDS] [OUTDIR]        (default 5 rounds, target/native-race)
#
# Games: Lasker's Nim to 40,000, Grundy's game to 60,000, the HDU 5724 row at W = 22.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out="${2:-target/native-race}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cargo build --release --bin sgtab >/dev/null
sgtab=target/release/sgtab
cores=$(nproc)
export XDG_CACHE_HOME="$out/cache"
for game in lasker grundy chessrow; do
    g++ -O2 -o "$out/$game" "benches/race/$game.cpp"
done

now() { date +%s%N; }
# run NAME CMD...: times one run of CMD (output discarded), appending seconds to OUTDIR/NAME.
run() {
    local name=$1
    shift
    local start end
    start=$(now)
    "$@" >/dev/null 2>&1
    end=$(now)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >>"$out/$name.times"
}
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

report="$out/report.txt"
: >"$report"
echo "native-race: $rounds rounds, $cores cores, $(date -u +%Y-%m-%d)" | tee -a "$report"
for line in lasker:N=40000 grundy:N=60000 chessrow:W=22; do
    game=${line%%:*}
    param=${line#*:}
    n=${param#*=}
    spec="cpp:examples/games/$game.cpp:$param"
    tables="$out/tables-$game"
    rm -f "$out/$game".*.times
    rm -rf "$XDG_CACHE_HOME"
    run "$game.first" "$sgtab" build "$spec" --dir "$tables"
    file=$(ls "$tables"/*.sgt)
    want=$("$sgtab" dump "$file" | awk '{ s += $1; last = $1 } END { print s, last }')
    got=$("$out/$game" "$n")
    [ "$got" = "$want" ] || { echo "native-race: $game $n gives '$got', sgtab's table '$want'" >&2; exit 1; }
    for _ in $(seq "$rounds"); do
        run "$game.cpp" "$out/$game" "$n"
        run "$game.sgtab-1" "$sgtab" build "$spec" --dir "$tables" --threads 1
        run "$game.sgtab-all" "$sgtab" build "$spec" --dir "$tables" --threads "$cores"
    done
    base=$(median "$out/$game.cpp.times")
    echo "$game $param (medians of $rounds, whole process; ratio = time / plain C++):" | tee -a "$report"
    for who in cpp sgtab-1 sgtab-all first; do
        m=$(median "$out/$game.$who.times")
        printf "  %-10s %8.3f s  %6.2fx\n" "$who" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" | tee -a "$report"
    done
done
