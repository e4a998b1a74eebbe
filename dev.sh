#!/usr/bin/env bash
# shardcalc developer entry point. Every verb first runs scripts/setup.sh (idempotent installs).
#   ./dev.sh serve   release build of every page in dist/, served on http://127.0.0.1:8080
#   ./dev.sh test    formatting and clippy (native and wasm), release build (failing above the
#                    size limit), then every test: native (core, cli, browser e2e), the
#                    million-scenario no-panic test, wasm, the Python wheel's pytest tests,
#                    and a bounded fuzzing run
#   ./dev.sh bench   benchmarks: criterion on core, a median per benchmark ([FILTER] picks some),
#                    then the browser budgets on dist/ (target/bench/browser.md); `bench browser`
#                    runs only the latter
#   ./dev.sh build   release build into dist/, and its sizes
#   ./dev.sh offline the single-file offline page, dist-offline/shardcalc.html (every view in one file)
#   ./dev.sh size    release build, its sizes, and where the wasm's bytes go (scripts/size-report.sh)
#   ./dev.sh lint    only formatting and clippy
#   ./dev.sh setup   only the installs
set -euo pipefail
cd "$(dirname "$0")"

# npm's wasm-opt (binaryen 132) must come before any other wasm-opt, e.g. Debian's 108.
export PATH="$PWD/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Stops trunk's background update check against the crates.io API.
export TRUNK_SKIP_VERSION_CHECK=true

# Runs a command between a header and a footer that says how long it took.
step() {
  local label=$1 started=$SECONDS
  shift
  echo "==> $label"
  "$@"
  echo "<== $label: $((SECONDS - started)) s"
}

# Raw and gzip -9 bytes of what each page of dist/ downloads (wasm, JS, CSS; the HTML is ~1 KB
# more), against the budget set in scripts/size-report.sh. Extra arguments go to that script.
sizes() {
  bash scripts/size-report.sh "$@"
}

# Release build of every page into dist/, then its sizes (arguments go to scripts/size-report.sh).
build() {
  step "trunk build --release, every page" bash scripts/build-pages.sh
  sizes "$@"
}

# The single-file offline page: every view in one wasm (src/bin/all.rs), its CSS, JS glue and
# wasm inlined into dist-offline/shardcalc.html, which works opened from disk (bundle/).
offline() {
  step "trunk build --release single-file/index.html (every view)" \
    trunk build --release --dist target/single-file single-file/index.html
  step "inline it into dist-offline/shardcalc.html" \
    cargo run --quiet --locked -p shardcalc-bundle --bin single-file -- target/single-file dist-offline/shardcalc.html
}

# Formatting (rustfmt.toml) and clippy with every warning an error ([workspace.lints] and
# clippy.toml), for the native targets and for the app's wasm target (its own cfgs and code).
lint() {
  step "cargo fmt --check" cargo fmt --all --check
  step "clippy, native (every crate, every target)" \
    cargo clippy --locked --workspace --all-targets -- -D warnings
  step "clippy, wasm (the app and its browser tests)" \
    cargo clippy --locked -p shardcalc --target wasm32-unknown-unknown --all-targets -- -D warnings
  # Core's documentation maps the book's concepts to modules: its links must resolve.
  step "rustdoc, core (broken or ambiguous links are errors)" \
    env RUSTDOCFLAGS="-D warnings" cargo doc --locked -q -p shardcalc-core --no-deps
}

# cargo test, with its output also appended to the file $1 (for the summary line).
cargo_test_logged() {
  local log=$1
  shift
  cargo test --locked "$@" 2>&1 | tee -a "$log"
}

