//! The optional sections (`inference`, `collectives`, `roofline`, `training`) as a program
//! works with them: a program names the ones it shows ([`Sections`]), reads those from the
//! text a scenario arrives as, checks them and writes them; it keeps the others as the JSON
//! text they came in ([`Kept`]) and writes that back unchanged (links, files, saved entries).
//!
//! Why: size. Each web page is its own wasm (`src/views/mod.rs`), and every section costs a
//! page the serde code generated for its structs, its checks and its writer, whether the page
//! shows it or not: the training page paid ~16 KB of gzipped wasm for the serving section
//! alone (docs/size.md, "Sections kept as text"). A page links only the sections its
//! [`Sections`] names, because the rest of the program reaches them only through it.
//!
//! Checked later: a kept section is checked by the page (or the CLI) that reads it. The CLI,
//! the tests and the worker use [`Scenario::from_json`], [`Scenario::validate`] and
//! `Serialize`, which work with every section ([`Sections::ALL`]).

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{current_version, Conventions, ModelSource, Scenario, MAX_SCENARIO_BYTES};
use crate::error::{Checker, Invalid};
use crate::flops::Workload;
use crate::hardware::query::HardwareSection;

/// The optional sections of a scenario a program has not read: each as the JSON text it came
/// in, without whitespace outside strings. A section is either here or in its typed field,
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

/// The optional sections a program works with, as what it does with them: reads them from
/// their kept text, checks them, writes them. The others stay text. Each page's bin names its
/// own (`Sections::TRAINING` on the training page; `src/state`).
#[derive(Clone, Copy)]
pub struct Sections {
    /// Reads their kept text into their fields.
    read: fn(&mut Scenario) -> Result<(), Invalid>,
    /// Checks them (paths relative to the scenario); the hardware's questions are checked with
    /// the hardware, by [`Scenario::validate_hardware`].
    check: fn(&Scenario, &mut Checker),
    /// Writes those present into `text`, as JSON.
    write: fn(&Scenario, &mut Kept),
}

impl Sections {
    /// None of them (the model and validation pages).
    pub const NONE: Sections = Sections { read: |_| Ok(()), check: |_, _| {}, write: |_, _| {} };
    /// `training` (the training page).
    pub const TRAINING: Sections =
        Sections { read: Scenario::read_training, check: check_training, write: write_training };
    /// `inference` (the serving page).
    pub const INFERENCE: Sections =
        Sections { read: Scenario::read_inference, check: check_inference, write: write_inference };
    /// `collectives` and `roofline`, the questions about the hardware (the hardware page).
    pub const HARDWARE_QUESTIONS: Sections =
        Sections { read: Scenario::read_hardware_questions, check: |_, _| {}, write: write_hardware_questions };
    /// Every one (the CLI, the saved page, the single-file build).
    pub const ALL: Sections = Sections {
        read: Scenario::read_all,
        check: |s, c| {
            check_training(s, c);
            check_inference(s, c);
        },
        write: |s, text| {
            write_inference(s, text);
            write_hardware_questions(s, text);
            write_training(s, text);
        },
    };
}

fn check_training(s: &Scenario, c: &mut Checker) {
    c.merge("training", s.training.as_ref().map_or(Ok(()), crate::training::TrainingSection::validate));
}

fn check_inference(s: &Scenario, c: &mut Checker) {
    if let Err(e) = crate::inference::evaluate::validate_section(s.inference.as_ref(), s.hardware.as_ref()) {
        c.extend(e);
    }
}

/// `value` as JSON text (`None` for a value serde cannot write, which no section is).
fn text_of<T: Serialize>(value: &T) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(value).ok()
}

fn write_training(s: &Scenario, text: &mut Kept) {
    if let Some(t) = &s.training {
        text.training = text_of(t);
    }
}

fn write_inference(s: &Scenario, text: &mut Kept) {
    if let Some(i) = &s.inference {
        text.inference = text_of(i);
    }
}

