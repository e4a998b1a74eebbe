//! Page state shared by every view through Leptos context: the scenario the page shares (the
//! single source of truth for the URL, the links and what is saved), the page's defaults, and
//! the form's [`Draft`] of it.
//!
//! Edits go through [`AppState::set`] (one field's text, read by its `shardcalc_core::field`
//! description) or [`AppState::update`] (an action such as "explore this mesh"): both change
//! the draft and, when the draft validates, the scenario.

mod draft;
pub mod url;

pub use draft::{Draft, Pending};

use leptos::prelude::*;
use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::field::Input;
use shardcalc_core::model::ModelConfig;
use shardcalc_core::scenario::{Scenario, Sections};

/// A page's defaults: the scenario as the page shows it when it has no section for the page
/// (`shardcalc_core::view::*::with_defaults`).
pub type Defaults = fn(&Scenario) -> Scenario;

fn no_defaults(s: &Scenario) -> Scenario {
    s.clone()
}

/// Everything views share. `Copy`: signals are handles.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The scenario the page shares: what arrived (a link, a saved scenario, a file) and the
    /// user's edits, always valid. The URL and the links to other pages follow it. A page's
    /// defaults are shown ([`Self::shown`]) but not written into it until the user edits.
    pub scenario: RwSignal<Scenario>,
    /// What the results show: [`Self::scenario`] with the page's defaults.
    pub shown: Memo<Scenario>,
    /// The form's working copy, which may be invalid.
    pub draft: RwSignal<Draft>,
    /// Problems with the draft, each naming its field; empty when the results are current.
    pub errors: Memo<Vec<FieldError>>,
    /// Bumped when the draft is replaced wholesale (a link, a file, a saved scenario), so
    /// every field shows the new text even where the user had typed something unreadable.
    pub generation: RwSignal<u64>,
    /// A page-level message, e.g. why the link's scenario could not be read.
    pub notice: RwSignal<Option<String>>,
    /// The page's defaults.
    defaults: RwSignal<Defaults>,
    /// The optional sections the page works with: it reads them when a scenario arrives
    /// (a link, a file: they arrive as text, `shardcalc_core::scenario::Kept`), checks and
    /// writes them, and keeps the others as the text they came in, so it links no code for
    /// them (docs/size.md, "Sections kept as text"). Each page's bin names its own
    /// ([`crate::start_page`]).
    sections: Sections,
    /// The link fragment (`#s=...`) of [`Self::scenario`], encoded once per change for all its
    /// readers (the URL sync, the navigation's links).
    shared: Memo<String>,
}

impl AppState {
    /// State starting from `initial` (already read), for a page working with the optional
    /// `sections`. An `initial` whose model does not resolve is replaced by the default
    /// scenario, with a notice.
    #[must_use]
    pub fn new(initial: Scenario, sections: Sections) -> Self {
        let (initial, notice) = match initial.model.resolve() {
            Ok(_) => (initial, None),
            Err(e) => (Scenario::default(), Some(format!("{e}; showing the default scenario"))),
        };
        let scenario = RwSignal::new(initial.clone());
        let defaults = RwSignal::new(no_defaults as Defaults);
        let draft = RwSignal::new(Draft::new(initial));
        Self {
            scenario,
            // Always "changed": the scenario changes only on an edit, and the memos reading
            // this compare what they compute.
            shown: Memo::new_with_compare(move |_| scenario.with(|s| defaults.get()(s)), |_, _| true),
            draft,
            errors: Memo::new(move |_| draft.with(|d| d.problems(sections))),
            generation: RwSignal::new(0),
            notice: RwSignal::new(notice),
            defaults,
            sections,
            shared: Memo::new(move |_| scenario.with(|s| url::fragment_with(s, sections))),
        }
    }

    /// `scenario` (as it arrived: a link, a file) with the sections this page shows read.
    ///
    /// # Errors
    /// A section that does not read, naming it.
    pub fn read(&self, mut scenario: Scenario) -> Result<Scenario, Invalid> {
        scenario.read(self.sections)?;
        Ok(scenario)
    }

