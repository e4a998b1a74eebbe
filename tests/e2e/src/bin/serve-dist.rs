//! `serve-dist [DIR] [ADDR]`: serves the release build (default `dist`) on ADDR (default
//! 127.0.0.1:8080) until interrupted. `./dev.sh serve` runs it after building every page; any
//! static file server does the same job (the site is plain files, see the README).
use std::path::PathBuf;

use shardcalc_e2e::StaticServer;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "dist".into()));
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".into());
    if !dir.join("index.html").is_file() {
        eprintln!("serve-dist: {} has no index.html; build first (./dev.sh build)", dir.display());
        std::process::exit(1);
    }
    match StaticServer::bind(dir.clone(), &addr) {
        Ok(server) => {
            println!("serving {} on {}/ (Ctrl-C stops)", dir.display(), server.origin());
            loop {
                std::thread::park();
            }
        }
        Err(e) => {
            eprintln!("serve-dist: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    }
}
