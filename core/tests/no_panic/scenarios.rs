//! The scenario generator: random and adversarial scenarios.
//!
//! Each case picks a hostility mode, then a model source (a preset by id, a preset's
//! architecture with whole components regenerated, or a model built from scratch) and a
//! workload. `Typical` and `Extreme` cases are valid by construction (log-uniform values
//! inside every validation bound, `Extreme` sitting on the bounds half of the time, which
//! gives the largest models the validator admits); `Hostile` cases put each field out of
//! bounds or out of step with another field with some probability. A quarter of the cases
//! are also sent as JSON text with one value replaced by something the Rust types cannot
//! hold (negatives, fractions, 1e400, 2^64, strings, null, ...). Half the cases also
//! carry `hardware` with `training`, `inference` or both (`sections.rs`).

use super::rng::Rng;
use shardcalc_core::dtype::DType;
use shardcalc_core::flops::{FlopConvention, RematPolicy, Workload, MAX_SEQ_LEN, MIN_PER_DEVICE_BATCH};
use shardcalc_core::model::{MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, MAX_PATTERN, MAX_TOKENS, MAX_VOCAB, MAX_WIDTH};
use shardcalc_core::presets;
use shardcalc_core::scenario::{Conventions, ModelSource, Scenario, SCENARIO_VERSION};
use shardcalc_core::validation::PredictionMode;

/// `Workload::validate`'s upper bounds on the batch and on gradient accumulation.
const MAX_BATCH: f64 = 1e7;
const MAX_GRAD_ACCUM: u64 = 1 << 16;

/// The integers most likely to break arithmetic: zero and one, every validation bound
/// and its neighbours, 2^32, the edge of exact `f64` integers, and the top of `u64`.
const EDGES: [u64; 32] = [
    0,
    1,
    2,
    3,
    17,
    MAX_PATTERN as u64,
    MAX_PATTERN as u64 + 1,
    MAX_WIDTH - 1,
    MAX_WIDTH,
    MAX_WIDTH + 1,
    MAX_LAYERS,
    MAX_LAYERS + 1,
    MAX_VOCAB,
    MAX_VOCAB + 1,
    MAX_HEADS + 1,
    MAX_EXPERTS,
    MAX_EXPERTS + 1,
    MAX_TOKENS,
    MAX_TOKENS + 1,
    MAX_SEQ_LEN,
    MAX_SEQ_LEN + 1,
    1 << 32,
    (1 << 53) - 1,
    1 << 53,
    (1 << 53) + 1,
    1 << 62,
    1 << 63,
    (1 << 63) + 1,
    u64::MAX / 3,
    u64::MAX - 1,
    u64::MAX,
    12_345_678_901,
];

/// Batches outside `[1e-6, 1e7]` or not numbers at all.
const BAD_BATCHES: [f64; 18] = [
    0.0,
    -0.0,
    -1.0,
    -1e-300,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN,
    MAX_BATCH.next_up(),
    1e7 + 1.0,
    1e300,
    -5e-324,
    -f64::NAN,
    5e-324, // subnormal
    f64::MIN_POSITIVE,
    1e-300,
    MIN_PER_DEVICE_BATCH.next_down(), // just below the smallest batch
];

/// Valid batches at the edges.
const EDGE_BATCHES: [f64; 5] = [MIN_PER_DEVICE_BATCH, MIN_PER_DEVICE_BATCH.next_up(), 1e-3, MAX_BATCH, 0.1];

/// Raw JSON tokens to splice into a scenario document in place of one value.
pub const JSON_TOKENS: [&str; 17] = [
    "-1",
    "-0",
    "1.5",
    "1e400",
    "-1e400",
    "1e-400",
    "18446744073709551616",
    "-9223372036854775809",
    "4096.0",
    "\"4096\"",
    "\"\"",
    "null",
    "[]",
    "{}",
    "true",
    "\"global\"",
    "{\"type\": \"chunked\", \"chunk\": 0}",
];

/// How hostile one case is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Every field log-uniform inside its bounds.
    Typical,
    /// Inside the bounds, and on a bound half of the time.
    Extreme,
    /// Each field broken with this probability.
    Hostile(f64),
}

/// One generated case.
pub struct Case {
    /// The scenario as a value.
    pub scenario: Scenario,
    /// When set, the scenario is fed as this JSON text instead (one value replaced).
    pub json: Option<String>,
    /// Sequence lengths for `flops_vs_seq_len` (0 to 2^40, and u64::MAX).
    pub seq_lens: Vec<u64>,
    /// Context length for `kv_bytes_per_sequence`.
    pub context: u64,
    /// Storage format for the KV cache.
    pub dtype: DType,
}

/// Generates values for one case (model generators in `models.rs`).
pub struct Gen<'a> {
    pub r: &'a mut Rng,
    pub mode: Mode,
}

/// Generate case number `case` of the run seeded with `seed`.
pub fn case(seed: u64, case: u64) -> Case {
    let mut r = Rng::for_case(seed, case);
    let mode = match r.below(10) {
        0..=3 => Mode::Typical,
        4..=5 => Mode::Extreme,
        6..=8 => Mode::Hostile(0.03),
        _ => Mode::Hostile(0.3),
    };
    let mut g = Gen { r: &mut r, mode };
    let scenario = g.scenario();
    let seq_lens = (0..g.r.in_range(0, 8)).map(|_| g.seq_len_any()).collect();
    let context = g.seq_len_any();
    let dtype = g.r.pick(&DType::ALL);
    let json = g.r.chance(0.25).then(|| g.mutated_json(&scenario));
    Case { scenario, json, seq_lens, context, dtype }
}

