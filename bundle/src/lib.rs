//! The single-file offline page: one HTML file holding the CSS, the wasm-bindgen JS glue and
//! the wasm (as base64), that works opened from disk (`file://`) or from any static host and
//! loads nothing else.
//!
//! Input: a trunk release build of `single-file/index.html` (one `.css`, one `<bin>.js`,
//! one `<bin>_bg.wasm`). The page's script is the glue followed by a loader that decodes the
//! inlined wasm and instantiates it from the bytes (no `fetch`, which `file://` refuses). The
//! page carries its own Content-Security-Policy: no source at all except the inline script
//! and style, allowed by their SHA-256 hashes ([`csp`]), plus wasm compilation.

#![forbid(unsafe_code)]

mod hash;

use std::path::Path;

pub use hash::{base64, sha256};

/// What a trunk build of one page produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    /// The style sheet.
    pub css: String,
    /// The wasm-bindgen JS glue (an ES module).
    pub js: String,
    /// The wasm.
    pub wasm: Vec<u8>,
    /// The favicon (SVG), if the build has one.
    pub icon: Option<String>,
}

/// Reads the parts of a trunk build in `dir`.
///
/// # Errors
/// Missing or ambiguous files, or a glue that imports other files (snippets), which one file
/// cannot hold.
pub fn read_parts(dir: &Path) -> Result<Parts, String> {
    let mut css = Vec::new();
    let mut wasm = Vec::new();
    let mut icon = None;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".css") {
            css.push(entry.path());
        } else if name.ends_with("_bg.wasm") {
            wasm.push(entry.path());
        } else if name.ends_with(".svg") && name.starts_with("favicon") {
            icon = Some(entry.path());
        } else if name == "snippets" {
            return Err(format!("{}: the glue imports snippets, which a single file cannot hold", dir.display()));
        }
    }
    let one = |list: Vec<std::path::PathBuf>, what: &str| match list.as_slice() {
        [only] => Ok(only.clone()),
        _ => Err(format!("{}: expected one {what}, found {}", dir.display(), list.len())),
    };
    let css = one(css, "style sheet (*.css)")?;
    let wasm = one(wasm, "wasm (*_bg.wasm)")?;
    let wasm_name = wasm.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let js = dir.join(format!("{}.js", wasm_name.trim_end_matches("_bg.wasm")));
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let glue = read(&js)?;
    if glue.lines().any(|l| l.trim_start().starts_with("import ")) {
        return Err(format!("{}: the glue imports other modules, which a single file cannot hold", js.display()));
    }
    Ok(Parts {
        css: read(&css)?,
        js: glue,
        wasm: std::fs::read(&wasm).map_err(|e| format!("{}: {e}", wasm.display()))?,
        icon: icon.map(|p| read(&p)).transpose()?,
    })
}

/// The loader appended to the glue: decodes the inlined wasm and instantiates it.
const LOADER: &str = r#"
// single-file loader (bundle/src/lib.rs): the wasm is inlined as base64, so nothing is fetched.
const encoded = document.getElementById("shardcalc-wasm").textContent.replace(/\s+/g, "");
const binary = atob(encoded);
const bytes = new Uint8Array(binary.length);
for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
await __wbg_init({ module_or_path: bytes });
"#;

/// The policy of the single file: nothing but its own inline script and style (by hash),
/// wasm compilation from them, and `data:` images (its icon).
#[must_use]
pub fn csp(script: &str, style: &str) -> String {
    format!(
        "default-src 'none'; script-src 'sha256-{}' 'wasm-unsafe-eval'; style-src 'sha256-{}'; img-src data:; base-uri 'none'; form-action 'none'",
        base64(&sha256(script.as_bytes())),
        base64(&sha256(style.as_bytes()))
    )
}

