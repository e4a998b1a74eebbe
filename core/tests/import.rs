//! Importers against real configuration files (`tests/fixtures/`, sources in
//! `tests/fixtures/SOURCES.md`): every fixture imports, and its parameter count equals the
//! matching preset in `data/presets.json`, which the preset tests tie to published counts.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use shardcalc_core::import::{detect_and_import, from_hf_config_json, from_maxtext_yaml, ImportError, Imported};
use shardcalc_core::model::ModelConfig;
use shardcalc_core::params::count_params;
use shardcalc_core::presets;

/// (fixture, text, preset id, keys expected in warnings)
const HF: &[(&str, &str, &str, &[&str])] = &[
    ("hf-llama-2-7b.json", include_str!("fixtures/hf-llama-2-7b.json"), "llama-2-7b", &[]),
    ("hf-llama-3-8b.json", include_str!("fixtures/hf-llama-3-8b.json"), "llama-3-8b", &[]),
    ("hf-llama-3-70b.json", include_str!("fixtures/hf-llama-3-70b.json"), "llama-3-70b", &[]),
    ("hf-llama-3.1-405b.json", include_str!("fixtures/hf-llama-3.1-405b.json"), "llama-3.1-405b", &[]),
    ("hf-mistral-7b.json", include_str!("fixtures/hf-mistral-7b.json"), "mistral-7b", &[]),
    ("hf-mixtral-8x7b.json", include_str!("fixtures/hf-mixtral-8x7b.json"), "mixtral-8x7b", &[]),
    ("hf-qwen3-8b.json", include_str!("fixtures/hf-qwen3-8b.json"), "qwen3-8b", &[]),
    ("hf-qwen3-30b-a3b.json", include_str!("fixtures/hf-qwen3-30b-a3b.json"), "qwen3-30b-a3b", &[]),
    ("hf-gemma-2-9b.json", include_str!("fixtures/hf-gemma-2-9b.json"), "gemma-2-9b", &[]),
    ("hf-gpt-oss-120b.json", include_str!("fixtures/hf-gpt-oss-120b.json"), "gpt-oss-120b", &[]),
    // The checkpoint's config has num_nextn_predict_layers = 1, so the import carries MTP.
    ("hf-deepseek-v3.json", include_str!("fixtures/hf-deepseek-v3.json"), "deepseek-v3-mtp", &[]),
    (
        "hf-gemma-3-27b.json",
        include_str!("fixtures/hf-gemma-3-27b.json"),
        "gemma-3-27b",
        &["vision_config", "text_config.vocab_size"],
    ),
    ("hf-llama-4-scout.json", include_str!("fixtures/hf-llama-4-scout.json"), "llama-4-scout", &["vision_config"]),
];

fn preset(id: &str) -> ModelConfig {
    presets::get(id).unwrap_or_else(|| panic!("no preset {id}")).config
}

fn total(m: &ModelConfig) -> u64 {
    count_params(m).total.exact().expect("an exact integer count")
}

fn warned_keys(imported: &Imported) -> Vec<&str> {
    imported.warnings.iter().map(|w| w.key.as_str()).collect()
}

/// The model without its display name, for structural comparison.
fn unnamed(mut m: ModelConfig) -> ModelConfig {
    m.name = String::new();
    m
}

