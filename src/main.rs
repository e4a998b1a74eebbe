//! The binary trunk builds to wasm; everything lives in the lib (src/lib.rs).
fn main() {
    shardcalc::start();
}
