//! What the search may choose: the remat policies, ZeRO stages and pipeline schedules it
//! tries, and every rule it applies to meshes and microbatches, written out with the
//! model's numbers (the report's `search.constraints`; the rules themselves are in
//! [`super::search`]).

use super::mesh::{network_name, Parallelism};
use super::optimizer::ZeroStage;
use super::pipeline::{Pipeline, Schedule};
use super::search::divisors;
use super::section::TrainingSection;
use super::setup::Setup;
use super::tensors::{Remat, RematCost};
use crate::collectives::Network;
use crate::decimal::fixed;

/// A ZeRO stage and a pipeline schedule: what the search tries beside the mesh, the
/// microbatch count and the remat policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    /// ZeRO stage of the `dp` axis.
    pub zero: ZeroStage,
    /// Pipeline schedule and virtual stages.
    pub pipeline: Pipeline,
}

/// The ZeRO stages and schedules the search tries beside meshes, microbatch counts and
/// remat policies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choices {
    /// ZeRO stages, tried where DP > 1; the first is used where DP = 1.
    pub zero_stages: Vec<ZeroStage>,
    /// Schedules, tried where PP > 1; the first is used where PP = 1.
    pub schedules: Vec<Schedule>,
    /// Most virtual stages per device for the interleaved schedule.
    pub max_virtual_stages: u64,
}

impl Choices {
    /// Only `setup`'s own ZeRO stage and schedule.
    #[must_use]
    pub fn of(setup: &Setup) -> Self {
        let p = setup.options.pipeline;
        Self { zero_stages: vec![setup.options.zero], schedules: vec![p.schedule], max_virtual_stages: p.chunks() }
    }
}

/// The schedules tried on `stages` stages of `layers` layers: each of `schedules`, the
/// interleaved one with every v from 2 to `max_v` that divides the largest stage's layers
/// (chunks of equal size: MaxText's `num_layers_per_pipeline_stage`, Megatron-LM's layers
/// per virtual stage) and keeps a layer per chunk (PP·v ≤ L). One pipeline (the first
/// schedule's) without pipelining, where all are the same.
#[must_use]
pub fn pipelines(schedules: &[Schedule], max_v: u64, layers: u64, stages: u64) -> Vec<Pipeline> {
    let first = schedules.first().copied().unwrap_or_default();
    if stages <= 1 {
        return vec![Pipeline { schedule: first, virtual_stages: 1 }];
    }
    let largest = layers.div_ceil(stages);
    let mut out = Vec::new();
    for s in schedules {
        if *s == Schedule::Interleaved {
            for v in divisors(largest) {
                if v >= 2 && v <= max_v && stages.saturating_mul(v) <= layers {
                    out.push(Pipeline { schedule: *s, virtual_stages: v });
                }
            }
        } else {
            out.push(Pipeline { schedule: *s, virtual_stages: 1 });
        }
    }
    out
}

/// The schedules tried when `search.schedules` is not set: GPipe has 1F1B's bubble and
/// holds more microbatches, so it is tried only when listed.
pub const DEFAULT_SCHEDULES: [Schedule; 2] = [Schedule::OneFOneB, Schedule::Interleaved];

/// What the search tries beside meshes and microbatch counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    /// Remat policies with their costs: the requested ones the chip can run, minus the
    /// dominated.
    pub policies: Vec<(Remat, RematCost)>,
    /// Requested policies left out because another costs no more in memory, host
    /// traffic or recompute.
    pub dominated: Vec<Remat>,
    /// Requested policies left out because they offload and the chip has no PCIe figure.
    pub no_pcie: Vec<Remat>,
    /// ZeRO stages and schedules; the first of each is the one evaluated where the
    /// others are identical (DP = 1, PP = 1).
    pub choices: Choices,
}

