//! Where each control of the inputs column writes: the control's element id names the
//! scenario field (`chip-hbm-bandwidth`, `axis-1-link`, `roofline-b`, `collective-0-bytes`,
//! ...). Every edit goes through `AppState::try_update` ([`super::edit`]), so the scenario
//! stays valid and a refused edit returns the message shown next to the control.

use leptos::prelude::*;
use shardcalc_core::collectives::{CollectiveKind, Network};
use shardcalc_core::dtype::DType;
use shardcalc_core::hardware::chip::{ChipFamily, Fabric, WrapRule};
use shardcalc_core::hardware::query::{ChipSource, CollectiveQuery, RooflineQuery};
use shardcalc_core::hardware::topology::AxisSpec;
use shardcalc_core::roofline::matmul::Matmul;
use shardcalc_core::roofline::OpCost;
use shardcalc_core::scenario::Scenario;
use shardcalc_core::units::{Bytes, BytesPerSec, Flops, Seconds};

use super::chip_fields::CHIP_FIELDS;
use super::collective_kinds::kind_id;
use super::controls::value_of;
use super::derived::Derived;
use super::edit::{edit_chip, editable_copy, today, update};
use crate::state::AppState;
use shardcalc_core::text::{
    bytes as parse_bytes, count as parse_count, nonnegative_real as parse_nonnegative_real,
    positive_real as parse_positive_real,
};

/// Name of the die-to-die axis the checkbox adds.
pub const D2D_AXIS: &str = "d2d";

/// Applies the control `id`'s new `value` (or `checked`, or a click): `None` when the id is
/// not one of this column's (the chip picker's own inputs bubble here too).
pub fn dispatch(state: AppState, derived: Derived, id: &str, value: &str, checked: bool) -> Option<Result<(), String>> {
    if let Some(rest) = id.strip_prefix("chip-") {
        return chip(state, derived, rest, value);
    }
    if let Some(rest) = id.strip_prefix("axis-") {
        let (i, field) = rest.split_once('-')?;
        return Some(axis(state, i.parse().ok()?, field, value));
    }
    if id == "topology-d2d" {
        return Some(die_to_die(state, derived, checked));
    }
    if let Some(field) = id.strip_prefix("roofline-") {
        return roofline(state, field, value);
    }
    if id == "collective-add" {
        return Some(add_collective(state));
    }
    let rest = id.strip_prefix("collective-")?;
    let (i, field) = rest.split_once('-')?;
    Some(collective(state, i.parse().ok()?, field, value, checked))
}

fn chip(state: AppState, derived: Derived, rest: &str, value: &str) -> Option<Result<(), String>> {
    let result = match rest {
        "customize" => {
            let chip = derived.resolved.with_untracked(|r| r.as_ref().ok().map(|hw| editable_copy(&hw.chip)))?;
            let done = update(state, "hardware", |s| {
                if let Some(hw) = s.hardware.as_mut() {
                    hw.chip = ChipSource::Custom(Box::new(chip));
                }
            });
            if done.is_ok() {
                // The chip picker and the editor are rebuilt around the custom chip.
                state.generation.update(|g| *g += 1);
            }
            done
        }
        "name" => {
            let name = value.trim().to_string();
            if name.is_empty() {
                Err("name: must not be empty".to_string())
            } else {
                edit_chip(state, "name", |c| {
                    c.name = name;
                    Ok(())
                })
            }
        }
        "fabric" | "torus-dims" | "wrap-rule" | "wrap-side" => fabric(state),
        _ => {
            let field = CHIP_FIELDS.iter().find(|f| f.editable && f.id.strip_prefix("chip-") == Some(rest))?;
            let number = if value.trim().is_empty() && field.optional {
                Ok(None)
            } else {
                parse_positive_real(value)
                    .map(|x| Some(x * field.unit.scale()))
                    .map_err(|m| format!("{}: {m}", field.label))
            };
            number.and_then(|v| {
                edit_chip(state, field.path, |chip| {
                    chip.set_field(field.path, v)?;
                    chip.mark_edited(field.path, &today());
                    chip.forget_missing_fields();
                    Ok(())
                })
            })
        }
    };
    Some(result)
}