# Runs every test and ends with one "tests: N passed, N failed" line summed over all cargo runs.
run_tests() {
  local log
  log=$(mktemp)
  # Keep cargo's colours on a terminal even though its output goes through tee.
  if [ -t 1 ]; then export CARGO_TERM_COLOR=always; fi
  step "native tests (core, cli, browser e2e on dist/)" \
    cargo_test_logged "$log" -p shardcalc-core -p shardcalc-cli -p shardcalc-charts -p shardcalc-bundle -p shardcalc-e2e
  # Optimised, with overflow checks ([profile.quality]): a million generated scenarios.
  step "no-panic property test: 1,000,000 scenarios through core" \
    cargo_test_logged "$log" --profile quality -p shardcalc-core --test no_panic -- --nocapture
  step "wasm tests in headless Chromium" \
    cargo_test_logged "$log" -p shardcalc --target wasm32-unknown-unknown
  # The wheel built from core (maturin) and its pytest tests (scripts/python-test.sh).
  step "python package: wheel (maturin) and pytest" \
    bash -c "set -o pipefail; bash scripts/python-test.sh 2>&1 | tee -a '$log'"
  # cargo-fuzz on stable; SHARDCALC_FUZZ_SECONDS per target (default 20, 0 skips).
  step "fuzzing: scenario JSON, config.json and MaxText YAML importers" bash fuzz/run.sh
  echo "all tests passed in $((SECONDS - start)) s"
  # cargo's "test result: ok. N passed; M failed" lines, and pytest's "N passed, M failed in Xs".
  awk '/^test result:/ { p += $4; f += $6; next }
       / in [0-9.]+s/ && / passed/ {
         for (i = 2; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) }
       }
       END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
  rm -f "$log"
}

# Criterion benchmarks of core; the details go to a log, a median per benchmark to the screen.
bench_core() {
  local since log=target/criterion/last-run.log
  since=$(date +%s)
  mkdir -p target/criterion
  echo "==> criterion benchmarks of core (native, compiled like the shipped wasm: opt-level z + LTO)"
  if ! cargo bench --locked -p shardcalc-bench --benches -- "$@" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "bench: failed (full log: $log)" >&2
    return 1
  fi
  cargo run --quiet --locked -p shardcalc-bench -- target/criterion --since "$since"
  echo "<== criterion benchmarks (full output: $log)"
}

# The browser half of issue 7, in headless Chromium on the release build in dist/ (built first
# if missing): first result painted after navigation, input change -> every output and chart
# repainted, and each page's wasm+js+css gzip, against the budgets (300 ms, 16 ms, 350 KB).
# Reports, never fails on slow numbers; the table also goes to target/bench/browser.md.
# SHARDCALC_BENCH_LOADS / SHARDCALC_BENCH_CHANGES: loads per page (20), changes per field (50).
bench_browser() {
  if [ ! -f dist/index.html ]; then build; fi
  echo "==> browser budgets (tests/e2e/src/bin/bench-browser.rs)"
  cargo run --quiet --locked -p shardcalc-e2e --bin bench-browser -- \
    "${SHARDCALC_BENCH_LOADS:-20}" "${SHARDCALC_BENCH_CHANGES:-50}" "${SHARDCALC_BENCH_SEARCHES:-30}"
  echo "<== browser budgets (table: target/bench/browser.md)"
}

start=$SECONDS
case "${1:-}" in
  setup)
    step "setup" bash scripts/setup.sh
    ;;
  build)
    step "setup" bash scripts/setup.sh
    shift
    # `./dev.sh build --check` fails when a page is over the size budget.
    build "$@"
    ;;
  test)
    step "setup" bash scripts/setup.sh
    lint
    # --check: fails when a page's wasm+js+css grew past the size limit (scripts/size-report.sh).
    build --check
    # The browser tests open the single-file page from file:// too.
    offline
    run_tests
    ;;
  bench)
    step "setup" bash scripts/setup.sh
    shift
    # `./dev.sh bench browser`: only the browser budgets.
    if [ "${1:-}" != browser ]; then bench_core "$@"; fi
    bench_browser
    ;;
  offline)
    step "setup" bash scripts/setup.sh
    offline
    ;;
  lint)
    step "setup" bash scripts/setup.sh
    lint
    ;;
  size)
    step "setup" bash scripts/setup.sh
    build --top
    ;;
  serve)
    step "setup" bash scripts/setup.sh
    build
    # Each view is its own page (src/views/mod.rs), and `trunk serve` serves one HTML, so the
    # built dist/ is served as plain files. Rebuild (Ctrl-C, run again) after editing.
    echo "==> serving the release build on http://127.0.0.1:8080 (Ctrl-C stops; run again after edits)"
    exec cargo run --quiet --locked -p shardcalc-e2e --bin serve-dist -- dist 127.0.0.1:8080
    ;;
  *)
    echo "usage: $0 serve | test | bench [FILTER | browser] | build | offline | size | lint | setup" >&2
    exit 2
    ;;
esac
