//! Disaggregated serving, complete (book 7.4, 8.1.2): a pool of prefill servers (their
//! own chip, mesh and price) sends each prompt's KV cache over a link to a pool of decode
//! servers. For a request rate λ:
//!
//! - a **prefill server** batches `b` prompts per pass (`prefill.batch`); a pass over
//!   prompts of `P_i` tokens takes `t_pass(b, P_i)` (`ServingSetup::prefill`), so each
//!   request brings `t_pass/b` of work to the server's M/G/1 queue ([`super::queueing`])
//!   and waits `t_pass` once served;
//! - the **KV transfer** moves `b` caches of `P_i` tokens,
//!   `t_kv = latency + b·KV(P_i) / min(Y_p·W_p, Y_d·W_d)` ([`point_to_point`]: every
//!   chip of the smaller side's aggregate rate, W the per-chip one-way rate of the chosen
//!   network), and is **added to the time to first token**: whole (`overlap: none`), or
//!   streamed layer by layer beside the pass (`layerwise`: the pass and transfer overlap
//!   but for one layer, `max(t_pass + t_kv/L, t_kv + t_pass/L)`);
//! - **TTFT** = queue wait + `t_pass` + the transfer; the fewest prefill servers whose
//!   queues are stable and meet `targets.ttft_*` (λ/n each);
//! - a **decode server** runs at most `B` sequences (the serving batch) with step
//!   `τ(B)`, so it finishes `B / (τ(B)·E[G])` requests per second: `⌈λ·E[G]·τ(B)/B⌉`
//!   decode servers (book 8.1.2's rate balance), time per output token at most `τ(B)`;
//! - the answer "x prefill : y decode servers" and each pool's cost.

use super::capacity::fewest_servers;
use super::disaggregation::servers_needed;
use super::options::{InferenceSection, KvNetwork, KvOverlap};
use super::plan::Plan;
use super::price::Price;
use super::queueing::{Mg1, RequestClass, Ttft};
use super::report::{DisaggregationReport, PoolReport};
use super::setup::ServingSetup;
use super::targets::{Constraint, ServingTargets, Unmet};
use super::throughput::{queries_per_s, usd_per_million_tokens_of};
use super::tp_limits::axis_one_way;
use super::traffic::Traffic;
use crate::collectives::point_to_point;
use crate::error::Invalid;
use crate::hardware::Chip;
use crate::units::{Bytes, BytesPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// The link between the pools, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvLink {
    /// `scale_out` or `scale_up`.
    pub network: KvNetwork,
    /// The network's name on the decode chip (`DCN`, `InfiniBand`, `ICI`, `NVLink`).
    pub name: String,
    /// One-way bytes per second a prefill chip sends at.
    pub send_per_chip: BytesPerSec,
    /// One-way bytes per second a decode chip receives at.
    pub receive_per_chip: BytesPerSec,
    /// `min(Y_p·W_p, Y_d·W_d)`.
    pub bandwidth: BytesPerSec,
    /// Fixed cost of one transfer.
    pub latency_s: Seconds,
    /// `none` or `layerwise`.
    pub overlap: KvOverlap,
}

impl KvLink {
    /// The link of `section.kv_transfer` from `y_p` chips of `prefill` to `y_d` of `decode`.
    ///
    /// # Errors
    /// `kv_transfer.network`: `scale_up` between two chip types.
    pub fn resolve(
        section: &InferenceSection,
        prefill: &Chip,
        y_p: f64,
        decode: &Chip,
        y_d: f64,
    ) -> Result<Self, Invalid> {
        let k = &section.kv_transfer;
        if k.network == KvNetwork::ScaleUp && prefill.id != decode.id {
            return Err(Invalid::one(
                "kv_transfer.network",
                format!(
                    "`scale_up` needs both pools on one chip type and scale-up domain ({} prefills, {} decodes)",
                    prefill.name, decode.name
                ),
            ));
        }
        let rate = |c: &Chip| match k.network {
            KvNetwork::ScaleOut => c.scale_out.bandwidth_per_chip,
            KvNetwork::ScaleUp => axis_one_way(c),
        };
        let hop = |c: &Chip| match k.network {
            KvNetwork::ScaleOut => c.scale_out.hop_latency,
            KvNetwork::ScaleUp => c.scale_up.hop_latency,
        };
        let name = match k.network {
            KvNetwork::ScaleOut => decode.scale_out.name.clone(),
            KvNetwork::ScaleUp => decode.scale_up.name.clone(),
        };
        let send = k.bandwidth_per_chip.unwrap_or_else(|| rate(prefill));
        let receive = k.bandwidth_per_chip.unwrap_or_else(|| rate(decode));
        let latency = k
            .latency
            .unwrap_or_else(|| hop(prefill).unwrap_or(Seconds::ZERO).max(hop(decode).unwrap_or(Seconds::ZERO)));
        Ok(Self {
            network: k.network,
            name,
            send_per_chip: send,
            receive_per_chip: receive,
            bandwidth: (send * y_p.max(1.0)).min(receive * y_d.max(1.0)),
            latency_s: latency,
            overlap: k.overlap,
        })
    }

