//! Topologies (book 2.2): TPU slices as 1D/2D/3D tori whose axes may or may not wrap
//! around, several slices joined by DCN, and GPU nodes with an NVLink domain and a
//! scale-out network. A topology is a list of mesh axes; [`Topology::resolve`] turns
//! it into the [`AxisLink`]s the collective model works on.

use super::chip::{Chip, Fabric, WrapRule};
use crate::collectives::{AxisLink, AxisShape, Network, MAX_AXIS_SIZE};
use crate::error::{Checker, Invalid};
use crate::units::{BytesPerSec, Seconds};
use serde::{Deserialize, Serialize};

/// One physical mesh axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    /// Name used by collective queries (`x`, `y`, `z`, `dcn`, `nvlink`, ...).
    pub name: String,
    /// Chips along the axis.
    pub size: u64,
    /// Network: `scale_up` (default), `scale_out` or `die_to_die`.
    #[serde(default)]
    pub network: Network,
    /// Force the wraparound link on or off; absent = the chip's rule (book 2.2: v5e and
    /// v6e wrap only full 16-chip axes, v4/v5p/7x only slices of whole 4×4×4 cubes).
    #[serde(default)]
    pub wraparound: Option<bool>,
    /// Override the one-way link bandwidth of this axis.
    #[serde(default)]
    pub link_one_way: Option<BytesPerSec>,
    /// Override the per-hop latency of this axis.
    #[serde(default)]
    pub hop_latency: Option<Seconds>,
    /// The axis's links carry data one way only (book Exercise 3.10): a torus axis with
    /// its wraparound becomes a unidirectional ring. Default false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unidirectional: bool,
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
}

impl AxisSpec {
    /// An axis with the chip's defaults.
    #[must_use]
    pub fn new(name: &str, size: u64, network: Network) -> Self {
        Self {
            name: name.into(),
            size,
            network,
            wraparound: None,
            link_one_way: None,
            hop_latency: None,
            unidirectional: false,
        }
    }
}

/// The mesh: physical axes, scale-up first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// The axes.
    pub axes: Vec<AxisSpec>,
}

impl Topology {
    /// A TPU slice of `shape` (axes `x`, `y`, `z`), times `slices` joined over DCN
    /// (axis `dcn`, present when `slices > 1`).
    #[must_use]
    pub fn tpu_slice(shape: &[u64], slices: u64) -> Self {
        let mut axes: Vec<AxisSpec> =
            shape.iter().zip(["x", "y", "z", "w"]).map(|(&n, name)| AxisSpec::new(name, n, Network::ScaleUp)).collect();
        if slices > 1 {
            axes.push(AxisSpec::new("dcn", slices, Network::ScaleOut));
        }
        Self { axes }
    }

    /// GPU nodes: `per_domain` GPUs on NVLink (axis `nvlink`) times `domains` over the
    /// scale-out network (axis `scale_out`, present when `domains > 1`).
    #[must_use]
    pub fn gpu_cluster(per_domain: u64, domains: u64) -> Self {
        let mut axes = vec![AxisSpec::new("nvlink", per_domain, Network::ScaleUp)];
        if domains > 1 {
            axes.push(AxisSpec::new("scale_out", domains, Network::ScaleOut));
        }
        Self { axes }
    }

    /// Devices in the mesh (chiplets count as devices when a die-to-die axis is used).
    #[must_use]
    pub fn devices(&self) -> f64 {
        self.axes.iter().map(|a| a.size as f64).product()
    }

