//! One component for every input of every page: a `shardcalc_core::field::Field` rendered as
//! a text input, a drop-down or a checkbox, with its label, unit, hint and problems.
//!
//! Element ids: the field's path with dots as dashes (`training.seq_len` → `#training-seq_len`;
//! an element of a list `collectives[2].kind` → `#collective-2-kind`; the hardware page's
//! fields keep their short ids, [`element_id`]), its wrapper
//! `#<id>-field` (class `invalid` while it has a problem), `#<id>-hint`, `#<id>-error` (its
//! own problems and the scenario's problems that name it) and, on pages that plan
//! ([`PlanProblems`]), `#<id>-conflict` (the planner's problems that name it). Ids are for
//! tests, embeds and labels; no behaviour reads them.

use leptos::html::{Input as HtmlInput, Select};
use leptos::prelude::*;
use shardcalc_core::error::FieldError;
use shardcalc_core::field::{Choice, Control, Input, InputMode};

use crate::dom::{event_checked, event_value};
use crate::state::{use_app_state, AppState};

/// Where the hardware page's ids are shorter than their paths (they were its ids before its
/// fields were described in core, and tests and links to its inputs use them).
const SHORT_IDS: [(&str, &str); 5] = [
    ("hardware.chip.custom.", "chip."),
    ("hardware.topology.axes[", "axis-"),
    ("collectives[", "collective-"),
    ("roofline.matmul.", "roofline."),
    ("roofline.op.", "roofline."),
];

/// The element id of the field at `path`: dots and brackets as dashes, with the short
/// prefixes of [`SHORT_IDS`] (`hardware.topology.axes[1].link_one_way` →
/// `axis-1-link_one_way`); the hardware picker keeps `#hw-chip`, `#hw-shape`, `#hw-slices`.
#[must_use]
pub fn element_id(path: &str) -> String {
    match path {
        "hardware.chip" => return "hw-chip".into(),
        "hardware.topology" => return "hw-shape".into(),
        "hardware.topology.slices" => return "hw-slices".into(),
        _ => {}
    }
    let short = SHORT_IDS.iter().find_map(|(long, short)| path.strip_prefix(long).map(|rest| format!("{short}{rest}")));
    short.as_deref().unwrap_or(path).replace("].", "-").replace(['.', '['], "-")
}

/// Problems found by evaluating the page rather than by validating the scenario (the
/// training planner's conflicts), shown under the fields they concern. A page that plans
/// provides it as context.
#[derive(Clone, Copy)]
pub struct PlanProblems(pub Memo<Vec<FieldError>>);

/// The messages of `errors` that `field` shows, one `path: message` each.
fn messages_of(field: &Input, errors: &[FieldError]) -> Vec<String> {
    errors.iter().filter(|e| field.shows(e)).map(ToString::to_string).collect()
}

/// `<p>` per message.
fn paragraphs(messages: Vec<String>) -> impl IntoView {
    messages.into_iter().map(|m| view! { <p>{m}</p> }).collect_view()
}

/// The options of a drop-down, in `<optgroup>`s where they have a group.
pub fn options_view(options: &[Choice], selected: &str) -> AnyView {
    let mut out: Vec<AnyView> = Vec::new();
    let mut i = 0;
    while let Some(first) = options.get(i) {
        let group = first.group;
        let end = options.iter().skip(i).position(|o| o.group != group).map_or(options.len(), |n| i + n);
        let items = options
            .get(i..end)
            .unwrap_or_default()
            .iter()
            .map(|o| view! { <option value=o.value.clone() selected=o.value == selected>{o.label.clone()}</option> })
            .collect_view();
        out.push(if group.is_empty() {
            items.into_any()
        } else {
            view! { <optgroup label=group>{items}</optgroup> }.into_any()
        });
        i = end;
    }
    out.into_any()
}

/// One field: label, input (text with its unit, drop-down or checkbox), hint and problems;
/// absent while it does not apply to the scenario (its unread text forgotten then). A
/// subset (`Kind::Subset`) is its values as text (`x,y`) here; [`SubsetField`] shows one as
/// a checkbox per option.
///
/// The input follows the scenario (a preset, a link, another field's change) without ever
/// moving the caret while the user types: the text the user's own edit produced is not
/// written back, and text that does not read stays as typed, with its message.
#[component]
pub fn Field(
    /// The field's description in core: a field of the scenario (`&'static Field`), or an
    /// element's (`ItemField::at`).
    #[prop(into)]
    field: Input,
) -> impl IntoView {
    applying(field, control)
}

