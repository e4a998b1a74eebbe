//! Page state shared by every view through Leptos context: the scenario (the single source of
//! truth for results, charts and the URL) and the form's [`Draft`] of it.

mod draft;
mod field_map;
pub mod url;

pub use draft::Draft;
pub use field_map::FieldMap;

use leptos::prelude::*;
use shardcalc_core::error::{FieldError, Invalid};
use shardcalc_core::model::ModelConfig;
use shardcalc_core::scenario::Scenario;

/// Everything views share. `Copy`: signals are handles.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The last valid scenario. Results, charts and the URL follow it; other views (hardware,
    /// training, serving) read and write it too.
    pub scenario: RwSignal<Scenario>,
    /// The form's working copy, which may be invalid.
    pub draft: RwSignal<Draft>,
    /// Problems with the draft, each naming its field; empty when the results are current.
    pub errors: Memo<Vec<FieldError>>,
    /// Bumped when the draft is replaced wholesale (preset, import, link), so forms whose
    /// inputs are uncontrolled rebuild from the draft.
    pub generation: RwSignal<u64>,
    /// A page-level message, e.g. why the link's scenario could not be read.
    pub notice: RwSignal<Option<String>>,
    /// The link fragment (`#s=...`) of the scenario as it reached this page, before the page
    /// filled in its defaults ([`Self::fill_defaults`]); `None` once the user has edited
    /// anything. While it is set, the URL and the links to other pages carry it.
    arrived: StoredValue<Option<String>>,
    /// Whether the user has edited anything on this page (defaults filled after that are
    /// shared like any edit).
    edited: StoredValue<bool>,
    /// [`Self::shared_fragment`], encoded once per scenario change for all its readers (the
    /// URL sync, the navigation's links, the serving page's model-page link).
    shared: Memo<String>,
}

impl AppState {
    /// State starting from `initial`. An `initial` whose model does not resolve is replaced
    /// by the default scenario, with a notice.
    #[must_use]
    pub fn new(initial: Scenario) -> Self {
        let (scenario, draft, notice) = match Draft::from_scenario(&initial) {
            Ok(draft) => (initial, draft, None),
            Err(e) => {
                // The default scenario names a bundled preset (core's tests check they
                // load); the empty model only guards against a broken build.
                let draft = Draft::from_scenario(&Scenario::default()).unwrap_or_else(|_| empty_draft());
                let scenario = draft.scenario_over(&Scenario::default());
                (scenario, draft, Some(format!("{e}; showing the default scenario")))
            }
        };
        let draft = RwSignal::new(draft);
        let scenario = RwSignal::new(scenario);
        let arrived = StoredValue::new(None::<String>);
        Self {
            scenario,
            draft,
            errors: Memo::new(move |_| draft.with(|d| scenario.with(|s| d.errors_over(s)))),
            generation: RwSignal::new(0),
            notice: RwSignal::new(notice),
            arrived,
            edited: StoredValue::new(false),
            // `arrived` is not reactive: every change of it comes with a change of the scenario
            // (`fill_defaults` fills, `leave_view` restores) or is followed by one (an edit's
            // commit, `load`), which re-runs this.
            shared: Memo::new(move |_| scenario.with(|s| arrived.get_value().unwrap_or_else(|| url::fragment(s)))),
        }
    }

    /// Fills in what this page shows when the scenario does not say (e.g. the hardware page's
    /// v5e 8×4 and roofline op, the training page's v5p 4×4×4), like [`Self::try_update`], but
    /// keeps them out of the shared scenario until the user edits something: the URL and
    /// the links to other pages ([`Self::shared_fragment`]) carry the scenario as it arrived,
    /// so one page's defaults never become another page's inputs. After the first edit, what
    /// the page shows is what is shared. Saving and downloading write what the page shows.
    pub fn fill_defaults(&self, f: impl FnOnce(&mut Scenario)) {
        let before = (!self.edited.get_value() && self.arrived.with_value(Option::is_none))
            .then(|| self.scenario.with_untracked(url::fragment));
        if self.apply(f).is_ok() {
            if let Some(before) = before.filter(|b| self.scenario.with_untracked(|s| url::fragment(s) != *b)) {
                self.arrived.set_value(Some(before));
            }
        }
    }

    /// The link fragment (`#s=...`) of the scenario this page shares, in its URL and its links
    /// to other pages: as it arrived while the page shows only its own defaults on top of it,
    /// else the scenario's. Tracks [`Self::scenario`].
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

    /// Leaving this view for another in the same page (the single-file build): the page's
    /// unedited defaults are taken back, and the next view starts as a fresh page would.
    pub fn leave_view(&self) {
        let arrived = self.arrived.try_update_value(Option::take).flatten();
        if let Some(Some(Ok(s))) = arrived.as_deref().map(url::scenario_in_fragment) {
            self.scenario.set(s);
        }
        self.edited.set_value(false);
    }

