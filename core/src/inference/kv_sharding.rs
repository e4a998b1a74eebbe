//! Sharding the KV cache over the model-parallel chips (book 7.3.3): by KV heads first,
//! `KV[2, B, S, K_Y, H]`, which stops at K ways; beyond that by batch
//! (`KV[2, B_Z, S, K_Y, H]`), by sequence, or not at all (replicated).

use super::options::KvSharding;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Greatest common divisor (0 with anything is the other number).
#[must_use]
pub fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How the KV cache of one replica is laid out over its `model_parallel` chips.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvLayout {
    /// K: distinct KV heads per layer (1 for MLA's shared latent).
    pub kv_heads: u64,
    /// Y: chips the model is split over.
    pub model_parallel: u64,
    /// Ways the heads are split: gcd(K, Y), so every chip holds whole heads.
    pub head_shards: u64,
    /// Y / head_shards: the rest, used by `mode`.
    pub other_shards: u64,
    /// What the rest does.
    pub mode: KvSharding,
    /// Copies of every cached byte: `other_shards` when replicated, else 1.
    pub replication: u64,
}

/// The layout for `kv_heads` heads on `model_parallel` chips (zeros count as 1).
#[must_use]
pub fn kv_layout(kv_heads: u64, model_parallel: u64, mode: KvSharding) -> KvLayout {
    let k = kv_heads.max(1);
    let y = model_parallel.max(1);
    let head_shards = gcd(k, y).max(1);
    let other_shards = y / head_shards;
    let replication = if mode == KvSharding::Replicate { other_shards } else { 1 };
    KvLayout { kv_heads: k, model_parallel: y, head_shards, other_shards, mode, replication }
}

impl KvLayout {
    /// Sequences whose cache (or cache shard) the busiest chip holds: ⌈B / rest⌉ when
    /// batch-sharded, B otherwise.
    #[must_use]
    pub fn sequences_per_chip(&self, batch: f64) -> f64 {
        match self.mode {
            KvSharding::Batch => (batch / self.other_shards as f64).ceil(),
            KvSharding::Sequence | KvSharding::Replicate => batch,
        }
    }

    /// Bytes of cache on (and read each decode step by) the busiest chip, for `batch`
    /// sequences of `per_sequence` bytes each.
    #[must_use]
    pub fn bytes_per_chip(&self, per_sequence: Bytes, batch: f64) -> Bytes {
        let split = match self.mode {
            KvSharding::Batch | KvSharding::Replicate => self.head_shards as f64,
            KvSharding::Sequence => self.model_parallel as f64,
        };
        per_sequence * self.sequences_per_chip(batch) / split
    }

    /// Bytes on the busiest chip beyond its fair share `B·per_sequence / Y`: the copies
    /// when replicated, the padding of ⌈B / rest⌉ when batch-sharded.
    #[must_use]
    pub fn wasted_bytes_per_chip(&self, per_sequence: Bytes, batch: f64) -> Bytes {
        let fair = per_sequence * batch / self.model_parallel as f64;
        (self.bytes_per_chip(per_sequence, batch) - fair).max(Bytes::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_first_then_the_mode() {
        // LLaMA 3-70B (K = 8) on a 4x4: 8 head shards, 2 batch shards, fully distributed.
        let l = kv_layout(8, 16, KvSharding::Batch);
        assert_eq!((l.head_shards, l.other_shards, l.replication), (8, 2, 1));
        let per_seq = Bytes(1.0e9);
        assert_eq!(l.bytes_per_chip(per_seq, 32.0).get(), 32.0e9 / 16.0);
        assert_eq!(l.wasted_bytes_per_chip(per_seq, 32.0), Bytes::ZERO);
        // Replicated instead: each chip reads twice its share.
        let r = kv_layout(8, 16, KvSharding::Replicate);
        assert_eq!(r.replication, 2);
        assert_eq!(r.bytes_per_chip(per_seq, 32.0).get(), 32.0e9 / 8.0);
        assert_eq!(r.wasted_bytes_per_chip(per_seq, 32.0).get(), 32.0e9 / 16.0);
    }

    #[test]
    fn tp_not_dividing_heads_uses_the_gcd() {
        // 8 KV heads on 6 chips: 2 head shards, 3 batch shards; a batch of 4 pads to 2 per shard.
        let l = kv_layout(8, 6, KvSharding::Batch);
        assert_eq!((l.head_shards, l.other_shards), (2, 3));
        assert_eq!(l.bytes_per_chip(Bytes(6.0), 4.0).get(), 2.0 * 6.0 / 2.0);
        assert!(l.wasted_bytes_per_chip(Bytes(6.0), 4.0).get() > 0.0);
        // MLA's single latent cannot be split by heads.
        let mla = kv_layout(1, 8, KvSharding::Sequence);
        assert_eq!(mla.bytes_per_chip(Bytes(8.0), 1.0).get(), 1.0);
        assert_eq!(kv_layout(0, 0, KvSharding::Batch).model_parallel, 1);
    }
}
