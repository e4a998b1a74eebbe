#!/usr/bin/env bash
# Release build of every page into dist/: each *.html at the repository root is one page with its
# own bin and wasm (src/views/mod.rs says why). trunk builds one HTML at a time and empties its
# dist directory first, so each page is built into target/pages/<page>/ and copied into dist/
# (the CSS is the same file, same hash, on every page).
# Expects PATH to have wasm-bindgen and npm's wasm-opt (dev.sh sets it).
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
  # trunk names its output index.html whatever the input: give each page its own name.
  if [ "$html" != index.html ]; then mv "target/pages/$page/index.html" "target/pages/$page/$html"; fi
done
rm -rf dist
mkdir -p dist
for html in "${pages[@]}"; do
  cp -R "target/pages/${html%.html}/." dist/
done
