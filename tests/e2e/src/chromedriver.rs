//! chromedriver in its own process group, killed as a group on drop, so that a panicking test
//! cannot leave an orphaned Chromium behind.

use std::io::{self, BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

/// A running chromedriver on a port of its own choosing on 127.0.0.1.
pub struct ChromeDriver {
    child: Child,
    port: u16,
}

impl ChromeDriver {
    /// Starts `$CHROMEDRIVER` (default: `chromedriver` on PATH) and waits until it listens.
    pub fn start() -> io::Result<Self> {
        let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let mut child = Command::new(&binary)
            .arg("--port=0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|err| {
                io::Error::new(
                    err.kind(),
                    format!("cannot start {binary}: {err} (scripts/setup.sh installs chromium-driver)"),
                )
            })?;

        // From here on, dropping `driver` (also on an early return) kills the group.
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut driver = Self { child, port: 0 };

        // chromedriver prints "ChromeDriver was started successfully on port 40515."
        let mut lines = BufReader::new(stdout);
        let mut line = String::new();
        while lines.read_line(&mut line)? > 0 {
            let port = line.split("started successfully on port ").nth(1);
            if let Some(port) = port.and_then(|p| p.trim().trim_end_matches('.').parse().ok()) {
                driver.port = port;
                // Keep draining stdout so chromedriver never blocks on a full pipe.
                thread::spawn(move || io::copy(&mut lines, &mut io::sink()));
                return Ok(driver);
            }
            line.clear();
        }
        Err(io::Error::other(format!("{binary} exited before reporting its port")))
    }

    /// The WebDriver URL, e.g. `http://127.0.0.1:40515`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The negative pid names the whole group: chromedriver and every browser it started.
        let pgid = self.child.id();
        let signal = |sig: &str| {
            let group = format!("-{pgid}");
            let _ = Command::new("kill").args([sig, "--", &group]).stderr(Stdio::null()).status();
        };
        signal("-TERM");
        let _ = self.child.wait();
        // Wait (up to 2 s) for the browser processes as well, so that their profile can be deleted.
        for _ in 0..40 {
            if !group_is_running(pgid) {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        signal("-KILL");
    }
}

/// Whether any process of group `pgid` is still running. Zombies don't count: the orphaned
/// browser processes are reaped by pid 1, which can take a second, but they hold no files.
fn group_is_running(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // "<pid> (<comm>) <state> <ppid> <pgrp> ..."; comm may contain spaces, so split after ')'.
        let after_comm = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<&str> = after_comm.split_whitespace().collect();
        match fields.as_slice() {
            [state, _ppid, pgrp, ..] => *state != "Z" && pgrp.parse() == Ok(pgid),
            _ => false,
        }
    })
}
