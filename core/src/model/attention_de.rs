//! Hand-written `Deserialize` for the two internally tagged attention enums, [`Attention`]
//! (`"type": "gqa" | "mla"`) and [`LocalAttention`] (`"type": "sliding_window" |
//! "chunked"`). serde's derive for `tag = "type"` buffers the whole object into its
//! `Content` type first, which costs every page several KB of wasm (docs/size.md,
//! "Scenario serde, session 13"). These visitors read the object once, field by field,
//! and accept and refuse the same JSON objects as the derive did: unknown, duplicate and
//! missing fields, a missing or unknown `type` and a field of the other variant are
//! errors; optional fields default as in the variant structs. (Unlike the derive, the
//! array form `["gqa", …]` is not accepted; nothing writes it.)

use super::{Attention, AttentionBias, GqaAttention, LocalAttention, MlaAttention};
use crate::serde_names::fill;
use serde::de::{Deserialize, Deserializer, Error, MapAccess, Visitor};
use std::fmt;

/// Every field of either [`Attention`] variant, as written in JSON.
const ATTENTION_FIELDS: &[&str] = &[
    "type",
    "num_heads",
    "num_kv_heads",
    "head_dim",
    "qk_norm",
    "bias",
    "sinks",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
];

/// The variants' tags.
const ATTENTION_TYPES: &[&str] = &["gqa", "mla"];
const LOCAL_TYPES: &[&str] = &["sliding_window", "chunked"];
const LOCAL_FIELDS: &[&str] = &["type", "window", "chunk"];

/// A required field's value, or `missing_field`.
fn required<E: Error, T>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// Refuses a field that the chosen variant does not have, as the variant struct's
/// `deny_unknown_fields` did.
fn absent<E: Error>(present: bool, name: &'static str, expected: &'static [&'static str]) -> Result<(), E> {
    if present {
        Err(E::unknown_field(name, expected))
    } else {
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Attention {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AttentionVisitor)
    }
}

/// See the module comment.
struct AttentionVisitor;

impl<'de> Visitor<'de> for AttentionVisitor {
    type Value = Attention;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attention object with a \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Attention, A::Error> {
        let mut kind: Option<String> = None;
        let (mut num_heads, mut num_kv_heads, mut head_dim) = (None::<u64>, None::<u64>, None::<u64>);
        let (mut qk_norm, mut sinks, mut bias) = (None::<bool>, None::<bool>, None::<AttentionBias>);
        let mut q_lora_rank: Option<Option<u64>> = None;
        let (mut kv_lora_rank, mut qk_nope, mut qk_rope, mut v_head_dim) =
            (None::<u64>, None::<u64>, None::<u64>, None::<u64>);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => fill(&mut map, &mut kind, "type")?,
                "num_heads" => fill(&mut map, &mut num_heads, "num_heads")?,
                "num_kv_heads" => fill(&mut map, &mut num_kv_heads, "num_kv_heads")?,
                "head_dim" => fill(&mut map, &mut head_dim, "head_dim")?,
                "qk_norm" => fill(&mut map, &mut qk_norm, "qk_norm")?,
                "bias" => fill(&mut map, &mut bias, "bias")?,
                "sinks" => fill(&mut map, &mut sinks, "sinks")?,
                "q_lora_rank" => fill(&mut map, &mut q_lora_rank, "q_lora_rank")?,
                "kv_lora_rank" => fill(&mut map, &mut kv_lora_rank, "kv_lora_rank")?,
                "qk_nope_head_dim" => fill(&mut map, &mut qk_nope, "qk_nope_head_dim")?,
                "qk_rope_head_dim" => fill(&mut map, &mut qk_rope, "qk_rope_head_dim")?,
                "v_head_dim" => fill(&mut map, &mut v_head_dim, "v_head_dim")?,
                other => return Err(A::Error::unknown_field(other, ATTENTION_FIELDS)),
            }
        }
        let kind = required(kind, "type")?;
        match kind.as_str() {
            "gqa" => {
                const GQA: &[&str] = &["type", "num_heads", "num_kv_heads", "head_dim", "qk_norm", "bias", "sinks"];
                absent(q_lora_rank.is_some(), "q_lora_rank", GQA)?;
                absent(kv_lora_rank.is_some(), "kv_lora_rank", GQA)?;
                absent(qk_nope.is_some(), "qk_nope_head_dim", GQA)?;
                absent(qk_rope.is_some(), "qk_rope_head_dim", GQA)?;
                absent(v_head_dim.is_some(), "v_head_dim", GQA)?;
                Ok(Attention::Gqa(GqaAttention {
                    num_heads: required(num_heads, "num_heads")?,
                    num_kv_heads: required(num_kv_heads, "num_kv_heads")?,
                    head_dim: required(head_dim, "head_dim")?,
                    qk_norm: qk_norm.unwrap_or(false),
                    bias: bias.unwrap_or_default(),
                    sinks: sinks.unwrap_or(false),
                }))
            }
            "mla" => {
                const MLA: &[&str] = &[
                    "type",
                    "num_heads",
                    "q_lora_rank",
                    "kv_lora_rank",
                    "qk_nope_head_dim",
                    "qk_rope_head_dim",
                    "v_head_dim",
                ];
                absent(num_kv_heads.is_some(), "num_kv_heads", MLA)?;
                absent(head_dim.is_some(), "head_dim", MLA)?;
                absent(qk_norm.is_some(), "qk_norm", MLA)?;
                absent(bias.is_some(), "bias", MLA)?;
                absent(sinks.is_some(), "sinks", MLA)?;
                Ok(Attention::Mla(MlaAttention {
                    num_heads: required(num_heads, "num_heads")?,
                    q_lora_rank: q_lora_rank.flatten(),
                    kv_lora_rank: required(kv_lora_rank, "kv_lora_rank")?,
                    qk_nope_head_dim: required(qk_nope, "qk_nope_head_dim")?,
                    qk_rope_head_dim: required(qk_rope, "qk_rope_head_dim")?,
                    v_head_dim: required(v_head_dim, "v_head_dim")?,
                }))
            }
            other => Err(A::Error::unknown_variant(other, ATTENTION_TYPES)),
        }
    }
}

impl<'de> Deserialize<'de> for LocalAttention {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(LocalAttentionVisitor)
    }
}

/// See the module comment.
struct LocalAttentionVisitor;

impl<'de> Visitor<'de> for LocalAttentionVisitor {
    type Value = LocalAttention;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a local attention object with a \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LocalAttention, A::Error> {
        let (mut kind, mut window, mut chunk) = (None::<String>, None::<u64>, None::<u64>);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => fill(&mut map, &mut kind, "type")?,
                "window" => fill(&mut map, &mut window, "window")?,
                "chunk" => fill(&mut map, &mut chunk, "chunk")?,
                other => return Err(A::Error::unknown_field(other, LOCAL_FIELDS)),
            }
        }
        match required(kind, "type")?.as_str() {
            "sliding_window" => {
                absent(chunk.is_some(), "chunk", &["type", "window"])?;
                Ok(LocalAttention::SlidingWindow { window: required(window, "window")? })
            }
            "chunked" => {
                absent(window.is_some(), "window", &["type", "chunk"])?;
                Ok(LocalAttention::Chunked { chunk: required(chunk, "chunk")? })
            }
            other => Err(A::Error::unknown_variant(other, LOCAL_TYPES)),
        }
    }
}