impl Gen<'_> {
    /// True when this field should be broken.
    pub fn bad(&mut self) -> bool {
        match self.mode {
            Mode::Hostile(p) => self.r.chance(p),
            Mode::Typical | Mode::Extreme => false,
        }
    }

    /// Any u64, favouring the edges.
    pub fn hostile_u64(&mut self) -> u64 {
        match self.r.below(4) {
            0 | 1 => self.r.pick(&EDGES),
            2 => self.r.below(17),
            _ => self.r.in_range(0, u64::MAX),
        }
    }

    /// A value in `lo..=hi`, or (when hostile) anything.
    pub fn num(&mut self, lo: u64, hi: u64) -> u64 {
        if self.bad() {
            return self.hostile_u64();
        }
        if self.mode == Mode::Extreme && self.r.chance(0.5) {
            return if self.r.chance(0.8) { hi } else { lo };
        }
        self.r.in_range(lo, hi)
    }

    pub fn flag(&mut self) -> bool {
        self.r.chance(0.5)
    }

    fn scenario(&mut self) -> Scenario {
        let model = match self.r.below(10) {
            0..=1 => ModelSource::Preset(self.preset_id()),
            2..=4 => ModelSource::Custom(Box::new(self.mutated_preset())),
            _ => ModelSource::Custom(Box::new(self.model())),
        };
        let version = if self.bad() { self.r.pick(&[0, SCENARIO_VERSION + 1, u32::MAX]) } else { SCENARIO_VERSION };
        let mut s = Scenario {
            version,
            model,
            workload: self.workload(),
            conventions: Conventions {
                flops: self.r.pick(&FlopConvention::ALL),
                prediction: self.r.pick(&PredictionMode::ALL),
            },
            // `collectives` and `roofline` are covered by their own property tests
            // (core/tests/hardware_scenarios.rs).
            ..Scenario::default()
        };
        // Half the cases plan: hardware with training, inference or both (sections.rs).
        if self.r.chance(0.5) {
            let hw = self.hardware();
            let axes = hw.topology.as_ref().map_or_else(Vec::new, |t| t.axes.clone());
            let chips = axes.iter().fold(1u64, |a, x| a.saturating_mul(x.size));
            let names: Vec<String> = axes.into_iter().map(|a| a.name).collect();
            let which = self.r.below(3);
            if which != 1 {
                s.training = Some(self.training(chips));
            }
            if which != 0 {
                s.inference = Some(self.inference(&names));
            }
            s.hardware = Some(hw);
        }
        s
    }

    fn preset_id(&mut self) -> String {
        if self.bad() {
            let junk = ["", "LLAMA-3-8B", "llama-3-8b ", "llama-3-8b\0", "../presets", "é"];
            return if self.r.chance(0.1) { "x".repeat(100_000) } else { self.r.pick(&junk).into() };
        }
        let all = presets::all();
        all[self.r.below(all.len() as u64) as usize].id.clone()
    }

    fn workload(&mut self) -> Workload {
        let per_device_batch = if self.bad() {
            self.r.pick(&BAD_BATCHES)
        } else if self.mode == Mode::Extreme && self.flag() {
            self.r.pick(&EDGE_BATCHES)
        } else {
            match self.r.below(4) {
                0 => self.r.in_range(1, 64) as f64,
                1 => self.r.pick(&[0.5, 0.25, 1.0 / 3.0, 0.1, 1.5, 0.125]),
                // Log-uniform between 1e-6 and 1e7.
                _ => 10f64.powf(self.r.unit() * 13.0 - 6.0),
            }
        };
        Workload {
            per_device_batch,
            seq_len: self.num(1, MAX_SEQ_LEN),
            grad_accum: self.num(1, MAX_GRAD_ACCUM),
            remat: self.r.pick(&[RematPolicy::None, RematPolicy::SaveMatmuls, RematPolicy::Full]),
        }
    }

    /// A sequence length anywhere in `0..=2^40`, or `u64::MAX`.
    fn seq_len_any(&mut self) -> u64 {
        match self.r.below(10) {
            0 => self.r.pick(&[0, 1, 2, 1 << 40, u64::MAX, MAX_SEQ_LEN + 1]),
            _ => self.r.in_range(0, 1 << 40),
        }
    }

    /// The scenario's JSON with one value (or key) replaced by something hostile.
    fn mutated_json(&mut self, s: &Scenario) -> String {
        let mut value = serde_json::to_value(s).unwrap_or(serde_json::Value::Null);
        let mut leaves = Vec::new();
        collect_paths(&value, String::new(), &mut leaves);
        const MARK: &str = "\u{1}splice\u{1}";
        if let Some(path) = leaves.get(self.r.below(leaves.len() as u64) as usize) {
            if let Some(slot) = value.pointer_mut(path) {
                match self.r.below(10) {
                    0 => {
                        // An unknown key next to the chosen value.
                        if let serde_json::Value::Object(m) = slot {
                            m.insert("unexpected".into(), true.into());
                        } else {
                            *slot = serde_json::json!({"unexpected": true});
                        }
                    }
                    _ => *slot = serde_json::Value::String(MARK.into()),
                }
            }
        }
        let token = self.r.pick(&JSON_TOKENS);
        serde_json::to_string(&value)
            .unwrap_or_default()
            .replace(&serde_json::to_string(MARK).unwrap_or_default(), token)
    }
}

/// JSON pointers of every value in `v`, containers included.
fn collect_paths(v: &serde_json::Value, here: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, child) in m {
                collect_paths(child, format!("{here}/{k}"), out);
            }
        }
        serde_json::Value::Array(items) => {
            // Long patterns: a few entries are enough.
            for (i, child) in items.iter().enumerate().take(4) {
                collect_paths(child, format!("{here}/{i}"), out);
            }
        }
        _ => {}
    }
    if !here.is_empty() {
        out.push(here);
    }
}
