//! The price, and the conventions serving tools disagree on, each a named option with its
//! default (book 7.2, 8.1.1): which context the decode step reads, whether collectives
//! overlap, whether working memory counts, and HBM kept free for the runtime.

use shardcalc_core::inference::options::{CommsOverlap, KvContext, WorkingMemory};

use super::fields::{
    non_negative_real, optional_non_negative_real, real_text, ChoiceSpec, Field, Group, InferenceSpec,
};
use crate::parse::shortest;

static PRICE: InferenceSpec = InferenceSpec {
    path: "inference.price_per_chip_hour_usd",
    id: "inference-price_per_chip_hour_usd",
    label: "Price per chip-hour",
    unit: "USD",
    hint: "For the cost per million tokens; empty = the chip catalog's price, if it has one",
    input_mode: "decimal",
    get: |s| real_text(s.price_per_chip_hour_usd),
    set: |t, s| {
        s.price_per_chip_hour_usd = optional_non_negative_real(t)?;
        Ok(())
    },
};

static RESERVED: InferenceSpec = InferenceSpec {
    path: "inference.reserved_hbm_fraction",
    id: "inference-reserved_hbm_fraction",
    label: "HBM reserved",
    unit: "fraction",
    hint: "Share of each chip's HBM kept free for the runtime, 0 to 0.99",
    input_mode: "decimal",
    get: |s| shortest(s.reserved_hbm_fraction),
    set: |t, s| {
        s.reserved_hbm_fraction = non_negative_real(t)?;
        Ok(())
    },
};

static KV_CONTEXT: ChoiceSpec = ChoiceSpec {
    path: "inference.kv_context",
    label: "Context read per step",
    hint: "Full: every cache at P + G, as the book's 8k tables; mean: P + G/2, what a paged kernel reads on average",
    options: &[("full", "full: P + G"), ("mean", "mean: P + G/2")],
    get: |s| match s.kv_context {
        KvContext::Full => "full".into(),
        KvContext::Mean => "mean".into(),
    },
    set: |t, s| {
        s.kv_context = if t == "mean" { KvContext::Mean } else { KvContext::Full };
        Ok(())
    },
};

static OVERLAP: ChoiceSpec = ChoiceSpec {
    path: "inference.comms_overlap",
    label: "Collectives",
    hint: "Full overlap: max(memory and FLOPs, collectives), the roofline; none: their sum",
    options: &[("full", "overlapped (lower bound)"), ("none", "not overlapped (upper bound)")],
    get: |s| match s.comms_overlap {
        CommsOverlap::Full => "full".into(),
        CommsOverlap::None => "none".into(),
    },
    set: |t, s| {
        s.comms_overlap = if t == "none" { CommsOverlap::None } else { CommsOverlap::Full };
        Ok(())
    },
};

static WORKING: ChoiceSpec = ChoiceSpec {
    path: "inference.working_memory",
    label: "Working memory",
    hint: "Count the activations of the largest pass in flight, or ignore them as the book's tables do",
    options: &[("activations", "counted"), ("ignored", "ignored (book 8.1.1)")],
    get: |s| match s.working_memory {
        WorkingMemory::Activations => "activations".into(),
        WorkingMemory::Ignored => "ignored".into(),
    },
    set: |t, s| {
        s.working_memory = if t == "ignored" { WorkingMemory::Ignored } else { WorkingMemory::Activations };
        Ok(())
    },
};

/// The price per chip-hour.
pub static COST: Group = Group { legend: "Cost", class: "serving-cost", fields: &[Field::Text(&PRICE)] };

/// Context read, collective overlap, working memory and reserved HBM.
pub static CONVENTIONS: Group = Group {
    legend: "Conventions",
    class: "serving-advanced",
    fields: &[Field::Choice(&KV_CONTEXT), Field::Choice(&OVERLAP), Field::Choice(&WORKING), Field::Text(&RESERVED)],
};
