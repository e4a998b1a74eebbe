#!/usr/bin/env python3
"""Groups a `twiggy top --format csv` listing of a names-preserving wasm by crate, and our own
crates (shardcalc, shardcalc_core, shardcalc_charts) by module. Used by scripts/size-report.sh.

A function counts for the crate that its path starts with; a trait method `<T as Trait>::f`
counts for T's crate, or for the trait's when T is a generic parameter. Generic code counts for
the crate that defines it, not the one that instantiates it: `tachys` and `reactive_graph` hold
the views' monomorphised rendering code, `core`/`alloc` hold formatting and collections for
everyone. Raw bytes after wasm-opt; gzip shrinks each part differently.

usage: wasm-size-by-crate.py TOP.csv [CRATES_SHOWN]
"""
import csv
import re
import sys
from collections import defaultdict

OURS = ("shardcalc", "shardcalc_core", "shardcalc_charts", "shardcalc_web")
DATA = "(data: strings, bundled JSON, tables)"
PATH = re.compile(
    r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[[0-9a-f]+\])?::([A-Za-z_][A-Za-z0-9_]*)?(?:::([A-Za-z_][A-Za-z0-9_]*))?"
)


def owner(name):
    """The crate (or crate::module for our crates) an item belongs to; None to leave it out."""
    if name.startswith("data segment") or name.startswith("data["):
        return DATA
    if "subsection" in name or name.startswith("custom section"):
        return None  # the names and debug sections exist only in this attribution build
    impl = re.match(r"^<(.+?) as (.+?)>::", name)
    for cand in (impl.group(1), impl.group(2)) if impl else (name,):
        cand = re.sub(r"^(?:&mut |&|\*const |\*mut |dyn |impl |\(|\[|<)+", "", cand.strip())
        m = PATH.match(cand)
        if not m:
            continue
        crate, module, sub = m.groups()
        if crate not in OURS:
            return crate
        module = module or ""
        if crate == "shardcalc" and module in ("views", "components") and sub and not sub.startswith("_"):
            module += "::" + sub
        return f"{crate}::{module}"
    return "(wasm-bindgen glue, tables, other)"


def main():
    shown = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    items = defaultdict(int)
    with open(sys.argv[1], newline="") as f:
        rows = csv.reader(f)
        next(rows)
        for row in rows:
            name, size = row[0], int(row[1])
            if name.startswith(("Σ", "...")):
                continue
            key = owner(name)
            if key is not None:
                items[key] += size
    total = sum(items.values())
    crates = defaultdict(int)
    for key, size in items.items():
        crates[key.split("::")[0]] += size
    print(f"  {'crate (raw bytes after wasm-opt)':<44} {'bytes':>9} {'share':>6}")
    ranked = sorted(crates.items(), key=lambda kv: -kv[1])
    for crate, size in ranked[:shown]:
        print(f"  {crate:<44} {size:>9} {100 * size / total:>5.1f}%")
    rest = sum(size for _, size in ranked[shown:])
    print(f"  {f'{len(ranked) - shown} more crates':<44} {rest:>9} {100 * rest / total:>5.1f}%")
    print(f"  {'total':<44} {total:>9}")
    print(f"\n  {'our crates by module':<44} {'bytes':>9}")
    for key, size in sorted(items.items(), key=lambda kv: -kv[1]):
        if "::" in key and size >= 1000:
            print(f"  {key:<44} {size:>9}")


if __name__ == "__main__":
    main()
