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
done
rm -rf dist
mkdir -p dist
for html in "${pages[@]}"; do
  # trunk names every page's HTML index.html: give it back its own name.
  dir="target/pages/${html%.html}"
  for f in "$dir"/*; do
    [ "$(basename "$f")" = index.html ] || cp -R "$f" dist/
  done
  cp "$dir/index.html" "dist/$html"
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