    /// The fastest link `y_p` chips of `prefill` can send over, whatever the decode side:
    /// their own aggregate rate and latency (a lower bound on every transfer time).
    ///
    /// # Errors
    /// As [`Self::resolve`].
    pub fn fastest_from(section: &InferenceSection, prefill: &Chip, y_p: f64) -> Result<Self, Invalid> {
        let mut l = Self::resolve(section, prefill, y_p, prefill, f64::INFINITY)?;
        if section.kv_transfer.latency.is_none() {
            let hop = match section.kv_transfer.network {
                KvNetwork::ScaleOut => prefill.scale_out.hop_latency,
                KvNetwork::ScaleUp => prefill.scale_up.hop_latency,
            };
            l.latency_s = hop.unwrap_or(Seconds::ZERO);
        }
        Ok(l)
    }

    /// Time to move `bytes` (book Solution 2.5: first byte after the latency, the rest at
    /// the aggregate rate).
    #[must_use]
    pub fn transfer(&self, bytes: Bytes) -> Seconds {
        point_to_point(bytes, 1.0, self.bandwidth, 1, self.latency_s).total
    }

    /// What a transfer of `t_kv` adds to a pass of `t_pass` over `layers` layers.
    #[must_use]
    pub fn added(&self, t_pass: Seconds, t_kv: Seconds, layers: f64) -> Seconds {
        match self.overlap {
            KvOverlap::None => t_kv,
            KvOverlap::Layerwise => {
                let l = layers.max(1.0);
                (t_kv / l).max(t_kv - t_pass + t_pass / l).max(Seconds::ZERO)
            }
        }
    }
}

/// One prompt length's class on a prefill server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefillClass {
    /// Share of requests.
    pub weight: f64,
    /// One pass of `b` such prompts.
    pub pass: Seconds,
    /// Their caches over the link, as added to the first token.
    pub transfer_added: Seconds,
}

/// One pass of `batch` prompts per prompt length of `traffic` (in its order) on `setup`,
/// with the section's chunk, utilisation and attention counting.
///
/// # Errors
/// From the collective model.
pub fn prefill_passes(
    setup: &ServingSetup,
    section: &InferenceSection,
    traffic: &Traffic,
    batch: f64,
) -> Result<Vec<Seconds>, Invalid> {
    let p = &section.prefill;
    traffic
        .prompt
        .iter()
        .map(|(tokens, _)| {
            let chunk = p.chunk.unwrap_or(*tokens);
            Ok(setup.prefill(*tokens, chunk, batch, p.mfu.unwrap_or(1.0), p.attention)?.time_s)
        })
        .collect()
}

/// The classes of a prefill server's queue: per prompt length of `traffic`, a pass of
/// `batch` prompts on `setup` and the transfer of their caches over `link`.
///
/// # Errors
/// From the collective model.
pub fn prefill_classes(
    setup: &ServingSetup,
    section: &InferenceSection,
    traffic: &Traffic,
    batch: f64,
    link: &KvLink,
) -> Result<Vec<PrefillClass>, Invalid> {
    let layers = setup.model.num_layers as f64;
    let passes = prefill_passes(setup, section, traffic, batch)?;
    Ok(passes
        .into_iter()
        .zip(&traffic.prompt)
        .map(|(pass, (tokens, weight))| {
            let t_kv = link.transfer(setup.kv_per_sequence(*tokens) * batch);
            PrefillClass { weight: *weight, pass, transfer_added: link.added(pass, t_kv, layers) }
        })
        .collect())
}

