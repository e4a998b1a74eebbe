//! Tests of the whole import. Those that need MaxText's files run with the
//! `maxtext-configs` feature (`cargo test -p shardcalc-core -p shardcalc-cli` turns it on).

use super::*;

fn args(tokens: &[&str]) -> CommandLine {
    CommandLine::parse(tokens).unwrap()
}

fn v5p(shape: &str, slices: u64) -> HardwareArgs {
    HardwareArgs { chip: Some("tpu-v5p".into()), topology: Some(shape.into()), slices: Some(slices) }
}

const TINY: &[&str] = &[
    "decoder_block=llama2",
    "base_emb_dim=1024",
    "base_num_query_heads=8",
    "base_num_kv_heads=8",
    "base_mlp_dim=4096",
    "base_num_decoder_layers=8",
    "head_dim=128",
    "vocab_size=32000",
];

fn tiny(extra: &[&str]) -> CommandLine {
    let mut t: Vec<&str> = TINY.to_vec();
    t.extend(extra);
    args(&t)
}

#[test]
fn the_mesh_fills_its_minus_one_and_maps_every_axis() {
    let cmd = tiny(&[
        "ici_tensor_parallelism=2",
        "ici_context_parallelism=2",
        "dcn_pipeline_parallelism=2",
        "num_pipeline_microbatches=4",
    ]);
    let run = import_run(&cmd, None, &v5p("4x4x4", 4), Configs::NONE).unwrap();
    let t = run.scenario.training.unwrap();
    let m = t.mesh.unwrap();
    assert_eq!((m.dp, m.fsdp, m.tp, m.cp, m.pp), (2, 16, 2, 2, 2), "ici fsdp -1 = 64 / 4; dcn data -1 = 4 / 2");
    assert_eq!(run.devices, 256);
    // MaxText's circular pipeline: 8 layers over 2 stages = 4 repeats.
    assert_eq!(
        (t.pipeline.schedule, t.pipeline.virtual_stages, t.microbatches),
        (crate::training::pipeline::Schedule::Interleaved, 4, Some(4))
    );
    let e = import_run(&tiny(&["ici_tensor_parallelism=3"]), None, &v5p("4x4x4", 1), Configs::NONE).unwrap_err();
    assert!(e.to_string().starts_with("ici_fsdp_parallelism"), "{e}");
    let e = import_run(&tiny(&["dcn_fsdp_parallelism=2"]), None, &v5p("4x4x4", 1), Configs::NONE).unwrap_err();
    assert!(e.to_string().starts_with("dcn_fsdp_parallelism"), "{e}");
}

#[test]
fn batch_accumulation_and_formats() {
    let cmd = tiny(&[
        "per_device_batch_size=0.5",
        "gradient_accumulation_steps=4",
        "quantization=fp8",
        "opt_type=sgd",
        "shard_optimizer_over_data=true",
        "ici_data_parallelism=2",
        "max_target_length=4096",
    ]);
    let run = import_run(&cmd, None, &v5p("4x4x4", 1), Configs::NONE).unwrap();
    let t = run.scenario.training.as_ref().unwrap();
    // int(64 × 0.5) = 32 sequences per microbatch, 4 microbatches.
    assert_eq!((t.sequences(), t.microbatches, t.seq_len), (128, Some(4), 4096));
    assert_eq!((t.dtypes.compute, t.dtypes.weights), (crate::dtype::DType::Fp8, crate::dtype::DType::Fp32));
    assert_eq!(t.zero_stage.0, 1);
    assert_eq!(run.scenario.workload.grad_accum, 4);
    let e = import_run(&tiny(&["dtype=float32"]), None, &v5p("4x4x4", 1), Configs::NONE).unwrap_err();
    assert!(e.to_string().starts_with("dtype"), "{e}");
}

#[test]
fn xla_flags_and_memory_fraction() {
    let text = "export LIBTPU_INIT_ARGS=\"--xla_tpu_overlap_compute_collective_tc=true --xla_tpu_enable_async_collective_fusion=true --xla_tpu_enable_sparse_core_collective_offload_all_gather=true\"\n\
                XLA_PYTHON_CLIENT_MEM_FRACTION=0.85 python3 -m MaxText.train x.yml per_device_batch_size=1";
    let mut cmd = CommandLine::parse_text(text).unwrap();
    cmd.overrides.extend(tiny(&[]).overrides);
    let run = import_run(&cmd, Some("base_config: base.yml\n"), &v5p("2x2x1", 1), Configs::NONE).unwrap();
    let t = run.scenario.training.unwrap();
    assert!(t.overlap.tensor);
    assert_eq!(t.overlap.sparse_core, Some(true));
    assert!((t.reserved_hbm_fraction - 0.15).abs() < 1e-12);
}

