//! Harness for browser end-to-end tests of the release bundle in `dist/`.
//!
//! A test opens a [`Browser`] (static server for `dist/` + chromedriver + headless Chromium with
//! hermetic flags), drives the page with the helpers on it, and closes it:
//!
//! ```no_run
//! # async fn demo() {
//! let browser = shardcalc_e2e::Browser::open().await;
//! browser.set_input("#workload-seq_len", "8192").await;
//! browser.wait_for_text("#total-params-value", "8,030,261,248").await;
//! browser.close().await;
//! # }
//! ```
//!
//! Build the bundle first with `trunk build --release` (`./dev.sh test` does).
//! Environment overrides: `CHROMIUM` (browser binary), `CHROMEDRIVER` (driver binary).

mod browser;
mod chromedriver;
mod server;

use std::path::{Path, PathBuf};

pub use browser::{Browser, TIMEOUT};
pub use chromedriver::ChromeDriver;
pub use server::{ServeOptions, ServedRequest, StaticServer};

/// Flags for every headless Chromium this project starts. The last two keep the browser's own
/// background traffic (update checks, accounts, time sync) off the network: no DNS lookups leave
/// the machine and anything not on 127.0.0.1 goes to a dead loopback proxy. `webdriver.json`
/// (used by wasm-bindgen-test-runner) carries the same list; `--user-data-dir` is added per run.
pub const CHROMIUM_ARGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1000,800",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
];

/// The repository root (this crate lives in `tests/e2e/`).
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Cargo's target directory: `$CARGO_TARGET_DIR` if set, else `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// The release bundle trunk wrote. Panics with what to run when it is missing.
pub fn dist_dir() -> PathBuf {
    let dist = workspace_root().join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "{} has no index.html: run `trunk build --release` first (or `./dev.sh test`, which does)",
        dist.display()
    );
    dist
}
