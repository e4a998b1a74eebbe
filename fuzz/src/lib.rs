//! What every fuzz target checks, whatever the input (issue 7): no panic (libFuzzer
//! reports one as a crash), no hang (`-timeout`), a valid result whose report is finite
//! and survives JSON, or an error that names its field, key or line.

use shardcalc_core::dtype::DType;
use shardcalc_core::error::Invalid;
use shardcalc_core::flops::{attention_crossover, flops_vs_seq_len, training_flops, FlopConvention};
use shardcalc_core::import::{ImportError, Imported};
use shardcalc_core::kv_cache::kv_bytes_per_sequence;
use shardcalc_core::notebook::notebook_tables;
use shardcalc_core::params::count_params;
use shardcalc_core::report::{evaluate, Report};
use shardcalc_core::scenario::{ModelSource, Scenario};

/// Every error names a field and says something.
pub fn check_errors(e: &Invalid) {
    assert!(!e.0.is_empty(), "an error without any field error");
    for f in &e.0 {
        assert!(!f.field.is_empty() && !f.message.trim().is_empty(), "unnamed or empty error: {f:?}");
    }
}

/// A parsed scenario: a finite report that survives JSON, or field errors; and the
/// formulas that assume a valid model do not panic on an invalid one either.
pub fn check_scenario(s: &Scenario) {
    let verdict = s.validate();
    match evaluate(s) {
        Ok(report) => {
            let m = verdict.expect("evaluate succeeded where validate failed");
            let text = serde_json::to_string(&report).expect("the report serializes");
            // serde_json writes NaN and infinities as null, which does not parse as a number.
            let back: Report = serde_json::from_str(&text).expect("the report parses back (a NaN or infinity?)");
            assert!(back == report, "the report changed in a JSON round trip");
            let c = s.conventions.flops;
            for p in flops_vs_seq_len(&m, &[0, 1, s.workload.seq_len, 1 << 40, u64::MAX], c) {
                let parts = [p.attention_dot, p.attention_projections, p.mlp, p.unembedding];
                assert!(parts.iter().all(|x| x.is_finite() && *x >= 0.0), "{p:?}");
            }
            if let Some(t) = attention_crossover(&m, c) {
                let at = |t: u64| flops_vs_seq_len(&m, &[t], c)[0];
                let (first, before) = (at(t), at(t - 1));
                assert!(t >= 1 && first.attention_dot > first.mlp, "crossover {t}: {first:?}");
                assert!(t == 1 || before.attention_dot <= before.mlp, "crossover {t}: {before:?}");
            }
            for context in [0, s.workload.seq_len, 1 << 40] {
                assert!(kv_bytes_per_sequence(&m, context, DType::Bf16).is_finite());
            }
        }
        Err(e) => {
            // An explicit mesh's conflicts with the model, the sequence or the batch
            // (`training.mesh*`: EP on a dense model, TP not dividing the heads, ...) are found
            // by the planner (`training::plan::check_mesh`), which `validate` does not run: it
            // needs the planner's resolved setup. Every other error must be validate's too.
            let plan_conflict = e.0.iter().all(|f| f.field.starts_with("training.mesh"));
            assert!(verdict.is_err() || plan_conflict, "validate succeeded where evaluate failed: {e:?}");
            check_errors(&e);
            if let Ok(m) = s.model.resolve() {
                let _ = count_params(&m);
                for c in FlopConvention::ALL {
                    let _ = training_flops(&m, &s.workload, c);
                    let _ = flops_vs_seq_len(&m, &[0, 1, s.workload.seq_len], c);
                }
                let _ = notebook_tables(&m, &s.workload);
                let _ = attention_crossover(&m, FlopConvention::MaxText);
                let _ = kv_bytes_per_sequence(&m, s.workload.seq_len, DType::Fp8);
            }
        }
    }
}

/// An import: a model that validates (the importers promise it) and evaluates, or an
/// error naming the line or the key.
pub fn check_import(result: Result<Imported, ImportError>) {
    match result {
        Ok(imported) => {
            assert_eq!(imported.config.validate(), Ok(()), "an importer returned an invalid model");
            // (A warning's key may be empty: `"": 1` in a config.json is a key named "".)
            assert!(imported.warnings.iter().all(|w| !w.message.is_empty()), "{:?}", imported.warnings);
            let s = Scenario { model: ModelSource::Custom(Box::new(imported.config)), ..Scenario::default() };
            assert!(evaluate(&s).is_ok(), "an imported model does not evaluate");
            check_scenario(&s);
        }
        Err(ImportError::Field(e)) => check_errors(&e),
        Err(ImportError::Unsupported { key, message }) => {
            assert!(!key.is_empty() && !message.is_empty(), "unnamed unsupported key");
        }
        Err(ImportError::Syntax { line, message }) => {
            assert!(line != Some(0) && !message.is_empty(), "syntax error on line {line:?}: {message:?}");
        }
    }
}
