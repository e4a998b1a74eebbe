//! No scenario makes the core panic, hang or report a number that is not finite
//! (issue 7): a million generated scenarios, random and adversarial, go through
//! `Scenario::validate` and, when valid, `report::evaluate` (which includes
//! `notebook_tables`, and, when the scenario has them, the training planner and the
//! serving model), `flops_vs_seq_len`, `attention_crossover`, `kv_bytes_per_sequence`,
//! the bands of the plans' headline numbers and a JSON round trip of the report. See `scenarios.rs` and `sections.rs` for what is
//! generated and `checks.rs` and `planning.rs` for what is checked.
//!
//! Environment:
//! - `SHARDCALC_NO_PANIC_CASES`: how many cases (default 1,000,000 in an optimised build,
//!   20,000 in a debug build);
//! - `SHARDCALC_NO_PANIC_SEED`: the seed (default [`DEFAULT_SEED`]);
//! - `SHARDCALC_NO_PANIC_FIRST`: the first case index (to replay one failing case, set it
//!   to the index printed and CASES to 1);
//! - `SHARDCALC_NO_PANIC_TIMEOUT`: seconds one case may take before it counts as a hang
//!   (default 10).
//!
//! `./dev.sh test` runs the full million with `cargo test --profile quality` (optimised,
//! with overflow checks, so a silent integer wrap shows up as a panic here).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod checks;
mod models;
mod planning;
mod rng;
mod scenarios;
mod sections;

use checks::{check, class_names, Outcome, CLASS_COUNT};
use std::cell::RefCell;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const DEFAULT_SEED: u64 = 0x5EED_0007;
/// Cases a worker takes at a time.
const CHUNK: u64 = 512;
/// Marks a worker that is between cases.
const IDLE: u64 = u64::MAX;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => {
            let v = v.trim().replace('_', "");
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
        }
        Err(_) => default,
    }
}