/// The queue of one of `servers` prefill servers taking `rate` requests per second
/// between them.
#[must_use]
pub fn prefill_queue(classes: &[PrefillClass], batch: f64, rate: f64, servers: u64) -> Option<Mg1> {
    let q: Vec<RequestClass> = classes
        .iter()
        .map(|c| RequestClass {
            weight: c.weight,
            work: c.pass.get() / batch.max(1.0),
            own_latency: (c.pass + c.transfer_added).get(),
        })
        .collect();
    Mg1::new(rate / servers.max(1) as f64, &q)
}

/// The time to first token of `servers` prefill servers taking `rate` requests per second
/// between them; `None` when their queues are unstable.
#[must_use]
pub fn prefill_ttft(classes: &[PrefillClass], batch: f64, rate: f64, servers: u64) -> Option<Ttft> {
    prefill_queue(classes, batch, rate, servers)?.ttft()
}

/// Decode servers' worth of work for `rate` requests per second: one server finishes
/// `B / (τ·E[G])` requests per second (book 8.1.1), so `λ·E[G]·τ / B` (fractional).
#[must_use]
pub fn decode_load(rate: f64, mean_output: f64, step: Seconds, batch: f64) -> f64 {
    servers_needed(rate, queries_per_s(batch.max(1.0), 1.0, step, mean_output))
}

/// Decode servers for `rate` requests per second at batch `batch` with step `step`:
/// `⌈λ·E[G]·τ/B⌉`, at least 1.
#[must_use]
pub fn decode_servers_for(rate: f64, mean_output: f64, step: Seconds, batch: f64) -> u64 {
    let n = decode_load(rate, mean_output, step, batch).ceil();
    if n.is_finite() && n >= 1.0 {
        // proof: a finite value ≥ 1 below 2^64 converts exactly enough.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = n.min(u64::MAX as f64) as u64;
        n
    } else {
        1
    }
}

/// Both pools for a request rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DisaggregatedDeployment {
    /// Prefill servers.
    pub prefill_servers: u64,
    /// Decode servers.
    pub decode_servers: u64,
    /// `x prefill : y decode`.
    pub ratio: String,
    /// Time to first token with queueing and the transfer.
    pub ttft: Ttft,
    /// Time per output token (the decode step at the serving batch, an upper bound).
    pub tpot_s: Seconds,
    /// `λ·E[S]`: prefill servers' worth of work (fractional).
    pub prefill_load: f64,
    /// `λ·E[G]·τ/B`: decode servers' worth of work (fractional).
    pub decode_load: f64,
    /// What sets the prefill count: `throughput` or the TTFT target that needs the most.
    pub prefill_binds: Constraint,
    /// Chips of both pools.
    pub chips: f64,
    /// US dollars per hour of the prefill pool, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_usd_per_hour: Option<f64>,
    /// Of the decode pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_usd_per_hour: Option<f64>,
    /// Both, when both are priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_hour: Option<f64>,
    /// Per million output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_million_output_tokens: Option<f64>,
}

/// Inputs for [`deploy`].
#[derive(Clone, Copy, Debug)]
pub struct Pools<'a> {
    /// The prefill queue's classes.
    pub classes: &'a [PrefillClass],
    /// Prompts per pass.
    pub prefill_batch: f64,
    /// Chips per prefill server and their price.
    pub prefill_chips: f64,
    /// The prefill price.
    pub prefill_price: &'a Price,
    /// Sequences per decode server.
    pub decode_batch: f64,
    /// Its step.
    pub decode_step: Seconds,
    /// Chips per decode server.
    pub decode_chips: f64,
    /// The decode price.
    pub decode_price: &'a Price,
    /// E\[G\].
    pub mean_output: f64,
}

