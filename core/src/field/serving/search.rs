//! The fields of the search under targets (`inference.search`): whether to search, which
//! chips (with prices for those without a public one), which weight and KV formats, which
//! modes (co-located, disaggregated), how many rows, and the largest server.
//!
//! Lists read as text: chips and formats as names (`tpu-v5e, h100-sxm`; `fp8 int8`), prices
//! as `chip=USD` items (`tpu-v4=3.22; tpu-v7x=5`). Empty lists are the defaults: every
//! catalog chip, the scenario's formats, both modes.

use super::{read, section};
use crate::dtype::DType;
use crate::field::{Field, InputMode, Kind};
use crate::hardware::catalog;
use crate::inference::search::{ChipPrice, DeploymentMode, SearchOptions};
use crate::scenario::Scenario;
use crate::text::{name_list, positive_real, shortest};

/// The request rate a search starts from when the scenario has none (requests per second).
pub const DEFAULT_SEARCH_RATE: f64 = 10.0;

/// Whether the scenario asks for a search.
#[must_use]
pub fn searching(s: &Scenario) -> bool {
    read(s, |i| i.search.is_some())
}

/// Asks for a search with every default, and a request rate of [`DEFAULT_SEARCH_RATE`]
/// when the scenario has none (a search sizes deployments for a rate).
pub fn start_search(s: &mut Scenario) {
    let i = section(s);
    i.search.get_or_insert_with(SearchOptions::default);
    i.request_rate.get_or_insert(DEFAULT_SEARCH_RATE);
}

/// The search options, created with their defaults.
fn options(s: &mut Scenario) -> &mut SearchOptions {
    section(s).search.get_or_insert_with(SearchOptions::default)
}

fn read_options<T>(s: &Scenario, f: impl FnOnce(&SearchOptions) -> T) -> T {
    read(s, |i| match &i.search {
        Some(o) => f(o),
        None => f(&SearchOptions::default()),
    })
}

/// The chips the search may use: the catalog's ids, and the scenario's own chip's.
fn known_chip(s: &Scenario, id: &str) -> bool {
    catalog::find(id).is_some() || s.hardware.as_ref().and_then(|h| h.chip.resolve().ok()).is_some_and(|c| c.id == id)
}

fn set_chips(s: &mut Scenario, text: &str) -> Result<(), String> {
    let ids = name_list(text);
    if let Some(bad) = ids.iter().find(|id| !known_chip(s, id)) {
        return Err(format!("unknown chip {bad:?} (`shardcalc chips` lists the ids)"));
    }
    options(s).chips = ids;
    Ok(())
}

/// `tpu-v4=3.22; tpu-v7x=5`.
#[must_use]
pub fn prices_text(prices: &[ChipPrice]) -> String {
    prices.iter().map(|p| format!("{}={}", p.chip, shortest(p.usd_per_chip_hour))).collect::<Vec<_>>().join("; ")
}

/// `tpu-v4=3.22; tpu-v7x=5` (items separated by `;` or `,`) → the prices.
///
/// # Errors
/// An item without `=`, an unknown chip, a price that is not a positive number.
pub fn read_prices(s: &Scenario, text: &str) -> Result<Vec<ChipPrice>, String> {
    text.split([';', ','])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|item| {
            let (chip, usd) =
                item.split_once('=').ok_or_else(|| format!("{item:?}: write chip=USD, e.g. tpu-v4=3.22"))?;
            let chip = chip.trim();
            if !known_chip(s, chip) {
                return Err(format!("unknown chip {chip:?}"));
            }
            let usd_per_chip_hour = positive_real(usd).map_err(|e| format!("{chip}: the price {e}"))?;
            Ok(ChipPrice { chip: chip.to_string(), usd_per_chip_hour })
        })
        .collect()
}

/// Format names (`fp8, int8`) → the formats.
fn read_formats(text: &str) -> Result<Vec<DType>, String> {
    name_list(text)
        .iter()
        .map(|n| {
            DType::parse(n).ok_or_else(|| format!("unknown format {n:?} (bf16, fp16, fp8, int8, int4, nvfp4, mxfp4)"))
        })
        .collect()
}

fn formats_text(list: &[DType]) -> String {
    list.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
}

fn modes(s: &Scenario) -> String {
    read_options(s, |o| match o.modes.as_slice() {
        [DeploymentMode::Colocated] => "colocated",
        [DeploymentMode::Disaggregated] => "disaggregated",
        _ => "both",
    })
    .into()
}

fn set_modes(s: &mut Scenario, v: &str) -> Result<(), String> {
    options(s).modes = match v {
        "both" => Vec::new(),
        "colocated" => vec![DeploymentMode::Colocated],
        "disaggregated" => vec![DeploymentMode::Disaggregated],
        other => return Err(format!("unknown option {other:?}")),
    };
    Ok(())
}

