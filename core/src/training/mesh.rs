//! The logical training mesh (book 5.1): how many ways each kind of parallelism splits
//! the work, and which network each degree runs over.
//!
//! - `dp`: data parallelism, weights replicated (ZeRO stage per `zero_stage`);
//! - `fsdp`: fully-sharded data parallelism (ZeRO-3);
//! - `tp`: tensor (Megatron) parallelism over heads and F, activations sharded over D
//!   between blocks (the book's `In[B, D_Y]`);
//! - `ep`: expert parallelism (routed experts split over it);
//! - `cp`: context (sequence) parallelism;
//! - `pp`: pipeline stages.
//!
//! `ep` and `cp` also split the batch for everything that is not an expert or
//! attention, and weights are ZeRO-3-sharded over them as over `fsdp` (MaxText's
//! logical axis rules shard `embed` over fsdp, sequence, context and expert), so the
//! batch is split `dp·fsdp·ep` ways by sequences and `cp` ways within a sequence.

use crate::collectives::Network;
use crate::error::{Checker, Invalid};
use serde::{Deserialize, Serialize};

/// A kind of parallelism: one logical mesh axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// Data parallelism.
    Dp,
    /// Fully-sharded data parallelism (ZeRO-3).
    Fsdp,
    /// Tensor parallelism.
    Tp,
    /// Expert parallelism.
    Ep,
    /// Context (sequence) parallelism.
    Cp,
    /// Pipeline parallelism.
    Pp,
}

impl Parallelism {
    /// Every logical axis, in the order of [`Mesh`]'s fields.
    pub const ALL: [Parallelism; 6] =
        [Parallelism::Dp, Parallelism::Fsdp, Parallelism::Tp, Parallelism::Ep, Parallelism::Cp, Parallelism::Pp];

    /// The lowercase name used in JSON and in field paths.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Parallelism::Dp => "dp",
            Parallelism::Fsdp => "fsdp",
            Parallelism::Tp => "tp",
            Parallelism::Ep => "ep",
            Parallelism::Cp => "cp",
            Parallelism::Pp => "pp",
        }
    }

    /// The name in capitals, as the book writes it (`FSDP`).
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Parallelism::Dp => "DP",
            Parallelism::Fsdp => "FSDP",
            Parallelism::Tp => "TP",
            Parallelism::Ep => "EP",
            Parallelism::Cp => "CP",
            Parallelism::Pp => "PP",
        }
    }

    /// Which logical axes a network may carry, in the order they are placed on it:
    /// the critical-path axes (TP, EP) first so they get whole, contiguous physical
    /// axes. Every axis but TP may cross the scale-out network: DP first (book 5.1.6:
    /// pure data parallelism over DCN), then PP (one neighbour send per microbatch),
    /// FSDP, and EP and CP last (their AllToAlls and K/V gathers are on or near the
    /// critical path; MaxText's `dcn_expert_parallelism` and
    /// `dcn_context_parallelism` exist for models too large for one slice). TP runs
    /// four collectives per layer on the critical path: never over DCN.
    #[must_use]
    pub fn order_on(network: Network) -> &'static [Parallelism] {
        use Parallelism::{Cp, Dp, Ep, Fsdp, Pp, Tp};
        match network {
            Network::DieToDie | Network::ScaleUp => &[Tp, Ep, Cp, Pp, Fsdp, Dp],
            Network::ScaleOut => &[Dp, Pp, Fsdp, Ep, Cp],
        }
    }
}

fn one() -> u64 {
    1
}

/// Degrees of every kind of parallelism; their product is the number of devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Mesh {
    /// Data parallelism.
    #[serde(default = "one")]
    pub dp: u64,
    /// Fully-sharded data parallelism.
    #[serde(default = "one")]
    pub fsdp: u64,
    /// Tensor parallelism.
    #[serde(default = "one")]
    pub tp: u64,
    /// Expert parallelism.
    #[serde(default = "one")]
    pub ep: u64,
    /// Context parallelism.
    #[serde(default = "one")]
    pub cp: u64,
    /// Pipeline stages.
    #[serde(default = "one")]
    pub pp: u64,
}