    fn scale_up_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.axes.iter().filter(|a| a.network == Network::ScaleUp).map(|a| a.size)
    }

    /// Whether a scale-up axis of `size` wraps around under `rule` (book 2.2).
    #[must_use]
    pub fn wraps(&self, rule: WrapRule, size: u64) -> bool {
        match rule {
            WrapRule::FullAxis(full) => size == full,
            WrapRule::FullCubes(cube) => self.scale_up_sizes().all(|n| n >= cube && n % cube == 0),
        }
    }

    /// Check the axes against the chip.
    ///
    /// # Errors
    /// Paths relative to the topology: `axes[1].size`, `axes`, ...
    pub fn validate(&self, chip: &Chip) -> Result<(), Invalid> {
        let mut c = Checker::new();
        c.ensure(!self.axes.is_empty(), "axes", || "must list at least one axis".into());
        for (i, a) in self.axes.iter().enumerate() {
            c.ensure(!a.name.trim().is_empty(), &format!("axes[{i}].name"), || "must not be empty".into());
            c.ensure(!self.axes[..i].iter().any(|b| b.name == a.name), &format!("axes[{i}].name"), || {
                format!("duplicate axis name {:?}", a.name)
            });
            c.range(&format!("axes[{i}].size"), a.size, 1, MAX_AXIS_SIZE);
            if let Some(w) = a.link_one_way {
                c.range_f64(&format!("axes[{i}].link_one_way"), w.get(), 1.0, super::MAX_QUANTITY);
            }
            if let Some(l) = a.hop_latency {
                c.range_f64(&format!("axes[{i}].hop_latency"), l.get(), 0.0, 1e6);
            }
            if let Some(forced) = a.wraparound {
                self.check_wraparound(chip, a, forced, &format!("axes[{i}].wraparound"), &mut c);
            }
            if a.unidirectional {
                self.check_unidirectional(chip, a, &format!("axes[{i}].unidirectional"), &mut c);
            }
            if a.network == Network::DieToDie {
                match &chip.chiplets {
                    Some(ch) => c.ensure(a.size <= ch.count, &format!("axes[{i}].size"), || {
                        format!("a {} has {} chiplets (got {})", chip.name, ch.count, a.size)
                    }),
                    None => c.push(format!("axes[{i}].network"), format!("{} has no chiplets", chip.name)),
                }
            }
        }
        let up: f64 = self.scale_up_sizes().map(|n| n as f64).product();
        let max = chip.scale_up.max_chips;
        c.ensure(up <= max as f64, "axes", || {
            format!(
                "scale-up axes span {} chips; a {} {} holds at most {max}",
                crate::decimal::shortest(up),
                chip.name,
                chip.scale_up.name
            )
        });
        if let Fabric::Torus { dims, .. } = chip.scale_up.fabric {
            let n = self.scale_up_sizes().count() as u64;
            c.ensure(n <= dims, "axes", || format!("a {dims}D torus has at most {dims} scale-up axes (got {n})"));
        }
        c.finish()
    }

    /// A forced wraparound must be physically possible (book 2.2): only torus (ICI) axes have
    /// one, and a slice smaller than a full axis (v5e/v6e), or not made of whole cubes
    /// (v4/v5p/7x), has none. Turning an existing wraparound off is always allowed.
    fn check_wraparound(&self, chip: &Chip, a: &AxisSpec, forced: bool, field: &str, c: &mut Checker) {
        let rule = match (a.network, chip.scale_up.fabric) {
            (Network::ScaleUp, Fabric::Torus { wraparound, .. }) => wraparound,
            (Network::ScaleUp, _) => {
                c.push(
                    field,
                    format!(
                        "the {} {} is switched, not a torus: it has no wraparound link",
                        chip.name, chip.scale_up.name
                    ),
                );
                return;
            }
            _ => {
                c.push(field, "only scale-up (torus) axes have a wraparound link".to_string());
                return;
            }
        };
        if forced && !self.wraps(rule, a.size) {
            let why = match rule {
                WrapRule::FullAxis(full) => format!("only a full axis of {full} chips wraps around"),
                WrapRule::FullCubes(cube) => {
                    format!("only slices made of whole {cube}x{cube}x{cube} cubes wrap around")
                }
            };
            c.push(
                field,
                format!("axis {:?} of {} chips has no wraparound on a {}: {why} (book 2.2)", a.name, a.size, chip.name),
            );
        }
    }

    /// A one-way ring needs a torus axis that closes (book Exercise 3.10): a line whose
    /// links ran one way could not return data to its first chip, and a switch or the
    /// scale-out network has no ring to orient.
    fn check_unidirectional(&self, chip: &Chip, a: &AxisSpec, field: &str, c: &mut Checker) {
        match (a.network, chip.scale_up.fabric) {
            (Network::ScaleUp, Fabric::Torus { wraparound, .. }) => {
                let wraps = a.wraparound.unwrap_or_else(|| self.wraps(wraparound, a.size));
                c.ensure(wraps, field, || {
                    format!(
                        "axis {:?} of {} chips has no wraparound on a {}: a unidirectional ring must close",
                        a.name, a.size, chip.name
                    )
                });
            }
            _ => c.push(field, "only a scale-up torus axis with its wraparound can be a unidirectional ring"),
        }
    }

    /// The axes as the collective model sees them.
    ///
    /// # Errors
    /// As [`Topology::validate`].
    pub fn resolve(&self, chip: &Chip) -> Result<Vec<AxisLink>, Invalid> {
        self.validate(chip)?;
        Ok(self.axes.iter().map(|a| self.resolve_axis(chip, a)).collect())
    }

    /// Devices per chip: the product of the die-to-die axes (1 without any).
    #[must_use]
    pub fn chiplets_in_use(&self) -> u64 {
        self.axes.iter().filter(|a| a.network == Network::DieToDie).map(|a| a.size.max(1)).product::<u64>().max(1)
    }

    /// One axis as the collective model sees it. With die-to-die axes every chiplet is a
    /// device, and the chiplets of a chip share its ICI ports and its DCN NICs (Google
    /// gives Ironwood's 1.2 TB/s of ICI and 100 Gb/s of DCN per chip, and the chiplets work
    /// in SPMD, each driving its own collectives at once): a scale-up or scale-out link of
    /// one device is the chip's divided by the chiplets in use.
    fn resolve_axis(&self, chip: &Chip, a: &AxisSpec) -> AxisLink {
        let up = &chip.scale_up;
        let shared = match a.network {
            Network::DieToDie => 1.0,
            Network::ScaleUp | Network::ScaleOut => self.chiplets_in_use() as f64,
        };
        let (shape, link, latency) = match a.network {
            Network::ScaleUp => match up.fabric {
                Fabric::Torus { wraparound, .. } => {
                    let wraps = a.wraparound.unwrap_or_else(|| self.wraps(wraparound, a.size));
                    let shape = match (wraps, a.unidirectional) {
                        (true, true) => AxisShape::UnidirectionalRing,
                        (true, false) if a.size > 2 => AxisShape::Ring,
                        _ => AxisShape::Line,
                    };
                    (shape, up.link.one_way, up.hop_latency)
                }
                Fabric::Switch => (AxisShape::Switch, up.egress_per_chip(), up.hop_latency),
                Fabric::FullMesh => (AxisShape::FullMesh, up.link.one_way, up.hop_latency),
            },
            Network::ScaleOut => (AxisShape::Switch, chip.scale_out.bandwidth_per_chip, chip.scale_out.hop_latency),
            Network::DieToDie => {
                let link = chip.chiplets.map_or(up.link.one_way, |c| c.die_to_die.one_way);
                (AxisShape::Line, link, None)
            }
        };
        AxisLink {
            name: a.name.clone(),
            size: a.size,
            network: a.network,
            shape,
            link: a.link_one_way.unwrap_or(link) / shared,
            hop_latency: a.hop_latency.or(latency).unwrap_or(Seconds::ZERO),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog::get;

    fn shapes(chip: &str, t: &Topology) -> Vec<AxisShape> {
        t.resolve(&get(chip).unwrap()).unwrap().iter().map(|a| a.shape).collect()
    }

    #[test]
    fn wraparound_follows_the_book() {
        // v5e: an 8x16 wraps on the long axis only; a 4x4 not at all.
        assert_eq!(shapes("tpu-v5e", &Topology::tpu_slice(&[8, 16], 1)), [AxisShape::Line, AxisShape::Ring]);
        assert_eq!(shapes("tpu-v5e", &Topology::tpu_slice(&[4, 4], 1)), [AxisShape::Line, AxisShape::Line]);
        // v5p: a whole cube wraps everywhere; 2x2x4 nowhere (book 2.2 footnote 6);
        // 4 on a v5p axis of a 4x4x4 wraps, 4 in a 4x4x2 does not.
        assert_eq!(shapes("tpu-v5p", &Topology::tpu_slice(&[4, 4, 8], 1)), [AxisShape::Ring; 3]);
        assert_eq!(shapes("tpu-v5p", &Topology::tpu_slice(&[2, 2, 4], 1)), [AxisShape::Line; 3]);
        assert_eq!(shapes("tpu-v5p", &Topology::tpu_slice(&[4, 4, 2], 1)), [AxisShape::Line; 3]);
    }

    #[test]
    fn forced_wraparound_must_exist() {
        // Book 2.2: a slice smaller than a full axis has no wraparound; turning one off is fine.
        let v5e = get("tpu-v5e").unwrap();
        let mut t = Topology::tpu_slice(&[8, 16], 1);
        t.axes[1].wraparound = Some(false);
        assert_eq!(shapes("tpu-v5e", &t), [AxisShape::Line, AxisShape::Line]);
        t.axes[0].wraparound = Some(true);
        let e = t.validate(&v5e).unwrap_err();
        assert_eq!(e.0[0].field, "axes[0].wraparound");
        assert!(e.0[0].message.contains("full axis of 16"), "{e}");
        let mut cube = Topology::tpu_slice(&[4, 4, 2], 1);
        cube.axes[0].wraparound = Some(true);
        assert!(cube.validate(&get("tpu-v5p").unwrap()).unwrap_err().0[0].message.contains("whole 4x4x4 cubes"));
        let mut gpu = Topology::gpu_cluster(8, 2);
        gpu.axes[0].wraparound = Some(true);
        gpu.axes[1].wraparound = Some(false);
        let e = gpu.validate(&get("h100-sxm").unwrap()).unwrap_err();
        let fields: Vec<&str> = e.0.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["axes[0].wraparound", "axes[1].wraparound"]);
    }

    #[test]
    fn unidirectional_rings_must_close() {
        let mut t = Topology::tpu_slice(&[16, 16], 1);
        t.axes[0].unidirectional = true;
        assert_eq!(shapes("tpu-v6e", &t), [AxisShape::UnidirectionalRing, AxisShape::Ring]);
        // A v6e 8x16: the 8 axis does not wrap, so it cannot be a one-way ring.
        let mut t = Topology::tpu_slice(&[8, 16], 2);
        t.axes[0].unidirectional = true;
        t.axes[2].unidirectional = true;
        let e = t.validate(&get("tpu-v6e").unwrap()).unwrap_err();
        let fields: Vec<&str> = e.0.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["axes[0].unidirectional", "axes[2].unidirectional"]);
        assert!(e.0[0].message.contains("must close"), "{e}");
        let mut gpu = Topology::gpu_cluster(8, 1);
        gpu.axes[0].unidirectional = true;
        assert_eq!(gpu.validate(&get("h100-sxm").unwrap()).unwrap_err().0[0].field, "axes[0].unidirectional");
        // Absent from JSON when false, so existing links keep their text.
        let json = serde_json::to_string(&Topology::tpu_slice(&[4], 1)).unwrap();
        assert!(!json.contains("unidirectional"), "{json}");
    }

    #[test]
    fn multislice_and_gpu_nodes() {
        let t = Topology::tpu_slice(&[16, 16], 4);
        let axes = t.resolve(&get("tpu-v6e").unwrap()).unwrap();
        assert_eq!(axes[2].shape, AxisShape::Switch);
        assert_eq!(axes[2].link.get(), 1.25e10);
        let g = Topology::gpu_cluster(8, 16).resolve(&get("h100-sxm").unwrap()).unwrap();
        assert_eq!(g[0].link.get(), 4.5e11, "18 NVLinks × 25 GB/s one way");
        assert_eq!(g[1].network, Network::ScaleOut);
    }

    #[test]
    fn errors_name_the_axis() {
        let v5e = get("tpu-v5e").unwrap();
        let e = Topology::tpu_slice(&[16, 0], 1).validate(&v5e).unwrap_err();
        assert_eq!(e.0[0].field, "axes[1].size");
        let e = Topology::tpu_slice(&[32, 16], 1).validate(&v5e).unwrap_err();
        assert_eq!(e.0[0].field, "axes");
        let e = Topology::tpu_slice(&[4, 4, 4], 1).validate(&v5e).unwrap_err();
        assert_eq!(e.0[0].field, "axes");
        let mut t = Topology::tpu_slice(&[4], 1);
        t.axes.push(AxisSpec::new("core", 2, Network::DieToDie));
        assert_eq!(t.validate(&v5e).unwrap_err().0[0].field, "axes[1].network");
        assert!(t.validate(&get("tpu-v7x").unwrap()).is_ok());
    }
}
