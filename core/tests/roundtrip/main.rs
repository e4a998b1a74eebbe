//! Issue 6: one scenario document, lossless through every way it travels. For generated
//! scenarios with every section:
//!
//! - scenario → JSON (compact, and the pretty JSON the page downloads) → scenario is the
//!   identity, and writing it again gives the same text;
//! - scenario → permalink (`1.<base64url>`) → scenario is the identity (`permalink::parse`
//!   for any document; `permalink::decode`, which also validates, for valid ones);
//! - links written by earlier builds still decode to the same scenario (`roundtrip/links-v1.txt`);
//! - a page's reading (`Scenario::from_json_kept`: optional sections kept as text, then read
//!   as the page needs them) accepts and refuses the same documents, reads the same scenario,
//!   and writes a kept section back byte for byte.
//!
//! Documents come from the published JSON Schema (`docs/schema/scenario.schema.json`, kept
//! current by the CLI's `published_schemas_are_current` test), so every section, enum variant
//! and optional field is reached, including ones added later. Valid scenarios come from a
//! full hand-made scenario (`roundtrip/full-scenario.json`, every section set) with its
//! numbers and switches perturbed, keeping the perturbations that still validate.
//! `SHARDCALC_ROUNDTRIP_CASES` sets the number of generated documents (default 1000).
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod schema_gen;

use schema_gen::{Rng, SchemaGen};
use serde_json::Value;
use shardcalc_core::permalink;
use shardcalc_core::saved::{self, SavedScenario};
use shardcalc_core::scenario::{Scenario, Sections};

fn repo_file(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("read {}: {e}", full.display()))
}

