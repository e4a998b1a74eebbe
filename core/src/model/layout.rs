//! Global versus local attention per layer: sliding windows (Mistral v0.1, Gemma 2/3,
//! gpt-oss) and chunked attention (Llama 4), in a repeating layer pattern.

use serde::{Deserialize, Serialize};

// JSON: `{"type": "sliding_window", "window": n}` or `{"type": "chunked", "chunk": n}`.
// Read by a hand-written `Deserialize` (attention_de.rs) rather than serde's internally
// tagged derive, which buffers the object; `Serialize` and the schema are derived. (A
// plain comment: the doc comment is the schema's description.)
/// What the local layers of a model do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LocalAttention {
    /// Each query attends to at most the previous `window` tokens.
    SlidingWindow {
        /// Window length in tokens.
        window: u64,
    },
    /// The sequence is cut into chunks of `chunk` tokens; queries attend within their
    /// chunk only (Llama 4's chunked attention).
    Chunked {
        /// Chunk length in tokens.
        chunk: u64,
    },
}

/// Whether a layer attends over the whole context or locally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    /// Full (causal) attention over the whole context.
    Global,
    /// Sliding-window or chunked attention, as given by [`AttentionLayout::local`].
    Local,
}
crate::serde_names::deserialize_by_name!(LayerKind { Global => "global", Local => "local" });

/// The attention pattern over layers: layer `i` has kind `pattern[i % pattern.len()]`.
///
/// Gemma 2 is `[local, global]`, Gemma 3 `[local ×5, global]`, Llama 4 `[local ×3,
/// global]` with chunks, Mistral 7B v0.1 `[local]` with a 4096 window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AttentionLayout {
    /// What local layers do; required when the pattern has a local layer.
    #[serde(default)]
    pub local: Option<LocalAttention>,
    /// The repeating pattern; `[global]` when every layer is global.
    #[serde(default = "global_only")]
    pub pattern: Vec<LayerKind>,
}

fn global_only() -> Vec<LayerKind> {
    vec![LayerKind::Global]
}

impl Default for AttentionLayout {
    fn default() -> Self {
        Self { local: None, pattern: global_only() }
    }
}

impl AttentionLayout {
    /// A pattern of `locals` local layers followed by one global layer, repeated.
    #[must_use]
    pub fn locals_then_global(local: LocalAttention, locals: usize) -> Self {
        let mut pattern = vec![LayerKind::Local; locals];
        pattern.push(LayerKind::Global);
        Self { local: Some(local), pattern }
    }

    /// Every layer local.
    #[must_use]
    pub fn all_local(local: LocalAttention) -> Self {
        Self { local: Some(local), pattern: vec![LayerKind::Local] }
    }

    /// How many of `num_layers` layers are (global, local).
    ///
    /// Matches MaxText's counting (`num_global = L // pattern_length` for a pattern that
    /// ends in its only global layer).
    #[must_use]
    pub fn counts(&self, num_layers: u64) -> (u64, u64) {
        let p = self.pattern.len() as u64;
        if p == 0 {
            return (num_layers, 0);
        }
        let local_in = |slice: &[LayerKind]| -> u64 { slice.iter().filter(|k| **k == LayerKind::Local).count() as u64 };
        let full = num_layers / p;
        // proof: the remainder is < p = pattern.len(), so the slice bound is in range.
        let rem = usize::try_from(num_layers % p).unwrap_or(0).min(self.pattern.len());
        let local = full * local_in(&self.pattern) + local_in(&self.pattern[..rem]);
        (num_layers - local, local)
    }

    /// The kind of layer `i`.
    #[must_use]
    pub fn kind_of(&self, i: u64) -> LayerKind {
        if self.pattern.is_empty() {
            return LayerKind::Global;
        }
        let idx = usize::try_from(i % self.pattern.len() as u64).unwrap_or(0);
        self.pattern.get(idx).copied().unwrap_or(LayerKind::Global)
    }

    /// `n` when the pattern repeats n local layers then one global layer (`LLLLLG` → 5,
    /// `G` → 0, `LGLG` → 1, since it repeats `LG`).
    #[must_use]
    pub fn locals_per_global(&self) -> Option<u64> {
        let unit = self.pattern.get(..minimal_period(&self.pattern))?;
        let (last, rest) = unit.split_last()?;
        (*last == LayerKind::Global && rest.iter().all(|k| *k == LayerKind::Local)).then_some(rest.len() as u64)
    }

    /// Keys a query attends to at most in a local layer with context `t` (the KV-cache
    /// cap for local layers, book 7 and Gemma/Mistral docs).
    #[must_use]
    pub fn local_span(&self, t: u64) -> u64 {
        match self.local {
            Some(LocalAttention::SlidingWindow { window }) => window.min(t),
            Some(LocalAttention::Chunked { chunk }) => chunk.min(t),
            None => t,
        }
    }
}

/// Length of the shortest prefix whose repetition is the pattern (layer `i` has kind
/// `pattern[i % len]`, so repeating a whole pattern changes nothing; the period divides the
/// length, unlike an imported list of layers, `import::pattern`).
#[must_use]
pub fn minimal_period(pattern: &[LayerKind]) -> usize {
    let n = pattern.len();
    (1..=n)
        .find(|&p| n.is_multiple_of(p) && pattern.iter().zip(pattern.iter().cycle().skip(p)).all(|(a, b)| a == b))
        .unwrap_or(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_per_global_reads_the_repeating_unit() {
        use LayerKind::{Global as G, Local as L};
        let of = |p: Vec<LayerKind>| AttentionLayout { local: None, pattern: p }.locals_per_global();
        assert_eq!(of(vec![L, L, L, L, L, G]), Some(5));
        assert_eq!(of(vec![G]), Some(0));
        assert_eq!(of(vec![L, G, L, G]), Some(1));
        assert_eq!(of(vec![G, L]), None);
        assert_eq!(of(vec![]), None);
        assert_eq!(minimal_period(&[L, G, L]), 3);
    }

    #[test]
    fn gemma3_27b_has_10_global_layers() {
        // 62 layers, five local : one global -> 62 // 6 = 10 global (MaxText, HF).
        let l = AttentionLayout::locals_then_global(LocalAttention::SlidingWindow { window: 1024 }, 5);
        assert_eq!(l.counts(62), (10, 52));
    }

    #[test]
    fn llama4_scout_has_12_global_layers() {
        let l = AttentionLayout::locals_then_global(LocalAttention::Chunked { chunk: 8192 }, 3);
        assert_eq!(l.counts(48), (12, 36));
    }

    #[test]
    fn counts_match_kind_of() {
        let l = AttentionLayout {
            local: Some(LocalAttention::SlidingWindow { window: 8 }),
            pattern: vec![LayerKind::Local, LayerKind::Global, LayerKind::Local],
        };
        for n in 0..50u64 {
            let local = (0..n).filter(|i| l.kind_of(*i) == LayerKind::Local).count() as u64;
            assert_eq!(l.counts(n), (n - local, local));
        }
    }

    #[test]
    fn default_is_all_global() {
        assert_eq!(AttentionLayout::default().counts(80), (80, 0));
    }
}