thread_local! {
    /// The message of the last panic on this thread (the hook stores it).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The first failing case.
struct Failure {
    index: u64,
    message: String,
}

/// Counts over all cases.
struct Tally {
    valid: u64,
    rejected: u64,
    /// Valid cases per class.
    classes: [u64; CLASS_COUNT],
}

impl Default for Tally {
    fn default() -> Self {
        Self { valid: 0, rejected: 0, classes: [0; CLASS_COUNT] }
    }
}

/// A replayable description of case `index`.
fn describe(seed: u64, index: u64) -> String {
    let case = scenarios::case(seed, index);
    let text = serde_json::to_string(&case.scenario).unwrap_or_default();
    let mut out = format!(
        "case {index} (replay: SHARDCALC_NO_PANIC_SEED={seed:#x} SHARDCALC_NO_PANIC_FIRST={index} \
         SHARDCALC_NO_PANIC_CASES=1)\n  scenario: {:?}\n  as JSON: {}",
        case.scenario,
        text.chars().take(4000).collect::<String>()
    );
    if let Some(json) = &case.json {
        out += &format!("\n  fed as this JSON text: {}", json.chars().take(4000).collect::<String>());
    }
    out += &format!("\n  seq_lens {:?}, context {}, dtype {:?}", case.seq_lens, case.context, case.dtype);
    out
}

/// Run one case; `Err` on a panic or a failed check.
fn run_case(seed: u64, index: u64) -> Result<Outcome, String> {
    let case = scenarios::case(seed, index);
    match panic::catch_unwind(AssertUnwindSafe(|| check(&case))) {
        Ok(result) => result,
        Err(_) => Err(format!("panicked: {}", LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default())),
    }
}

#[test]
fn a_million_scenarios_never_panic() {
    let default_cases = if cfg!(debug_assertions) { 2_000 } else { 1_000_000 };
    let cases = env_u64("SHARDCALC_NO_PANIC_CASES", default_cases);
    let seed = env_u64("SHARDCALC_NO_PANIC_SEED", DEFAULT_SEED);
    let first = env_u64("SHARDCALC_NO_PANIC_FIRST", 0);
    let timeout = Duration::from_secs(env_u64("SHARDCALC_NO_PANIC_TIMEOUT", 10));
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let end = first.saturating_add(cases);

    panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
    let started = Instant::now();
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Failure>> = Mutex::new(None);
    let tally = Mutex::new(Tally::default());
    // Per worker: the case it is running (IDLE between cases) and since when (ms).
    let current: Vec<(AtomicU64, AtomicU64)> =
        (0..threads).map(|_| (AtomicU64::new(IDLE), AtomicU64::new(0))).collect();

    std::thread::scope(|scope| {
        for slot in &current {
            let (next, stop, failure, tally) = (&next, &stop, &failure, &tally);
            scope.spawn(move || {
                let mut mine = Tally::default();
                while !stop.load(Ordering::Relaxed) {
                    let from = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if from >= end {
                        break;
                    }
                    for index in from..(from + CHUNK).min(end) {
                        slot.1.store(started.elapsed().as_millis() as u64, Ordering::Relaxed);
                        slot.0.store(index, Ordering::Relaxed);
                        match run_case(seed, index) {
                            Ok(Outcome::Valid(bits)) => {
                                mine.valid += 1;
                                for (i, n) in mine.classes.iter_mut().enumerate() {
                                    *n += bits >> i & 1;
                                }
                            }
                            Ok(Outcome::Rejected) => mine.rejected += 1,
                            Err(message) => {
                                let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                                if f.as_ref().is_none_or(|f| index < f.index) {
                                    *f = Some(Failure { index, message });
                                }
                                stop.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                    }
                }
                slot.0.store(IDLE, Ordering::Relaxed);
                let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
                t.valid += mine.valid;
                t.rejected += mine.rejected;
                for (total, n) in t.classes.iter_mut().zip(mine.classes) {
                    *total += n;
                }
            });
        }
        // Watchdog: a case that runs too long is a hang; name it and fail the process
        // (a stuck thread cannot be cancelled).
        scope.spawn(|| loop {
            std::thread::sleep(Duration::from_millis(200));
            let finished = stop.load(Ordering::Relaxed) || next.load(Ordering::Relaxed) >= end;
            if finished && current.iter().all(|c| c.0.load(Ordering::Relaxed) == IDLE) {
                return;
            }
            let now = started.elapsed().as_millis() as u64;
            for c in &current {
                let index = c.0.load(Ordering::Relaxed);
                if index != IDLE && now.saturating_sub(c.1.load(Ordering::Relaxed)) > timeout.as_millis() as u64 {
                    // Straight to stderr: the harness's capture would be lost on exit.
                    let _ = writeln!(
                        std::io::stderr(),
                        "no_panic: HANG: one case ran for more than {timeout:?}\n{}",
                        describe(seed, index)
                    );
                    std::process::exit(1);
                }
            }
        });
    });
    let _ = panic::take_hook();

    let elapsed = started.elapsed();
    if let Some(f) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        panic!("no_panic: FAILED: {}\n{}", f.message, describe(seed, f.index));
    }
    let t = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    let coverage: Vec<String> = class_names().iter().zip(t.classes).map(|(name, n)| format!("{name} {n}")).collect();
    println!(
        "no_panic: {cases} scenarios (seed {seed:#x}, from {first}) in {:.1} s on {threads} threads: \
         {} valid, {} rejected with field errors\nno_panic: valid cases per class: {}",
        elapsed.as_secs_f64(),
        t.valid,
        t.rejected,
        coverage.join(", ")
    );
    if cases >= 10_000 {
        let share = |n: u64| n as f64 / cases as f64;
        assert!(
            share(t.valid) > 0.2 && share(t.rejected) > 0.2,
            "the generator drifted: {} valid, {} rejected",
            t.valid,
            t.rejected
        );
        let missing: Vec<&str> =
            class_names().iter().zip(t.classes).filter(|(_, n)| *n == 0).map(|(c, _)| *c).collect();
        assert!(missing.is_empty(), "no valid case covered {missing:?}");
    }
}
