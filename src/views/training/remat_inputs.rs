//! Rematerialisation (book 4.4.2, MaxText's `remat_policy`): the explored mesh's policy,
//! a custom per-tensor policy (each named tensor kept on the device, recomputed, or
//! offloaded to the host over PCIe), and which policies the search tries.

use shardcalc_core::training::section::{SearchOptions, TrainingSection};
use shardcalc_core::training::tensors::{CustomRemat, Placement, Remat};

use super::fields::Spec;

type R = Result<(), String>;

const POLICIES: [(&str, &str); 12] = [
    ("none", "none"),
    ("minimal_with_context", "minimal_with_context"),
    ("minimal", "minimal"),
    ("save_dot_with_context_except_mlp", "save_dot_with_context_except_mlp"),
    ("save_dot_except_mlpwi", "save_dot_except_mlpwi"),
    ("save_dot_except_mlp", "save_dot_except_mlp"),
    ("save_qkv_proj", "save_qkv_proj"),
    ("qkv_proj_offloaded", "qkv_proj_offloaded"),
    ("save_out_proj", "save_out_proj"),
    ("minimal_offloaded", "minimal_offloaded"),
    ("full", "full"),
    ("custom", "custom (per tensor, below)"),
];

/// A custom policy starts from MaxText's defaults (layer input kept, the rest recomputed).
fn set_policy(t: &mut TrainingSection, _: usize, id: &str) -> R {
    t.remat = match (id, &t.remat) {
        ("custom", Remat::Custom(c)) => Remat::Custom(c.clone()),
        ("custom", _) => Remat::Custom(CustomRemat::default()),
        _ => Remat::preset(id).ok_or_else(|| format!("unknown policy {id:?}"))?,
    };
    Ok(())
}

const PLACEMENTS: [(&str, &str); 3] =
    [("device", "keep in HBM"), ("remat", "recompute"), ("offload", "offload to host")];

fn tensor(t: &TrainingSection, i: usize) -> String {
    match t.remat.placements().get(i) {
        Some(Placement::Device) => "device",
        Some(Placement::Offload) => "offload",
        _ => "remat",
    }
    .into()
}

/// Sets tensor `i` (in `LayerTensor::ALL` order) of the custom policy; the fused
/// `qkv_proj` / `mlpwi` overrides give way to the part set.
fn set_tensor(t: &mut TrainingSection, i: usize, id: &str) -> R {
    let p = match id {
        "device" => Placement::Device,
        "offload" => Placement::Offload,
        "remat" => Placement::Remat,
        other => return Err(format!("unknown placement {other:?}")),
    };
    let mut c = match &t.remat {
        Remat::Custom(c) => c.clone(),
        _ => CustomRemat::default(),
    };
    if (1..=3).contains(&i) {
        c.qkv_proj = None;
    }
    if i == 6 || i == 7 {
        c.mlpwi = None;
    }
    *match i {
        0 => &mut c.decoder_layer_input,
        1 => &mut c.query_proj,
        2 => &mut c.key_proj,
        3 => &mut c.value_proj,
        4 => &mut c.context,
        5 => &mut c.out_proj,
        6 => &mut c.mlpwi_0,
        7 => &mut c.mlpwi_1,
        _ => &mut c.mlpwo,
    } = p;
    t.remat = Remat::Custom(c);
    Ok(())
}

fn searched(t: &TrainingSection, i: usize) -> bool {
    let listed = t.search.as_ref().and_then(|s| s.remat.as_ref());
    Remat::PRESETS.get(i).is_some_and(|r| listed.is_none_or(|l| l.contains(r)))
}

/// Ticks or unticks preset `i`; all ticked is the default (`search.remat` absent).
fn set_searched(t: &mut TrainingSection, i: usize, on: bool) -> R {
    let policy = Remat::PRESETS.get(i).cloned().ok_or("no such policy")?;
    let opts = t.search.get_or_insert_with(SearchOptions::default);
    let mut list: Vec<Remat> = opts.remat.clone().unwrap_or_else(|| Remat::PRESETS.to_vec());
    list.retain(|x| *x != policy);
    if on {
        list.push(policy);
    }
    // Policies that are not presets first, as they were, then the presets in their order
    // (what a stable sort by preset position did, without linking a stable sort).
    let mut ordered: Vec<Remat> = list.iter().filter(|x| !Remat::PRESETS.contains(x)).cloned().collect();
    ordered.extend(Remat::PRESETS.iter().filter(|p| list.contains(p)).cloned());
    let list = ordered;
    opts.remat = (list.len() != Remat::PRESETS.len()).then_some(list);
    if t.search.as_ref().is_some_and(|s| *s == SearchOptions::default()) {
        t.search = None;
    }
    Ok(())
}

/// The explored mesh's policy (a change rebuilds the form: the custom editor shows or hides).
pub static POLICY: [Spec; 1] = [Spec::select(
    "training-remat",
    "training.remat",
    "Remat policy",
    &POLICIES,
    |t, _| t.remat.id().into(),
    set_policy,
)
.hint("Of the explored mesh (MaxText's names); the search tries the policies ticked below, and a custom policy too")
.conflicts(&["training.remat"])
.rebuild()];

const fn tensor_spec(id: &'static str, label: &'static str, i: usize) -> Spec {
    Spec::select(id, "training.remat", label, &PLACEMENTS, tensor, set_tensor).arg(i)
}

/// The custom policy, tensor by tensor (shown for a custom policy).
pub static TENSORS: [Spec; 9] = [
    tensor_spec("training-remat-decoder_layer_input", "layer input", 0),
    tensor_spec("training-remat-query_proj", "query projection", 1),
    tensor_spec("training-remat-key_proj", "key projection", 2),
    tensor_spec("training-remat-value_proj", "value projection", 3),
    tensor_spec("training-remat-context", "attention output (context)", 4),
    tensor_spec("training-remat-out_proj", "out projection", 5),
    tensor_spec("training-remat-mlpwi_0", "MLP input projection", 6),
    tensor_spec("training-remat-mlpwi_1", "MLP gate projection", 7),
    tensor_spec("training-remat-mlpwo", "MLP down projection", 8),
];

const fn searched_spec(id: &'static str, label: &'static str, i: usize) -> Spec {
    Spec::check(id, "training.search.remat", label, searched, set_searched).arg(i)
}

/// The policies the search tries.
pub static SEARCHED: [Spec; 11] = [
    searched_spec("training-search-remat-none", "none", 0),
    searched_spec("training-search-remat-minimal_with_context", "minimal_with_context", 1),
    searched_spec("training-search-remat-minimal", "minimal", 2),
    searched_spec("training-search-remat-save_dot_with_context_except_mlp", "save_dot_with_context_except_mlp", 3),
    searched_spec("training-search-remat-save_dot_except_mlpwi", "save_dot_except_mlpwi", 4),
    searched_spec("training-search-remat-save_dot_except_mlp", "save_dot_except_mlp", 5),
    searched_spec("training-search-remat-save_qkv_proj", "save_qkv_proj", 6),
    searched_spec("training-search-remat-qkv_proj_offloaded", "qkv_proj_offloaded", 7),
    searched_spec("training-search-remat-save_out_proj", "save_out_proj", 8),
    searched_spec("training-search-remat-minimal_offloaded", "minimal_offloaded", 9),
    searched_spec("training-search-remat-full", "full", 10),
];