    /// `scenario` checked as this page checks it: everything but the optional sections it
    /// keeps as text (`Scenario::validate_with`).
    ///
    /// # Errors
    /// Every problem, each naming its field.
    pub fn check(&self, scenario: &Scenario) -> Result<ModelConfig, Invalid> {
        scenario.validate_with(self.sections)
    }

    /// The link fragment (`#s=...`) of `scenario`, written as this page writes it.
    #[must_use]
    pub fn fragment(&self, scenario: &Scenario) -> String {
        url::fragment_with(scenario, self.sections)
    }

    /// The permalink of `scenario`, written as this page writes it.
    #[must_use]
    pub fn permalink(&self, scenario: &Scenario) -> String {
        shardcalc_core::permalink::encode_with(scenario, self.sections)
    }

    /// The optional sections the page works with.
    #[must_use]
    pub fn sections(&self) -> Sections {
        self.sections
    }

    /// The page's defaults from now on (a view calls this when it mounts): the form starts
    /// from the scenario with them, and the results show them; the shared scenario gets them
    /// only with the user's first edit.
    pub fn use_defaults(&self, defaults: Defaults) {
        self.defaults.set(defaults);
        if let Some(draft) = self.draft.try_get_untracked() {
            self.settle(draft);
        }
    }

    /// Leaving this view for another in the same page (the single-file build): its unedited
    /// defaults are dropped, and the next view starts from the shared scenario as a fresh
    /// page would.
    pub fn leave_view(&self) {
        self.defaults.set(no_defaults);
        self.draft.set(Draft::new(self.scenario.get_untracked()));
    }

    /// The link fragment (`#s=...`) of the scenario this page shares. Tracks it.
    pub fn shared_fragment(&self) -> String {
        self.shared.get()
    }

    /// The same as a memo, for readers that keep it (links' `href`s).
    #[must_use]
    pub fn shared_fragment_memo(&self) -> Memo<String> {
        self.shared
    }

    /// [`Self::shared_fragment`] without tracking; `None` once the page is disposed.
    pub fn try_shared_fragment_untracked(&self) -> Option<String> {
        self.shared.try_get_untracked()
    }

    /// The user typed or chose `text` in `field`: text that does not read is kept with its
    /// message; a value is kept in the form and reaches the scenario when the scenario is
    /// valid with it ([`Draft`] says how refused values are retried).
    pub fn set(&self, field: impl Into<Input>, text: &str) {
        let field: Input = field.into();
        let Some(mut draft) = self.draft.try_get_untracked() else { return };
        draft.pending.retain(|p| !matches!(p, Pending::Field(f, _) if f.is(&field)));
        let mut candidate = draft.scenario.clone();
        match field.apply(&mut candidate, text) {
            Ok(()) => draft.set_unreadable(&field.path(), None),
            Err(e) => {
                draft.set_unreadable(&field.path(), Some(e.message));
                self.settle(draft);
                return;
            }
        }
        let text = text.to_string();
        self.edit(draft, candidate, Pending::Field(field, text.clone()), move |s| {
            let _ = field.apply(s, &text);
        });
    }

    /// Applies an action to the form (a preset chosen, a mesh explored), as [`Self::set`]
    /// does a field's value.
    pub fn update(&self, f: impl Fn(&mut Scenario)) {
        let Some(draft) = self.draft.try_get_untracked() else { return };
        let mut candidate = draft.scenario.clone();
        f(&mut candidate);
        // An action the scenario refuses is not kept: it has no field to show it.
        let _ = self.try_edit(draft, candidate, f);
    }

    /// Forgets the unread text and pending edits under `path` (a field that no longer
    /// applies).
    pub fn forget(&self, path: &str) {
        let Some(mut draft) = self.draft.try_get_untracked() else { return };
        if draft.forget(path) {
            self.settle(draft);
        }
    }

