//! Sections a program keeps without reading them: a scenario read by
//! [`Scenario::from_json_kept`] holds its `inference`, `collectives`, `roofline` and
//! `training` sections as the JSON text they came in ([`Kept`]), writes them back unchanged
//! (links, files, saved entries), and parses one only when the program asks for it
//! (`read_training`, `read_inference`, `read_hardware_questions`, `read_all`).
//!
//! Why: size. Each web page is its own wasm (`src/views/mod.rs`), and a scenario's sections
//! are read by serde code generated for every struct in them; a page linking the readers of
//! sections it never shows paid for all of them (the serving section alone was 11.8 KB of
//! gzipped wasm on the training page; docs/size.md, "Sections kept as text"). A page reads
//! the sections it shows; the link keeps the others, so nothing typed elsewhere is lost.
//! Its validation comes with reading: [`Scenario::validate`] checks the sections that were
//! read, and a kept section is checked by the page (or the CLI) that reads it.
//!
//! [`Scenario::from_json`] (the CLI, the tests, the worker) still reads every section.

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{current_version, Conventions, ModelSource, Scenario, MAX_SCENARIO_BYTES};
use crate::error::Invalid;
use crate::flops::Workload;
use crate::hardware::query::HardwareSection;

/// The sections of a scenario this program has not read: each as the JSON text it came in,
/// without whitespace outside strings. A section is either here or in its typed field,
/// never both (reading one moves it from here to its field).
#[derive(Clone, Debug, Default)]
pub struct Kept {
    inference: Option<Box<RawValue>>,
    collectives: Option<Box<RawValue>>,
    roofline: Option<Box<RawValue>>,
    training: Option<Box<RawValue>>,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        let text = |k: &Self| {
            [&k.inference, &k.collectives, &k.roofline, &k.training].map(|s| s.as_ref().map(|t| t.get().to_string()))
        };
        text(self) == text(other)
    }
}

impl Kept {
    /// Whether every section has been read (or was absent).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inference.is_none() && self.collectives.is_none() && self.roofline.is_none() && self.training.is_none()
    }
}

/// The scenario document with its optional sections as text: what [`Scenario::from_json_kept`]
/// reads. The same keys as [`Scenario`], so the same documents are accepted and refused
/// (`tests/roundtrip` compares them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(default = "current_version")]
    version: u32,
    model: ModelSource,
    workload: Workload,
    #[serde(default)]
    conventions: Conventions,
    #[serde(default, deserialize_with = "text")]
    inference: Option<Box<RawValue>>,
    #[serde(default)]
    hardware: Option<HardwareSection>,
    #[serde(default, deserialize_with = "text")]
    collectives: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "text")]
    roofline: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "text")]
    training: Option<Box<RawValue>>,
}

/// A present value as its text, `null` included (it reads as the section being absent).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    let compact = crate::pretty_json::compact(raw.get());
    if compact.len() == raw.get().len() {
        return Ok(Some(raw));
    }
    // Removing whitespace outside strings leaves valid JSON.
    RawValue::from_string(compact).map(Some).map_err(serde::de::Error::custom)
}

/// Reads a kept section into its typed field (see the module's documentation).
fn read<T: serde::de::DeserializeOwned>(
    kept: &mut Option<Box<RawValue>>,
    into: &mut T,
    section: &str,
) -> Result<(), Invalid> {
    if let Some(text) = kept.as_ref() {
        *into = crate::json::from_str(text.get()).map_err(|e| Invalid::one(section, e.to_string()))?;
        *kept = None;
    }
    Ok(())
}

impl Scenario {
    /// Parses a scenario from JSON text, keeping its `inference`, `collectives`, `roofline`
    /// and `training` sections as text ([`Kept`]) for the program to read as it needs them.
    ///
    /// # Errors
    /// As [`Scenario::from_json`] for everything but the kept sections, which need only be
    /// JSON values here.
    pub fn from_json_kept(text: &str) -> Result<Self, Invalid> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(Invalid::one(
                "scenario",
                format!("is {} bytes; the limit is {MAX_SCENARIO_BYTES} bytes", text.len()),
            ));
        }
        let d: Document = crate::json::from_str(text).map_err(|e| Invalid::one("scenario", e.to_string()))?;
        Ok(Scenario {
            version: d.version,
            model: d.model,
            workload: d.workload,
            conventions: d.conventions,
            inference: None,
            hardware: d.hardware,
            collectives: Vec::new(),
            roofline: None,
            training: None,
            kept: Kept {
                inference: d.inference,
                collectives: d.collectives,
                roofline: d.roofline,
                training: d.training,
            },
        })
    }

    /// Reads the kept `training` section, if any.
    ///
    /// # Errors
    /// What serde says is wrong with it, on field `training`; the scenario is unchanged then.
    pub fn read_training(&mut self) -> Result<(), Invalid> {
        read(&mut self.kept.training, &mut self.training, "training")
    }

    /// Reads the kept `inference` section, if any.
    ///
    /// # Errors
    /// As [`Self::read_training`], on field `inference`.
    pub fn read_inference(&mut self) -> Result<(), Invalid> {
        read(&mut self.kept.inference, &mut self.inference, "inference")
    }

    /// Reads the kept `collectives` and `roofline` sections, if any (the questions about
    /// the hardware).
    ///
    /// # Errors
    /// As [`Self::read_training`], on field `collectives` or `roofline`.
    pub fn read_hardware_questions(&mut self) -> Result<(), Invalid> {
        let mut collectives: Option<Vec<_>> = None;
        read(&mut self.kept.collectives, &mut collectives, "collectives")?;
        if let Some(c) = collectives {
            self.collectives = c;
        }
        read(&mut self.kept.roofline, &mut self.roofline, "roofline")
    }

    /// Reads every kept section.
    ///
    /// # Errors
    /// The first section that does not read.
    pub fn read_all(&mut self) -> Result<(), Invalid> {
        self.read_inference()?;
        self.read_hardware_questions()?;
        self.read_training()
    }
}

