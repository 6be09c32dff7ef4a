#!/usr/bin/env bash
# Side-by-side timings of sgtab's take-and-break engine against the public octal solvers, whole
# process, medians of several runs (hyperfine -N), and peak memory (/usr/bin/time -v).
#
# The peers are built from source outside this repository (they are never dependencies):
#   beling/impartial-games          cargo build --release -p ogsolve     -> OGSOLVE=.../target/release/ogsolve
#   rogalski-wmii-uni-lodz-pl/octal  cargo build --release                -> ROGALSKI=.../target/release/octal
#   tczajka/octal-games, old/        src/analyze_exec.cc with maxn set to 1000000 (it is a
#                                    constexpr, 1<<28 upstream), g++ -O2 -std=c++11 -Isrc
#                                    analyze.cc game.cc hadamard.cc  -> TCZAJKA=.../analyze_1e6
# Any peer left unset is skipped. Usage:
#   OGSOLVE=... ROGALSKI=... TCZAJKA=... scripts/octal-bench.sh [quick|full|LINE,LINE...] [OUTDIR]
# `quick` runs the two short lines (0.16 to 10^6, Grundy's game to 10^6); `full` (default) adds
# 0.161 to 2^22 and 0.106 to 2^26 (rc2 only there: ogs's rc is the quadratic case on 0.106) and
# the two proofs.
# `prove` runs the two proofs (sgtab build CODE --prove against ogsolve -n LAST with LAST + 1 the
# length the Guy-Smith theorem needs, the length both stop at).
# LINE names: 0.16-1e6, grundy-1e6, 0.161-2p22, 0.106-2p26, prove-0.354, prove-0.376. Medians: OUTDIR/medians.txt. Results: OUTDIR/*.md (hyperfine tables) and OUTDIR/rss.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-full}"
case "$mode" in
    quick) only="0.16-1e6,grundy-1e6" ;;
    full) only="0.16-1e6,grundy-1e6,0.161-2p22,0.106-2p26,prove-0.354,prove-0.376" ;;
    prove) only="prove-0.354,prove-0.376" ;;
    *) only="$mode" ;;
esac
out="${2:-target/octal-bench}"
mkdir -p "$out"
cargo build --release --example octal >/dev/null
cargo build --release --bin sgtab >/dev/null
engine=target/release/examples/octal
sgtab=target/release/sgtab
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# record NAME RUNS WARMUP COMMAND...: one hyperfine run, every command side by side; medians
# and each command's peak resident memory (one more run under /usr/bin/time -v).
record() {
    local name="$1" runs="$2" warmup="$3"
    shift 3
    hyperfine -N --warmup "$warmup" --runs "$runs" --export-markdown "$out/$name.md" \
        --export-json "$out/$name.json" "$@"
    # Medians (hyperfine's tables show means).
    python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("median %8.3f s  user %7.3f s  %s" % (r["median"], r["user"], r["command"]))' \
        "$out/$name.json" >>"$out/medians.txt"
    local c
    for c in "$@"; do
        /usr/bin/time -v $c 2>&1 >/dev/null | awk -v c="$c" '/Maximum resident/ {print $6 " KB\t" c}' >>"$out/rss.txt"
    done
}

# line NAME RUNS SGTAB-SPEC ENGINE-ARGS [peer commands...]: one hyperfine run, every command
# side by side.
line() {
    local name="$1" runs="$2" spec="$3" args="$4"
    shift 4
    local warmup=1
    [ "$runs" -le 3 ] && warmup=0
    case ",$only," in *",$name,"*) ;; *) return 0 ;; esac
    local cmds=("$engine $args")
    # sgtab's whole build (engine, rule search, file), where this tree knows the spec.
    if "$sgtab" build "${spec%%:*}:10" --backend simd --dir "$tmp" >/dev/null 2>&1; then
        cmds+=("$sgtab build $spec --backend simd --dir $tmp")
    fi
    local peer
    for peer in "$@"; do
        [ -n "$peer" ] && cmds+=("$peer")
    done
    record "$name" "$runs" "$warmup" "${cmds[@]}"
}

ogs="${OGSOLVE:-}"
rog="${ROGALSKI:-}"
tcz="${TCZAJKA:-}"
peer() { [ -n "$1" ] && echo "$1 $2" || true; }

: >"$out/rss.txt"
: >"$out/medians.txt"
line 0.16-1e6 10 0.16:1000000 "0.16 999999" \
    "$(peer "$ogs" "0.16 -m rc -n 999999")" "$(peer "$ogs" "0.16 -m rc2 -n 999999")" "$(peer "$rog" "0.16 1000000")"
line grundy-1e6 5 grundy:1000000 "grundy 999999" "$(peer "$tcz" grundy)"
line 0.161-2p22 3 0.161:4194304 "0.161 4194303" \
        "$(peer "$ogs" "0.161 -m rc -n 4194303")" "$(peer "$ogs" "0.161 -m rc2 -n 4194303")" "$(peer "$rog" "0.161 4194304")"
line 0.106-2p26 3 0.106:67108864 "0.106 67108863" \
        "$(peer "$ogs" "0.106 -m rc2 -n 67108863")"
# Proofs: sgtab grows one table (from 1024 heaps) until the rule is proven; ogsolve computes
# the table to the length the theorem needs (2 pre + 2 period + 3 for both games) and finds the
# period there. Pre-periods and periods: 0.354 10061916 and 1180, 0.376 2268248 and 4.
prove() {
    local name="$1" code="$2" last="$3"
    case ",$only," in *",$name,"*) ;; *) return 0 ;; esac
    local cmds=("$sgtab build $code --prove --backend simd --dir $tmp")
    [ -n "$ogs" ] && cmds+=("$ogs $code -m rc2 -n $last")
    record "$name" 3 0 "${cmds[@]}"
}
prove prove-0.354 0.354 20126194
prove prove-0.376 0.376 4536506

cat "$out"/*.md "$out/medians.txt" "$out/rss.txt"