#[test]
fn without_maxtext_s_files_a_preset_model_name_still_resolves() {
    let run =
        import_run(&args(&["model_name=llama3-8b", "per_device_batch_size=1"]), None, &v5p("2x2x1", 1), Configs::NONE)
            .unwrap();
    let ModelSource::Custom(m) = &run.scenario.model else { panic!("a custom model") };
    assert_eq!(m.d_model, 4096);
    assert_eq!(m.name, "MaxText llama3-8b");
    let e = import_run(&args(&["model_name=gemma3-4b"]), None, &v5p("2x2x1", 1), Configs::NONE).unwrap_err();
    assert!(e.to_string().contains("paste the model's YAML"), "{e}");
}

#[cfg(feature = "maxtext-configs")]
mod bundled {
    use super::*;
    use crate::params::count_params;

    #[test]
    fn every_bundled_model_imports() {
        for (name, text) in bundle::MODELS {
            let m = crate::import::from_maxtext_yaml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(m.config.validate().is_ok(), "{name}");
        }
        assert!(crate::import::parse_yaml(bundle::BASE_YML).is_ok());
    }

    /// The importer's own defaults (what the web page uses without base.yml) are base.yml's:
    /// the same command lines import to the same scenarios with and without the file.
    #[test]
    fn defaults_are_base_yml_s() {
        for extra in [
            &[][..],
            &["ici_tensor_parallelism=4", "remat_policy=custom", "mlpwo=device"][..],
            &["ici_pipeline_parallelism=2", "gradient_accumulation_steps=2"][..],
        ] {
            let cmd = tiny(extra);
            let with = import_run(&cmd, None, &v5p("4x4x4", 2), Configs::available()).unwrap();
            let without = import_run(&cmd, None, &v5p("4x4x4", 2), Configs::NONE).unwrap();
            assert_eq!(with.scenario, without.scenario, "{extra:?}");
        }
        let moe = args(&["model_name=mixtral-8x7b", "ici_expert_parallelism=8"]);
        let with = import_run(&moe, None, &v5p("4x4x4", 1), Configs::available()).unwrap();
        let preset = import_run(&moe, None, &v5p("4x4x4", 1), Configs::NONE).unwrap();
        assert_eq!(with.scenario.training, preset.scenario.training);
    }

    /// Each model name the page resolves to a preset imports, from MaxText's file, to the
    /// preset's parameters and MaxText FLOPs.
    #[test]
    fn preset_models_are_their_presets() {
        let w = crate::flops::Workload {
            per_device_batch: 1.0,
            seq_len: 4096,
            grad_accum: 1,
            remat: crate::flops::RematPolicy::None,
        };
        for (name, id) in presets::PRESET_MODELS {
            let text = Configs::available().model(name).unwrap_or_else(|| panic!("{name} is not bundled"));
            let imported = crate::import::from_maxtext_yaml(text).unwrap().config;
            let preset = crate::presets::get(id).unwrap().config;
            assert_eq!(count_params(&imported).total, count_params(&preset).total, "{name} vs {id}");
            let f = |m| crate::flops::training_flops(m, &w, crate::flops::FlopConvention::MaxText).total.get();
            assert_eq!(f(&imported), f(&preset), "{name} vs {id}");
        }
    }

    #[test]
    fn model_keys_are_read_and_the_rest_sorted() {
        let cmd = args(&[
            "model_name=llama3-8b",
            "steps=10",
            "logical_axis_rules=[[a,b]]",
            "foo=1",
            "per_device_batch_size=12.0",
        ]);
        let run = import_run(&cmd, None, &v5p("4x4x4", 1), Configs::available()).unwrap();
        let k = &run.keys;
        assert!(k.read.iter().any(|r| r.key == "base_emb_dim" && r.sets == "model"));
        assert_eq!(k.unknown.iter().map(|u| u.key.as_str()).collect::<Vec<_>>(), ["foo"]);
        assert!(k.warnings.iter().any(|w| w.key == "logical_axis_rules"), "{:?}", k.warnings);
        assert!(k.read.iter().any(|r| r.key == "per_device_batch_size"), "read even when equal to the default");
    }
}