/// A subset field as a checkbox per option (`#<id>-<value>`), inside the markup of
/// [`Field`]: the hardware page's collective axes. Apart from [`Field`] so that pages
/// without a subset do not carry its code.
#[component]
pub fn SubsetField(
    /// The field (`Kind::Subset`).
    #[prop(into)]
    field: Input,
) -> impl IntoView {
    applying(field, checkboxes)
}

/// Builds a field's control (label and input) from its [`Parts`].
type MakeControl = fn(Parts) -> AnyView;

/// `field`'s markup while it applies to the scenario, its control made by `make`.
fn applying(field: Input, make: MakeControl) -> AnyView {
    let state = use_app_state();
    if field.always_applies() {
        return field_view(field, make).into_any();
    }
    let applies = Memo::new(move |_| state.draft.with(|d| field.applies_to(&d.scenario)));
    Effect::new(move |_| {
        if !applies.get() {
            state.forget(&field.path());
        }
    });
    view! { <Show when=move || applies.get()>{field_view(field, make)}</Show> }.into_any()
}

/// What a control is made of: the field, its element id and `aria-describedby`, its text
/// in the draft, whether it has a problem, and its edit hooks.
struct Parts {
    field: Input,
    id: String,
    describedby: String,
    text: Memo<String>,
    invalid: Memo<bool>,
    hooks: Hooks,
}

/// How a control edits the scenario and follows it. `Copy`: handles.
#[derive(Clone, Copy)]
struct Hooks {
    state: AppState,
    field: Input,
    text: Memo<String>,
    /// The text this field's own last edit produced: not written back into the input.
    echo: StoredValue<Option<String>>,
}

impl Hooks {
    /// The user typed or chose `value`.
    fn edit(self, value: String) {
        self.state.set(self.field, &value);
        self.echo.set_value(self.state.draft.try_with_untracked(|d| self.field.text(&d.scenario)));
    }

    /// Writes the field's text into the input unless it is the echo of the user's own edit
    /// (a wholesale replacement always writes); `current`/`write` read and write the
    /// element's value. Returns `generation`, for the next call's `last`.
    fn follow(self, current: String, write: &dyn Fn(&str), generation: u64, last: Option<u64>) -> u64 {
        let t = self.text.get();
        let replaced = last.is_some_and(|g| g != generation);
        let own = self.echo.try_update_value(Option::take).flatten().is_some_and(|e| e == t);
        if (replaced || !own) && current != t {
            write(&t);
            let path = self.field.path();
            if self.state.draft.with_untracked(|d| d.is_unreadable(&path)) {
                self.state.draft.update(|d| d.set_unreadable(&path, None));
            }
        }
        generation
    }
}

/// The field's markup and behaviour (see [`Field`]), its control made by `make`.
fn field_view(field: Input, make: MakeControl) -> impl IntoView {
    let state = use_app_state();
    let id = element_id(&field.path());
    let text = Memo::new(move |_| state.draft.with(|d| field.text(&d.scenario)));
    let messages = Memo::new(move |_| state.errors.with(|e| messages_of(&field, e)));
    let plan = use_context::<PlanProblems>();
    let conflicts = Memo::new(move |_| plan.map(|p| p.0.with(|e| messages_of(&field, e))).unwrap_or_default());
    let invalid = Memo::new(move |_| messages.with(|m| !m.is_empty()));
    let hooks = Hooks { state, field, text, echo: StoredValue::new(None) };
    let describedby =
        if plan.is_some() { format!("{id}-hint {id}-error {id}-conflict") } else { format!("{id}-hint {id}-error") };
    let is_check = field.control() == Control::Check;
    let control = make(Parts { field, id: id.clone(), describedby, text, invalid, hooks });
    view! {
        <div class="field" class:check=is_check class:invalid=invalid id=format!("{id}-field")>
            {control}
            <p class="hint" id=format!("{id}-hint")>{field.hint()}</p>
            <div class="field-error" id=format!("{id}-error") aria-live="polite">
                {move || paragraphs(messages.get())}
            </div>
            {plan.map(|_| view! {
                <div class="field-error conflict" id=format!("{id}-conflict") aria-live="polite">
                    {move || paragraphs(conflicts.get())}
                </div>
            })}
        </div>
    }
}

