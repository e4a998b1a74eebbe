//! How fast real kernels run on a chip (issue 16): the physics and the calibrated
//! parameters the training and serving planners share. Below both planners (they import
//! it; it imports neither); `validation` sits above them and only fits and reports.
//!
//! | module | concept |
//! |---|---|
//! | [`mode`] | calibrated physical model (default) or ideal roofline: `conventions.prediction` |
//! | [`calibration`] | the five fitted physical parameters (`data/calibration.json`) and the serving derate |
//! | [`rates`] | one device's sustained matmul rate, achieved HBM bandwidth, MXU tile, kernel tile edge |
//! | [`matmul`] | a matmul at its shape's efficiency: tile padding and the tiled kernel's roofline |
//! | [`serving`] | serving's fitted parameters (`data/serving-calibration.json`): HBM and matmul fractions, per-pass and per-layer overheads, and its derate |
//! | [`attention`] | flash/splash attention's executed pairs and head-dimension utilisation; materialised attention's HBM traffic |
//!
//! How the training step uses them is written at the top of `training::kernels`.

pub mod attention;
pub mod calibration;
pub mod matmul;
pub mod mode;
pub mod rates;
pub mod serving;

pub use calibration::Calibration;
pub use mode::PredictionMode;
pub use rates::KernelRates;

/// Smallest fraction of peak accepted (`prefill.mfu`): one in a million. A subnormal one
/// (5e-324 passed "greater than 0") made the time to first token infinite (found by the
/// no-panic test).
pub const MIN_FRACTION: f64 = 1e-6;