/// The fewest servers of each pool for `rate` under `targets`, or which target cannot be
/// met and why.
///
/// # Errors
/// None today (the queue is arithmetic); kept for symmetry with the co-located model.
pub fn deploy(
    pools: &Pools,
    rate: f64,
    targets: &ServingTargets,
) -> Result<Result<DisaggregatedDeployment, (Constraint, String)>, Invalid> {
    if let Some(t) = targets.tpot_s {
        if pools.decode_step.get() > t * (1.0 + 1e-9) {
            return Ok(Err((
                Constraint::Tpot,
                format!(
                    "the decode step at batch {} is {} s, above the target; a smaller batch or another mesh is needed",
                    crate::error::number_text(pools.decode_batch),
                    crate::decimal::fixed(pools.decode_step.get(), 5)
                ),
            )));
        }
    }
    let ttft_ok = |t: &Ttft| {
        targets.ttft_p50_s.is_none_or(|x| t.p50_s <= x * (1.0 + 1e-9))
            && targets.ttft_p99_s.is_none_or(|x| t.p99_s <= x * (1.0 + 1e-9))
    };
    let ttft = |n: u64| prefill_ttft(pools.classes, pools.prefill_batch, rate, n);
    let Some(n_p) = fewest_servers(|n| Ok(ttft(n).is_some_and(|t| ttft_ok(&t))))? else {
        let best = ttft(super::capacity::MAX_SERVERS);
        let (constraint, reached, target) = match (best, targets.ttft_p50_s, targets.ttft_p99_s) {
            (Some(t), Some(x), _) if t.p50_s > x => (Constraint::TtftP50, t.p50_s, x),
            (Some(t), _, Some(x)) => (Constraint::TtftP99, t.p99_s, x),
            _ => (Constraint::Throughput, f64::NAN, f64::NAN),
        };
        return Ok(Err((
            constraint,
            format!(
                "even unloaded a prompt's pass and KV transfer take {} s, above the {} s target",
                crate::decimal::fixed(reached, 4),
                crate::decimal::fixed(target, 4)
            ),
        )));
    };
    let Some(at) = ttft(n_p) else { return Ok(Err((Constraint::Throughput, "unstable".into()))) };
    let prefill_binds = if n_p == 1 {
        Constraint::Throughput
    } else {
        match ttft(n_p - 1) {
            None => Constraint::Throughput,
            Some(t) if targets.ttft_p99_s.is_some_and(|x| t.p99_s > x) => Constraint::TtftP99,
            Some(_) => Constraint::TtftP50,
        }
    };
    let n_d = decode_servers_for(rate, pools.mean_output, pools.decode_step, pools.decode_batch);
    let (cp, cd) = (n_p as f64 * pools.prefill_chips, n_d as f64 * pools.decode_chips);
    let (hp, hd) = (pools.prefill_price.usd_per_hour(cp), pools.decode_price.usd_per_hour(cd));
    let total = hp.zip(hd).map(|(a, b)| a + b);
    Ok(Ok(DisaggregatedDeployment {
        prefill_servers: n_p,
        decode_servers: n_d,
        ratio: format!("{n_p} prefill : {n_d} decode"),
        ttft: at,
        tpot_s: pools.decode_step,
        prefill_load: at.utilization * n_p as f64,
        decode_load: decode_load(rate, pools.mean_output, pools.decode_step, pools.decode_batch),
        prefill_binds,
        chips: cp + cd,
        prefill_usd_per_hour: hp,
        decode_usd_per_hour: hd,
        usd_per_hour: total,
        usd_per_million_output_tokens: total.and_then(|h| usd_per_million_tokens_of(h, rate * pools.mean_output)),
    }))
}

/// What [`disaggregation_report`] needs from the evaluation.
#[derive(Clone, Debug)]
pub struct DisaggregationInputs<'a, 'p> {
    /// The scenario's plan.
    pub plan: &'a Plan<'p>,
    /// The prefill servers' chip.
    pub prefill_chip: &'a Chip,
    /// Their mesh, labelled.
    pub prefill_topology: String,
    /// A decode server's mesh, labelled.
    pub decode_topology: String,
    /// Sequences per decode server.
    pub batch: f64,
    /// The decode server's memory fits.
    pub decode_fits: bool,
    /// One prompt's prefill.
    pub ttft: Seconds,
    /// The decode step at the section's context.
    pub step: Seconds,
    /// The decode servers' price.
    pub price: &'a Price,
    /// The prefill servers'.
    pub prefill_price: &'a Price,
}

