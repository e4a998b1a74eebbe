//! `shardcalc_core::json::from_str` against serde_json's `from_str`, on scenarios and their
//! mutations: the same documents are accepted with the same values, the same are refused,
//! except one deliberate difference: a struct written as an array of its fields (serde's
//! positional form, which nothing writes) is refused. `SHARDCALC_JSON_CASES` sets the number
//! of mutated documents (default 4,000).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde_json::{json, Value};
use shardcalc_core::hardware::catalog;
use shardcalc_core::hardware::query::ChipSource;
use shardcalc_core::json;
use shardcalc_core::presets;
use shardcalc_core::saved::SavedScenario;
use shardcalc_core::scenario::{ModelSource, Scenario};

/// xorshift64*: deterministic and seedable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Full scenarios: every section, custom models (each preset's config) and custom chips
/// (each bundled chip, with its provenance).
fn bases() -> Vec<Value> {
    let full: Scenario =
        serde_json::from_str(include_str!("roundtrip/full-scenario.json")).expect("the round-trip fixture");
    let mut out = vec![serde_json::to_value(&full).unwrap()];
    let chips = catalog::all_with_provenance();
    for (i, p) in presets::all().iter().enumerate() {
        let mut s = full.clone();
        s.model = ModelSource::Custom(Box::new(p.config.clone()));
        if let Some(hw) = s.hardware.as_mut() {
            hw.chip = ChipSource::Custom(Box::new(chips[i % chips.len()].clone()));
        }
        out.push(serde_json::to_value(&s).unwrap());
    }
    out
}

/// Every node of `v` by its path of keys and indices.
fn paths(v: &Value, here: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                here.push(json!(k));
                paths(child, here, out);
                here.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                here.push(json!(i));
                paths(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Value::String(k) => &mut v[k.as_str()],
        Value::Number(i) => &mut v[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

/// One random change to the node at a random path.
fn mutate(r: &mut Rng, doc: &mut Value) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = all[r.below(all.len())].clone();
    let node = at(doc, &path);
    match r.below(9) {
        // The positional form: an object as the array of its values, in order.
        0 | 1 => {
            if let Value::Object(m) = node {
                *node = Value::Array(m.values().cloned().collect());
            }
        }
        2 => {
            if let Value::Object(m) = node {
                let keys: Vec<String> = m.keys().cloned().collect();
                if !keys.is_empty() {
                    m.remove(&keys[r.below(keys.len())]);
                }
            }
        }
        3 => {
            if let Value::Object(m) = node {
                m.insert("unknown_key".into(), json!(1));
            }
        }
        4 => *node = Value::Null,
        5 => *node = json!([1, "a", null]),
        6 => *node = json!({"type": "gqa", "num_heads": 8}),
        7 => *node = json!(["gqa", 32, 8, 128, false, "none", false]),
        _ => *node = [json!(0), json!(-1), json!(1.5), json!("x"), json!(true), json!(1e300)][r.below(6)].clone(),
    }
}

/// Both readers on `text`: same value, or both refuse, or only the array form refused.
fn compare<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) -> (bool, bool) {
    let reference = serde_json::from_str::<T>(text);
    let objects = json::from_str::<T>(text);
    match (&reference, &objects) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => assert!(
            e.to_string().contains("invalid type: sequence") && text.contains('['),
            "refused only by json::from_str, not for an array: {e}\n{text}"
        ),
        (Err(e), Ok(v)) => panic!("accepted only by json::from_str ({e}): {v:?}\n{text}"),
    }
    (reference.is_ok(), objects.is_ok())
}

#[test]
fn objects_read_as_serde_json_reads_them_and_arrays_of_fields_are_refused() {
    let cases: usize = std::env::var("SHARDCALC_JSON_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4_000);
    let bases = bases();
    for base in &bases {
        let text = base.to_string();
        assert_eq!(compare::<Scenario>(&text), (true, true));
    }
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut both, mut neither, mut only_reference) = (0, 0, 0);
    for case in 0..cases {
        let mut doc = bases[case % bases.len()].clone();
        for _ in 0..=r.below(3) {
            mutate(&mut r, &mut doc);
        }
        match compare::<Scenario>(&doc.to_string()) {
            (true, true) => both += 1,
            (false, false) => neither += 1,
            _ => only_reference += 1,
        }
        // A saved entry holding it, as the Saved page reads them.
        let entry = json!({"format": 1, "name": "n", "saved_at": 0.0, "scenario": doc});
        compare::<SavedScenario>(&entry.to_string());
    }
    eprintln!("{both} read by both, {neither} by neither, {only_reference} only by serde_json (arrays of fields)");
    // The mutations reach all three outcomes.
    assert!(
        both * 20 >= cases && neither * 20 >= cases && only_reference * 100 >= cases,
        "{both} {neither} {only_reference}"
    );
}

#[test]
fn a_struct_as_an_array_of_its_fields_is_refused_with_serde_s_message() {
    // serde's positional form of a custom chip's HBM (`[capacity, bandwidth]`), which
    // serde_json reads.
    let mut doc = bases()[1].clone();
    let hbm = &mut doc["hardware"]["chip"]["custom"]["hbm"];
    *hbm = Value::Array(hbm.as_object().unwrap().values().cloned().collect());
    let text = doc.to_string();
    assert!(serde_json::from_str::<Scenario>(&text).is_ok());
    let e = json::from_str::<Scenario>(&text).unwrap_err().to_string();
    assert!(e.contains("invalid type: sequence, expected struct"), "{e}");
    // The scenario's own reader names the document.
    let e = Scenario::from_json(&text).unwrap_err().to_string();
    assert!(e.contains("scenario") && e.contains("invalid type: sequence"), "{e}");
    // Trailing characters are refused as by serde_json.
    assert!(json::from_str::<Scenario>(&format!("{} x", serde_json::to_string(&Scenario::default()).unwrap())).is_err());
}
