//! Random JSON documents that follow a JSON Schema (the subset schemars writes: `$ref` into
//! `$defs`, `oneOf`/`anyOf`, `const`, `enum`, `type` (one or a list with `null`), object
//! `properties`/`required`, array `items`, integer `format`/`minimum`/`maximum`).
//!
//! Driven by the published scenario schema, this reaches every section, every variant of
//! every enum and every optional field, including the ones added after this file was
//! written, without a hand-written generator per type.

use serde_json::{json, Map, Value};

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Generates documents for one schema.
pub struct SchemaGen<'s> {
    root: &'s Value,
    /// Probability of including an optional property.
    pub optional: f64,
}

const STRINGS: &[&str] = &[
    "",
    "x",
    "llama-3-8b",
    "tpu-v5e",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "quote \" and backslash \\",
    "tab\tnew\nline",
    "ünïcödé ✓ 🚀",
    "a,b;c|d",
    "   spaced   ",
];

impl<'s> SchemaGen<'s> {
    pub fn new(root: &'s Value) -> Self {
        Self { root, optional: 0.6 }
    }

    /// A random instance of the root schema.
    pub fn document(&self, rng: &mut Rng) -> Value {
        self.instance(self.root, rng, 0)
    }

    fn resolve(&self, reference: &str) -> &'s Value {
        let name = reference.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("unsupported $ref {reference}"));
        self.root["$defs"].get(name).unwrap_or_else(|| panic!("no $defs/{name} in the schema"))
    }

    fn instance(&self, node: &'s Value, rng: &mut Rng, depth: usize) -> Value {
        assert!(depth < 40, "the schema nests deeper than 40 levels (a recursive type?)");
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            return self.instance(self.resolve(r), rng, depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                let branch = rng.pick(branches);
                return self.instance(branch, rng, depth + 1);
            }
        }
        if let Some(c) = node.get("const") {
            return c.clone();
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            return rng.pick(values).clone();
        }
        let ty = match node.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(types)) => {
                let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                let non_null: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
                if names.contains(&"null") && (non_null.is_empty() || rng.chance(0.3)) {
                    return Value::Null;
                }
                (*rng.pick(&non_null)).to_string()
            }
            None if node.get("properties").is_some() => "object".into(),
            _ => panic!("unsupported schema node {node}"),
        };
        match ty.as_str() {
            "object" => self.object(node, rng, depth),
            "array" => {
                let min = node.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let max = node.get("maxItems").and_then(Value::as_u64).unwrap_or(min + 3).min(min + 3);
                let len = min + rng.below(max - min + 1);
                let items = node.get("items").unwrap_or(&Value::Null);
                Value::Array((0..len).map(|_| self.instance(items, rng, depth + 1)).collect())
            }
            "integer" => integer(node, rng),
            "number" => json!(number(rng)),
            "string" => Value::String((*rng.pick(STRINGS)).to_string()),
            "boolean" => Value::Bool(rng.chance(0.5)),
            "null" => Value::Null,
            other => panic!("unsupported type {other}"),
        }
    }

    fn object(&self, node: &'s Value, rng: &mut Rng, depth: usize) -> Value {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (name, schema) in props {
                if required.contains(&name.as_str()) || rng.chance(self.optional) {
                    out.insert(name.clone(), self.instance(schema, rng, depth + 1));
                }
            }
        }
        Value::Object(out)
    }
}

/// An integer inside the node's `format` range and `minimum`/`maximum`: small values, powers
/// of two, and the edges.
fn integer(node: &Value, rng: &mut Rng) -> Value {
    let format = node.get("format").and_then(Value::as_str).unwrap_or("int64");
    let (lo, hi): (i128, i128) = match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    };
    let lo = node.get("minimum").and_then(Value::as_f64).map_or(lo, |m| lo.max(m.ceil() as i128));
    let hi = node.get("maximum").and_then(Value::as_f64).map_or(hi, |m| hi.min(m.floor() as i128));
    let candidate: i128 = match rng.below(6) {
        0 => rng.below(10).into(),
        1 => rng.below(100_000).into(),
        2 => 1i128 << rng.below(64),
        3 => hi,
        4 => lo,
        _ => (rng.next() as i128) * if rng.chance(0.5) { 1 } else { -1 },
    };
    let v = candidate.clamp(lo, hi);
    if v >= 0 {
        json!(u64::try_from(v).unwrap_or(u64::MAX))
    } else {
        json!(i64::try_from(v).unwrap_or(i64::MIN))
    }
}

/// A finite double: integers, short decimals (0.1 does not round-trip by accident), thirds,
/// the extremes, subnormals and random bit patterns.
pub fn number(rng: &mut Rng) -> f64 {
    let x = match rng.below(9) {
        0 => rng.below(10_000) as f64,
        1 => rng.below(1000) as f64 / 10.0,
        2 => 1.0 / (1 + rng.below(9)) as f64,
        3 => *rng.pick(&[0.0, 1.0, 0.1 + 0.2, 1e-300, 1e300, 5e-324, f64::MAX, f64::MIN_POSITIVE, 2f64.powi(53) + 2.0]),
        4 => -(rng.below(1000) as f64) / 7.0,
        5 => (rng.next() >> 11) as f64 / (1u64 << 53) as f64,
        _ => f64::from_bits(rng.next()),
    };
    if x.is_finite() {
        x
    } else {
        1.5
    }
}