/// Reads the four fabric controls and writes the scale-up fabric; the family follows it (a
/// torus is a TPU with slices over DCN, a switch or full mesh a GPU with nodes).
fn fabric(state: AppState) -> Result<(), String> {
    let fabric = match value_of("chip-fabric").as_str() {
        "switch" => Fabric::Switch,
        "full_mesh" => Fabric::FullMesh,
        _ => {
            let dims = parse_count(&value_of("chip-torus-dims")).map_err(|m| format!("torus axes: {m}"))?;
            let side = parse_count(&value_of("chip-wrap-side")).map_err(|m| format!("wraparound size: {m}"))?;
            let wraparound = if value_of("chip-wrap-rule") == "full_cubes" {
                WrapRule::FullCubes(side)
            } else {
                WrapRule::FullAxis(side)
            };
            Fabric::Torus { dims, wraparound }
        }
    };
    edit_chip(state, "scale_up.fabric", |c| {
        c.family = if matches!(fabric, Fabric::Torus { .. }) { ChipFamily::Tpu } else { ChipFamily::Gpu };
        c.scale_up.fabric = fabric;
        Ok(())
    })
}

fn set_axis(state: AppState, i: usize, f: impl FnOnce(&mut AxisSpec)) -> Result<(), String> {
    update(state, &format!("hardware.topology.axes[{i}]"), move |s| {
        if let Some(a) = s.hardware.as_mut().and_then(|h| h.topology.as_mut()).and_then(|t| t.axes.get_mut(i)) {
            f(a);
        }
    })
}

/// `None` for empty text, else `scale` × the number read by `parse`.
fn optional(
    value: &str,
    scale: f64,
    what: &str,
    parse: fn(&str) -> Result<f64, String>,
) -> Result<Option<f64>, String> {
    if value.trim().is_empty() {
        Ok(None)
    } else {
        // A number that reads but overflows once scaled (1e300 GB/s) is refused here: it would
        // otherwise be stored as infinity, which JSON writes as null (absent).
        let x = parse(value).map_err(|m| format!("{what}: {m}"))? * scale;
        if x.is_finite() {
            Ok(Some(x))
        } else {
            Err(format!(
                "{what}: is too large (the limit is {} in these units)",
                shardcalc_core::text::shortest(f64::MAX / scale)
            ))
        }
    }
}

fn axis(state: AppState, i: usize, field: &str, value: &str) -> Result<(), String> {
    match field {
        "wraparound" => {
            let forced = match value {
                "on" => Some(true),
                "off" => Some(false),
                _ => None,
            };
            set_axis(state, i, |a| a.wraparound = forced)
        }
        "link" => {
            let v = optional(value, 1e9, "link", parse_positive_real)?;
            set_axis(state, i, |a| a.link_one_way = v.map(BytesPerSec))
        }
        "latency" => {
            let v = optional(value, 1e-6, "latency", parse_nonnegative_real)?;
            set_axis(state, i, |a| a.hop_latency = v.map(Seconds))
        }
        _ => Ok(()),
    }
}

/// Adds or removes the die-to-die axis; collectives lose it when it goes (and a query left
/// without axes goes too).
fn die_to_die(state: AppState, derived: Derived, on: bool) -> Result<(), String> {
    let count = derived.chip.with_untracked(|c| c.as_ref().and_then(|c| c.chiplets).map(|ch| ch.count)).unwrap_or(2);
    update(state, "hardware.topology", |s| {
        if let Some(t) = s.hardware.as_mut().and_then(|h| h.topology.as_mut()) {
            t.axes.retain(|a| a.network != Network::DieToDie);
            if on {
                t.axes.push(AxisSpec::new(D2D_AXIS, count, Network::DieToDie));
            }
        }
        if !on {
            for q in &mut s.collectives {
                q.axes.retain(|a| a != D2D_AXIS);
            }
            s.collectives.retain(|q| !q.axes.is_empty());
        }
    })
}