#[test]
fn hugging_face_fixtures_equal_their_presets() {
    for (file, text, id, expected_warnings) in HF {
        let imported = from_hf_config_json(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(warned_keys(&imported), *expected_warnings, "{file}: {:?}", imported.warnings);
        let want = preset(id);
        assert_eq!(total(&imported.config), total(&want), "{file} vs preset {id}");
        // Not just the count: attention, layout, MoE placement and norms match too.
        assert_eq!(unnamed(imported.config.clone()), unnamed(want), "{file} vs preset {id}");
        assert_eq!(detect_and_import(text), Ok(imported), "{file}");
    }
}

#[test]
fn llama_3_8b_config_json_has_8_030_261_248_parameters() {
    let m = from_hf_config_json(include_str!("fixtures/hf-llama-3-8b.json")).unwrap();
    assert_eq!(total(&m.config), 8_030_261_248);
}

#[test]
fn published_exact_counts() {
    let cases = [
        ("hf-llama-2-7b.json", 6_738_415_616),
        ("hf-llama-3-70b.json", 70_553_706_496),
        ("hf-llama-3.1-405b.json", 405_853_388_800),
        ("hf-mistral-7b.json", 7_241_732_096),
        ("hf-mixtral-8x7b.json", 46_702_792_704),
        ("hf-qwen3-8b.json", 8_190_735_360),
        ("hf-qwen3-30b-a3b.json", 30_532_122_624),
        ("hf-gemma-2-9b.json", 9_241_705_984),
        ("hf-gpt-oss-120b.json", 116_829_156_672),
    ];
    for (file, published) in cases {
        let (_, text, _, _) = HF.iter().find(|(f, ..)| *f == file).unwrap();
        assert_eq!(total(&from_hf_config_json(text).unwrap().config), published, "{file}");
    }
}

#[test]
fn deepseek_v3_with_and_without_mtp() {
    let m = from_hf_config_json(include_str!("fixtures/hf-deepseek-v3.json")).unwrap();
    let c = count_params(&m.config);
    assert_eq!(c.total.exact(), Some(total(&preset("deepseek-v3-mtp"))));
    assert_eq!(c.total_without_mtp.exact(), Some(671_026_419_200));
    assert_eq!(c.total_without_mtp.exact(), Some(total(&preset("deepseek-v3"))));
}

#[test]
fn qwen2_has_qkv_biases() {
    // 28 × (attention 29,360,128 + QKV biases 4,608 + MLP 203,685,888 + norms 7,168)
    // + 2 × 152,064 × 3,584 + 3,584; the Qwen2.5-7B model card rounds this to 7.61B.
    let m = from_hf_config_json(include_str!("fixtures/hf-qwen2.5-7b.json")).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(total(&m.config), 7_615_616_512);
}

/// (fixture, text, preset id, expected count minus the preset's)
const MAXTEXT: &[(&str, &str, &str, i64)] = &[
    ("maxtext-llama2-7b.yml", include_str!("fixtures/maxtext-llama2-7b.yml"), "llama-2-7b", 0),
    ("maxtext-llama3-8b.yml", include_str!("fixtures/maxtext-llama3-8b.yml"), "llama-3-8b", 0),
    ("maxtext-mistral-7b.yml", include_str!("fixtures/maxtext-mistral-7b.yml"), "mistral-7b", 0),
    ("maxtext-mixtral-8x7b.yml", include_str!("fixtures/maxtext-mixtral-8x7b.yml"), "mixtral-8x7b", 0),
    // No mtp_num_layers in the file: the 671B main model.
    ("maxtext-deepseek3-671b.yml", include_str!("fixtures/maxtext-deepseek3-671b.yml"), "deepseek-v3", 0),
    ("maxtext-qwen3-8b.yml", include_str!("fixtures/maxtext-qwen3-8b.yml"), "qwen3-8b", 0),
    ("maxtext-qwen3-30b-a3b.yml", include_str!("fixtures/maxtext-qwen3-30b-a3b.yml"), "qwen3-30b-a3b", 0),
    ("maxtext-gpt-oss-120b.yml", include_str!("fixtures/maxtext-gpt-oss-120b.yml"), "gpt-oss-120b", 0),
    ("maxtext-llama4-17b-16e.yml", include_str!("fixtures/maxtext-llama4-17b-16e.yml"), "llama-4-scout", 0),
    // MaxText pads Gemma 2's vocabulary to 256,128 rows (Hugging Face: 256,000); the
    // embedding is tied, so the 128 extra rows of 3,584 count once.
    ("maxtext-gemma2-9b.yml", include_str!("fixtures/maxtext-gemma2-9b.yml"), "gemma-2-9b", 128 * 3584),
    // MaxText's Gemma 3 vocabulary is 262,144 rows; Hugging Face's Gemma3TextConfig has
    // 262,208 (64 more). Tied embedding: 64 rows of 5,376 fewer.
    ("maxtext-gemma3-27b.yml", include_str!("fixtures/maxtext-gemma3-27b.yml"), "gemma-3-27b", -64 * 5376),
    // MaxText pads GPT-3's vocabulary to 50,304 rows (the paper's 50,257) and its learned
    // position table has trainable_position_size = 16,384 rows (the paper's 2,048), both of
    // width 12,288 and the embedding tied: (47 + 14,336) rows more.
    ("maxtext-gpt3-175b.yml", include_str!("fixtures/maxtext-gpt3-175b.yml"), "gpt-3-175b", (47 + 14_336) * 12_288),
];

/// MaxText's gpt3 decoder block (gpt3.py at e591f30), counted by hand for its 175B file:
/// per layer LayerNorm (scale + bias) before attention and before the MLP, fused QKV
/// `3·D·D` with bias `3·D`, output `D·D + D`, MLP `2·D·F + F + D`; a tied 50,304-row
/// embedding, a 16,384-row position table and the final LayerNorm.
#[test]
fn maxtext_gpt3_block_by_hand() {
    let m = from_maxtext_yaml(include_str!("fixtures/maxtext-gpt3-175b.yml")).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let (d, f, l, v, p) = (12_288u64, 49_152u64, 96u64, 50_304u64, 16_384u64);
    let layer = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (2 * d * f + f + d);
    let hand = l * layer + v * d + p * d + 2 * d;
    assert_eq!(total(&m.config), hand);
    assert_eq!(hand, 174_780_997_632);
    // MaxText's FLOP calculator (default branch) for it, batch 1 × 2048: plain GELU MLP
    // 4·B·T·F·D, QKV 2·B·T·D·(N+2K)·H, output 2·B·T·D·N·H, unembedding 2·B·T·D·V, causal
    // attention 2·B·T²·N·H per layer; × 3 for the backward pass.
    use shardcalc_core::flops::{training_flops, FlopConvention, RematPolicy, Workload};
    let (b, t, n, h) = (1.0, 2048.0, 96.0, 128.0);
    let (df, ff, lf, vf) = (d as f64, f as f64, l as f64, v as f64);
    let per_layer = 4.0 * b * t * ff * df + 2.0 * b * t * df * (3.0 * n) * h + 2.0 * b * t * df * n * h;
    let expected = ((per_layer * lf + 2.0 * b * t * df * vf) + 2.0 * b * t * t * n * h * lf) * 3.0;
    let w = Workload { per_device_batch: b, seq_len: 2048, grad_accum: 1, remat: RematPolicy::None };
    let got = training_flops(&m.config, &w, FlopConvention::MaxText).total.get();
    assert!((got - expected).abs() <= 1e-12 * expected, "{got} vs {expected}");
}

#[test]
fn maxtext_fixtures_equal_their_presets() {
    for (file, text, id, vocab_padding) in MAXTEXT {
        let imported = from_maxtext_yaml(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let got = i64::try_from(total(&imported.config)).unwrap();
        let want = i64::try_from(total(&preset(id))).unwrap();
        assert_eq!(got - want, *vocab_padding, "{file} vs preset {id}: {got} vs {want}");
        assert_eq!(detect_and_import(text), Ok(imported), "{file}");
    }
}

#[test]
fn maxtext_the_three_named_in_the_issue_are_exact() {
    let count = |text: &str| total(&from_maxtext_yaml(text).unwrap().config);
    assert_eq!(count(include_str!("fixtures/maxtext-llama2-7b.yml")), 6_738_415_616);
    assert_eq!(count(include_str!("fixtures/maxtext-mixtral-8x7b.yml")), 46_702_792_704);
    assert_eq!(count(include_str!("fixtures/maxtext-deepseek3-671b.yml")), 671_026_419_200);
}

#[test]
fn maxtext_layer_patterns_follow_the_decoder_block() {
    let layout = |text: &str| from_maxtext_yaml(text).unwrap().config;
    // Gemma 2: 21 [local, global] pairs are 42 layers.
    let gemma2 = layout(include_str!("fixtures/maxtext-gemma2-9b.yml"));
    assert_eq!(gemma2.num_layers, 42);
    assert_eq!(gemma2.layout, preset("gemma-2-9b").layout);
    assert_eq!(gemma2.norm, preset("gemma-2-9b").norm);
    let gemma3 = layout(include_str!("fixtures/maxtext-gemma3-27b.yml"));
    assert_eq!(gemma3.layout, preset("gemma-3-27b").layout);
    assert!(matches!(gemma3.attention, shardcalc_core::model::Attention::Gqa(ref a) if a.qk_norm));
    let oss = layout(include_str!("fixtures/maxtext-gpt-oss-120b.yml"));
    assert_eq!(oss.layout, preset("gpt-oss-120b").layout);
    let llama4 = layout(include_str!("fixtures/maxtext-llama4-17b-16e.yml"));
    assert_eq!(llama4.layout, preset("llama-4-scout").layout);
    // MaxText's mistral block attends globally unless attention_type is local_sliding, so
    // its FLOPs differ from the Hugging Face model's 4096-token window (same parameters).
    let mistral = layout(include_str!("fixtures/maxtext-mistral-7b.yml"));
    assert_eq!(mistral.layout, shardcalc_core::model::AttentionLayout::default());
}

#[test]
fn every_fixture_file_imports() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") || name.ends_with(".yml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let imported = detect_and_import(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(imported.config.validate(), Ok(()), "{name}");
            let listed = HF.iter().any(|(f, ..)| *f == name)
                || MAXTEXT.iter().any(|(f, ..)| *f == name)
                || name == "hf-qwen2.5-7b.json";
            assert!(listed, "{name} has no count test");
            seen += 1;
        }
    }
    assert_eq!(seen, HF.len() + MAXTEXT.len() + 1);
}