/// The single HTML file.
///
/// # Errors
/// A glue that does not define `__wbg_init`, or text that would end its `<script>` or
/// `<style>` element early.
pub fn bundle(parts: &Parts) -> Result<String, String> {
    if !parts.js.contains("function __wbg_init") {
        return Err("the glue has no __wbg_init (not wasm-bindgen's web target?)".into());
    }
    let script = format!("{}\n{LOADER}", parts.js.trim_end());
    for (what, text, end) in [("script", &script, "</script"), ("style sheet", &parts.css, "</style")] {
        if text.to_ascii_lowercase().contains(end) {
            return Err(format!("the {what} contains {end}, which would end its element"));
        }
    }
    let icon = parts
        .icon
        .as_ref()
        .map(|svg| format!("\n<link rel=\"icon\" href=\"data:image/svg+xml;base64,{}\">", base64(svg.as_bytes())))
        .unwrap_or_default();
    Ok(format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="shardcalc-build" content="single-file">
<title>shardcalc</title>{icon}
<style>{css}</style>
</head>
<body>
<noscript><p class="noscript">shardcalc runs in your browser as WebAssembly: please enable JavaScript to use it.</p></noscript>
<script type="application/octet-stream" id="shardcalc-wasm">{wasm}</script>
<script type="module">{script}</script>
</body>
</html>
"#,
        csp = csp(&script, &parts.css),
        css = parts.css,
        wasm = base64(&parts.wasm),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> Parts {
        Parts {
            css: "body{margin:0}".into(),
            js: "let wasm;\nasync function __wbg_init(m) { return m; }\nexport default __wbg_init;\n".into(),
            wasm: vec![0, 97, 115, 109, 1, 0, 0, 0],
            icon: Some("<svg/>".into()),
        }
    }

    #[test]
    fn the_page_holds_everything_and_its_policy_hashes_match() {
        let html = bundle(&parts()).unwrap();
        assert!(html.contains("<style>body{margin:0}</style>"));
        assert!(html.contains(">AGFzbQEAAAA=</script>"), "the wasm as base64");
        let script = html.split("<script type=\"module\">").nth(1).unwrap().split("</script>").next().unwrap();
        assert!(script.starts_with("let wasm;") && script.contains("await __wbg_init({ module_or_path: bytes })"));
        let policy = csp(script, "body{margin:0}");
        assert!(html.contains(&format!("content=\"{policy}\"")));
        assert!(policy.contains(&format!("'sha256-{}'", base64(&sha256(script.as_bytes())))));
        assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "nothing from elsewhere");
        assert!(html.contains("data:image/svg+xml;base64,PHN2Zy8+"));
    }

    #[test]
    fn text_that_would_end_an_element_is_refused() {
        let mut p = parts();
        p.js.push_str("const s = '</SCRIPT>';");
        assert!(bundle(&p).unwrap_err().contains("</script"));
        let mut p = parts();
        p.css.push_str("</style>");
        assert!(bundle(&p).unwrap_err().contains("</style"));
        let mut p = parts();
        p.js = "export default 1;".into();
        assert!(bundle(&p).unwrap_err().contains("__wbg_init"));
    }

    #[test]
    fn a_build_directory_is_read_and_checked() {
        let dir = std::env::temp_dir().join(format!("shardcalc-bundle-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = parts();
        std::fs::write(dir.join("style-1a2b.css"), &p.css).unwrap();
        std::fs::write(dir.join("all-9f.js"), &p.js).unwrap();
        std::fs::write(dir.join("all-9f_bg.wasm"), &p.wasm).unwrap();
        std::fs::write(dir.join("favicon-77.svg"), "<svg/>").unwrap();
        std::fs::write(dir.join("index.html"), "<html></html>").unwrap();
        assert_eq!(read_parts(&dir).unwrap(), p);
        std::fs::write(dir.join("all-9f.js"), "import x from './snippets/a.js';\n").unwrap();
        assert!(read_parts(&dir).unwrap_err().contains("imports"));
        std::fs::write(dir.join("other.css"), "").unwrap();
        assert!(read_parts(&dir).unwrap_err().contains("expected one style sheet"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
