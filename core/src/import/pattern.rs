//! From a per-layer list of attention kinds to the shortest repeating [`AttentionLayout`].

use super::ImportError;
use crate::model::{AttentionLayout, LayerKind, LocalAttention, MAX_LAYERS, MAX_PATTERN};

/// The per-layer list `kind(i)` for `i < num_layers`.
///
/// # Errors
/// `num_layers` above the model limit, reported against `layers_key` (the list would be
/// too long to build, and validation would refuse the model anyway).
pub(crate) fn per_layer(
    num_layers: u64,
    layers_key: &str,
    kind: impl Fn(u64) -> LayerKind,
) -> Result<Vec<LayerKind>, ImportError> {
    if num_layers > MAX_LAYERS {
        return Err(ImportError::field(layers_key, format!("must be at most {MAX_LAYERS} (got {num_layers})")));
    }
    Ok((0..num_layers).map(kind).collect())
}

/// The shortest prefix `p` of `kinds` with `kinds[i] == p[i % p.len()]` for every `i`.
///
/// Uses the prefix function (Knuth–Morris–Pratt): the shortest period of a string of
/// length n is n − π(n − 1). Linear time, so a hostile 100k-entry list is cheap.
pub(crate) fn shortest_period(kinds: &[LayerKind]) -> &[LayerKind] {
    let n = kinds.len();
    if n == 0 {
        return kinds;
    }
    let mut pi = vec![0usize; n];
    for i in 1..n {
        let mut k = pi.get(i - 1).copied().unwrap_or(0);
        while k > 0 && kinds.get(i) != kinds.get(k) {
            k = pi.get(k - 1).copied().unwrap_or(0);
        }
        if kinds.get(i) == kinds.get(k) {
            k += 1;
        }
        if let Some(slot) = pi.get_mut(i) {
            *slot = k;
        }
    }
    let border = pi.last().copied().unwrap_or(0);
    kinds.get(..n - border).unwrap_or(kinds)
}

/// The layout for a per-layer list of kinds, whose local layers do `local`.
///
/// `list_key` names the key the list came from (for a pattern too long to represent);
/// `window_key` the key that should have given the window or chunk.
///
/// # Errors
/// A local layer without a window, or no repeat within [`MAX_PATTERN`] layers.
pub(crate) fn layout_from_layers(
    kinds: &[LayerKind],
    local: Option<LocalAttention>,
    list_key: &str,
    window_key: &str,
) -> Result<AttentionLayout, ImportError> {
    if !kinds.contains(&LayerKind::Local) {
        return Ok(AttentionLayout::default());
    }
    let Some(local) = local else {
        return Err(ImportError::field(
            window_key,
            "is required: some layers attend locally but no window or chunk size is given",
        ));
    };
    let pattern = shortest_period(kinds);
    if pattern.len() > MAX_PATTERN {
        return Err(ImportError::unsupported(
            list_key,
            format!(
                "the local/global layer pattern does not repeat within {MAX_PATTERN} layers \
                 (shortest period {}), which the model cannot represent",
                pattern.len()
            ),
        ));
    }
    Ok(AttentionLayout { local: Some(local), pattern: pattern.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use LayerKind::{Global as G, Local as L};

    #[test]
    fn periods() {
        assert_eq!(shortest_period(&[L, G, L, G, L, G]), &[L, G]);
        assert_eq!(shortest_period(&[L, L, L, L, L, G, L, L]), &[L, L, L, L, L, G]);
        assert_eq!(shortest_period(&[G, G, L]), &[G, G, L]);
        assert_eq!(shortest_period(&[L]), &[L]);
        assert!(shortest_period(&[]).is_empty());
    }

    #[test]
    fn period_reproduces_every_layer() {
        // Brute force over all lists up to length 10.
        for n in 1..=10u32 {
            for bits in 0..(1u32 << n) {
                let kinds: Vec<_> = (0..n).map(|i| if bits >> i & 1 == 1 { L } else { G }).collect();
                let p = shortest_period(&kinds);
                for (i, k) in kinds.iter().enumerate() {
                    assert_eq!(p[i % p.len()], *k, "{kinds:?}");
                }
                let brute =
                    (1..=kinds.len()).find(|&q| kinds.iter().enumerate().all(|(i, k)| kinds[i % q] == *k)).unwrap();
                assert_eq!(p.len(), brute, "{kinds:?}");
            }
        }
    }

    #[test]
    fn limits_match_validation() {
        let mut m = crate::presets::get("llama-3-8b").unwrap().config;
        m.layout =
            AttentionLayout { local: Some(LocalAttention::SlidingWindow { window: 8 }), pattern: vec![L; MAX_PATTERN] };
        m.num_layers = MAX_LAYERS;
        assert_eq!(m.validate(), Ok(()));
        m.layout.pattern.push(G);
        m.num_layers += 1;
        let e = m.validate().unwrap_err();
        assert!(e.for_field("layout.pattern").len() == 1 && e.for_field("num_layers").len() == 1, "{e}");
    }

    #[test]
    fn layouts() {
        let w = Some(LocalAttention::SlidingWindow { window: 8 });
        assert_eq!(layout_from_layers(&[G, G], w, "l", "w").unwrap(), AttentionLayout::default());
        let l = layout_from_layers(&[L, G, L, G], w, "l", "w").unwrap();
        assert_eq!(l.pattern, vec![L, G]);
        let e = layout_from_layers(&[L, G], None, "l", "w").unwrap_err();
        assert!(e.to_string().starts_with("w:"), "{e}");
        let mut long = vec![G; 300];
        long.push(L);
        let e = layout_from_layers(&long, w, "layer_types", "w").unwrap_err();
        assert!(matches!(e, ImportError::Unsupported { ref key, .. } if key == "layer_types"));
        assert!(per_layer(1 << 20, "num_hidden_layers", |_| G).is_err());
    }
}
