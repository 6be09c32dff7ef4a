#!/usr/bin/env bash
# How `sgq lasker` scales with threads on a 105 MB input, against `wc -l` on the
# same file: 1, 2, 4, 8, ... threads up to every core, medians of alternating runs. Made for the
# lent machine's 16 cores (one short run there), and runs anywhere:
#     bash scripts/sgq-scaling.sh [RUNS]            # builds sgq and sgtab (release) with cargo
#     SGQ=path/sgq SGTAB=path/sgtab bash scripts/sgq-scaling.sh [RUNS]   # binaries built here
# RUNS: alternating rounds (default 9). The input is `sgtab gen lasker --cases 10 --per-case 1000000` (seed 1),
# written once to $SGQ_SCALING_DIR (default /tmp/sgq-scaling). Before timing, every thread
# count and the pipe must give the same answers. Prints one line a command: best and median
# wall time (ms), the median over `wc -l`'s, and the speed-up over one thread.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-9}"
dir="${SGQ_SCALING_DIR:-/tmp/sgq-scaling}"
if [ -z "${SGQ:-}" ] || [ -z "${SGTAB:-}" ]; then
    cargo build --release --quiet --bin sgq --bin sgtab
fi
sgq="${SGQ:-./target/release/sgq}"
sgtab="${SGTAB:-./target/release/sgtab}"
tables="$PWD/tables"
[ -f "$tables/lasker-1024.sgt" ] || { echo "sgq-scaling.sh: no tables/lasker-1024.sgt: run scripts/build-tables.sh first" >&2; exit 1; }
mkdir -p "$dir"
input="$dir/lasker-10-seed1.txt"
if [ ! -s "$input" ]; then
    "$sgtab" gen lasker --cases 10 --per-case 1000000 --seed 1 >"$input.tmp"
    mv "$input.tmp" "$input"
fi
cores=$(nproc)
threads=()
for ((t = 1; t < cores; t *= 2)); do threads+=("$t"); done
threads+=("$cores")

# The same answers on every thread count and on a pipe (the streaming path).
want=$("$sgq" lasker --tables "$tables" --threads 1 <"$input")
for t in "${threads[@]}"; do
    [ "$("$sgq" lasker --tables "$tables" --threads "$t" <"$input")" = "$want" ] || { echo "sgq-scaling.sh: $t threads answer differently" >&2; exit 1; }
done
[ "$(cat "$input" | "$sgq" lasker --tables "$tables")" = "$want" ] || { echo "sgq-scaling.sh: the pipe answers differently" >&2; exit 1; }

# Commands, timed in turn once a round (bash's $EPOCHREALTIME: no process started to read the
# clock, so only the command itself is inside the interval).
names=("wc -l")
cmds=("wc -l")
for t in "${threads[@]}"; do
    names+=("sgq lasker, $t thread$([ "$t" = 1 ] || echo s)")
    cmds+=("$sgq lasker --tables $tables --threads $t")
done
declare -A times
for ((r = 0; r < runs; r++)); do
    for i in "${!cmds[@]}"; do
        start=$EPOCHREALTIME
        ${cmds[$i]} <"$input" >/dev/null
        end=$EPOCHREALTIME
        times[$i]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f ", (b - a) * 1000 }')"
    done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { tr ' ' '\n' | grep . | sort -g | head -1; }
echo "input: $input ($(stat -c %s "$input") bytes), $runs alternating runs, $cores cores, $(uname -m)"
printf '%-28s %9s %10s %9s %9s\n' command "best ms" "median ms" "÷ wc -l" "÷ 1 thr"
wc_med=$(median <<<"${times[0]}")
one_med=$(median <<<"${times[1]}")
for i in "${!cmds[@]}"; do
    med=$(median <<<"${times[$i]}")
    printf '%-28s %9.1f %10.1f %8.2fx %8.2fx\n' "${names[$i]}" "$(best <<<"${times[$i]}")" "$med" \
        "$(awk -v a="$med" -v b="$wc_med" 'BEGIN { print a / b }')" "$(awk -v a="$one_med" -v b="$med" 'BEGIN { print a / b }')"
done
