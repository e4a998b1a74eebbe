#!/usr/bin/env bash
# Release build of every page into dist/. Each page is pages/template.html with its title and
# bin filled in (the PAGES table below), written to target/page-html/<page>.html: trunk builds
# one HTML at a time, each page with its own bin and wasm (src/views/mod.rs says why), and
# empties its dist directory first, so each page is built into target/pages/<page>/ and copied
# into dist/ (the CSS is the same file, same hash, on every page).
# Expects PATH to have wasm-bindgen, npm's wasm-opt and esbuild (dev.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

# file|bin (src/bin/<bin>.rs, or the lib's main.rs for shardcalc-web)|title
PAGES=(
  "index.html|shardcalc-web|shardcalc"
  "hardware.html|hardware|shardcalc: hardware and collectives"
  "training.html|training|shardcalc: training"
  "serving.html|serving|shardcalc: serving"
  "validation.html|validation|shardcalc: validation"
  "saved.html|saved|shardcalc: saved scenarios"
)
TEMPLATE=pages/template.html

rm -rf target/pages target/page-html
mkdir -p target/pages target/page-html
pages=()
for entry in "${PAGES[@]}"; do
  IFS='|' read -r html bin title <<<"$entry"
  pages+=("$html")
  sed -e "s|{{bin}}|$bin|" -e "s|{{title}}|$title|" "$TEMPLATE" >"target/page-html/$html"
  page=${html%.html}
  echo "--> trunk build --release $html (bin $bin)"
  trunk build --release --dist "target/pages/$page" "target/page-html/$html"
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
# Every page starts from start.js (Trunk.toml's pattern_script) and carries the template's
# Content-Security-Policy meta tag (trunk's HTML minifier keeps it; checked here). No page may
# keep an inline script or a data: icon, which that policy blocks.
cp public/start.js dist/start.js
for page in dist/*.html; do
  if ! grep -q 'Content-Security-Policy' "$page"; then
    echo "build-pages: $page has no Content-Security-Policy meta tag" >&2
    exit 1
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
