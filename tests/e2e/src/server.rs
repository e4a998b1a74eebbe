//! A std-only static file server for `dist/` on 127.0.0.1, one thread per connection.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;

/// One request the server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedRequest {
    pub path: String,
    pub status: u16,
}

/// Serves the files under a directory at `http://127.0.0.1:<port>/<prefix>` until the process
/// exits.
pub struct StaticServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<ServedRequest>>>,
    prefix: String,
}

/// How a [`StaticServer`] serves: under which path, with which extra response headers.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Path the directory is served under, e.g. `/tools/shardcalc/` (default `/`); anything
    /// outside it is a 404.
    pub prefix: String,
    /// Extra headers on every response, e.g. `Content-Security-Policy`.
    pub headers: Vec<(String, String)>,
}

impl StaticServer {
    /// Binds a free port on 127.0.0.1 and serves `root` from a background thread.
    pub fn start(root: PathBuf) -> io::Result<Self> {
        Self::bind(root, "127.0.0.1:0")
    }

    /// Serves `root` on `addr` (e.g. `127.0.0.1:8080`) from a background thread.
    pub fn bind(root: PathBuf, addr: &str) -> io::Result<Self> {
        Self::bind_with(root, addr, ServeOptions::default())
    }

    /// Binds a free port on 127.0.0.1 and serves `root` as `options` say.
    pub fn start_with(root: PathBuf, options: ServeOptions) -> io::Result<Self> {
        Self::bind_with(root, "127.0.0.1:0", options)
    }

    /// Serves `root` on `addr` as `options` say, from a background thread.
    pub fn bind_with(root: PathBuf, addr: &str, options: ServeOptions) -> io::Result<Self> {
        let mut options = options;
        options.prefix = format!("/{}/", options.prefix.trim_matches('/')).replace("//", "/");
        let prefix = options.prefix.clone();
        let options = Arc::new(options);
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let server_log = Arc::clone(&log);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, log, options) = (root.clone(), Arc::clone(&server_log), Arc::clone(&options));
                thread::spawn(move || {
                    // A browser closing a connection early is not the server's problem.
                    let _ = serve(stream, &root, &log, &options);
                });
            }
        });
        Ok(Self { addr, log, prefix })
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The path the directory is served under, with slashes on both ends (`/` by default).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Every request answered so far, in order.
    pub fn requests(&self) -> Vec<ServedRequest> {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }
}

fn serve(
    mut stream: TcpStream,
    root: &Path,
    log: &Mutex<Vec<ServedRequest>>,
    options: &ServeOptions,
) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }

    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    // `/tools/shardcalc` (no slash) is the directory too; anything outside the prefix is a 404.
    let inside =
        path.strip_prefix(options.prefix.as_str()).or_else(|| (format!("{path}/") == options.prefix).then_some(""));
    let (status, body, content_type) = match inside.map(|p| p.trim_start_matches('/')) {
        None => (404, b"not found".to_vec(), "text/plain"),
        Some(rel) if rel.split('/').any(|part| part == "..") => (403, b"forbidden".to_vec(), "text/plain"),
        Some(rel) => {
            let relative = if rel.is_empty() { "index.html" } else { rel };
            match std::fs::read(root.join(relative)) {
                Ok(body) => (200, body, content_type(relative)),
                Err(_) => (404, b"not found".to_vec(), "text/plain"),
            }
        }
    };
    if let Ok(mut log) = log.lock() {
        log.push(ServedRequest { path, status });
    }

    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        _ => "Not Found",
    };
    let extra: String = options.headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    stream.flush()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}