/// An optional section as written: its value, its kept text, or nothing.
fn section<S: SerializeStruct, T: Serialize>(
    out: &mut S,
    key: &'static str,
    value: Option<&T>,
    kept: &Option<Box<RawValue>>,
) -> Result<(), S::Error> {
    match (value, kept) {
        (Some(v), _) => out.serialize_field(key, v),
        (None, Some(text)) => out.serialize_field(key, text),
        (None, None) => Ok(()),
    }
}

/// The scenario's JSON: its fields in order, optional sections only when present, a kept
/// section as the text it came in.
impl Serialize for Scenario {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Scenario", 9)?;
        out.serialize_field("version", &self.version)?;
        out.serialize_field("model", &self.model)?;
        out.serialize_field("workload", &self.workload)?;
        out.serialize_field("conventions", &self.conventions)?;
        section(&mut out, "inference", self.inference.as_ref(), &self.kept.inference)?;
        if let Some(hardware) = &self.hardware {
            out.serialize_field("hardware", hardware)?;
        }
        let collectives = (!self.collectives.is_empty()).then_some(&self.collectives);
        section(&mut out, "collectives", collectives, &self.kept.collectives)?;
        section(&mut out, "roofline", self.roofline.as_ref(), &self.kept.roofline)?;
        section(&mut out, "training", self.training.as_ref(), &self.kept.training)?;
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every section present, valid.
    fn full() -> Scenario {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roundtrip/full-scenario.json"))
            .expect("the fixture exists");
        Scenario::from_json(&text).expect("the fixture reads")
    }

    #[test]
    fn kept_sections_are_written_back_as_they_came() {
        let s = full();
        let compact = serde_json::to_string(&s).unwrap();
        let kept = Scenario::from_json_kept(&compact).unwrap();
        assert!(kept.training.is_none() && kept.inference.is_none() && kept.roofline.is_none());
        assert!(kept.collectives.is_empty() && !kept.kept.is_empty());
        assert_eq!(serde_json::to_string(&kept).unwrap(), compact);
        let mut read = kept.clone();
        read.read_all().unwrap();
        assert!(read.kept.is_empty());
        assert_eq!(read, s);
    }

    #[test]
    fn a_page_reads_only_its_sections_and_keeps_the_others() {
        let s = full();
        let compact = serde_json::to_string(&s).unwrap();
        let mut page = Scenario::from_json_kept(&compact).unwrap();
        page.read_training().unwrap();
        assert_eq!(page.training, s.training);
        assert!(page.inference.is_none());
        // An edit of a section it reads is written; the kept ones stay as they were.
        page.training.as_mut().unwrap().seq_len = 1234;
        let mut back = Scenario::from_json(&serde_json::to_string(&page).unwrap()).unwrap();
        assert_eq!(back.training.as_ref().map(|t| t.seq_len), Some(1234));
        back.training.clone_from(&s.training);
        assert_eq!(back, s);
    }

    #[test]
    fn pretty_text_is_kept_compact_and_errors_name_the_section() {
        let text = r#"{"model": {"preset": "llama-3-8b"}, "workload": {"per_device_batch": 1, "seq_len": 8},
            "training": { "seq_len" : 4096,
                          "bogus": "a b" }}"#;
        let mut s = Scenario::from_json_kept(text).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.ends_with(r#""training":{"seq_len":4096,"bogus":"a b"}}"#), "{json}");
        let e = s.read_training().unwrap_err();
        assert_eq!(e.0[0].field, "training");
        assert!(e.0[0].message.contains("bogus"), "{e}");
        assert_eq!(serde_json::to_string(&s).unwrap(), json, "a section that does not read stays kept");
        // Not a JSON value, or a key the scenario does not have: refused as before.
        assert!(Scenario::from_json_kept(r#"{"model":{"preset":"x"},"workload":{"seq_len":1},"training":}"#).is_err());
        let e = Scenario::from_json_kept(r#"{"model":{"preset":"x"},"workload":{"seq_len":1},"extra":1}"#);
        assert_eq!(e.unwrap_err().0[0].field, "scenario");
    }

    #[test]
    fn null_sections_read_as_absent() {
        let mut s = Scenario::from_json_kept(
            r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8},"inference":null,"roofline":null}"#,
        )
        .unwrap();
        s.read_all().unwrap();
        assert_eq!(
            s,
            Scenario::from_json(r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8}}"#)
                .unwrap()
        );
    }
}
