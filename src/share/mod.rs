//! Sharing and keeping scenarios, on every page: the scenario as a JSON file (download, open),
//! saved in the browser's storage under a name ([`storage`]; listed, renamed, deleted and
//! compared on the Saved page, `crate::views::saved`), and loading a scenario from any of
//! these without losing what does not validate ([`document::load`]). The link itself is the
//! URL (`crate::state::url`); embeds are `crate::embed`.

pub mod document;
mod share_bar;
pub mod storage;

pub use share_bar::ShareBar;
