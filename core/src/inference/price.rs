//! What a chip-hour costs: the scenario's price, else the chip catalog's sourced and dated
//! public on-demand price (`core/data/chips.json`, `price_per_chip_hour_usd` with its
//! `field_sources` citation), else none — reported as "no public price" so that the page
//! and the CLI say so and offer the field to type one.

use super::report::PriceSource;
use crate::hardware::Chip;
use serde::{Deserialize, Serialize};

/// `inference.price`: the price every cost of the section uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Price {
    /// US dollars per chip-hour; absent when there is no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_chip_hour: Option<f64>,
    /// `scenario`, `catalog` or `no_public_price`.
    pub source: PriceSource,
}

impl Price {
    /// The scenario's `typed` price, else `chip`'s catalog price, else none.
    #[must_use]
    pub fn resolve(typed: Option<f64>, chip: &Chip) -> Self {
        match (typed, chip.price_per_chip_hour_usd) {
            (Some(p), _) => Self { usd_per_chip_hour: Some(p), source: PriceSource::Scenario },
            (None, Some(p)) => Self { usd_per_chip_hour: Some(p), source: PriceSource::Catalog },
            (None, None) => Self { usd_per_chip_hour: None, source: PriceSource::NoPublicPrice },
        }
    }

    /// US dollars per hour for `chips` chips, when priced.
    #[must_use]
    pub fn usd_per_hour(&self, chips: f64) -> Option<f64> {
        self.usd_per_chip_hour.map(|p| p * chips)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::catalog;

    #[test]
    fn scenario_then_catalog_then_none() {
        let v5e = catalog::get("tpu-v5e").unwrap();
        assert_eq!(Price::resolve(None, &v5e).usd_per_chip_hour, Some(1.2));
        assert_eq!(Price::resolve(None, &v5e).source, PriceSource::Catalog);
        assert_eq!(Price::resolve(Some(0.9), &v5e).source, PriceSource::Scenario);
        let v4 = catalog::get("tpu-v4").unwrap();
        let none = Price::resolve(None, &v4);
        assert_eq!((none.usd_per_chip_hour, none.source), (None, PriceSource::NoPublicPrice));
        assert_eq!(none.usd_per_hour(8.0), None);
        assert_eq!(Price::resolve(Some(2.0), &v4).usd_per_hour(8.0), Some(16.0));
    }

    /// Every priced catalog chip cites a dated source for its price; the unpriced ones say
    /// so in their notes.
    #[test]
    fn every_catalog_price_is_sourced_and_dated() {
        for chip in catalog::all_with_provenance() {
            match chip.price_per_chip_hour_usd {
                Some(p) => {
                    assert!(p > 0.0 && p < 100.0, "{}: {p}", chip.id);
                    let s = chip.field_sources.iter().find(|s| s.field == "price_per_chip_hour_usd");
                    let s = s.unwrap_or_else(|| panic!("{} has a price without its own source", chip.id));
                    assert!(s.as_of.len() == 10 && !s.source.is_empty(), "{}", chip.id);
                }
                None => assert!(
                    chip.notes.iter().any(|n| n.contains("No public on-demand price")),
                    "{} has no price and does not say why",
                    chip.id
                ),
            }
        }
    }
}