    /// The user changed something: from now on the page shares what it shows.
    fn mark_edited(&self) {
        self.edited.set_value(true);
        self.arrived.set_value(None);
    }

    /// Applies an edit to the draft; when the draft is then valid, it becomes the scenario.
    pub fn edit(&self, f: impl FnOnce(&mut Draft)) {
        self.mark_edited();
        self.draft.update(f);
        self.commit();
    }

    /// Replaces everything with `scenario` (a link, later a saved scenario) and rebuilds forms.
    /// An invalid `scenario` fills the form (showing its problems) but not the results.
    ///
    /// # Errors
    /// When its model does not resolve; nothing changes then.
    pub fn load(&self, scenario: Scenario) -> Result<(), Invalid> {
        let draft = Draft::from_scenario(&scenario)?;
        // What was loaded is what the page shares (defaults are filled only when a view mounts).
        self.arrived.set_value(None);
        if scenario.validate().is_ok() {
            self.scenario.set(scenario);
        }
        self.draft.set(draft);
        self.generation.update(|g| *g += 1);
        self.commit();
        Ok(())
    }

    /// Replaces the model (a preset or an import), keeping workload and conventions, and
    /// rebuilds forms.
    pub fn load_model(&self, model: ModelConfig, preset: Option<String>) {
        self.mark_edited();
        self.draft.update(|d| {
            d.model = model;
            d.preset = preset;
            d.forget("model");
        });
        self.generation.update(|g| *g += 1);
        self.commit();
    }

    /// Applies `f` to a copy of the scenario and keeps the copy only when the whole scenario
    /// still validates: how views edit the sections the model form does not own (hardware,
    /// training, inference), so `scenario` (and the link) is always valid. The model form's
    /// draft is rebased on the new scenario.
    ///
    /// # Errors
    /// The copy's problems, each naming its field; nothing changes then.
    pub fn try_update(&self, f: impl FnOnce(&mut Scenario)) -> Result<(), Invalid> {
        self.mark_edited();
        self.apply(f)
    }

    /// [`Self::try_update`] without counting as the user's edit.
    fn apply(&self, f: impl FnOnce(&mut Scenario)) -> Result<(), Invalid> {
        let Some(mut next) = self.scenario.try_get_untracked() else {
            return Ok(());
        };
        f(&mut next);
        next.validate()?;
        if self.scenario.with_untracked(|s| *s != next) {
            self.scenario.set(next);
        }
        Ok(())
    }

    /// Whether the results lag behind the form (the form has problems).
    #[must_use]
    pub fn is_stale(&self) -> bool {
        self.errors.with(|e| !e.is_empty())
    }

    fn commit(&self) {
        if !self.errors.with_untracked(Vec::is_empty) {
            return;
        }
        let next = self.scenario.with_untracked(|base| self.draft.with_untracked(|d| d.scenario_over(base)));
        // `next` is the scenario with the draft's parts replaced, so only those can differ
        // (comparing whole scenarios would link every section's comparison into every page).
        let changed = self.scenario.with_untracked(|s| {
            s.model != next.model || s.workload != next.workload || s.conventions != next.conventions
        });
        if changed {
            self.scenario.set(next);
        }
    }
}

/// The page's state from context. Every view is rendered under [`crate::App`], which provides
/// it; should a component ever be mounted alone, it gets a fresh default state instead of a panic.
#[must_use]
pub fn use_app_state() -> AppState {
    use_context::<AppState>().unwrap_or_else(|| {
        leptos::logging::error!("shardcalc: no AppState in context; using a detached default");
        let state = AppState::new(Scenario::default());
        provide_context(state);
        state
    })
}

/// A draft with the smallest valid-looking model, used only if the bundled presets failed to
/// load (they are checked by core's tests).
fn empty_draft() -> Draft {
    use shardcalc_core::model::{Attention, AttentionLayout, Embeddings, GqaAttention, Mlp, MlpKind, Norm};
    let model = ModelConfig {
        name: "empty".into(),
        d_model: 64,
        num_layers: 1,
        vocab_size: 256,
        attention: Attention::Gqa(GqaAttention {
            num_heads: 1,
            num_kv_heads: 1,
            head_dim: 64,
            qk_norm: false,
            bias: Default::default(),
            sinks: false,
        }),
        layout: AttentionLayout::default(),
        mlp: Mlp { kind: MlpKind::Gated, d_ff: 256, bias: false },
        moe: None,
        norm: Norm::default(),
        block: Default::default(),
        embeddings: Embeddings::default(),
        mtp: None,
    };
    let defaults = Scenario::default();
    Draft {
        model,
        preset: None,
        workload: defaults.workload,
        conventions: defaults.conventions,
        text: Default::default(),
        unreadable: Default::default(),
    }
}