impl Default for Mesh {
    fn default() -> Self {
        Self::from_degrees([1; 6])
    }
}

/// Largest degree accepted on any axis.
pub const MAX_DEGREE: u64 = 1 << 24;

impl Mesh {
    /// A mesh from degrees in [`Parallelism::ALL`] order.
    #[must_use]
    pub fn from_degrees(d: [u64; 6]) -> Self {
        let [dp, fsdp, tp, ep, cp, pp] = d;
        Self { dp, fsdp, tp, ep, cp, pp }
    }

    /// Degrees in [`Parallelism::ALL`] order.
    #[must_use]
    pub fn degrees(&self) -> [u64; 6] {
        [self.dp, self.fsdp, self.tp, self.ep, self.cp, self.pp]
    }

    /// The degree of one axis.
    #[must_use]
    pub fn degree(&self, p: Parallelism) -> u64 {
        self.degrees()[p as usize]
    }

    /// Devices the mesh spans.
    #[must_use]
    pub fn devices(&self) -> u64 {
        self.degrees().iter().fold(1u64, |a, &d| a.saturating_mul(d))
    }

    /// Ways the batch is split by whole sequences: dp · fsdp · ep.
    #[must_use]
    pub fn data_shards(&self) -> u64 {
        self.dp.saturating_mul(self.fsdp).saturating_mul(self.ep)
    }

    /// Parse `dp=2,fsdp=64,tp=4` (axes not named are 1).
    ///
    /// # Errors
    /// A message naming the bad part.
    pub fn parse(spec: &str) -> Result<Mesh, String> {
        let mut d = [1u64; 6];
        for part in spec.split([',', ' ']).filter(|p| !p.trim().is_empty()) {
            let (name, value) = part.split_once('=').ok_or_else(|| format!("{part:?} is not axis=degree"))?;
            let axis = Parallelism::ALL
                .iter()
                .find(|p| p.id() == name.trim())
                .ok_or_else(|| format!("unknown axis {:?}; use dp, fsdp, tp, ep, cp, pp", name.trim()))?;
            d[*axis as usize] =
                value.trim().parse().map_err(|_| format!("{:?} is not a whole number", value.trim()))?;
        }
        Ok(Mesh::from_degrees(d))
    }

    /// Check the degrees themselves (each at least 1, product = `devices`).
    ///
    /// # Errors
    /// Field paths `dp`, `fsdp`, ... or the mesh itself (`""` prefixed by the caller).
    pub fn validate(&self, devices: u64) -> Result<(), Invalid> {
        let mut c = Checker::new();
        for p in Parallelism::ALL {
            c.range(p.id(), self.degree(p), 1, MAX_DEGREE);
        }
        c.finish()?;
        if self.devices() != devices {
            let others = self.devices() / self.fsdp.max(1);
            let hint = if others > 0 && devices.is_multiple_of(others) {
                format!(" (fsdp = {} would)", devices / others)
            } else {
                String::new()
            };
            return Err(Invalid::one(
                "",
                format!(
                    "dp·fsdp·tp·ep·cp·pp = {} but the topology (hardware.topology) has {devices} devices: make the degrees multiply to {devices}{hint}, or change the topology",
                    self.devices()
                ),
            ));
        }
        Ok(())
    }
}

/// Index of a network in a [`NetworkSplit`].
#[must_use]
pub fn network_index(n: Network) -> usize {
    match n {
        Network::DieToDie => 0,
        Network::ScaleUp => 1,
        Network::ScaleOut => 2,
    }
}

/// The networks in [`NetworkSplit`] order.
pub const NETWORKS: [Network; 3] = Network::ALL;

/// How a mesh's degrees are split over the networks: `split[network][axis]`, each
/// network's row multiplying to the devices it spans.
pub type NetworkSplit = [[u64; 6]; 3];

