#!/usr/bin/env bash
# Times GPU chess builds at W = 20, 24, 28 and 30 beside the SIMD engine, and cross-checks the
# GPU tables on the CPU. For a machine with a real GPU and a Vulkan driver:
#     bash scripts/gpu-bench.sh [OUT_DIR]
# Each line of output is one build with its phases (device set-up, upload, kernel wall and GPU
# timestamps, readback, file write). W = 30 needs 640 MiB of device memory for the values plus
# a staging buffer, and 640 MiB on disk.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/sgtab-gpu-bench}"
mkdir -p "$out"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
cargo build --release --bin sgtab
sgtab=./target/release/sgtab
for w in 20 24 28 30; do
    echo "== gpu chess:$w"
    "$sgtab" build "chess:$w" --backend gpu --timings --dir "$out/gpu"
done
for w in 20 24 28; do
    echo "== simd chess:$w"
    "$sgtab" build "chess:$w" --backend simd --timings --dir "$out/simd"
done
for w in 20 24 28; do
    cmp "$out/gpu/chess-$w.sgt" "$out/simd/chess-$w.sgt" && echo "chess:$w: gpu and simd tables identical"
done
"$sgtab" verify --backend simd "$out/gpu/chess-30.sgt"
