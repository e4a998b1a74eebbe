//! Bundles `data/presets.json` and `data/chips.json` without their indentation: the pretty
//! files stay the ones people edit and review, and the crate embeds
//! `$OUT_DIR/<name>` with every space, tab and newline outside strings removed (about a
//! third of their bytes; the wasm page ships them). Nothing else changes: the text parses
//! to the same JSON (`core/src/presets.rs` and `core/src/hardware/catalog.rs` test that).

use std::{env, fs, path::Path};

/// The bundled data files, relative to the crate.
const DATA: [&str; 2] = ["data/presets.json", "data/chips.json"];

fn main() {
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    for path in DATA {
        println!("cargo:rerun-if-changed={path}");
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        let name = Path::new(path).file_name().expect("DATA names files");
        fs::write(Path::new(&out_dir).join(name), without_whitespace(&text))
            .unwrap_or_else(|e| panic!("writing the compact {path}: {e}"));
    }
}

/// `json` without the whitespace between tokens; strings (with their escapes) are kept as written.
fn without_whitespace(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
            in_string = c == '"';
        }
    }
    out
}
