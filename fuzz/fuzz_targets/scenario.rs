//! The scenario JSON parser, validation and the whole report: any text must give a report
//! that is finite and survives JSON, or errors that name a field; never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardcalc_core::scenario::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_json(text) {
        Ok(scenario) => shardcalc_fuzz::check_scenario(&scenario),
        Err(e) => shardcalc_fuzz::check_errors(&e),
    }
});