/// MaxText's `calculate_tflops_training_per_device` for Llama 3 8B, written out
/// (utils/maxtext_utils.py at e591f30): B sequences of T tokens per device.
fn llama3_8b_maxtext_tflops(b: f64, t: f64) -> f64 {
    let (d, l, nq, nkv, h, f, v) = (4096.0, 32.0, 32.0, 8.0, 128.0, 14336.0, 128_256.0);
    let ffn = 2.0 * b * t * f * d * 2.0 + 2.0 * b * t * f * d;
    let qkv = 2.0 * b * t * d * (nq + 2.0 * nkv) * h;
    let projection = 2.0 * b * t * d * nq * h;
    let attention = 4.0 * b * t * t * nq * h / 2.0;
    let embedding = 2.0 * b * t * d * v;
    ((ffn + qkv + projection) * l + embedding + attention * l) * 3.0 / 1e12
}

#[test]
fn the_log_counts_the_plan_s_batch() {
    // The training page's default: 2^20 tokens of 4096 per step on a v5p 4x4x4 (64 chips):
    // 4 sequences per device, whatever the scenario's workload says (1 × 4096).
    let s = crate::view::training::with_defaults(&Scenario::default());
    let report = crate::report::evaluate(&s).unwrap();
    let log = log::MaxTextLog::of(&s, &report).unwrap();
    let by_hand = llama3_8b_maxtext_tflops(4.0, 4096.0);
    assert!(
        (log.tflops_per_device_step - by_hand).abs() < 1e-9 * by_hand,
        "{} vs {by_hand}",
        log.tflops_per_device_step
    );
    assert_eq!(log.tokens_per_device_step, 4.0 * 4096.0);
    let t = report.training.unwrap();
    assert!((log.predicted.tflops_per_s_per_device - by_hand / t.step_time_s.get()).abs() < 1e-9);
    // v5p: 459 TFLOP/s bf16 per chip, one device per chip.
    assert_eq!(log.peak_tflops_per_device, 459.0);
    assert!(log.fits && log.lines[2].starts_with("completed step: 1, seconds: "));
}

/// MaxText's `ENABLE_SPARSECORE_OFFLOADING_FOR_ALL_REDUCE` (benchmarks/xla_flags_library.py,
/// set by the trillium Llama 2 70B recipe) offloads AllReduces only: an FSDP run's
/// AllGathers and ReduceScatters stay on the TensorCores; `..._FOR_RS_AG_AR` offloads all.
#[test]
fn sparse_core_offload_is_read_per_collective() {
    let flags = |f: &str| {
        let mut cmd =
            CommandLine::parse_text(&format!("export LIBTPU_INIT_ARGS=\"{f}\"\npython3 -m MaxText.train x.yml"))
                .unwrap();
        cmd.overrides.extend(tiny(&[]).overrides);
        let run = import_run(&cmd, Some("base_config: base.yml\n"), &v5p("2x2x1", 1), Configs::NONE).unwrap();
        (run.scenario.training.unwrap().overlap.sparse_core, run.keys.warnings.len())
    };
    let ar = "--xla_tpu_enable_async_collective_fusion_fuse_all_reduce=false --xla_tpu_enable_sparse_core_collective_offload_all_reduce=true";
    assert_eq!(flags(ar).0, Some(false));
    let all = "--xla_tpu_enable_sparse_core_collective_offload_all_gather=true --xla_tpu_enable_sparse_core_collective_offload_reduce_scatter=true --xla_tpu_enable_sparse_core_collective_offload_all_reduce=true";
    assert_eq!(flags(all), (Some(true), flags("").1));
    assert_eq!(flags("").0, None);
}

/// MaxText's `DISABLE_COLLECTIVE_MATMUL` (benchmarks/xla_flags_library.py:
/// `--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000`) turns XLA's windowed
/// einsums off: the collective-fusion flags no longer make TP's collectives overlap.
#[test]
fn a_windowed_einsum_threshold_above_every_einsum_turns_collective_matmul_off() {
    let tensor = |f: &str| {
        let mut cmd =
            CommandLine::parse_text(&format!("export LIBTPU_INIT_ARGS=\"{f}\"\npython3 -m MaxText.train x.yml"))
                .unwrap();
        cmd.overrides.extend(tiny(&[]).overrides);
        let run = import_run(&cmd, Some("base_config: base.yml\n"), &v5p("2x2x1", 1), Configs::NONE).unwrap();
        run.scenario.training.unwrap().overlap.tensor
    };
    let cf = "--xla_tpu_overlap_compute_collective_tc=true --xla_tpu_enable_async_collective_fusion=true";
    assert!(tensor(cf));
    assert!(!tensor(&format!("{cf} --xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")));
    assert!(tensor(&format!("{cf} --xla_jf_spmd_threshold_for_windowed_einsum_mib=0")));
}
