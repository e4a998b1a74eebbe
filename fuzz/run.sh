#!/usr/bin/env bash
# Fuzzes shardcalc-core with cargo-fuzz (libFuzzer) for a bounded time per target, on
# stable Rust (called by `./dev.sh test`; needs `cargo fuzz`, which scripts/setup.sh installs).
#   fuzz/run.sh [TARGET...]      default: scenario hf_config maxtext_yaml
#   SHARDCALC_FUZZ_SECONDS=N     seconds per target (default 20; 0 skips fuzzing)
#
# On stable: `--sanitizer none`, because sanitizers need nightly's -Zsanitizer, while the
# coverage instrumentation libFuzzer needs (-Cpasses=sancov-module) is stable. `-a` keeps
# debug assertions and overflow checks on. A panic is a crash; an input that takes more
# than 10 s is a hang (-timeout). Either fails the run and leaves the input in
# fuzz/artifacts/TARGET/ with the command that replays it.
#
# Corpora: fuzz/seeds/ is rewritten every run from the presets and the importer fixtures
# (core/examples/fuzz_seeds.rs); what libFuzzer finds accumulates in fuzz/corpus/TARGET/
# (git-ignored), so a kept machine keeps fuzzing where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SHARDCALC_FUZZ_SECONDS:-20}
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=(scenario hf_config maxtext_yaml); fi
if [ "$seconds" = 0 ]; then
  echo "fuzz: skipped (SHARDCALC_FUZZ_SECONDS=0)"
  exit 0
fi
flags=(--fuzz-dir fuzz --sanitizer none --debug-assertions)

cargo run --quiet --locked -p shardcalc-core --example fuzz_seeds -- fuzz/seeds
cargo fuzz build "${flags[@]}"
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  log="fuzz/artifacts/$target/last-run.log"
  started=$SECONDS
  if cargo fuzz run "${flags[@]}" "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
      -max_total_time="$seconds" -timeout=10 -dict="fuzz/seeds/$target.dict" >"$log" 2>&1; then
    # libFuzzer's last status line: executions, coverage, corpus size, speed.
    status=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 runs, /')
    echo "fuzz $target: ok in $((SECONDS - started)) s: $status"
  else
    echo "fuzz $target: FAILED (full log: $log)" >&2
    grep -v -E '^#[0-9]+' "$log" | tail -40 >&2
    crash=$(ls -t "fuzz/artifacts/$target"/{crash,timeout,oom,leak}-* 2>/dev/null | head -1 || true)
    if [ -n "$crash" ]; then
      echo "fuzz $target: replay with: cargo fuzz run ${flags[*]} $target $crash" >&2
    fi
    exit 1
  fi
done
