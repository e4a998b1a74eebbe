//! The MaxText model YAML importer (and format detection): any text must import a valid
//! model whose report is finite, or fail with an error naming the line or the key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardcalc_core::import::{detect_and_import, from_maxtext_yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    shardcalc_fuzz::check_import(from_maxtext_yaml(text));
    shardcalc_fuzz::check_import(detect_and_import(text));
});
