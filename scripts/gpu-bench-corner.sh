#!/usr/bin/env bash
# Times GPU builds of corner games (queen, rook, king on an N×N board) beside the SIMD engine, and
# cross-checks the GPU tables against simd. For a machine with a real GPU and a Vulkan driver:
#     bash scripts/gpu-bench-corner.sh [OUT_DIR]
# SIZES (default "8192 16384 32768") are the board sides built on the GPU; those up to CHECK_MAX
# (default 16384) are also built with simd and compared byte for byte. PIECES (default "queen
# rook king") picks the games. Each build prints its phases (device set-up, upload, kernel wall
# and GPU timestamps, readback, shrink, file write). queen:32768 needs about 3.5 GiB of device
# memory (1 GiB of line sets, 2.1 GiB of table in two bindings, a staging buffer) and 2 GiB on
# disk. Try it anywhere first, e.g. on lavapipe: SIZES="64 300" bash scripts/gpu-bench-corner.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/sgtab-gpu-bench-corner}"
sizes="${SIZES:-8192 16384 32768}"
check_max="${CHECK_MAX:-16384}"
pieces="${PIECES:-queen rook king}"
mkdir -p "$out/gpu" "$out/simd"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
cargo build --release --bin sgtab
sgtab=./target/release/sgtab
for piece in $pieces; do
    for n in $sizes; do
        echo "== gpu $piece:$n"
        "$sgtab" build "$piece:$n" --backend gpu --timings --dir "$out/gpu"
        if [ "$n" -le "$check_max" ]; then
            echo "== simd $piece:$n"
            "$sgtab" build "$piece:$n" --backend simd --timings --dir "$out/simd"
            cmp "$out/gpu/$piece-$n.sgt" "$out/simd/$piece-$n.sgt"
            echo "$piece:$n: gpu and simd tables identical"
            rm -f "$out/simd/$piece-$n.sgt"
        fi
        rm -f "$out/gpu/$piece-$n.sgt"
    done
done