fn roofline(state: AppState, field: &str, value: &str) -> Option<Result<(), String>> {
    let dtype = DType::ALL.into_iter().find(|d| d.name() == value);
    let number = |nonnegative: bool| {
        let parse = if nonnegative { parse_nonnegative_real } else { parse_positive_real };
        parse(value).map_err(|m| format!("{field}: {m}"))
    };
    let result = match field {
        "kind" => update(state, "roofline", |s| {
            s.roofline = match (s.roofline.take(), value == "op") {
                // The op keeps the matmul's numbers, so its point does not jump.
                (Some(RooflineQuery::Matmul(m)), true) => Some(RooflineQuery::Op(m.op_cost())),
                (Some(RooflineQuery::Op(op)), false) => {
                    let mut m = Matmul::bf16(256.0, 8192.0, 32768.0);
                    m.compute = op.dtype;
                    Some(RooflineQuery::Matmul(m))
                }
                (q, _) => q,
            };
        }),
        "b" | "d" | "f" => number(false).and_then(|x| set_matmul(state, field, |m| *dim(m, field) = x)),
        "lhs" | "rhs" | "out" | "compute" => match dtype {
            Some(d) => set_matmul(state, field, |m| match field {
                "lhs" => m.lhs = d,
                "rhs" => m.rhs = d,
                "out" => m.out = d,
                _ => m.compute = d,
            }),
            None => Ok(()),
        },
        "dtype" => match dtype {
            Some(d) => set_op(state, field, |op| op.dtype = d),
            None => Ok(()),
        },
        "flops" => number(true).and_then(|x| set_op(state, field, |op| op.flops = Flops(x))),
        "hbm_bytes" => number(true).and_then(|x| set_op(state, field, |op| op.hbm_bytes = Bytes(x))),
        "ici_bytes" => number(true).and_then(|x| set_op(state, field, |op| op.ici_bytes = Bytes(x))),
        "ici_links" => number(false).and_then(|x| set_op(state, field, |op| op.ici_links = x)),
        "dcn_bytes" => number(true).and_then(|x| set_op(state, field, |op| op.dcn_bytes = Bytes(x))),
        "host_bytes" => number(true).and_then(|x| set_op(state, field, |op| op.host_bytes = Bytes(x))),
        _ => return None,
    };
    Some(result)
}

fn dim<'a>(m: &'a mut Matmul, field: &str) -> &'a mut f64 {
    match field {
        "b" => &mut m.b,
        "d" => &mut m.d,
        _ => &mut m.f,
    }
}

fn set_matmul(state: AppState, field: &str, f: impl FnOnce(&mut Matmul)) -> Result<(), String> {
    update(state, &format!("roofline.matmul.{field}"), |s: &mut Scenario| {
        if let Some(RooflineQuery::Matmul(m)) = s.roofline.as_mut() {
            f(m);
        }
    })
}

fn set_op(state: AppState, field: &str, f: impl FnOnce(&mut OpCost)) -> Result<(), String> {
    update(state, &format!("roofline.op.{field}"), |s: &mut Scenario| {
        if let Some(RooflineQuery::Op(op)) = s.roofline.as_mut() {
            f(op);
        }
    })
}

/// A new query: a copy of the last one, or 32 MiB gathered over the first axis.
fn add_collective(state: AppState) -> Result<(), String> {
    update(state, "collectives", |s| {
        let axis =
            s.hardware.as_ref().and_then(|h| h.topology.as_ref()).and_then(|t| t.axes.first().map(|a| a.name.clone()));
        let next = s.collectives.last().cloned().unwrap_or(CollectiveQuery {
            kind: CollectiveKind::AllGather,
            array_bytes: 33_554_432.0,
            axes: axis.into_iter().collect(),
        });
        s.collectives.push(next);
    })
}

fn collective(state: AppState, i: usize, field: &str, value: &str, checked: bool) -> Result<(), String> {
    let set = |field: &str, f: Box<dyn FnOnce(&mut CollectiveQuery)>| {
        update(state, &format!("collectives[{i}]{field}"), move |s| {
            if let Some(q) = s.collectives.get_mut(i) {
                f(q);
            }
        })
    };
    match field {
        "kind" => match CollectiveKind::ALL.into_iter().find(|k| kind_id(*k) == value) {
            Some(kind) => set(".kind", Box::new(move |q| q.kind = kind)),
            None => Ok(()),
        },
        "bytes" => {
            let v = parse_bytes(value).map_err(|m| format!("array size: {m}"))?;
            set(".array_bytes", Box::new(move |q| q.array_bytes = v))
        }
        "remove" => update(state, "collectives", |s| {
            if i < s.collectives.len() {
                s.collectives.remove(i);
            }
        }),
        _ => match field.strip_prefix("axis-") {
            Some(axis) => {
                let axis = axis.to_string();
                set(
                    ".axes",
                    Box::new(move |q| {
                        q.axes.retain(|a| *a != axis);
                        if checked {
                            q.axes.push(axis);
                        }
                    }),
                )
            }
            None => Ok(()),
        },
    }
}
