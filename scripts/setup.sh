#!/usr/bin/env bash
# Installs every tool the build and the tests need, each only when missing or at the wrong
# version, so a second run takes seconds. A fresh machine takes ~10-16 min (mostly trunk).
#   Rust target wasm32-unknown-unknown, trunk, wasm-bindgen-cli (wasm-bindgen + test runner),
#   wasm-opt (npm binaryen 132, in tools/node_modules), Chromium + chromedriver (apt),
#   cargo-fuzz (fuzz/run.sh), and every crate in Cargo.lock and fuzz/Cargo.lock (trunk
#   builds with --offline).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
CARGO_FUZZ_VERSION=0.13.2
RUST_VERSION=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)
# The CLI must match the wasm-bindgen crate exactly, and trunk reads the crate's version from Cargo.lock.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
WASM_OPT_VERSION=132
# esbuild from npm (tools/package.json), for scripts/minify-js.py.
ESBUILD_VERSION=0.28.2

# The wasm-opt the caller's PATH would give trunk, checked below.
CALLER_WASM_OPT=$(command -v wasm-opt || true)
export PATH="$PWD/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

say() { echo "setup: $*"; }
# (grep without -q reads all its input: with pipefail, an early exit could fail the pipe with SIGPIPE.)
has_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -F "$2" >/dev/null; }
apt_install() {
  say "installing $* with apt-get (~1-2 min)"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Rust toolchain named in rust-toolchain.toml. These machines have one stable toolchain, which
# cannot be downloaded again, and alias it by version with a symlink; rustup's own `toolchain link`
# refuses version-like names, so recreate that symlink if it is missing.
if ! rustup toolchain list | grep "^$RUST_VERSION-" >/dev/null; then
  if rustc +stable --version 2>/dev/null | grep -F "rustc $RUST_VERSION " >/dev/null; then
    host=$(rustc +stable -vV | sed -n 's/^host: //p')
    say "aliasing the installed stable toolchain as $RUST_VERSION-$host"
    ln -s "$(rustc +stable --print sysroot)" "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$RUST_VERSION-$host"
  else
    say "installing Rust $RUST_VERSION"
    rustup toolchain install "$RUST_VERSION" --profile minimal --component rustfmt,clippy
  fi
fi
if ! rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null; then
  say "installing Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! has_version trunk "trunk $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (cargo install, ~6-11 min)"
  cargo install trunk --locked --version "=$TRUNK_VERSION"
fi

# No --locked: wasm-bindgen-cli's own lockfile pins a crate version crates.io no longer serves.
if ! has_version wasm-bindgen "wasm-bindgen $WB_VERSION" ||
   ! has_version wasm-bindgen-test-runner "wasm-bindgen-test-runner $WB_VERSION"; then
  say "installing wasm-bindgen-cli $WB_VERSION (cargo install, ~2-4 min)"
  cargo install wasm-bindgen-cli --version "=$WB_VERSION" --force
fi

# Runs libFuzzer targets on stable Rust with --sanitizer none (fuzz/run.sh).
if ! has_version cargo-fuzz "cargo-fuzz $CARGO_FUZZ_VERSION"; then
  say "installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install, ~30 s)"
  cargo install cargo-fuzz --locked --version "=$CARGO_FUZZ_VERSION"
fi

if ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm
fi
# tools/package.json: binaryen (wasm-opt for trunk) and esbuild (minifies each page's JS glue,
# scripts/minify-js.py), both pinned by tools/package-lock.json.
if ! has_version tools/node_modules/.bin/wasm-opt "version_$WASM_OPT_VERSION" \
  || ! has_version tools/node_modules/.bin/esbuild "$ESBUILD_VERSION"; then
  say "installing wasm-opt (npm binaryen $WASM_OPT_VERSION.0.0) and esbuild $ESBUILD_VERSION into tools/node_modules"
  npm ci --prefix tools --no-audit --no-fund --loglevel=error
fi
# Debian's binaryen (wasm-opt 108) silently breaks wasm-bindgen 0.2.130 output: blank page,
# "WebAssembly.Table.set(): Argument 1 is invalid for table". Never let trunk pick it up.
if ! has_version wasm-opt "version_$WASM_OPT_VERSION"; then
  echo "setup: error: the first wasm-opt on PATH is $(command -v wasm-opt || echo missing):" \
    "$(wasm-opt --version 2>/dev/null || true); expected version_$WASM_OPT_VERSION from tools/node_modules." >&2
  echo "setup: remove Debian's binaryen (apt-get remove binaryen) and run 'npm ci --prefix tools'." >&2
  exit 1
fi
if [ -n "$CALLER_WASM_OPT" ] && ! "$CALLER_WASM_OPT" --version 2>/dev/null | grep -F "version_$WASM_OPT_VERSION" >/dev/null; then
  say "warning: your PATH starts with $CALLER_WASM_OPT ($("$CALLER_WASM_OPT" --version 2>/dev/null || true))," \
    "which breaks the app; ./dev.sh puts tools/node_modules/.bin first. Consider 'apt-get remove binaryen'."
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  apt_install chromium chromium-driver
fi

# The Python package's build and tests (scripts/python-test.sh): a virtual environment in
# target/py-venv with maturin, pytest and pandas as python/requirements-dev.txt pins them.
# `python3 -m venv` needs ensurepip, which Debian and Ubuntu package apart from Python
# (python3-venv, which also brings python3 itself when that is missing).
if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt_install python3-venv
  fi
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
    echo "setup: error: python3 with its venv module (venv, ensurepip) is needed for the Python" \
      "package's tests; install it (Debian/Ubuntu: apt-get install python3-venv)." >&2
    exit 1
  fi
fi
# The pins of python/requirements-dev.txt that target/py-venv does not have.
missing_python_pins() {
  local installed
  installed=$(target/py-venv/bin/pip freeze 2>/dev/null || true)
  grep -v '^#' python/requirements-dev.txt | grep . | while read -r pin; do
    echo "$installed" | grep -x "$pin" >/dev/null || echo "$pin"
  done
}
if [ -n "$(missing_python_pins)" ]; then
  say "installing maturin, pytest and pandas into target/py-venv (~15 s)"
  python3 -m venv target/py-venv
  target/py-venv/bin/pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt
fi

# Trunk.toml has offline = true, which makes trunk run cargo with --offline.
cargo fetch --locked --quiet
# The fuzz targets are a workspace of their own; --locked fails here if fuzz/Cargo.lock is stale.
cargo fetch --locked --quiet --manifest-path fuzz/Cargo.toml

say "ok: rustc $RUST_VERSION, trunk $TRUNK_VERSION, wasm-bindgen $WB_VERSION, wasm-opt $WASM_OPT_VERSION, esbuild $ESBUILD_VERSION, cargo-fuzz $CARGO_FUZZ_VERSION, $(command -v chromium), $(command -v chromedriver), $(target/py-venv/bin/maturin --version)"
