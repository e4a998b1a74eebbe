//! Bundles the data files the crate embeds, compacted:
//!
//! - `data/presets.json`, `data/run-setups.json`, `data/calibration.json`,
//!   `data/validation-table.json`, `data/serving-calibration.json` and
//!   `data/serving-validation.json` without their indentation: the pretty files stay the ones
//!   people edit and review, and the crate embeds `$OUT_DIR/<name>` with every space,
//!   tab and newline outside strings removed (about a third of their bytes; the wasm
//!   page ships them). The text parses to the same JSON (each loader tests that).
//! - `data/chips.json` split in two, compact: `$OUT_DIR/chips.json`, the chips without
//!   their provenance (what every page computes with: 7 KB), and
//!   `$OUT_DIR/chip-provenance.json`, each chip's `id` with its `source`, `as_of`,
//!   `field_sources`, `alternatives` and `notes` (18 KB of citations, which only the pages
//!   that show them ship: `hardware::catalog::with_provenance`). Joined again they are the
//!   data file's JSON (`catalog` tests that).
//! - The numbers of `data/calibration.json` (the five fitted parameters and the held-back
//!   residual percentiles) as Rust constants, `$OUT_DIR/calibration_values.rs`, and those
//!   of `data/serving-calibration.json` as `$OUT_DIR/serving_calibration_values.rs`: the
//!   training and serving pages need only these, not a JSON parser for the whole file
//!   (`validation::calibration` and `efficiency::serving` test that they are
//!   the files').
//! - `data/published-runs.csv` (a copy of the shared reference table, kept as CSV so it
//!   can be compared with its source line by line) as `$OUT_DIR/published-runs.json`: a
//!   JSON array with one object per row, keys from the header, numbers unquoted, empty
//!   cells `null`. The page then needs no CSV parser; `validation::runs` tests the
//!   conversion against values read off the CSV.
//! - `data/serving-runs.csv` (the serving validation set, `data/SERVING-RUNS.md`) the same
//!   way, as `$OUT_DIR/serving-runs.json`; `validation::serving_runs` tests it.

use std::{env, fs, path::Path};

/// The bundled JSON data files, relative to the crate.
const DATA: [&str; 6] = [
    "data/presets.json",
    "data/run-setups.json",
    "data/calibration.json",
    "data/validation-table.json",
    "data/serving-calibration.json",
    "data/serving-validation.json",
];

/// The chip catalog, and the keys of a chip that are its provenance rather than its numbers.
const CHIPS: &str = "data/chips.json";
const PROVENANCE_KEYS: [&str; 5] = ["source", "as_of", "field_sources", "alternatives", "notes"];

/// The published runs table and the columns of it that are text (every other column is
/// a number or empty).
const RUNS_CSV: &str = "data/published-runs.csv";
const RUNS_TEXT_COLUMNS: [&str; 5] = ["id", "source", "chip", "flops_convention_then", "notes"];

/// The serving validation set and its text columns.
const SERVING_CSV: &str = "data/serving-runs.csv";
const SERVING_TEXT_COLUMNS: [&str; 18] = [
    "id",
    "source",
    "ref",
    "date",
    "engine",
    "engine_version",
    "model",
    "model_preset",
    "chip",
    "weights",
    "kv",
    "activations",
    "compute",
    "lengths",
    "scenario",
    "ttft_stat",
    "tpot_stat",
    "notes",
];

fn main() {
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    for path in DATA {
        println!("cargo:rerun-if-changed={path}");
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        let name = Path::new(path).file_name().expect("DATA names files");
        fs::write(Path::new(&out_dir).join(name), without_whitespace(&text))
            .unwrap_or_else(|e| panic!("writing the compact {path}: {e}"));
    }
    println!("cargo:rerun-if-changed={CHIPS}");
    let chips = fs::read_to_string(CHIPS).unwrap_or_else(|e| panic!("reading {CHIPS}: {e}"));
    let (numbers, provenance) = split_chips(&chips).unwrap_or_else(|e| panic!("{CHIPS}: {e}"));
    fs::write(Path::new(&out_dir).join("chips.json"), numbers).unwrap_or_else(|e| panic!("writing chips.json: {e}"));
    fs::write(Path::new(&out_dir).join("chip-provenance.json"), provenance)
        .unwrap_or_else(|e| panic!("writing chip-provenance.json: {e}"));
    let calibration =
        fs::read_to_string("data/calibration.json").unwrap_or_else(|e| panic!("reading data/calibration.json: {e}"));
    fs::write(Path::new(&out_dir).join("calibration_values.rs"), calibration_values(&without_whitespace(&calibration)))
        .unwrap_or_else(|e| panic!("writing calibration_values.rs: {e}"));
    let serving = fs::read_to_string("data/serving-calibration.json")
        .unwrap_or_else(|e| panic!("reading data/serving-calibration.json: {e}"));
    fs::write(
        Path::new(&out_dir).join("serving_calibration_values.rs"),
        serving_calibration_values(&without_whitespace(&serving)),
    )
    .unwrap_or_else(|e| panic!("writing serving_calibration_values.rs: {e}"));
    println!("cargo:rerun-if-changed={RUNS_CSV}");
    let csv = fs::read_to_string(RUNS_CSV).unwrap_or_else(|e| panic!("reading {RUNS_CSV}: {e}"));
    let json = csv_to_json(&csv, &RUNS_TEXT_COLUMNS).unwrap_or_else(|e| panic!("{RUNS_CSV}: {e}"));
    fs::write(Path::new(&out_dir).join("published-runs.json"), json)
        .unwrap_or_else(|e| panic!("writing the JSON of {RUNS_CSV}: {e}"));
    println!("cargo:rerun-if-changed={SERVING_CSV}");
    let csv = fs::read_to_string(SERVING_CSV).unwrap_or_else(|e| panic!("reading {SERVING_CSV}: {e}"));
    let json = csv_to_json(&csv, &SERVING_TEXT_COLUMNS).unwrap_or_else(|e| panic!("{SERVING_CSV}: {e}"));
    fs::write(Path::new(&out_dir).join("serving-runs.json"), json)
        .unwrap_or_else(|e| panic!("writing the JSON of {SERVING_CSV}: {e}"));
}

