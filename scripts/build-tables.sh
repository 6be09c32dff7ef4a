#!/usr/bin/env bash
# Builds sgtab and sgq in release mode and (re)builds every default table into tables/,
# with the GPU when one is found and the SIMD engine otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cargo build --release
./target/release/sgtab build --backend auto --dir tables "$@"