#[test]
fn unknown_keys_are_warned_by_name() {
    let json = include_str!("fixtures/hf-llama-3-8b.json").replacen('{', "{\n  \"my_new_key\": 5,", 1);
    let m = from_hf_config_json(&json).unwrap();
    assert_eq!(warned_keys(&m), ["my_new_key"]);
    assert_eq!(total(&m.config), 8_030_261_248);

    let yaml = format!("{}my_new_key: 5\n", include_str!("fixtures/maxtext-llama2-7b.yml"));
    let m = from_maxtext_yaml(&yaml).unwrap();
    assert_eq!(warned_keys(&m), ["my_new_key"]);

    let nested =
        include_str!("fixtures/hf-gemma-3-27b.json").replace("\"head_dim\": 128,", "\"head_dim\": 128, \"odd\": 1,");
    let m = from_hf_config_json(&nested).unwrap();
    assert!(warned_keys(&m).contains(&"text_config.odd"), "{:?}", m.warnings);
}

#[test]
fn malformed_yaml_names_the_line() {
    let text = include_str!("fixtures/maxtext-llama2-7b.yml");
    let line = text.lines().position(|l| l.starts_with("base_mlp_dim")).unwrap() + 1;
    let broken = text.replace("base_mlp_dim: 11008", "base_mlp_dim 11008");
    match from_maxtext_yaml(&broken) {
        Err(ImportError::Syntax { line: Some(l), .. }) => assert_eq!(l, line),
        other => panic!("{other:?}"),
    }
}

