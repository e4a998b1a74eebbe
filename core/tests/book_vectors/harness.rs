//! Loading the book vectors and comparing against them.

use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// One worked answer from the book.
pub struct Vector {
    pub id: String,
    pub area: String,
    pub inputs: serde_json::Map<String, Value>,
    pub expected: serde_json::Map<String, Value>,
    pub rel_tol: f64,
}

pub fn vectors() -> &'static [Vector] {
    static CELL: OnceLock<Vec<Vector>> = OnceLock::new();
    CELL.get_or_init(|| {
        let text = include_str!("../../data/book-vectors.json");
        let all: Vec<Value> = serde_json::from_str(text).expect("book-vectors.json parses");
        all.into_iter()
            .map(|v| Vector {
                id: v["id"].as_str().unwrap().to_string(),
                area: v["area"].as_str().unwrap().to_string(),
                inputs: v["inputs"].as_object().cloned().unwrap_or_default(),
                expected: v["expected"].as_object().cloned().unwrap_or_default(),
                rel_tol: v["rel_tol"].as_f64().unwrap_or(0.0),
            })
            .collect()
    })
}

pub fn vector(id: &str) -> &'static Vector {
    vectors().iter().find(|v| v.id == id).unwrap_or_else(|| panic!("no book vector {id}"))
}

/// A numeric input of a vector.
pub fn input(id: &str, key: &str) -> f64 {
    vector(id).inputs[key].as_f64().unwrap_or_else(|| panic!("{id}: input {key} is not a number"))
}

/// Compare every expected value of vector `id` with `actual` (all keys must be given).
///
/// The tolerance is the vector's `rel_tol` (reflecting the book's rounding), with an
/// absolute floor of 1e-9 for exact zeros and a relative floor of 5e-6: the file
/// prints values to six significant figures (`0.0111111` for 1/90), so an exact
/// recomputation can differ from it by half a unit in the sixth figure.
pub fn check(id: &str, actual: &[(&str, f64)]) {
    let v = vector(id);
    let expected_keys: BTreeSet<&str> = v.expected.keys().map(String::as_str).collect();
    let given: BTreeSet<&str> = actual.iter().map(|(k, _)| *k).collect();
    assert_eq!(given, expected_keys, "{id}: every expected key must be checked");
    for (key, got) in actual {
        let want = v.expected[*key].as_f64().unwrap_or_else(|| panic!("{id}.{key}: expected value is not a number"));
        let tol = (v.rel_tol * want.abs()).max(5e-6 * want.abs()).max(1e-9);
        assert!((got - want).abs() <= tol, "{id}.{key}: got {got}, book says {want} (rel_tol {})", v.rel_tol);
    }
}

/// Assert that the ids a module checks are exactly the vectors of `area`.
pub fn assert_area_covered(area: &str, checked: &[&str]) {
    let in_area: BTreeSet<&str> = vectors().iter().filter(|v| v.area == area).map(|v| v.id.as_str()).collect();
    let checked: BTreeSet<&str> = checked.iter().copied().collect();
    assert_eq!(checked, in_area, "area {area}: vectors checked vs vectors in the file");
}