fn write_hardware_questions(s: &Scenario, text: &mut Kept) {
    if !s.collectives.is_empty() {
        text.collectives = text_of(&s.collectives);
    }
    if let Some(r) = &s.roofline {
        text.roofline = text_of(r);
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

/// The scenario document as [`Scenario::to_json_with`] writes it: the optional sections as
/// text. The keys and order of `Serialize for Scenario` (`tests/roundtrip` compares them).
#[derive(Serialize)]
struct Written<'a> {
    version: u32,
    model: &'a ModelSource,
    workload: &'a Workload,
    conventions: &'a Conventions,
    #[serde(skip_serializing_if = "Option::is_none")]
    inference: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hardware: Option<&'a HardwareSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    collectives: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    roofline: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    training: Option<&'a RawValue>,
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
    /// and `training` sections as text ([`Kept`]) for the program to read those it shows.
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

    /// Reads the optional sections `sections` works with from their kept text.
    ///
    /// # Errors
    /// What serde says is wrong with one, on its field (`training`); the scenario is then
    /// left with the sections read so far.
    pub fn read(&mut self, sections: Sections) -> Result<(), Invalid> {
        (sections.read)(self)
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

    /// [`Scenario::validate`] of the optional sections `sections` works with; a kept section
    /// is not looked at.
    ///
    /// # Errors
    /// Every problem, with field paths relative to the scenario.
    pub fn validate_with(&self, sections: Sections) -> Result<crate::model::ModelConfig, Invalid> {
        self.validate_common(|s, c| (sections.check)(s, c))
    }

    /// The scenario as compact JSON, as `serde_json::to_string` writes it: the optional
    /// sections `sections` works with from their fields, the others as the text they came in.
    #[must_use]
    pub fn to_json_with(&self, sections: Sections) -> String {
        let mut text = self.kept.clone();
        (sections.write)(self, &mut text);
        let d = Written {
            version: self.version,
            model: &self.model,
            workload: &self.workload,
            conventions: &self.conventions,
            inference: text.inference.as_deref(),
            hardware: self.hardware.as_ref(),
            collectives: text.collectives.as_deref(),
            roofline: text.roofline.as_deref(),
            training: text.training.as_deref(),
        };
        // Plain structs with string keys: serialising cannot fail.
        serde_json::to_string(&d).unwrap_or_default()
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

/// The scenario's JSON with every section written from its field (a kept one as the text it
/// came in), for any serializer (the CLI writes it indented).
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
        for sections in [Sections::NONE, Sections::TRAINING, Sections::INFERENCE, Sections::HARDWARE_QUESTIONS] {
            assert_eq!(kept.to_json_with(sections), compact);
        }
        let mut read = kept.clone();
        read.read_all().unwrap();
        assert!(read.kept.is_empty());
        assert_eq!(read, s);
        assert_eq!(read.to_json_with(Sections::ALL), compact);
    }

    #[test]
    fn a_page_reads_checks_and_writes_only_its_sections() {
        let s = full();
        let compact = serde_json::to_string(&s).unwrap();
        let mut page = Scenario::from_json_kept(&compact).unwrap();
        page.read(Sections::TRAINING).unwrap();
        assert_eq!(page.training, s.training);
        assert!(page.inference.is_none());
        // An edit of a section it reads is written; the kept ones stay as they were.
        page.training.as_mut().unwrap().seq_len = 1234;
        let mut back = Scenario::from_json(&page.to_json_with(Sections::TRAINING)).unwrap();
        assert_eq!(back.training.as_ref().map(|t| t.seq_len), Some(1234));
        back.training.clone_from(&s.training);
        assert_eq!(back, s);
        // A problem in a kept section is the reading page's; the others do not see it.
        let mut bad = s.clone();
        bad.inference.as_mut().unwrap().prompt_len = 0;
        let mut training_page = Scenario::from_json_kept(&serde_json::to_string(&bad).unwrap()).unwrap();
        training_page.read(Sections::TRAINING).unwrap();
        assert!(training_page.validate_with(Sections::TRAINING).is_ok());
        let mut serving_page = training_page.clone();
        serving_page.read(Sections::INFERENCE).unwrap();
        let e = serving_page.validate_with(Sections::INFERENCE).unwrap_err();
        assert!(e.0.iter().all(|e| e.field.starts_with("inference")), "{e}");
        assert_eq!(serving_page.validate_with(Sections::ALL), bad.validate());
    }

    #[test]
    fn pretty_text_is_kept_compact_and_errors_name_the_section() {
        let text = r#"{"model": {"preset": "llama-3-8b"}, "workload": {"per_device_batch": 1, "seq_len": 8},
            "training": { "seq_len" : 4096,
                          "bogus": "a b" }}"#;
        let mut s = Scenario::from_json_kept(text).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.ends_with(r#""training":{"seq_len":4096,"bogus":"a b"}}"#), "{json}");
        assert_eq!(s.to_json_with(Sections::NONE), json);
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
        let plain = r#"{"model":{"preset":"llama-3-8b"},"workload":{"per_device_batch":1,"seq_len":8}}"#;
        assert_eq!(s, Scenario::from_json(plain).unwrap());
    }
}
