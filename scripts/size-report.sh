#!/usr/bin/env bash
# What the browser downloads, and where the bytes go.
#   scripts/size-report.sh [--build] [--check] [--top [N]]
#     (no option)  per page of dist/: the wasm, JS and CSS it loads, raw and gzip -9
#     --build      build every page into dist/ first (scripts/build-pages.sh)
#     --check      fail when a page's wasm+js+css gzip exceeds BUDGET_GZIP (./dev.sh test does this)
#     --top [N]    also the N biggest crates and our modules (default 20; needs twiggy and python3):
#                  rebuilds the page's wasm with names kept (wasm-bindgen --keep-debug, wasm-opt -g)
#                  from the cargo output trunk used, so run it right after a build
# ./dev.sh size = --build --top. Expects PATH to have wasm-bindgen and npm's wasm-opt (dev.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

# The budget of issue 18: one page's wasm + JS + CSS, gzip -9, in bytes (350 KB, KB = 1000).
# This is the only place it is set. (Issue 7's was 300 KB; the history of the per-page
# ceilings while pages were over it is in docs/size.md.)
BUDGET_GZIP=350000

build=false check=false top=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=true ;;
    --check) check=true ;;
    --top)
      top=20
      if [ $# -gt 1 ] && [[ $2 =~ ^[0-9]+$ ]]; then top=$2; shift; fi
      ;;
    *) echo "usage: $0 [--build] [--check] [--top [N]]" >&2; exit 2 ;;
  esac
  shift
done

if $build; then bash scripts/build-pages.sh; fi

gz() { gzip -9 <"$1" | wc -c; }

# The wasm, JS and CSS files a page of dist/ loads (trunk writes absolute URLs, `/name-hash.ext`,
# quoted or, minified, not).
assets_of() {
  grep -oE "[A-Za-z0-9_./-]+\\.(wasm|js|css)\\b" "$1" | sed 's|^.*/||' | sort -u
}

shopt -s nullglob
pages=(dist/*.html)
if [ ${#pages[@]} -eq 0 ]; then
  echo "size-report: no dist/*.html; build first (./dev.sh build or --build)" >&2
  exit 1
fi

over=()
for page in "${pages[@]}"; do
  total_raw=0 total_gz=0
  echo "${page#dist/} loads (bytes):"
  while read -r asset; do
    [ -f "dist/$asset" ] || { echo "size-report: ${page#dist/} names dist/$asset, which is missing" >&2; exit 1; }
    raw=$(wc -c <"dist/$asset") zipped=$(gz "dist/$asset")
    total_raw=$((total_raw + raw)) total_gz=$((total_gz + zipped))
    printf '  %-44s %9d raw %9d gzip\n' "$asset" "$raw" "$zipped"
  done < <(assets_of "$page")
  printf '  %-44s %9d raw %9d gzip   (budget %d: %+d)\n' "total wasm+js+css" \
    "$total_raw" "$total_gz" "$BUDGET_GZIP" $((total_gz - BUDGET_GZIP))
  if [ "$total_gz" -gt "$BUDGET_GZIP" ]; then over+=("${page#dist/}: $total_gz > $BUDGET_GZIP"); fi
done

# The background worker is not part of any page's download: a page fetches it the first time
# someone imports a config or downloads an SVG (src/worker_client.rs). Shown, not budgeted.
worker_total=0
for asset in worker_loader.js worker.js worker_bg.wasm; do
  [ -f "dist/$asset" ] || continue
  [ "$worker_total" -gt 0 ] || echo "background worker, loaded on request (Import, Download SVG), not in a page's budget (bytes):"
  raw=$(wc -c <"dist/$asset") zipped=$(gz "dist/$asset")
  worker_total=$((worker_total + zipped))
  printf '  %-44s %9d raw %9d gzip\n' "$asset" "$raw" "$zipped"
done

if [ "$top" -gt 0 ]; then
  if ! command -v twiggy >/dev/null || ! command -v python3 >/dev/null; then
    echo "size-report: --top needs twiggy (cargo install twiggy) and python3; skipped" >&2
  else
    for wasm in dist/*_bg.wasm; do
      bin=$(basename "$wasm" | sed -E 's/-[0-9a-f]+_bg\.wasm$//')
      cargo_wasm=target/wasm32-unknown-unknown/release/$bin.wasm
      [ -f "$cargo_wasm" ] || { echo "size-report: no $cargo_wasm; skipped" >&2; continue; }
      work=$(mktemp -d)
      # Same wasm-opt settings as the pages (pages/template.html's data-wasm-opt and -params).
      level=$(sed -nE 's/.*data-wasm-opt="([^"]+)".*/\1/p' pages/template.html | head -1)
      params=$(sed -nE 's/.*data-wasm-opt-params="([^"]+)".*/\1/p' pages/template.html | head -1)
      wasm-bindgen --keep-debug --target web --no-typescript --out-dir "$work" "$cargo_wasm"
      # shellcheck disable=SC2086 # params is a list of flags
      wasm-opt "-O${level:-z}" $params -g "$work/${bin}_bg.wasm" -o "$work/named.wasm"
      twiggy top -n 1000000 --format csv "$work/named.wasm" >"$work/top.csv"
      echo
      echo "where $bin's wasm goes (raw bytes; data = string constants and the bundled JSON):"
      python3 scripts/wasm-size-by-crate.py "$work/top.csv" "$top"
      rm -rf "$work"
    done
  fi
fi

if [ ${#over[@]} -gt 0 ]; then
  echo "size-report: over the budget ($BUDGET_GZIP bytes gzip): ${over[*]}" >&2
  if $check; then
    echo "size-report: FAIL. ./dev.sh size shows where the bytes go; docs/size.md lists what each" >&2
    echo "  part costs, what was tried, and what a view must avoid to stay under the budget." >&2
    exit 1
  fi
fi