/// The mesh a split describes.
#[must_use]
pub fn mesh_of(split: &NetworkSplit) -> Mesh {
    let mut d = [1u64; 6];
    for row in split {
        for (a, &v) in d.iter_mut().zip(row) {
            *a = a.saturating_mul(v);
        }
    }
    Mesh::from_degrees(d)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Split an explicit mesh over the networks: the scale-out network first (DP, then
/// PP, FSDP, EP and CP take its degree, book 5.1.6), then die-to-die (TP first, as the
/// Ironwood guide's TP2), then scale-up takes the rest.
///
/// # Errors
/// When some degree cannot be placed (field `""`, prefixed by the caller).
pub fn split_mesh(mesh: &Mesh, capacity: [u64; 3]) -> Result<NetworkSplit, Invalid> {
    let mut left = mesh.degrees();
    let mut split = [[1u64; 6]; 3];
    for network in [Network::ScaleOut, Network::DieToDie, Network::ScaleUp] {
        let n = network_index(network);
        let mut cap = capacity[n];
        for p in Parallelism::order_on(network) {
            let g = gcd(left[*p as usize], cap);
            split[n][*p as usize] = g;
            left[*p as usize] /= g.max(1);
            cap /= g.max(1);
        }
        if cap != 1 {
            let who: Vec<&str> = Parallelism::order_on(network).iter().map(|p| p.id()).collect();
            return Err(Invalid::one(
                "",
                format!(
                    "the {} network spans {} devices but only {} of them can be filled by {}",
                    network_name(network),
                    capacity[n],
                    capacity[n] / cap.max(1),
                    who.join(", ")
                ),
            ));
        }
    }
    if let Some(p) = Parallelism::ALL.iter().find(|p| left[**p as usize] != 1) {
        return Err(Invalid::one(p.id(), format!("{} does not fit the topology's networks", mesh.degree(*p))));
    }
    Ok(split)
}

/// Display name of a network.
#[must_use]
pub fn network_name(n: Network) -> &'static str {
    match n {
        Network::DieToDie => "die-to-die",
        Network::ScaleUp => "scale-up (ICI/NVLink)",
        Network::ScaleOut => "scale-out (DCN)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dcn_takes_data_parallelism_first() {
        let mesh = Mesh { dp: 10, fsdp: 2240, tp: 4, ..Mesh::default() };
        let s = split_mesh(&mesh, [1, 8960, 10]).unwrap();
        assert_eq!(s[2][Parallelism::Dp as usize], 10);
        assert_eq!(s[1][Parallelism::Fsdp as usize], 2240);
        assert_eq!(mesh_of(&s), mesh);
        let e = split_mesh(&Mesh { fsdp: 89_600, tp: 1, ..Mesh::default() }, [1, 8960, 10]).unwrap();
        assert_eq!(e[2][Parallelism::Fsdp as usize], 10);
        // TP may not cross DCN: 50-way TP leaves a factor 5 of the 10 slices unfilled.
        assert!(split_mesh(&Mesh { tp: 50, fsdp: 1792, ..Mesh::default() }, [1, 8960, 10]).is_err());
        // EP and CP may: 10 slices of 8960 chips with EP 16 × 10 and CP over the rest.
        let ep = split_mesh(&Mesh { ep: 160, fsdp: 560, ..Mesh::default() }, [1, 8960, 10]).unwrap();
        assert_eq!((ep[2][Parallelism::Fsdp as usize], ep[2][Parallelism::Ep as usize]), (10, 1));
        let ep = split_mesh(&Mesh { ep: 160, fsdp: 56, tp: 10, ..Mesh::default() }, [1, 8960, 10]).unwrap();
        assert_eq!(ep[2][Parallelism::Ep as usize], 5);
    }

    #[test]
    fn parses_a_mesh_spec() {
        assert_eq!(Mesh::parse("fsdp=64, tp=4").unwrap(), Mesh { fsdp: 64, tp: 4, ..Mesh::default() });
        assert!(Mesh::parse("fsdp=64,mp=4").unwrap_err().contains("mp"));
        assert!(Mesh::parse("tp=four").is_err());
    }

    #[test]
    fn validation_names_the_axis() {
        let m = Mesh { tp: 0, ..Mesh::default() };
        assert_eq!(m.validate(1).unwrap_err().0[0].field, "tp");
        assert!(Mesh { fsdp: 3, ..Mesh::default() }.validate(4).is_err());
    }
}
