#!/usr/bin/env bash
# Runs every test of sgtab, the GPU tests on a real Vulkan driver: where none is installed and
# we are root, Mesa's software driver (lavapipe) is installed first. CI runs this script.
set -euo pipefail
cd "$(dirname "$0")/.."

have_vulkan_driver() {
    compgen -G "/usr/share/vulkan/icd.d/*.json" >/dev/null || compgen -G "/etc/vulkan/icd.d/*.json" >/dev/null
}

if ! have_vulkan_driver; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "scripts/test.sh: no Vulkan driver found; installing Mesa's lavapipe (mesa-vulkan-drivers)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers libvulkan1 >/dev/null
    else
        echo "scripts/test.sh: WARNING: no Vulkan driver and cannot install one (need root and apt-get):" \
             "GPU tests will skip; install mesa-vulkan-drivers to run them"
    fi
fi

# The GPU tests run on OpenGL too (Mesa's llvmpipe through EGL, no display needed): wgpu takes
# GL where no Vulkan driver is installed, and a kernel can be right on one and wrong on the other.
have_gl_driver() {
    compgen -G "/usr/lib/*/libEGL_mesa.so.0" >/dev/null && compgen -G "/usr/lib/*/dri/swrast_dri.so" >/dev/null
}
if ! have_gl_driver; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "scripts/test.sh: no OpenGL driver found; installing Mesa's llvmpipe (libegl1 libegl-mesa0 libgl1-mesa-dri)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null
    else
        echo "scripts/test.sh: WARNING: no OpenGL driver and cannot install one (need root and apt-get)"
    fi
fi

# tests/export.rs compiles exported tables with gcc, g++ and rustc and runs them with python3;
# tests/plot.rs draws text with a TrueType font (DejaVu Sans); tests/dump.rs loads .npy dumps
# with NumPy.
missing=()
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
compgen -G "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" >/dev/null || missing+=(fonts-dejavu-core)
have_numpy() { python3 -c "import numpy" 2>/dev/null || /usr/bin/python3 -c "import numpy" 2>/dev/null; }
have_numpy || missing+=(python3-numpy)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "scripts/test.sh: installing ${missing[*]} (export, plot and dump tests)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "scripts/test.sh: WARNING: ${missing[*]} missing and cannot be installed (need root and apt-get)"
    fi
fi

# A python3 of its own (pyenv, say) does not see Debian's numpy: pip then, where it can.
if ! have_numpy; then
    python3 -m pip install --quiet numpy >/dev/null 2>&1 || echo "scripts/test.sh: WARNING: numpy cannot be installed: the .npy dump test will skip"
fi

# Format and lints first: a quick failure before the long build. rustfmt and clippy come with
# rustup's default profile; where they are missing, rustup adds them.
for tool in rustfmt clippy; do
    if ! cargo "${tool/rustfmt/fmt}" --version >/dev/null 2>&1 && command -v rustup >/dev/null; then
        rustup component add "$tool"
    fi
done
cargo fmt --check
cargo fmt --check --manifest-path python/Cargo.toml
cargo clippy --release --all-targets --quiet -- -D warnings

# Say which wgpu backend runs, and silence Mesa's harmless XDG_RUNTIME_DIR warning.
export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

# Release mode: the exhaustive engine checks are fast there. --include-ignored also runs the
# big GPU/SIMD widths that are ignored in a plain `cargo test`.
cargo test --release -- --include-ignored

# The GPU tests again on wgpu's GL backend (tests/common/gpu.rs checks that GL is what opened).
WGPU_BACKEND=gl cargo test --release --test gpu --test gpu_corner --test gpu_check -- --include-ignored

# The Rust example of a user's own game builds its tables and checks Kayles against sgtab's own
# engine (it exits non-zero where they differ).
example_out="$(mktemp -d)"
cargo run --release --quiet --example custom_game -- "$example_out"
rm -rf "$example_out"

# The Python package, as the README installs it (`python3 -m pip install ./python`), into a fresh
# virtual environment, then its tests (pytest), which compare it with the binaries built above.
# pip builds the binding in release mode in python/target: 3.5 to 5 minutes from scratch on these
# 2 cores, a few seconds once built; the tests take about 2 seconds.
py_env="$(mktemp -d)"
if ! python3 -m venv "$py_env" >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "scripts/test.sh: installing python3-venv (the Python package's tests)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    fi
    python3 -m venv "$py_env"
fi
"$py_env/bin/python" -m pip install --quiet --disable-pip-version-check ./python pytest
SGTAB_BIN="$PWD/target/release" "$py_env/bin/python" -m pytest -q -p no:cacheprovider python/tests
rm -rf "$py_env"

# The API docs build without a warning (a broken or private intra-doc link fails here).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