    /// Applies `f` to the form and the scenario when the scenario is valid with it, else
    /// reports why: opening a row of the serving search, which refuses what does not fit and
    /// says so next to the table.
    ///
    /// # Errors
    /// The scenario's problems with the edit, each naming its field; nothing changes then.
    pub fn try_update(&self, f: impl FnOnce(&mut Scenario)) -> Result<(), Invalid> {
        let Some(mut draft) = self.draft.try_get_untracked() else { return Ok(()) };
        let mut candidate = draft.scenario.clone();
        f(&mut candidate);
        self.check(&candidate)?;
        draft.pending.clear();
        self.commit(candidate);
        self.settle(draft);
        Ok(())
    }

    /// Replaces the model (an import), keeping everything else, and every model field's text.
    pub fn load_model(&self, model: shardcalc_core::model::ModelConfig) {
        self.forget("model");
        self.update(move |s| s.model = shardcalc_core::scenario::ModelSource::Custom(Box::new(model.clone())));
        self.generation.update(|g| *g += 1);
    }

    /// Replaces everything with `scenario` (a link, a saved scenario, a file) and every
    /// field's text. A `scenario` with problems in its model, workload or conventions fills
    /// the form (showing its problems) but not the results; they follow once it is fixed.
    ///
    /// # Errors
    /// When its model does not resolve; nothing changes then.
    pub fn load(&self, scenario: Scenario) -> Result<(), Invalid> {
        scenario.model.resolve()?;
        let mut draft = Draft::new(Scenario::default());
        if self.check(&scenario).is_ok() {
            self.scenario.set(scenario);
        } else {
            draft.pending.push(Pending::Sections(Box::new((scenario.model, scenario.workload, scenario.conventions))));
        }
        self.settle(draft);
        self.generation.update(|g| *g += 1);
        Ok(())
    }

    /// The edit `redo` (giving `candidate` on the draft, `pending` to keep): the whole draft
    /// when it is valid with it; else the edit alone on the scenario, then each pending edit
    /// that is valid on top; else the edit is kept pending.
    fn edit(&self, draft: Draft, candidate: Scenario, pending: Pending, redo: impl Fn(&mut Scenario)) {
        if self.try_edit(draft.clone(), candidate, redo).is_err() {
            let mut draft = draft;
            draft.pending.push(pending);
            self.settle(draft);
        }
    }

    /// [`Self::edit`] without keeping a refused edit.
    fn try_edit(&self, mut draft: Draft, candidate: Scenario, redo: impl Fn(&mut Scenario)) -> Result<(), Invalid> {
        if self.check(&candidate).is_ok() {
            draft.pending.clear();
            self.commit(candidate);
            self.settle(draft);
            return Ok(());
        }
        let mut alone = self.shown.get_untracked();
        redo(&mut alone);
        self.check(&alone)?;
        self.commit(alone);
        // Each refused edit that is now valid goes through.
        let mut kept = Vec::new();
        for p in std::mem::take(&mut draft.pending) {
            let mut next = self.shown.get_untracked();
            p.apply(&mut next);
            if self.check(&next).is_ok() {
                self.commit(next);
            } else {
                kept.push(p);
            }
        }
        draft.pending = kept;
        self.settle(draft);
        Ok(())
    }

    /// The draft rebuilt over the scenario.
    fn settle(&self, mut draft: Draft) {
        draft.rebuild(self.shown.get_untracked());
        self.draft.set(draft);
    }

    /// The scenario is now `next` (valid). Not compared with the old one: an edit that changes
    /// nothing is rare, the memos downstream compare what they compute, and comparing whole
    /// scenarios would link every section's comparison into every page.
    fn commit(&self, next: Scenario) {
        self.scenario.set(next);
    }

    /// Whether the results lag behind the form (the form has problems).
    #[must_use]
    pub fn is_stale(&self) -> bool {
        self.errors.with(|e| !e.is_empty())
    }
}

/// The page's state from context. Every view is rendered under [`crate::App`], which provides
/// it; should a component ever be mounted alone, it gets a fresh default state instead of a panic.
#[must_use]
pub fn use_app_state() -> AppState {
    use_context::<AppState>().unwrap_or_else(|| {
        leptos::logging::error!("shardcalc: no AppState in context; using a detached default");
        let state = AppState::new(Scenario::default(), Sections::NONE);
        provide_context(state);
        state
    })
}
