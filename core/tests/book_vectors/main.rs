//! Golden tests from How to Scale Your Model: every vector of
//! `core/data/book-vectors.json` (a vendored copy of shared/reference/book-vectors.json)
//! is recomputed with shardcalc-core and compared within the vector's tolerance.
//! Each area has its own module and a test that every vector of that area is covered.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

mod collectives;
mod hardware;
mod harness;
mod inference;
mod other;
mod roofline;
mod training;
mod transformer;