/// The search space of `section` on `setup`.
#[must_use]
pub fn space(setup: &Setup, section: &TrainingSection) -> Space {
    let opts = section.search.clone().unwrap_or_default();
    let mut list: Vec<Remat> = opts.remat.clone().unwrap_or_else(|| Remat::PRESETS.to_vec());
    if matches!(section.remat, Remat::Custom(_)) && !list.contains(&section.remat) {
        list.push(section.remat.clone());
    }
    let (runnable, no_pcie): (Vec<Remat>, Vec<Remat>) =
        list.into_iter().partition(|r| setup.pcie.is_some() || !r.offloads());
    let all: Vec<(Remat, RematCost)> = runnable
        .into_iter()
        .map(|r| {
            let cost = RematCost::of(&r.placements(), &setup.profile);
            (r, cost)
        })
        .collect();
    // The first of equals is kept.
    let dominated_by_another = |i: usize, c: &RematCost| {
        all.iter().enumerate().any(|(j, (_, d))| j != i && d.dominates(c) && (!c.dominates(d) || j < i))
    };
    let (mut policies, mut dominated) = (Vec::new(), Vec::new());
    for (i, (r, c)) in all.iter().enumerate() {
        if dominated_by_another(i, c) {
            dominated.push(r.clone());
        } else {
            policies.push((r.clone(), *c));
        }
    }
    let mut zero_stages: Vec<ZeroStage> = Vec::new();
    for z in opts.zero_stages.clone().unwrap_or_else(|| (0..=3).map(ZeroStage).collect()) {
        if !zero_stages.contains(&z) {
            zero_stages.push(z);
        }
    }
    let mut schedules: Vec<Schedule> = Vec::new();
    for s in opts.schedules.clone().unwrap_or_else(|| DEFAULT_SCHEDULES.to_vec()) {
        if !schedules.contains(&s) {
            schedules.push(s);
        }
    }
    let layers = setup.profile.layers.max(1);
    let max_virtual_stages = opts.max_virtual_stages.unwrap_or(layers).clamp(1, layers);
    Space { policies, dominated, no_pcie, choices: Choices { zero_stages, schedules, max_virtual_stages } }
}