fn cases() -> u64 {
    std::env::var("SHARDCALC_ROUNDTRIP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

/// Every way a scenario travels gives it back unchanged.
fn assert_lossless(s: &Scenario, context: &str) {
    let compact = serde_json::to_string(s).unwrap();
    let back =
        Scenario::from_json(&compact).unwrap_or_else(|e| panic!("{context}: JSON does not read back: {e}\n{compact}"));
    assert_eq!(&back, s, "{context}: JSON round trip changed the scenario\n{compact}");
    assert_eq!(serde_json::to_string(&back).unwrap(), compact, "{context}: JSON text changed");

    let pretty = serde_json::to_string_pretty(s).unwrap();
    assert_eq!(&Scenario::from_json(&pretty).unwrap(), s, "{context}: pretty JSON round trip");

    // A page writes the same text as serde; one that reads none of the optional sections
    // writes them back as they came; one that reads them all has the scenario.
    assert_eq!(s.to_json_with(Sections::ALL), compact, "{context}: a page writes another document");
    for text in [&compact, &pretty] {
        let mut kept = Scenario::from_json_kept(text).unwrap_or_else(|e| panic!("{context}: kept: {e}\n{text}"));
        assert_eq!(serde_json::to_string(&kept).unwrap(), compact, "{context}: kept sections changed");
        assert_eq!(kept.to_json_with(Sections::NONE), compact, "{context}: kept sections changed on a page");
        kept.read_all().unwrap_or_else(|e| panic!("{context}: reading the kept sections: {e}"));
        assert_eq!(&kept, s, "{context}: the kept sections read as another scenario");
    }

    let link = permalink::encode(s);
    if link.len() <= permalink::MAX_LEN {
        assert_eq!(permalink::encode_with(s, Sections::ALL), link, "{context}: a page writes another link");
        let back = permalink::parse(&link).unwrap_or_else(|e| panic!("{context}: link does not read back: {e}"));
        assert_eq!(&back, s, "{context}: link round trip changed the scenario");
        assert_eq!(
            permalink::parse(permalink::find_in(&format!("https://h.test/a/training.html#s={link}"))).as_ref(),
            Ok(s)
        );
    }

    let saved_entry = SavedScenario::new("name".into(), 1.0, s.clone());
    let entry = saved_entry.to_json();
    assert_eq!(saved_entry.to_json_with(Sections::ALL), entry, "{context}: a page saves another entry");
    if entry.len() <= saved::MAX_ENTRY_BYTES {
        let (back, _) = saved::read("k", &entry).unwrap_or_else(|e| panic!("{context}: saved entry: {}", e.problem));
        assert_eq!(&back.scenario, s, "{context}: storage round trip changed the scenario");
    }
}

#[test]
fn generated_documents_survive_json_links_and_storage() {
    let schema: Value = serde_json::from_str(&repo_file("docs/schema/scenario.schema.json")).unwrap();
    let generator = SchemaGen::new(&schema);
    let mut rng = Rng::new(0x5ca1_ab1e);
    let (mut parsed, mut refused, mut sections) = (0u64, Vec::new(), [0u64; 5]);
    for case in 0..cases() {
        let doc = generator.document(&mut rng);
        let text = doc.to_string();
        let kept = Scenario::from_json_kept(&text).and_then(|mut s| s.read_all().map(|()| s));
        assert_eq!(kept.is_ok(), Scenario::from_json(&text).is_ok(), "case {case}: {text}");
        match Scenario::from_json(&text) {
            Ok(s) => {
                parsed += 1;
                for (i, present) in [
                    s.hardware.is_some(),
                    !s.collectives.is_empty(),
                    s.roofline.is_some(),
                    s.inference.is_some(),
                    s.training.is_some(),
                ]
                .into_iter()
                .enumerate()
                {
                    sections[i] += u64::from(present);
                }
                assert_lossless(&s, &format!("case {case}"));
                if s.validate().is_ok() {
                    let link = permalink::encode(&s);
                    assert_eq!(permalink::decode(&link).as_ref(), Ok(&s), "case {case}");
                }
            }
            Err(e) => refused.push(format!("{e}: {text}")),
        }
    }
    println!("{parsed} of {} generated documents read; sections present (hardware, collectives, roofline, inference, training): {sections:?}", cases());
    // The schema describes the document: what it generates reads (a refusal is a schema
    // that allows what serde refuses, e.g. a missing `deny_unknown_fields` counterpart).
    assert!(
        refused.is_empty(),
        "{} of {} schema-valid documents were refused, e.g.:\n{}",
        refused.len(),
        cases(),
        refused.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
    for (name, n) in ["hardware", "collectives", "roofline", "inference", "training"].iter().zip(sections) {
        assert!(n * 5 > parsed, "only {n} of {parsed} documents had a {name} section");
    }
}

/// Numbers and switches of the full scenario changed at random; the ones that still
/// validate go through `decode`, which validates (what the page reads from its URL).
#[test]
fn valid_scenarios_with_every_section_survive_the_url() {
    let base: Value = serde_json::from_str(&repo_file("core/tests/roundtrip/full-scenario.json")).unwrap();
    let full = Scenario::from_json(&base.to_string()).unwrap();
    full.validate().unwrap_or_else(|e| panic!("roundtrip/full-scenario.json must validate: {e}"));
    assert!(full.hardware.is_some() && !full.collectives.is_empty() && full.roofline.is_some());
    assert!(full.inference.is_some() && full.training.is_some(), "the fixture has every section");
    let mut rng = Rng::new(7);
    let mut valid = 0;
    for case in 0..cases() / 3 {
        let mut doc = base.clone();
        perturb(&mut doc, &mut rng);
        let Ok(s) = Scenario::from_json(&doc.to_string()) else { continue };
        if s.validate().is_err() {
            continue;
        }
        valid += 1;
        assert_lossless(&s, &format!("valid case {case}"));
        let link = permalink::encode(&s);
        assert!(link.len() <= permalink::MAX_LEN, "a valid full scenario is a {} byte link", link.len());
        assert_eq!(permalink::decode(&link).as_ref(), Ok(&s), "valid case {case}");
    }
    println!("{valid} of {} perturbed full scenarios validated", cases() / 3);
    assert!(valid * 4 > cases() / 3, "only {valid} perturbed scenarios validated");
}

/// Multiplies numbers by random factors (integers stay integers) and flips booleans.
fn perturb(v: &mut Value, rng: &mut Rng) {
    match v {
        Value::Object(map) => map.values_mut().for_each(|x| perturb(x, rng)),
        Value::Array(items) => items.iter_mut().for_each(|x| perturb(x, rng)),
        Value::Bool(b) if rng.chance(0.2) => *b = !*b,
        Value::Number(n) if rng.chance(0.3) => {
            let factor = *rng.pick(&[0.5, 2.0, 1.0 / 3.0, 3.0, 0.9, 1.1]);
            if let Some(u) = n.as_u64() {
                *v = Value::from(((u as f64 * factor).round() as u64).max(1));
            } else if let Some(f) = n.as_f64() {
                let x = f * factor * (1.0 + schema_gen::number(rng).fract() * 1e-9);
                *v = serde_json::Number::from_f64(x).map_or(Value::from(f), Value::Number);
            }
        }
        _ => {}
    }
}

/// Links written by earlier builds read forever: each line of the fixture is a link, then a
/// tab, then the scenario JSON it must decode to. Add a line when the link format changes.
#[test]
fn old_links_still_decode() {
    let fixture = repo_file("core/tests/roundtrip/links-v1.txt");
    let mut n = 0;
    for line in fixture.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (link, json) = line.split_once('\t').unwrap_or_else(|| panic!("no tab in {line}"));
        let expected = Scenario::from_json(json).unwrap();
        assert_eq!(permalink::decode(link).as_ref(), Ok(&expected), "{link}");
        let mut kept = permalink::parse_kept(link).unwrap();
        kept.read_all().unwrap();
        assert_eq!(kept, expected, "{link}: read by a page");
        n += 1;
    }
    assert!(n >= 3, "the fixture holds {n} links");
}
