//! The MaxText model YAML importer (and format detection): any text must import a valid
//! model whose report is finite, or fail with an error naming the line or the key. The same
//! text as a pasted MaxText command line or script (`shardcalc_core::maxtext`, issue 19) must
//! import a scenario that validates or evaluates to field errors, or fail naming its key; and
//! as a MaxText log it must read or fail, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardcalc_core::import::{detect_and_import, from_maxtext_yaml};
use shardcalc_core::maxtext::log_file::ParsedLog;
use shardcalc_core::maxtext::{import_run, CommandLine, Configs, HardwareArgs};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    shardcalc_fuzz::check_import(from_maxtext_yaml(text));
    shardcalc_fuzz::check_import(detect_and_import(text));
    if let Ok(cmd) = CommandLine::parse_text(text) {
        let hw = HardwareArgs { chip: Some("tpu-v5p".into()), topology: Some("4x4x4".into()), slices: Some(2) };
        if let Ok(run) = import_run(&cmd, None, &hw, Configs::NONE) {
            shardcalc_fuzz::check_scenario(&run.scenario);
        }
    }
    if let Ok(log) = ParsedLog::parse(text) {
        let m = log.measured().expect("a parsed log has a step");
        assert!(m.seconds.is_finite());
    }
});
