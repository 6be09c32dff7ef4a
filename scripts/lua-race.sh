#!/usr/bin/env bash
# The race of a user's own game: sgtab building a Lua script's table against the plain Python
# table a contestant writes and a plain C++ one (g++ -O2), on the same game and length, whole
# process, side by side. Each round runs every contestant once, in turn; the report gives the
# median of the rounds and each one's time relative to sgtab on all cores.
#
#   scripts/lua-race.sh [ROUNDS] [OUTDIR]        (default 5 rounds, target/lua-race)
#
# Games: the 1-3-9 stones to 10^6 heaps (examples/games/stones139.lua) and Lasker's Nim to 5000
# (examples/games/lasker.lua), and the same games in C++ (examples/games/GAME.cpp, sgtab-cpp:
# compiled once, all cores; scripts/native-race.sh races C++ games against plain C++ at larger
# sizes); the peers are benches/race/*.py and *.cpp, built here into
# OUTDIR, never into the project. sgtab runs with --threads 1 and with every core. Where the
# Python package is installed (`python3 -m pip install ./python`), sgtab from Python runs too:
# benches/race/GAME_sgtab.py, the plain form (`moves`, py-moves) and the batch form (NumPy
# arrays, py-batch), each a whole process that imports sgtab (and NumPy, for the batch form) and
# builds the table in memory, as the plain Python table does. Before timing, each peer's checksum
# (sum of the values, last value) is compared with the table's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out="${2:-target/lua-race}"
mkdir -p "$out"
cargo build --release --bin sgtab >/dev/null
sgtab=target/release/sgtab
cores=$(nproc)
python=$(command -v python3)
for game in stones139 lasker; do
    g++ -O2 -o "$out/$game" "benches/race/$game.cpp"
done
forms=""
if "$python" -c "import sgtab, numpy" 2>/dev/null; then
    forms="py-moves py-batch"
else
    echo "lua-race: the Python package sgtab (or NumPy) is not installed: its forms are left out (python3 -m pip install ./python)"
fi

now() { date +%s%N; }
# run NAME CMD...: times one run of CMD (output discarded), appending seconds to OUTDIR/NAME.
run() {
    local name=$1
    shift
    local start end
    start=$(now)
    "$@" >/dev/null
    end=$(now)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >>"$out/$name.times"
}
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

report="$out/report.txt"
: >"$report"
echo "lua-race: $rounds rounds, $cores cores, $(date -u +%Y-%m-%d)" | tee -a "$report"
for line in stones139:1000000 lasker:5000; do
    game=${line%%:*}
    n=${line#*:}
    spec="lua:examples/games/$game.lua:N=$n"
    tables="$out/tables-$game"
    rm -f "$out/$game".*.times
    # The same values from every contestant.
    "$sgtab" build "$spec" --dir "$tables" >/dev/null 2>&1
    file=$(ls "$tables"/*.sgt)
    want=$("$sgtab" dump "$file" | awk '{ s += $1; last = $1 } END { print s, last }')
    peers=("$python benches/race/$game.py $n" "$out/$game $n")
    [ -n "$forms" ] && peers+=("$python benches/race/${game}_sgtab.py $n --check" "$python benches/race/${game}_sgtab.py $n --batch --check")
    # The same game in C++ (examples/games/GAME.cpp, compiled once into the cache), all cores.
    "$sgtab" build "cpp:examples/games/$game.cpp:N=$n" --dir "$tables-cpp" >/dev/null 2>&1
    got=$("$sgtab" dump "$(ls "$tables-cpp"/*.sgt)" | awk '{ s += $1; last = $1 } END { print s, last }')
    [ "$got" = "$want" ] || { echo "lua-race: $game.cpp gives '$got', the script's table '$want'" >&2; exit 1; }
    for peer in "${peers[@]}"; do
        got=$($peer)
        [ "$got" = "$want" ] || { echo "lua-race: $peer gives '$got', sgtab's table '$want'" >&2; exit 1; }
    done
    for _ in $(seq "$rounds"); do
        run "$game.python" "$python" "benches/race/$game.py" "$n"
        run "$game.cpp" "$out/$game" "$n"
        run "$game.sgtab-1" "$sgtab" build "$spec" --dir "$tables" --threads 1
        run "$game.sgtab-all" "$sgtab" build "$spec" --dir "$tables" --threads "$cores"
        run "$game.sgtab-cpp" "$sgtab" build "cpp:examples/games/$game.cpp:N=$n" --dir "$tables-cpp" --threads "$cores"
        if [ -n "$forms" ]; then
            run "$game.py-moves" "$python" "benches/race/${game}_sgtab.py" "$n"
            run "$game.py-batch" "$python" "benches/race/${game}_sgtab.py" "$n" --batch
        fi
    done
    base=$(median "$out/$game.sgtab-all.times")
    echo "$game to $n (medians of $rounds, whole process; ratio = time / sgtab on $cores threads):" | tee -a "$report"
    for who in python cpp sgtab-1 sgtab-all sgtab-cpp $forms; do
        m=$(median "$out/$game.$who.times")
        printf "  %-10s %8.3f s  %6.2fx\n" "$who" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" | tee -a "$report"
    done
done
