//! A scenario as a short URL-safe string, so that a link reproduces the page.
//!
//! Format: a version tag, then the scenario's JSON in base64url without padding
//! (RFC 4648 §5): `1.eyJ2ZXJzaW9uIjox...`. The page keeps it in the URL fragment
//! (`#s=1.ey...`), which browsers never send to a server. [`decode`] never panics: it
//! refuses oversized input, names what is wrong (`permalink`, `scenario` for JSON problems,
//! or the field path for a scenario that does not validate, e.g.
//! `model.attention.num_kv_heads`), and only returns scenarios that validate.

use crate::error::Invalid;
use crate::scenario::{Scenario, Sections};

/// The version tag of links this build writes, including the separator.
pub const TAG: &str = "1.";

/// Longest permalink [`decode`] reads, in bytes: a full custom model encodes to about
/// 1.5 KB, so this leaves room for growth while refusing pasted junk.
pub const MAX_LEN: usize = 16 * 1024;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Encodes a scenario: [`TAG`] followed by base64url(JSON).
#[must_use]
pub fn encode(scenario: &Scenario) -> String {
    // serde_json only fails on maps with non-string keys or failing Serialize impls;
    // Scenario has neither, so the fallback (an empty payload, which decode rejects) is
    // unreachable in practice.
    let json = serde_json::to_string(scenario).unwrap_or_default();
    format!("{TAG}{}", base64url_encode(json.as_bytes()))
}

/// [`encode`] as a page writes it: the optional sections `sections` works with from their
/// fields, the others as the text they came in (`Scenario::to_json_with`).
#[must_use]
pub fn encode_with(scenario: &Scenario, sections: Sections) -> String {
    format!("{TAG}{}", base64url_encode(scenario.to_json_with(sections).as_bytes()))
}

/// Decodes a permalink written by [`encode`] (surrounding whitespace is ignored).
///
/// # Errors
/// - `permalink`: too long, no or unknown version tag, not base64url, not UTF-8;
/// - `scenario`: not a scenario document (serde's message names the key);
/// - a field path such as `workload.seq_len`: the scenario does not validate.
pub fn decode(text: &str) -> Result<Scenario, Invalid> {
    let scenario = parse(text)?;
    scenario.validate()?;
    Ok(scenario)
}

/// Reads a permalink without validating the scenario: what a saved entry or a file holding
/// a link recovers even when its scenario no longer validates (its problems are then shown
/// next to their fields instead of losing the scenario).
///
/// # Errors
/// As [`decode`], except that field problems of a well-formed scenario are not reported.
pub fn parse(text: &str) -> Result<Scenario, Invalid> {
    Scenario::from_json(&json_of(text)?)
}

/// [`parse`] keeping the optional sections as text ([`Scenario::from_json_kept`]): what a
/// page reads, each page then reading the sections it shows.
///
/// # Errors
/// As [`parse`], except that the kept sections need only be JSON values.
pub fn parse_kept(text: &str) -> Result<Scenario, Invalid> {
    Scenario::from_json_kept(&json_of(text)?)
}

/// The scenario JSON a permalink holds.
fn json_of(text: &str) -> Result<String, Invalid> {
    let text = text.trim();
    if text.len() > MAX_LEN {
        return Err(Invalid::one("permalink", format!("is {} bytes; the limit is {MAX_LEN} bytes", text.len())));
    }
    let Some(payload) = text.strip_prefix(TAG) else {
        return Err(Invalid::one("permalink", version_problem(text)));
    };
    let bytes = base64url_decode(payload).map_err(|m| Invalid::one("permalink", m))?;
    String::from_utf8(bytes).map_err(|_| Invalid::one("permalink", "does not decode to UTF-8 text"))
}

/// The permalink inside `text`: after `#s=` or `s=` when the text is a whole link such as
/// `https://host/training.html#s=1.eyJ...`, else the trimmed text itself.
#[must_use]
pub fn find_in(text: &str) -> &str {
    let text = text.trim();
    let after = text.rsplit_once("#s=").or_else(|| text.strip_prefix("s=").map(|rest| ("", rest)));
    match after {
        // A fragment ends the URL; anything after another `&` or `#` is not ours.
        Some((_, rest)) => rest.split(['&', '#']).next().unwrap_or(rest),
        None => text,
    }
}

/// Why `text` has no usable version tag.
fn version_problem(text: &str) -> String {
    match text.split_once('.') {
        Some((v, _)) if !v.is_empty() && v.len() <= 4 && v.bytes().all(|b| b.is_ascii_digit()) => {
            format!("uses link format {v}; this build reads format {}", TAG.trim_end_matches('.'))
        }
        _ if text.is_empty() => "is empty".into(),
        _ => format!("does not start with a version tag such as `{TAG}`"),
    }
}