/// Whether to search, and what over.
pub static SEARCH: [Field; 8] = [
    Field::new(
        "inference.search",
        "Search for the cheapest deployment",
        Kind::Flag {
            get: searching,
            set: |s, on| {
                if on {
                    start_search(s);
                } else {
                    section(s).search = None;
                }
            },
        },
    )
    .hint("Over chips, meshes, TP/EP, formats, batches and the prefill:decode split, under the targets at the request rate (10 requests/s when none is set)"),
    Field::new(
        "inference.search.modes",
        "Deployments",
        Kind::Choice {
            options: crate::field::Options::Fixed(&[
                ("both", "co-located and disaggregated"),
                ("colocated", "co-located only (continuous batching)"),
                ("disaggregated", "disaggregated only (prefill and decode pools)"),
            ]),
            get: modes,
            set: set_modes,
        },
    )
    .hint("Co-located servers do prefill and decode together; disaggregated ones send KV caches between pools")
    .when(searching),
    Field::new(
        "inference.search.chips",
        "Chips to consider",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read_options(s, |o| o.chips.join(", ")),
            set: set_chips,
        },
    )
    .hint("Chip ids, e.g. tpu-v5e, h100-sxm; empty = every catalog chip with a price")
    .when(searching),
    Field::new(
        "inference.search.prices",
        "Prices typed for the search",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read_options(s, |o| prices_text(&o.prices)),
            set: |s, t| {
                let prices = read_prices(s, t)?;
                options(s).prices = prices;
                Ok(())
            },
        },
    )
    .unit("USD/chip-hour")
    .hint("chip=USD; … for chips without a public price (or to override one), e.g. tpu-v4=3.22")
    .when(searching),
    Field::new(
        "inference.search.weights",
        "Weight formats",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read_options(s, |o| formats_text(&o.weights)),
            set: |s, t| {
                options(s).weights = read_formats(t)?;
                Ok(())
            },
        },
    )
    .hint("e.g. bf16, fp8, int8; empty = the weights format above")
    .when(searching),
    Field::new(
        "inference.search.kv",
        "KV cache formats",
        Kind::Text {
            mode: InputMode::Text,
            get: |s| read_options(s, |o| formats_text(&o.kv)),
            set: |s, t| {
                options(s).kv = read_formats(t)?;
                Ok(())
            },
        },
    )
    .hint("e.g. bf16, fp8; empty = the KV cache format above")
    .when(searching),
    Field::new(
        "inference.search.top",
        "Rows ranked",
        Kind::Count { get: |s| read_options(s, |o| o.top), set: |s, v| options(s).top = v },
    )
    .hint("The cheapest deployments listed, 1 to 1,000")
    .when(searching),
    Field::new(
        "inference.search.max_chips_per_server",
        "Largest server",
        Kind::Count {
            get: |s| read_options(s, |o| o.max_chips_per_server),
            set: |s, v| options(s).max_chips_per_server = v,
        },
    )
    .unit("chips")
    .hint("Servers of at most this many chips (one scale-up domain; switched GPUs up to 4 domains)")
    .when(searching),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::apply;

    /// Ticking the search starts it at 10 requests per second when no rate is set (a rate
    /// typed before is kept); unticking drops it and keeps the rate.
    #[test]
    fn the_flag_starts_a_search_at_a_rate() {
        let mut s = crate::scenario::with_serving_defaults(&Scenario::default());
        apply(&mut s, "inference.search", "true").unwrap();
        assert_eq!(read(&s, |i| (i.search.is_some(), i.request_rate)), (true, Some(DEFAULT_SEARCH_RATE)));
        assert!(s.validate().is_ok());
        apply(&mut s, "inference.search", "false").unwrap();
        apply(&mut s, "inference.request_rate", "3").unwrap();
        apply(&mut s, "inference.search", "true").unwrap();
        assert_eq!(read(&s, |i| i.request_rate), Some(3.0));
    }

    #[test]
    fn lists_read_and_refuse_unknown_names() {
        let mut s = crate::scenario::with_serving_defaults(&Scenario::default());
        apply(&mut s, "inference.search.prices", " tpu-v4 = 3.22 ; tpu-v7x=5").unwrap();
        let o = read(&s, |i| i.search.clone()).unwrap();
        assert_eq!(prices_text(&o.prices), "tpu-v4=3.22; tpu-v7x=5");
        assert!(apply(&mut s, "inference.search.prices", "tpu-v4:3").unwrap_err().message.contains("chip=USD"));
        assert!(apply(&mut s, "inference.search.prices", "nope=3").unwrap_err().message.contains("unknown chip"));
        assert!(apply(&mut s, "inference.search.chips", "tpu-v5e nope").unwrap_err().message.contains("\"nope\""));
        apply(&mut s, "inference.search.weights", "fp8 nvfp4").unwrap();
        assert_eq!(read(&s, |i| i.search.clone()).unwrap().weights, [DType::Fp8, DType::Nvfp4]);
        assert!(apply(&mut s, "inference.search.kv", "fp9").is_err());
        apply(&mut s, "inference.search.modes", "disaggregated").unwrap();
        assert_eq!(modes(&s), "disaggregated");
    }
}
