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
# Every page starts from start.js (Trunk.toml's pattern_script) and carries the
# Content-Security-Policy of index.html as a meta tag; a page whose HTML lacks the tag gets it
# here. No page may keep an inline script or a data: icon, which that policy blocks.
cp public/start.js dist/start.js
policy=$(grep -o '<meta http-equiv="Content-Security-Policy"[^>]*>' index.html || true)
[ -n "$policy" ] || { echo "build-pages: index.html has no Content-Security-Policy meta tag" >&2; exit 1; }
for page in dist/*.html; do
  if ! grep -q 'Content-Security-Policy' "$page"; then
    echo "build-pages: $page has no Content-Security-Policy meta tag; adding index.html's"
    sed -i "s|<head>|<head>$policy|" "$page"
  fi
  if grep -o '<script[^>]*>' "$page" | grep -qv 'src='; then
    echo "build-pages: $page has an inline <script>, which the page's policy blocks" >&2
    exit 1
  fi
  if grep -o '<link[^>]*>' "$page" | grep -q 'data:'; then
    icon=$(cd dist && ls favicon-*.svg 2>/dev/null | head -1)
    [ -n "$icon" ] || { echo "build-pages: $page has a data: icon, which its policy blocks" >&2; exit 1; }
    echo "build-pages: $page has a data: icon, which its policy blocks; using $icon"
    perl -pi -e "s{<link[^>]*data:[^>]*>}{<link rel=\"icon\" href=\"./$icon\">}g" "$page"
  fi
done
cp target/pages/_worker/worker.js target/pages/_worker/worker_bg.wasm target/pages/_worker/worker_loader.js dist/