/// A checkbox, a drop-down, or a text input with its unit (a subset's values as text).
fn control(p: Parts) -> AnyView {
    let Parts { field, id, describedby, text, invalid, hooks } = p;
    let state = hooks.state;
    match field.control() {
        Control::Check => view! {
            <div class="input-row">
                <input
                    id=id.clone()
                    type="checkbox"
                    prop:checked=move || text.get() == "true"
                    aria-describedby=describedby
                    on:change=move |ev| hooks.edit(if event_checked(&ev) { "true" } else { "false" }.into())
                />
                <label for=id>{field.label()}</label>
            </div>
        }
        .into_any(),
        Control::Select => {
            let node = NodeRef::<Select>::new();
            let options = Memo::new(move |_| state.draft.with(|d| field.options(&d.scenario)));
            Effect::new(move |last: Option<u64>| {
                let generation = state.generation.get();
                options.track();
                let Some(el) = node.get() else { return generation };
                hooks.follow(el.value(), &|t| el.set_value(t), generation, last)
            });
            view! {
                <label for=id.clone()>{field.label()}</label>
                <select id=id node_ref=node aria-describedby=describedby on:change=move |ev| hooks.edit(event_value(&ev))>
                    {move || options.with(|o| options_view(o, &text.get_untracked()))}
                </select>
            }
            .into_any()
        }
        Control::Text(_) | Control::Checkboxes => {
            let mode = if let Control::Text(mode) = field.control() { mode } else { InputMode::Text };
            let node = NodeRef::<HtmlInput>::new();
            Effect::new(move |last: Option<u64>| {
                let generation = state.generation.get();
                let Some(el) = node.get() else { return generation };
                hooks.follow(el.value(), &|t| el.set_value(t), generation, last)
            });
            view! {
                <label for=id.clone()>{field.label()}</label>
                <div class="input-row">
                    <input
                        id=id
                        node_ref=node
                        type="text"
                        inputmode=mode.attribute()
                        autocomplete="off"
                        spellcheck="false"
                        value=text.get_untracked()
                        aria-invalid=move || if invalid.get() { "true" } else { "false" }
                        aria-describedby=describedby
                        on:input=move |ev| hooks.edit(event_value(&ev))
                    />
                    <span class="unit">{field.unit()}</span>
                </div>
            }
            .into_any()
        }
    }
}

/// A checkbox per option of a subset (`#<id>-<value>`), in a group `#<id>`.
fn checkboxes(p: Parts) -> AnyView {
    let Parts { field, id, describedby, text, hooks, .. } = p;
    let state = hooks.state;
    let options = Memo::new(move |_| state.draft.with(|d| field.options(&d.scenario)));
    let stem = id.clone();
    let boxes = move || {
        options
            .get()
            .into_iter()
            .map(|o| {
                let box_id = format!("{stem}-{}", o.value);
                let label_for = box_id.clone();
                let value = o.value.clone();
                let chosen = move || text.with(|t| t.split(',').any(|v| v == value));
                let value = o.value.clone();
                let toggle = move |ev: leptos::ev::Event| {
                    let on = event_checked(&ev);
                    let mut values: Vec<String> = text
                        .get_untracked()
                        .split(',')
                        .filter(|v| !v.is_empty() && **v != value)
                        .map(str::to_string)
                        .collect();
                    if on {
                        values.push(value.clone());
                    }
                    hooks.edit(values.join(","));
                };
                view! {
                    <label for=label_for class="check">
                        <input id=box_id type="checkbox" prop:checked=chosen on:change=toggle />
                        {o.label}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <span class="label">{field.label()}</span>
        <div class="input-row checkboxes" id=id role="group" aria-describedby=describedby>{boxes}</div>
    }
    .into_any()
}

/// Every field of `group`, in order.
#[component]
pub fn Fields(
    /// The fields.
    group: &'static [shardcalc_core::field::Field],
) -> impl IntoView {
    group.iter().map(|field| view! { <Field field=field /> }).collect_view()
}

/// The problems of `paths` (a group's, not a field's), in `#<id>-conflict` on pages that
/// plan ([`PlanProblems`]) or, without one, the scenario's problems in `#<id>-error`.
#[component]
pub fn ProblemBox(
    /// Element id stem of the box.
    id: &'static str,
    /// The paths whose problems it shows.
    paths: &'static [&'static str],
) -> impl IntoView {
    let plan = use_context::<PlanProblems>();
    let state = use_app_state();
    let messages = Memo::new(move |_| {
        let pick = |errors: &[FieldError]| -> Vec<String> {
            errors.iter().filter(|e| paths.contains(&e.field.as_str())).map(ToString::to_string).collect()
        };
        match plan {
            Some(p) => p.0.with(|e| pick(e)),
            None => state.errors.with(|e| pick(e)),
        }
    });
    let suffix = if plan.is_some() { "conflict" } else { "error" };
    view! {
        <div class="field-error conflict" id=format!("{id}-{suffix}") aria-live="polite">
            {move || paragraphs(messages.get())}
        </div>
    }
}