/// `inference.disaggregation` but for the book's fixed-length figures the evaluation
/// fills in (`prefill_per_decode`, the comparison transfers, the churn per step).
///
/// # Errors
/// From the collective model; `kv_transfer.network` as [`KvLink::resolve`].
pub fn disaggregation_report(i: &DisaggregationInputs) -> Result<DisaggregationReport, Invalid> {
    let plan = i.plan;
    let s = plan.section;
    let dec = &plan.decode;
    let pre = plan.prefill_setup();
    let (y_p, y_d) = (pre.model_parallel(), dec.model_parallel());
    let link = KvLink::resolve(s, i.prefill_chip, y_p, &plan.decode_chip, y_d)?;
    let b = s.prefill.batch.unwrap_or(1);
    let bf = b as f64;
    let p = &s.prefill;
    let prompt = s.prompt_len;
    let pass = pre.prefill(prompt, p.chunk.unwrap_or(prompt), bf, p.mfu.unwrap_or(1.0), p.attention)?.time_s;
    let kv = dec.kv_per_sequence(prompt);
    let transfer = link.transfer(kv * bf);
    let added = link.added(pass, transfer, dec.model.num_layers as f64);
    let traffic = s.traffic();
    let fits = pre.prefill_memory(
        bf,
        traffic.max_prompt(),
        p.chunk.unwrap_or(u64::MAX),
        s.working_memory,
        s.reserved_hbm_fraction,
    );
    let pool = |chip: &Chip, topology: &str, chips: f64, price: &Price, fits: bool| PoolReport {
        chip: chip.id.clone(),
        topology: topology.to_string(),
        chips_per_server: chips,
        price: *price,
        fits,
    };
    let mut r = DisaggregationReport {
        prefill_s: i.ttft,
        decode_step_s: i.step,
        prefill_per_decode: 0.0,
        prefill_batch: b,
        prefill_pass_s: pass,
        kv_bytes_per_request: kv,
        kv_transfer_s: transfer,
        kv_transfer_added_s: added,
        ttft_unloaded_s: pass + added,
        kv_link: link.clone(),
        kv_transfer_ici_s: Seconds::ZERO,
        kv_transfer_dcn_s: Seconds::ZERO,
        prefill_pool: pool(i.prefill_chip, &i.prefill_topology, y_p, i.prefill_price, fits.fits),
        decode_pool: pool(&plan.decode_chip, &i.decode_topology, y_d, i.price, i.decode_fits),
        prefill_servers: None,
        decode_servers: None,
        chips_total: None,
        deployment: None,
        impossible: None,
        sequences_finished_per_step: 0.0,
        kv_tokens_evicted_per_step: 0.0,
    };
    let Some(rate) = s.request_rate else { return Ok(r) };
    let classes = prefill_classes(pre, s, &traffic, bf, &link)?;
    let step = dec.decode(i.batch, traffic.decode_context(s.kv_context), 1.0)?.time.step_time_s;
    let pools = Pools {
        classes: &classes,
        prefill_batch: bf,
        prefill_chips: y_p,
        prefill_price: i.prefill_price,
        decode_batch: i.batch,
        decode_step: step,
        decode_chips: y_d,
        decode_price: i.price,
        mean_output: traffic.mean_output(),
    };
    match deploy(&pools, rate, &s.targets)? {
        Ok(d) => {
            r.prefill_servers = Some(d.prefill_servers);
            r.decode_servers = Some(d.decode_servers);
            r.chips_total = Some(d.chips);
            r.deployment = Some(d);
        }
        Err((constraint, reason)) => r.impossible = Some(Unmet { constraint, reason }),
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog;
    use crate::inference::options::KvTransfer;

    fn section(network: KvNetwork, overlap: KvOverlap) -> InferenceSection {
        InferenceSection {
            kv_transfer: KvTransfer { network, overlap, ..KvTransfer::default() },
            ..InferenceSection::new(8192, 512)
        }
    }

    /// LLaMA 3-70B's int8 cache of an 8,192-token prompt (163,840 B per token: 1.34 GB)
    /// from 8 H100s to 8 H200s over InfiniBand at 50 GB/s per GPU: 1.34e9 / 4e11 = 3.36 ms
    /// (above the 2.7 µs latency); over NVLink on one chip type, 450 GB/s per GPU: 0.37 ms.
    #[test]
    fn kv_transfer_by_hand() {
        let (h100, h200) = (catalog::get("h100-sxm").unwrap(), catalog::get("h200-sxm").unwrap());
        let bytes = Bytes(163_840.0 * 8192.0);
        let ib = KvLink::resolve(&section(KvNetwork::ScaleOut, KvOverlap::None), &h100, 8.0, &h200, 8.0).unwrap();
        assert_eq!(ib.bandwidth, BytesPerSec(4e11));
        let lat = ib.latency_s.get();
        // NCCL's 2.7 µs per InfiniBand step (chips.json): a copy takes the longer of its first
        // byte's latency and its bytes over the link (book Solution 2.5).
        assert!((lat - 2.7e-6).abs() < 1e-18, "{lat}");
        assert!((ib.transfer(bytes).get() - (bytes.get() / 4e11).max(lat)).abs() < 1e-15);
        // Fewer receivers than senders: the decode side's 4 GPUs limit it.
        let narrow = KvLink::resolve(&section(KvNetwork::ScaleOut, KvOverlap::None), &h100, 8.0, &h200, 4.0).unwrap();
        assert_eq!(narrow.bandwidth, BytesPerSec(2e11));
        let nv = KvLink::resolve(&section(KvNetwork::ScaleUp, KvOverlap::None), &h100, 8.0, &h100, 8.0).unwrap();
        assert_eq!(nv.bandwidth, BytesPerSec(8.0 * 18.0 * 25e9));
        assert!(KvLink::resolve(&section(KvNetwork::ScaleUp, KvOverlap::None), &h100, 8.0, &h200, 8.0).is_err());
    }

    /// Layer-by-layer streaming over 80 layers: a 1 s pass and a 0.4 s transfer finish
    /// 5 ms apart (the last layer's share); a 2 s transfer is link-bound: 2 − 1 + 1/80.
    #[test]
    fn layerwise_overlap_by_hand() {
        let h100 = catalog::get("h100-sxm").unwrap();
        let l = KvLink::resolve(&section(KvNetwork::ScaleOut, KvOverlap::Layerwise), &h100, 1.0, &h100, 1.0).unwrap();
        assert!((l.added(Seconds(1.0), Seconds(0.4), 80.0).get() - 0.005).abs() < 1e-12);
        assert!((l.added(Seconds(1.0), Seconds(2.0), 80.0).get() - (1.0 + 1.0 / 80.0)).abs() < 1e-12);
        let whole = KvLink { overlap: KvOverlap::None, ..l };
        assert_eq!(whole.added(Seconds(1.0), Seconds(0.4), 80.0), Seconds(0.4));
    }

    /// Book 8.1.2 (vector IN-disaggregation-ratio): a 0.91 s prefill, a 19 ms step at batch
    /// 32 and 512-token outputs need
    /// about 3 prefill servers per decode server to keep both busy; at 32 requests per
    /// second that is 30 prefill servers (29.1 of load, ρ < 1) and ⌈32·512·0.019/32⌉ = 10
    /// decode servers.
    #[test]
    fn book_ratio_as_whole_servers() {
        let classes = [PrefillClass { weight: 1.0, pass: Seconds(0.91), transfer_added: Seconds::ZERO }];
        let price = Price { usd_per_chip_hour: Some(1.2), source: super::super::report::PriceSource::Catalog };
        let pools = Pools {
            classes: &classes,
            prefill_batch: 1.0,
            prefill_chips: 16.0,
            prefill_price: &price,
            decode_batch: 32.0,
            decode_step: Seconds(0.019),
            decode_chips: 8.0,
            decode_price: &price,
            mean_output: 512.0,
        };
        let d = deploy(&pools, 32.0, &ServingTargets::default()).unwrap().unwrap();
        assert_eq!((d.prefill_servers, d.decode_servers), (30, 10));
        assert_eq!(d.ratio, "30 prefill : 10 decode");
        assert!((d.prefill_load - 32.0 * 0.91).abs() < 1e-9);
        assert!((d.decode_load - 9.728).abs() < 1e-9);
        assert_eq!(d.prefill_binds, Constraint::Throughput);
        assert!((d.usd_per_hour.unwrap() - 1.2 * (30.0 * 16.0 + 10.0 * 8.0)).abs() < 1e-9);
        // A p99 target of 2 s needs more prefill servers than stability does.
        let t = ServingTargets { ttft_p99_s: Some(2.0), ..ServingTargets::default() };
        let d2 = deploy(&pools, 32.0, &t).unwrap().unwrap();
        assert!(d2.prefill_servers > 30 && d2.ttft.p99_s <= 2.0);
        assert_eq!(d2.prefill_binds, Constraint::TtftP99);
        // Below one pass, impossible; a TPOT below the step, impossible.
        let t = ServingTargets { ttft_p99_s: Some(0.5), ..ServingTargets::default() };
        assert_eq!(deploy(&pools, 32.0, &t).unwrap().unwrap_err().0, Constraint::TtftP99);
        let t = ServingTargets { tpot_s: Some(0.01), ..ServingTargets::default() };
        assert_eq!(deploy(&pools, 32.0, &t).unwrap().unwrap_err().0, Constraint::Tpot);
    }
}
