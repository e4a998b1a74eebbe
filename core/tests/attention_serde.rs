//! The hand-written `Deserialize` of `Attention` and `LocalAttention` (core/src/model/
//! attention_de.rs) accepts and refuses the same JSON objects as serde's internally tagged
//! derive it replaced, and decodes the same values. The derive is kept here, verbatim
//! (same attributes), as the reference each document is checked against.
#![allow(clippy::unwrap_used)] // A test that cannot unwrap has failed; the panic says why.

use serde::Deserialize;
use shardcalc_core::model::{Attention, GqaAttention, LocalAttention, MlaAttention};

/// `Attention` as it was derived before session 13.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum OldAttention {
    Gqa(GqaAttention),
    Mla(MlaAttention),
}

impl From<OldAttention> for Attention {
    fn from(a: OldAttention) -> Self {
        match a {
            OldAttention::Gqa(g) => Attention::Gqa(g),
            OldAttention::Mla(m) => Attention::Mla(m),
        }
    }
}

/// `LocalAttention` as it was derived before session 13.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum OldLocal {
    SlidingWindow { window: u64 },
    Chunked { chunk: u64 },
}

impl From<OldLocal> for LocalAttention {
    fn from(l: OldLocal) -> Self {
        match l {
            OldLocal::SlidingWindow { window } => LocalAttention::SlidingWindow { window },
            OldLocal::Chunked { chunk } => LocalAttention::Chunked { chunk },
        }
    }
}

/// Checks that the old and the new impl agree on `doc`; returns whether it was accepted.
fn agree<Old, New>(doc: &str) -> bool
where
    Old: for<'de> Deserialize<'de> + Into<New>,
    New: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let old = serde_json::from_str::<Old>(doc).map(Into::into);
    let new = serde_json::from_str::<New>(doc);
    match (old, new) {
        (Ok(o), Ok(n)) => {
            assert_eq!(o, n, "different values for {doc}");
            true
        }
        (Err(_), Err(_)) => false,
        (o, n) => panic!("old {o:?} but new {n:?} for {doc}"),
    }
}

const GQA: &str = r#""num_heads": 32, "num_kv_heads": 8, "head_dim": 128"#;
const MLA: &str =
    r#""num_heads": 128, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128"#;

