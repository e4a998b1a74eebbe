//! `single-file BUILD_DIR OUT.html`: writes the single-file offline page from a trunk build
//! of `single-file/index.html` (see the crate docs; `./dev.sh offline` runs it).
#![forbid(unsafe_code)]

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out] = args.as_slice() else {
        eprintln!("usage: single-file BUILD_DIR OUT.html");
        return ExitCode::from(2);
    };
    let result = shardcalc_bundle::read_parts(Path::new(dir))
        .and_then(|parts| shardcalc_bundle::bundle(&parts))
        .and_then(|html| {
            if let Some(parent) = Path::new(out).parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(out, &html).map_err(|e| format!("{out}: {e}"))?;
            Ok(html.len())
        });
    match result {
        Ok(bytes) => {
            println!("single-file: wrote {out} ({bytes} bytes)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("single-file: {e}");
            ExitCode::FAILURE
        }
    }
}