fn list<T: ToString>(xs: impl IntoIterator<Item = T>) -> String {
    let v: Vec<String> = xs.into_iter().map(|x| x.to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The degrees from 1 to `devices` dividing it that pass `ok`.
fn degrees(devices: u64, ok: impl Fn(u64) -> bool) -> String {
    list(divisors(devices).into_iter().filter(|d| ok(*d)))
}

fn schedule_name(s: Schedule) -> &'static str {
    match s {
        Schedule::Gpipe => "gpipe",
        Schedule::OneFOneB => "one_f_one_b",
        Schedule::Interleaved => "interleaved",
    }
}

/// Every rule the search applies, one sentence each, with the numbers of this model,
/// batch and topology.
#[must_use]
pub fn constraints(setup: &Setup, section: &TrainingSection, space: &Space) -> Vec<String> {
    let p = &setup.profile;
    let n = setup.devices;
    let opts = section.search.clone().unwrap_or_default();
    let mut out = Vec::new();
    let widths = match p.expert {
        Some(e) if e.shared_d_ff > 0 => format!("F = {}, expert F = {}, shared F = {}", p.d_ff, e.d_ff, e.shared_d_ff),
        Some(e) => format!("F = {}, expert F = {}", p.d_ff, e.d_ff),
        None => format!("F = {}", p.d_ff),
    };
    out.push(format!(
        "tp divides the {} query heads and every MLP width ({widths}) and divides or is a multiple of the {} K/V heads: tp ∈ {{{}}}; inside the scale-up network only (four collectives per layer on the critical path)",
        p.heads,
        p.kv_heads,
        degrees(n, |d| p.tp_divides(d))
    ));
    out.push(match p.expert {
        Some(e) => {
            format!("ep divides the {} experts: ep ∈ {{{}}}", e.experts, degrees(n, |d| e.experts.is_multiple_of(d)))
        }
        None => "ep = 1: the model has no experts".into(),
    });
    out.push(format!(
        "cp divides the sequence length {}: cp ∈ {{{}}}",
        setup.seq_len,
        degrees(n, |d| setup.seq_len.is_multiple_of(d))
    ));
    out.push(format!(
        "pp × virtual stages ≤ the {} layers; stages may be uneven: the device with the most layers sets the pace and holds the most",
        p.layers
    ));
    out.push(format!(
        "dp · fsdp · ep ≤ the {} sequences of the batch: every data shard needs a whole sequence (a remainder is padded and counted)",
        setup.sequences
    ));
    let dcn: Vec<&str> = Parallelism::order_on(Network::ScaleOut).iter().map(|a| a.id()).collect();
    out.push(format!("the {} network carries {} (never tp)", network_name(Network::ScaleOut), dcn.join(", ")));
    out.push(match section.microbatches {
        Some(m) => format!("microbatches: only {m} (training.microbatches), where it divides a data shard's sequences"),
        None => format!(
            "microbatches divide a data shard's sequences, up to {} (search.max_microbatches)",
            opts.max_microbatches
        ),
    });
    let c = &space.choices;
    out.push(format!(
        "ZeRO stages {} (search.zero_stages) where dp > 1 (identical elsewhere; ZeRO-3 over dp is the mesh with fsdp × dp, searched as such); with one microbatch ZeRO-1 is dominated by ZeRO-2 (the same traffic, gradients sharded too), with several they are equal (gradients reduced once per step, the accumulator whole)",
        list(c.zero_stages.iter().map(|z| z.0))
    ));
    let mut sentence = format!(
        "schedules {} (search.schedules) where pp > 1 (identical elsewhere)",
        list(c.schedules.iter().map(|s| schedule_name(*s)))
    );
    if c.schedules.contains(&Schedule::Interleaved) {
        sentence.push_str(&format!(
            "; interleaved with v from 2 to {} virtual stages (search.max_virtual_stages) where v divides the largest stage's layers (chunks of equal size) and pp · v ≤ the layers, with a multiple of pp microbatches (Megatron-LM, MaxText)",
            c.max_virtual_stages
        ));
    }
    if !c.schedules.contains(&Schedule::Gpipe) {
        sentence.push_str("; gpipe only when listed: 1F1B's bubble with more microbatches held");
    }
    out.push(sentence);
    let mut remat = format!("remat policies tried: {}", list(space.policies.iter().map(|(r, _)| r.id())));
    if !space.dominated.is_empty() {
        remat.push_str(&format!(
            "; not tried, another costs no more memory, host traffic or recompute: {}",
            list(space.dominated.iter().map(Remat::id))
        ));
    }
    if !space.no_pcie.is_empty() {
        remat.push_str(&format!(
            "; not tried, they offload and the chip has no published PCIe bandwidth: {}",
            list(space.no_pcie.iter().map(Remat::id))
        ));
    }
    out.push(remat);
    out.push(format!(
        "fits: at most {} GB per device, the {} GB of HBM less reserved_hbm_fraction {}",
        fixed(setup.usable_hbm() / 1e9, 1),
        fixed(setup.hbm / 1e9, 1),
        crate::decimal::shortest(setup.options.reserved_hbm_fraction)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaving_splits_the_largest_stage_into_equal_chunks() {
        let both = [Schedule::OneFOneB, Schedule::Interleaved];
        // 80 layers on 2 stages: 40 each; v ∈ {2, 4, 5, 8, 10, 20, 40}.
        let v: Vec<u64> = pipelines(&both, 80, 80, 2).iter().map(|p| p.virtual_stages).collect();
        assert_eq!(v, [1, 2, 4, 5, 8, 10, 20, 40]);
        // 61 layers on 4 stages: the largest holds 16; 4·16 > 61, so not 16 chunks.
        let v: Vec<u64> = pipelines(&both, 64, 61, 4).iter().map(|p| p.virtual_stages).collect();
        assert_eq!(v, [1, 2, 4, 8]);
        // Without pipelining, one (the first schedule's).
        assert_eq!(pipelines(&both, 64, 61, 1).len(), 1);
    }
}