#[test]
fn attention_accepts_what_the_derive_accepted() {
    let accepted = [
        format!(r#"{{"type": "gqa", {GQA}}}"#),
        format!(r#"{{{GQA}, "type": "gqa"}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "qk_norm": true, "bias": "qkv_o", "sinks": true}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "bias": "qkv", "qk_norm": false}}"#),
        format!(r#"{{"type": "mla", {MLA}}}"#),
        format!(r#"{{"type": "mla", {MLA}, "q_lora_rank": 1536}}"#),
        format!(r#"{{"q_lora_rank": null, {MLA}, "type": "mla"}}"#),
        r#"{"type": "gqa", "num_heads": 18446744073709551615, "num_kv_heads": 0, "head_dim": 1}"#.to_owned(),
    ];
    for doc in &accepted {
        assert!(agree::<OldAttention, Attention>(doc), "refused {doc}");
    }
    // The decoded values themselves, not only agreement.
    let a: Attention = serde_json::from_str(&accepted[2]).unwrap();
    assert_eq!(
        a,
        Attention::Gqa(GqaAttention {
            num_heads: 32,
            num_kv_heads: 8,
            head_dim: 128,
            qk_norm: true,
            bias: shardcalc_core::model::AttentionBias::QkvO,
            sinks: true
        })
    );
    let m: Attention = serde_json::from_str(&accepted[5]).unwrap();
    assert_eq!(
        m,
        Attention::Mla(MlaAttention {
            num_heads: 128,
            q_lora_rank: Some(1536),
            kv_lora_rank: 512,
            qk_nope_head_dim: 128,
            qk_rope_head_dim: 64,
            v_head_dim: 128
        })
    );
}

#[test]
fn attention_refuses_what_the_derive_refused() {
    let refused = [
        // missing, unknown, wrong-typed or duplicate `type`
        format!(r#"{{{GQA}}}"#),
        format!(r#"{{"type": "mha", {GQA}}}"#),
        format!(r#"{{"type": "GQA", {GQA}}}"#),
        format!(r#"{{"type": 0, {GQA}}}"#),
        format!(r#"{{"type": null, {GQA}}}"#),
        format!(r#"{{"type": "gqa", "type": "gqa", {GQA}}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "type": "mla"}}"#),
        // unknown fields
        format!(r#"{{"type": "gqa", {GQA}, "rope_theta": 10000}}"#),
        format!(r#"{{"type": "mla", {MLA}, "extra": null}}"#),
        // fields of the other variant (also with null / the default value)
        format!(r#"{{"type": "gqa", {GQA}, "q_lora_rank": null}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "kv_lora_rank": 512}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "v_head_dim": 128}}"#),
        format!(r#"{{"type": "mla", {MLA}, "head_dim": 128}}"#),
        format!(r#"{{"type": "mla", {MLA}, "num_kv_heads": 1}}"#),
        format!(r#"{{"type": "mla", {MLA}, "qk_norm": false}}"#),
        format!(r#"{{"type": "mla", {MLA}, "bias": "none"}}"#),
        format!(r#"{{"type": "mla", {MLA}, "sinks": false}}"#),
        // missing required fields
        r#"{"type": "gqa", "num_heads": 32, "num_kv_heads": 8}"#.to_owned(),
        r#"{"type": "gqa", "num_kv_heads": 8, "head_dim": 128}"#.to_owned(),
        r#"{"type": "mla", "num_heads": 128, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64}"#
            .to_owned(),
        r#"{"type": "mla"}"#.to_owned(),
        // duplicate fields
        format!(r#"{{"type": "gqa", {GQA}, "head_dim": 64}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "sinks": true, "sinks": true}}"#),
        format!(r#"{{"type": "mla", {MLA}, "q_lora_rank": 1, "q_lora_rank": null}}"#),
        // wrong value types
        r#"{"type": "gqa", "num_heads": "32", "num_kv_heads": 8, "head_dim": 128}"#.to_owned(),
        r#"{"type": "gqa", "num_heads": 32.0, "num_kv_heads": 8, "head_dim": 128}"#.to_owned(),
        r#"{"type": "gqa", "num_heads": -1, "num_kv_heads": 8, "head_dim": 128}"#.to_owned(),
        r#"{"type": "gqa", "num_heads": 18446744073709551616, "num_kv_heads": 8, "head_dim": 128}"#.to_owned(),
        format!(r#"{{"type": "gqa", {GQA}, "qk_norm": 1}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "qk_norm": null}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "bias": "qkvo"}}"#),
        format!(r#"{{"type": "gqa", {GQA}, "bias": null}}"#),
        format!(r#"{{"type": "mla", {MLA}, "q_lora_rank": "1536"}}"#),
        // not an object
        r#""gqa""#.to_owned(),
        "null".to_owned(),
        "{}".to_owned(),
        r#"{"type": "gqa", "num_heads": 32"#.to_owned(),
    ];
    for doc in &refused {
        assert!(!agree::<OldAttention, Attention>(doc), "accepted {doc}");
    }
}

/// The one deliberate difference: the derive also read an array `["gqa", fields in
/// order…]`; nothing writes that form, and the new impl refuses it.
#[test]
fn attention_array_form_is_no_longer_read() {
    let doc = r#"["gqa", 32, 8, 128, false, "none", false]"#;
    assert!(serde_json::from_str::<OldAttention>(doc).is_ok());
    assert!(serde_json::from_str::<Attention>(doc).is_err());
}

#[test]
fn local_attention_agrees_with_the_derive() {
    let accepted = [
        r#"{"type": "sliding_window", "window": 4096}"#,
        r#"{"window": 4096, "type": "sliding_window"}"#,
        r#"{"type": "chunked", "chunk": 8192}"#,
        r#"{"chunk": 0, "type": "chunked"}"#,
    ];
    for doc in accepted {
        assert!(agree::<OldLocal, LocalAttention>(doc), "refused {doc}");
    }
    assert_eq!(
        serde_json::from_str::<LocalAttention>(accepted[1]).unwrap(),
        LocalAttention::SlidingWindow { window: 4096 }
    );
    assert_eq!(serde_json::from_str::<LocalAttention>(accepted[2]).unwrap(), LocalAttention::Chunked { chunk: 8192 });
    let refused = [
        r#"{"window": 4096}"#,
        r#"{"type": "sliding", "window": 4096}"#,
        r#"{"type": "global"}"#,
        r#"{"type": 1, "window": 4096}"#,
        r#"{"type": "sliding_window"}"#,
        r#"{"type": "chunked"}"#,
        r#"{"type": "sliding_window", "window": 4096, "chunk": 8192}"#,
        r#"{"type": "chunked", "chunk": 8192, "window": null}"#,
        r#"{"type": "sliding_window", "window": 4096, "size": 1}"#,
        r#"{"type": "sliding_window", "window": 4096, "window": 4096}"#,
        r#"{"type": "sliding_window", "type": "sliding_window", "window": 4096}"#,
        r#"{"type": "sliding_window", "window": "4096"}"#,
        r#"{"type": "sliding_window", "window": -1}"#,
        r#"{"type": "sliding_window", "window": 1.5}"#,
        r#"{"type": "sliding_window", "window": null}"#,
        r#""sliding_window""#,
        "null",
        "[]",
    ];
    for doc in refused {
        assert!(!agree::<OldLocal, LocalAttention>(doc), "accepted {doc}");
    }
}
