#!/usr/bin/env bash
# Release build of every page into dist/: each *.html at the repository root is one page with its
# own bin and wasm (src/views/mod.rs says why). trunk builds one HTML at a time and empties its
# dist directory first, so each page is built into target/pages/<page>/ and copied into dist/
# (the CSS is the same file, same hash, on every page).
# Expects PATH to have wasm-bindgen, npm's wasm-opt and esbuild (dev.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
pages=(*.html)
[ ${#pages[@]} -gt 0 ] || { echo "build-pages: no *.html at the root" >&2; exit 1; }
rm -rf target/pages
mkdir -p target/pages
for html in "${pages[@]}"; do
  page=${html%.html}
  echo "--> trunk build --release $html"
  trunk build --release --dist "target/pages/$page" "$html"
  # trunk always writes index.html; every page but the model page keeps its own name.
  if [ "$html" != index.html ]; then mv "target/pages/$page/index.html" "target/pages/$page/$html"; fi
  # trunk's JS minifier cannot parse wasm-bindgen's glue; esbuild can (integrity rewritten).
  python3 scripts/minify-js.py "target/pages/$page"
done
# The background worker (src/bin/worker.rs): imports and SVG rendering, which pages load only
# when asked (src/worker_client.rs). Built once from workers/worker.html; not a page itself.
echo "--> trunk build --release workers/worker.html (background worker)"
trunk build --release --dist target/pages/_worker workers/worker.html
rm -rf dist
mkdir -p dist
for html in "${pages[@]}"; do
  cp -R "target/pages/${html%.html}/." dist/
done
cp target/pages/_worker/worker.js target/pages/_worker/worker_bg.wasm target/pages/_worker/worker_loader.js dist/