#[test]
fn kv_heads_that_do_not_divide_heads_name_num_key_value_heads() {
    let text =
        include_str!("fixtures/hf-llama-3-8b.json").replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5");
    match from_hf_config_json(&text) {
        Err(ImportError::Field(invalid)) => {
            assert_eq!(invalid.0.len(), 1, "{invalid}");
            assert_eq!(invalid.0[0].field, "num_key_value_heads");
            assert!(invalid.0[0].message.contains("must divide"), "{invalid}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unsupported_families_and_keys_are_named() {
    let bert = r#"{"model_type": "bert", "hidden_size": 768}"#;
    assert!(matches!(from_hf_config_json(bert), Err(ImportError::Unsupported { key, .. }) if key == "model_type"));
    let dense_scattered =
        include_str!("fixtures/hf-qwen3-30b-a3b.json").replace("\"mlp_only_layers\": []", "\"mlp_only_layers\": [5]");
    assert!(matches!(
        from_hf_config_json(&dense_scattered),
        Err(ImportError::Unsupported { key, .. }) if key == "mlp_only_layers"
    ));
}

/// Deterministic pseudo-random text (xorshift), `n` bytes of printable ASCII and newlines.
fn garbage(n: usize, seed: u64) -> String {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let c = (x % 96) as u8;
            if c == 95 {
                '\n'
            } else {
                char::from(b' ' + c)
            }
        })
        .collect()
}

#[test]
fn adversarial_inputs_never_panic() {
    let mut inputs: Vec<String> = vec![
        String::new(),
        "{}".into(),
        "[]".into(),
        "null".into(),
        "\u{feff}".into(),
        "[".repeat(100_000),
        "{\"a\":".repeat(100_000),
        format!("k: {}", "[".repeat(100_000)),
        garbage(1 << 20, 1),
        garbage(1 << 20, 2).replace('\n', ":\n"),
        "a: [\n".repeat(50_000),
        "k:\n".to_owned() + &"  - [x]\n".repeat(50_000),
    ];
    // Every key of a real config, set to each hostile value.
    let hostile = ["1e300", "-1", "18446744073709551616", "\"4096\"", "null", "[]", "{}", "true", "0", "0.5"];
    let base: serde_json::Value = serde_json::from_str(include_str!("fixtures/hf-gpt-oss-120b.json")).unwrap();
    for key in base.as_object().unwrap().keys() {
        for value in hostile {
            let mut v = base.clone();
            v[key.as_str()] = serde_json::from_str(value).unwrap();
            inputs.push(v.to_string());
        }
    }
    let yaml = include_str!("fixtures/maxtext-deepseek3-671b.yml");
    for (i, line) in yaml.lines().enumerate() {
        if let Some((key, _)) = line.split_once(": ") {
            for value in ["1e300", "-1", "18446744073709551616", "\"x\"", "null", "[]", "true", "0"] {
                let mut lines: Vec<String> = yaml.lines().map(str::to_owned).collect();
                lines[i] = format!("{key}: {value}");
                inputs.push(lines.join("\n"));
            }
        }
    }
    let mut accepted = 0;
    for text in &inputs {
        let results = [detect_and_import(text), from_hf_config_json(text), from_maxtext_yaml(text)];
        for imported in results.into_iter().flatten() {
            // Whatever is accepted is a valid model with finite counts.
            assert_eq!(imported.config.validate(), Ok(()));
            assert!(count_params(&imported.config).total.get().is_finite());
            accepted += 1;
        }
    }
    // Mutations of ignorable keys (rope_theta, token ids, ...) still import.
    assert!(accepted > 0);
    for text in ["", "{}", "[]"] {
        assert!(detect_and_import(text).is_err(), "{text:?}");
    }
}