/// The chip catalog `{"chips": [...]}` as two compact documents of the same shape: the chips
/// without [`PROVENANCE_KEYS`], and for each chip its `id` and those keys.
fn split_chips(text: &str) -> Result<(String, String), String> {
    let mut numbers: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let chips = numbers.get_mut("chips").and_then(serde_json::Value::as_array_mut).ok_or("no \"chips\" array")?;
    let mut provenance = Vec::with_capacity(chips.len());
    for chip in chips {
        let chip = chip.as_object_mut().ok_or("a chip is not an object")?;
        let mut own = serde_json::Map::new();
        own.insert("id".into(), chip.get("id").cloned().ok_or("a chip has no id")?);
        for key in PROVENANCE_KEYS {
            if let Some(value) = chip.remove(key) {
                own.insert(key.into(), value);
            }
        }
        provenance.push(serde_json::Value::Object(own));
    }
    let provenance = serde_json::json!({ "chips": provenance });
    Ok((numbers.to_string(), provenance.to_string()))
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

/// The records of RFC 4180 CSV text: fields separated by commas, records by newlines,
/// a quoted field may hold commas, newlines and doubled quotes. Blank lines are skipped.
fn csv_records(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                if record.iter().any(|f| !f.is_empty()) {
                    records.push(std::mem::take(&mut record));
                }
                record.clear();
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    record.push(field);
    if record.iter().any(|f| !f.is_empty()) {
        records.push(record);
    }
    Ok(records)
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// CSV text as a JSON array of objects: text columns as strings, the others as numbers
/// (empty = `null`).
fn csv_to_json(csv: &str, text_columns: &[&str]) -> Result<String, String> {
    let records = csv_records(csv)?;
    let (header, rows) = records.split_first().ok_or("the table is empty")?;
    let mut out = String::from("[");
    for (i, row) in rows.iter().enumerate() {
        if row.len() != header.len() {
            return Err(format!("row {} has {} fields; the header has {}", i + 2, row.len(), header.len()));
        }
        out.push_str(if i == 0 { "{" } else { ",{" });
        for (j, (key, value)) in header.iter().zip(row).enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(&json_string(key));
            out.push(':');
            if text_columns.contains(&key.as_str()) {
                out.push_str(&json_string(value));
            } else if value.trim().is_empty() {
                out.push_str("null");
            } else {
                let v: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("row {}, column {key}: {value:?} is not a number", i + 2))?;
                if !v.is_finite() {
                    return Err(format!("row {}, column {key}: {value:?} is not finite", i + 2));
                }
                out.push_str(value.trim());
            }
        }
        out.push('}');
    }
    out.push(']');
    Ok(out)
}

/// The number after the first `"key":` that follows `after` in compact JSON.
fn number_after(json: &str, after: &str, key: &str) -> String {
    let start = json.find(after).unwrap_or_else(|| panic!("calibration.json has no {after}"));
    let rest = &json[start..];
    let at = rest.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("calibration.json has no {key} after {after}"))
        + key.len()
        + 3;
    let number: String =
        rest[at..].chars().take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')).collect();
    number.parse::<f64>().unwrap_or_else(|e| panic!("calibration.json: {key} after {after}: {number:?}: {e}"));
    number
}

/// `serving_calibration_values.rs`: the fitted serving parameters in `PARAMETER_IDS` order.
fn serving_calibration_values(json: &str) -> String {
    let ids = ["hbm", "matmul", "pass_overhead_s", "layer_overhead_s"];
    let values: Vec<String> = ids.iter().map(|id| number_after(json, &format!("\"id\":\"{id}\""), "value")).collect();
    format!(
        "/// The fitted parameters of `data/serving-calibration.json`, in `PARAMETER_IDS` order (written by build.rs).\n\
         pub(crate) const FITTED: [f64; 4] = [{}];\n",
        values.iter().map(|v| format!("{v}_f64")).collect::<Vec<_>>().join(", ")
    )
}

/// `calibration_values.rs`: the fitted fractions in `PARAMETER_IDS` order and the residuals.
fn calibration_values(json: &str) -> String {
    let ids = ["mxu", "hbm", "dcn", "overlap", "straggler"];
    let values: Vec<String> = ids.iter().map(|id| number_after(json, &format!("\"id\":\"{id}\""), "value")).collect();
    format!(
        "/// The fitted parameters of `data/calibration.json`, in `PARAMETER_IDS` order (written by build.rs).\n\
         pub(crate) const FITTED: [f64; 5] = [{}];\n\
         /// Its residuals: held-back runs, 10th and 90th percentile of the signed step-time error, %.\n\
         pub(crate) const RESIDUALS: (usize, f64, f64) = ({}, {}, {});\n",
        values.iter().map(|v| format!("{v}_f64")).collect::<Vec<_>>().join(", "),
        number_after(json, "\"residuals\"", "runs"),
        number_after(json, "\"residuals\"", "step_pct_p10"),
        number_after(json, "\"residuals\"", "step_pct_p90"),
    )
}