/// base64url without padding.
fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        // chunk.len() is 1..=3, so this emits 2..=4 symbols.
        for i in 0..=chunk.len() {
            let index = (n >> (18 - 6 * i)) & 63;
            // index is masked to 0..64 = ALPHABET.len(), so indexing cannot panic.
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

/// Inverse of [`base64url_encode`]; trailing `=` padding is tolerated.
fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    if text.is_empty() {
        return Err("has no scenario after the version tag".into());
    }
    let mut values = Vec::with_capacity(text.len());
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => {
                return Err(format!(
                    "is not base64url: unexpected character {:?} at position {}",
                    char::from(c),
                    i + TAG.len() + 1
                ))
            }
        };
        values.push(u32::from(v));
    }
    if values.len() % 4 == 1 {
        return Err("is truncated (its base64url length is impossible)".into());
    }
    let mut out = Vec::with_capacity(values.len() * 3 / 4);
    for group in values.chunks(4) {
        let n = group.iter().enumerate().fold(0u32, |acc, (i, v)| acc | v << (18 - 6 * i));
        // A group of k symbols carries k - 1 bytes (k is 2..=4 here).
        let bytes = n.to_be_bytes();
        out.extend(bytes.iter().skip(1).take(group.len() - 1));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flops::{FlopConvention, RematPolicy};
    use crate::model::Attention;
    use crate::presets;
    use crate::scenario::ModelSource;

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        // RFC 4648 §10, unpadded.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url_encode(plain.as_bytes()), coded);
            if !coded.is_empty() {
                assert_eq!(base64url_decode(coded).unwrap(), plain.as_bytes());
            }
        }
        // The two URL-safe symbols.
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("-_8=").unwrap(), [0xfb, 0xff]);
    }

    #[test]
    fn every_preset_round_trips_by_id_and_as_a_custom_model() {
        for p in presets::all() {
            let by_id = Scenario { model: ModelSource::Preset(p.id.clone()), ..Scenario::default() };
            assert_eq!(decode(&encode(&by_id)), Ok(by_id.clone()), "{}", p.id);
            let custom = Scenario {
                model: ModelSource::Custom(Box::new(p.config.clone())),
                workload: crate::flops::Workload {
                    per_device_batch: 0.5,
                    seq_len: 8192,
                    grad_accum: 4,
                    remat: RematPolicy::Full,
                },
                conventions: crate::scenario::Conventions {
                    flops: FlopConvention::Book,
                    prediction: crate::efficiency::PredictionMode::Calibrated,
                },
                ..Scenario::default()
            };
            let link = encode(&custom);
            assert!(link.len() < 4096, "{}: {} bytes", p.id, link.len());
            assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
            assert_eq!(decode(&link), Ok(custom), "{}", p.id);
        }
    }

    #[test]
    fn preset_links_are_short() {
        let link = encode(&Scenario::default());
        assert!(link.starts_with(TAG));
        assert!(link.len() < 256, "{link}");
    }

    fn field_of(text: &str) -> String {
        decode(text).unwrap_err().0[0].field.clone()
    }

    #[test]
    fn garbage_is_refused_and_named() {
        assert_eq!(field_of(""), "permalink");
        assert_eq!(field_of("1."), "permalink");
        assert_eq!(field_of("1.!!!!"), "permalink");
        assert_eq!(field_of("1.A"), "permalink");
        assert_eq!(field_of("eyJ2ZXJzaW9uIjoxfQ"), "permalink");
        assert!(decode("2.abc").unwrap_err().to_string().contains("format 2"));
        assert_eq!(field_of(&format!("1.{}", "A".repeat(MAX_LEN))), "permalink");
        // Valid base64url of bytes that are not UTF-8.
        assert_eq!(field_of(&format!("1.{}", base64url_encode(&[0xff, 0xfe]))), "permalink");
        // Valid text that is not a scenario: serde names the key.
        let not_json = format!("1.{}", base64url_encode(b"hello"));
        assert_eq!(field_of(&not_json), "scenario");
        let unknown = format!(
            "1.{}",
            base64url_encode(
                br#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":1},"oops":1}"#
            )
        );
        assert!(decode(&unknown).unwrap_err().to_string().contains("oops"));
    }

    #[test]
    fn invalid_scenarios_name_their_field() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        if let Attention::Gqa(a) = &mut m.attention {
            a.num_kv_heads = 5;
        }
        let s = Scenario { model: ModelSource::Custom(Box::new(m)), ..Scenario::default() };
        assert_eq!(field_of(&encode(&s)), "model.attention.num_kv_heads");
        let mut s = Scenario::default();
        s.workload.seq_len = 0;
        assert_eq!(field_of(&encode(&s)), "workload.seq_len");
        // NaN serialises as null, which is not a number: refused, not panicking.
        let mut s = Scenario::default();
        s.workload.per_device_batch = f64::NAN;
        assert_eq!(field_of(&encode(&s)), "scenario");
    }

    #[test]
    fn huge_prime_head_counts_are_refused_quickly() {
        let mut m = presets::get("llama-3-8b").unwrap().config;
        if let Attention::Gqa(a) = &mut m.attention {
            a.num_heads = 9_007_199_254_740_881; // the largest prime below 2^53
            a.num_kv_heads = a.num_heads - 1;
        }
        let s = Scenario { model: ModelSource::Custom(Box::new(m)), ..Scenario::default() };
        let started = std::time::Instant::now();
        assert_eq!(field_of(&encode(&s)), "model.attention.num_heads");
        assert!(started.elapsed().as_secs() < 1);
    }

    #[test]
    fn arbitrary_input_never_panics() {
        // A small deterministic generator (no dependencies): bytes from the base64url
        // alphabet and some others, with and without the tag, and mutations of a real link.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let real = encode(&Scenario::default());
        for round in 0..20_000 {
            let len = (next() % 64) as usize;
            let mut text: String =
                (0..len).map(|_| char::from(b"AZaz09-_.=!{}\"1 \xff"[(next() % 17) as usize])).collect();
            if round % 3 == 0 {
                text = format!("{TAG}{text}");
            }
            if round % 5 == 0 {
                let mut bytes = real.clone().into_bytes();
                let at = (next() as usize) % bytes.len();
                bytes[at] = b"AZaz09-_"[(next() % 8) as usize];
                text = String::from_utf8(bytes).unwrap_or_default();
            }
            let _ = decode(&text);
        }
    }
}
