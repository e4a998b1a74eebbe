//! The form's working copy of the scenario. A value that makes the scenario invalid is kept
//! here, with its problem, and tried again with every later edit ([`Pending`]); everything
//! that is valid on its own reaches the scenario at once. So an independent mistake (an fp8
//! format the chip lacks) never holds back other edits, and a conflict between two fields
//! (heads and KV heads) resolves as soon as the second field makes the pair valid. Text that
//! does not read at all is kept in its input with its message ([`Draft::unreadable`]).

use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::field::Input;
use shardcalc_core::flops::Workload;
use shardcalc_core::scenario::{Conventions, ModelSource, Scenario, Sections};

/// An edit the scenario refused, kept in the form and tried again.
#[derive(Clone)]
pub enum Pending {
    /// A field's text.
    Field(Input, String),
    /// The model, workload and conventions of a scenario that loaded with problems in them
    /// (a link, a file): the form shows them until they are fixed.
    Sections(Box<(ModelSource, Workload, Conventions)>),
}

impl Pending {
    /// Applies the edit to `s` (a field's text that no longer reads changes nothing).
    pub fn apply(&self, s: &mut Scenario) {
        match self {
            Pending::Field(field, text) => {
                let _ = field.apply(s, text);
            }
            Pending::Sections(sections) => {
                let (model, workload, conventions) = sections.as_ref().clone();
                s.model = model;
                s.workload = workload;
                s.conventions = conventions;
            }
        }
    }

    /// Whether the edit is of the field at `path` or under it.
    #[must_use]
    pub fn is_under(&self, path: &str) -> bool {
        match self {
            Pending::Field(field, _) => {
                let p = field.path();
                p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('.') || r.starts_with('['))
            }
            Pending::Sections(_) => ["model", "workload", "conventions"].contains(&path),
        }
    }
}

/// The form's state. Field paths are `shardcalc_core::field` paths.
#[derive(Clone)]
pub struct Draft {
    /// What the form shows: the scenario (with the page's defaults) and the pending edits.
    pub scenario: Scenario,
    /// Why a field's text could not be read: one error per field, in the order they were
    /// typed (a `Vec`, not a `BTreeMap` by path: the only B-tree the pages linked, 5.3 KB
    /// gzip on the training page; docs/size.md, size4).
    pub unreadable: Vec<FieldError>,
    /// Edits the scenario refused, in the order they were made.
    pub pending: Vec<Pending>,
}

impl Draft {
    /// A draft of `scenario`, with nothing pending.
    #[must_use]
    pub fn new(scenario: Scenario) -> Self {
        Self { scenario, unreadable: Vec::new(), pending: Vec::new() }
    }

    /// The draft of `base` (the scenario with the page's defaults) with the pending edits.
    pub fn rebuild(&mut self, base: Scenario) {
        let mut s = base;
        for p in &self.pending {
            p.apply(&mut s);
        }
        self.scenario = s;
    }

    /// Every problem: unreadable text first, then the scenario's validation of what the page
    /// works with (`sections`; without the problems of fields whose text is unreadable: their
    /// stored value is stale).
    #[must_use]
    pub fn problems(&self, sections: Sections) -> Vec<FieldError> {
        let mut out = self.unreadable.clone();
        if let Err(Invalid(errors)) = self.scenario.validate_with(sections) {
            out.extend(errors.into_iter().filter(|e| !self.is_unreadable(&e.field)));
        }
        out
    }

    /// Whether the text typed in the field at `path` could not be read.
    #[must_use]
    pub fn is_unreadable(&self, path: &str) -> bool {
        self.unreadable.iter().any(|e| e.field == path)
    }

    /// Records why the text of the field at `path` could not be read (`None`: it was read),
    /// replacing what was recorded for it before.
    pub fn set_unreadable(&mut self, path: &str, message: Option<String>) {
        self.unreadable.retain(|e| e.field != path);
        self.unreadable.extend(message.map(|m| FieldError::new(path, m)));
    }

    /// Forgets the unread text and the pending edits of `path` and every path under it (a
    /// section switched off, a model replaced); `true` when something was forgotten.
    pub fn forget(&mut self, path: &str) -> bool {
        let under =
            |p: &str| p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('.') || r.starts_with('['));
        let before = (self.unreadable.len(), self.pending.len());
        self.unreadable.retain(|e| !under(&e.field));
        self.pending.retain(|p| !p.is_under(path));
        before != (self.unreadable.len(), self.pending.len())
    }
}
