#!/usr/bin/env python3
"""Minifies the wasm-bindgen JS glue of one built page with esbuild (trunk's own JS minifier
cannot parse it and ships it as is) and rewrites its subresource-integrity hash in the page's
HTML. About 1.9 KB less gzip per page (docs/size.md).

usage: minify-js.py PAGE_DIR   (a trunk --dist directory: one *.html, its *.js)
Expects esbuild on PATH (tools/package.json; dev.sh puts tools/node_modules/.bin on PATH).
"""
import base64
import hashlib
import pathlib
import subprocess
import sys


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def main() -> None:
    page_dir = pathlib.Path(sys.argv[1])
    htmls = list(page_dir.glob("*.html"))
    for js in page_dir.glob("*.js"):
        before = js.read_bytes()
        subprocess.run(
            ["esbuild", str(js), "--minify", "--format=esm", "--log-level=warning", f"--outfile={js}", "--allow-overwrite"],
            check=True,
        )
        after = js.read_bytes()
        old, new = sri(before), sri(after)
        for html in htmls:
            text = html.read_text()
            if old in text:
                html.write_text(text.replace(old, new))
        print(f"    {js.name}: {len(before)} -> {len(after)} bytes (esbuild --minify)")


if __name__ == "__main__":
    main()
